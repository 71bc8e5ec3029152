/* The sandbox of exec_command's commands (Linux): Landlock for the
 * filesystem, a seccomp filter for the network, and a private mount
 * namespace that keeps .git and .vtcode read-only inside writable roots.
 * Everything that allocates or can fail slowly happens in the parent
 * (sandbox_prepare); the child only makes system calls (sandbox_enter),
 * because the host is multi-threaded and the child runs between fork and
 * exec. */
#ifndef VTHOST_EXEC_SANDBOX_H
#define VTHOST_EXEC_SANDBOX_H

#include <stddef.h>
#include <cjson/cJSON.h>

typedef enum sandbox_mode {
    SANDBOX_WORKSPACE_WRITE = 0,
    SANDBOX_READ_ONLY = 1,
    SANDBOX_FULL_ACCESS = 2   /* danger-full-access: no sandbox */
} sandbox_mode;

typedef struct sandbox_config {
    sandbox_mode mode;
    char **writable_roots;    /* extra roots, absolute and canonical */
    size_t nwritable;
    int network_access;       /* default 0 */
    int fallback_unsandboxed; /* run unsandboxed (with a warning) when
                                 Landlock is unavailable */
} sandbox_config;

/* Read [sandbox] from the configuration tree.  A wrong type or value is
 * an error naming the key (*err, malloc'd). */
int sandbox_config_parse(const cJSON *config, sandbox_config *out, char **err);
void sandbox_config_free(sandbox_config *c);
const char *sandbox_mode_name(sandbox_mode m);

typedef struct sandbox sandbox;

/* Prepare the confinement of commands run in `workspace` under `cfg`.
 * *out is NULL for danger-full-access.  When the kernel lacks Landlock,
 * fails with a clear *err unless the config allows the fallback; then
 * *out is NULL and *warning says so.  *warning (malloc'd or NULL) also
 * reports protections this machine cannot give (read-only .git without
 * user namespaces). */
int sandbox_prepare(const sandbox_config *cfg, const char *workspace, sandbox **out,
                    char **warning, char **err);
void sandbox_free(sandbox *sb);

/* In the child, before exec: no_new_privs, mount namespace, Landlock,
 * seccomp.  Async-signal-safe.  `ruleset_fd` is the Landlock ruleset as
 * the child holds it (a child that closes descriptors moves it first; see
 * sandbox_ruleset_fd), or -1 for where the parent keeps it.  Returns 0 or
 * -errno; on failure *what names the step. */
int sandbox_enter(const sandbox *sb, int ruleset_fd, const char **what);
/* The descriptor of the prepared Landlock ruleset (close-on-exec). */
int sandbox_ruleset_fd(const sandbox *sb);

/* The best Landlock ABI the kernel offers (0 when none). */
int sandbox_landlock_abi(void);

/* Denial detection over streamed output: feed every chunk; reports 1 once
 * a sandbox-denial message (EACCES/EPERM/EROFS wording, refused sockets)
 * was seen. */
typedef struct sandbox_denial_scan {
    char carry[64];
    size_t ncarry;
    int seen;
} sandbox_denial_scan;
void sandbox_denial_feed(sandbox_denial_scan *s, const char *buf, size_t len);

#endif
