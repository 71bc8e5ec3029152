/* Plugin discovery and loading. */
#ifndef VTHOST_LOADER_H
#define VTHOST_LOADER_H

#include <stddef.h>
#include <vthost/plugin.h>

typedef enum plugin_state {
    PLUGIN_FOUND = 0,   /* seen on disk, not loaded yet */
    PLUGIN_LOADED = 1,  /* descriptor accepted, init succeeded */
    PLUGIN_REFUSED = 2, /* see refusal */
    PLUGIN_UNOPENED = 3 /* left closed: the profile does not offer its tools */
} plugin_state;

typedef struct plugin_module {
    char *stem; /* file name without .so: the module name */
    char *path; /* absolute path of the .so */
    void *handle;
    const vt_plugin *desc;
    plugin_state state;
    char *refusal;   /* why it was refused (malloc'd) */
    int in_profile;  /* the active profile names this module */
    int initialized; /* init ran successfully (fini is owed) */
    int init_status; /* what a failed init returned (VT_ERR_INVALID:
                               it refused its configuration), else 0 */
    size_t load_order;
} plugin_module;

/* Scan each directory for *.so modules (the first directory that has a
 * given module name wins; later copies are recorded as shadowed). */
int loader_scan(const char *const *dirs, size_t ndirs);
/* Read every found module's descriptor and register its tools, running
 * no plugin code beyond the entry function: what the permission engine
 * needs from the descriptors is known before init.  Refusals are
 * recorded, not fatal. */
int loader_read_all(void);
/* Leave a found module closed (PLUGIN_UNOPENED): the profile says its
 * tools are gated to other profiles.  Nothing of it is read or run. */
void loader_leave_unopened(plugin_module *m);
/* Load every found module: loader_read_all if not done, then dependency
 * order and init (which receives `api`, the host's table: borrowed, it
 * must outlive the modules).  Refusals are recorded, not fatal. */
int loader_load_all(const vt_host_api *api);
/* Run fini in reverse load order. */
void loader_fini_all(void);
/* dlclose every module and forget them; with `keep_mapped` (the process
 * is about to exit) the modules stay mapped for the exit to unmap:
 * dlclose's bookkeeping and unmapping cost about a sixth of a bare
 * start.  Call it once no hook of theirs runs any more
 * (registry_dynamic_quiesce). */
void loader_unmap_all(int keep_mapped);

plugin_module *loader_find(const char *stem);
size_t loader_count(void);
plugin_module *loader_at(size_t i);

/* Checks of a descriptor without running plugin code; NULL when it is
 * acceptable, else a malloc'd reason.  Exposed for unit tests. */
char *loader_check_descriptor(const vt_plugin *d);

/* The declared configuration keys (ABI 1.16), checked without running
 * plugin code: NULL when acceptable (or none declared), else a malloc'd
 * reason.  loader_check_descriptor calls it. */
char *loader_check_config_keys(const vt_plugin *d);
/* The i-th declared key of a checked descriptor, or NULL past the end
 * (entries are sizeof_config_key apart). */
const vt_config_key *loader_config_key_at(const vt_plugin *d, size_t i);

#endif
