/* What git runs programs from in the git directories a workspace already
 * has: config, config.worktree, commondir, the hooks directory and each
 * hook in it, stamped (ws_stamp.h) so that a later look tells which git
 * directories had one of them written, replaced, made or removed.
 *
 * Where the sandbox has mount namespaces these are read-only to
 * commands; where it is Landlock alone (a machine without unprivileged
 * user namespaces) a command, or a session still running after its call
 * returned, can arm the user's own repository with a core.fsmonitor or a
 * hook.  The after-call check (ws_changes.h, WS_CH_ARMED) neutralises a
 * git directory this finds changed.  A config file counts as changed
 * when the keys that name programs (what gitneutral.h would remove) or
 * their values differ, so that git's own writes (an upstream set, a
 * remote added) are not taken for an attack. */
#ifndef VTHOST_WS_ARMED_H
#define VTHOST_WS_ARMED_H

#include <cjson/cJSON.h>

typedef struct ws_armed ws_armed;

/* Stamp the git directories of `repos` (ws_index_repositories: those of
 * kind "dir"; borrowed).  *out NULL when there is none.  0 or
 * VT_ERR_NOMEM. */
int ws_armed_begin(const cJSON *repos, ws_armed **out);

/* Each git directory whose stamps changed since, once, to `fn` (its
 * absolute path); frees `a` (may be NULL). */
void ws_armed_end(ws_armed *a, void (*fn)(void *ctx, const char *gitdir), void *ctx);

#endif
