/* Host-wide state: options, workspace, configuration, lifecycle. */
#ifndef VTHOST_HOST_H
#define VTHOST_HOST_H

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <vthost/plugin.h>
#include "log.h" /* host_log, host_set_log_sink: util/log.c */

#define VTHOST_VERSION "0.1.0"

typedef struct host_options {
    const char *workspace;          /* NULL: current directory */
    const char *profile;            /* NULL: vtcode.toml [tools] profile, else default */
    const char *config_path;        /* --config: a layer over the user's and the workspace's */
    const char *agent;              /* NULL: embedded default agent */
    const char *const *plugin_dirs; /* extra --plugin-dir entries */
    size_t plugin_dir_count;
    const char *exe_path; /* argv[0] or /proc/self/exe */
    int log_level;        /* enum vt_log_level threshold for stderr */
    const char *approval; /* --approval preset, or NULL (config, else ask) */
    int serve;            /* vthost serve: the workspace index follows
                                   changes by inotify (else: one-shot cache) */
    int list_only;        /* a profile that cannot load still leaves the
                                   loader's listing open (see host_listing_open) */
} host_options;

/* Loads configuration, the profile and its plugins.  On failure *err is
 * a malloc'd message for the user. */
int host_open(const host_options *opts, char **err);
/* 1 when the last host_open failed on the configuration (a policy or
 * vtcode.toml mistake): the CLI exits 2. */
int host_config_failed(void);
/* Logs a line when an untrusted workspace's grants are ignored, and one
 * naming the keys of its vtcode.toml left unread. */
void host_warn_untrusted(void);
/* Those keys ("mcp, tools.profile, ..."; borrowed until host_close), or
 * NULL when nothing was ignored. */
const char *host_ignored_config(void);
/* After host_open failed with list_only: whether the modules and tools
 * found can still be listed (the error was the profile's). */
int host_listing_open(void);
/* Ends plugins (fini in reverse order) and frees everything. */
void host_close(void);
/* host_close for a process about to exit: the same, but the modules stay
 * mapped for the exit to unmap (unmapping them one by one costs about a
 * tenth of a one-shot start). */
void host_close_at_exit(void);

const char *host_workspace(void); /* canonical absolute root */
const cJSON *host_config(void);   /* vtcode.toml tree, or {} */
const char *host_profile_name(void);
/* The active profile (borrowed until host_close). */
struct profile;
const struct profile *host_profile(void);
/* The table plugins receive (host_open hands it to the loader).  Host
 * code below core calls the functions behind it directly; tests use it
 * to reach plugin services. */
const vt_host_api *host_api(void);

/* Plugin directories searched, in order. */
size_t host_plugin_dir_count(void);
const char *host_plugin_dir(size_t i);

#endif
