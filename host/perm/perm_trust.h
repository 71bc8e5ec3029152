/* Workspace trust: the user's vtcode.toml lists the workspaces whose own
 * allow rules, auto settings and permissive agents may apply:
 *     [trust]
 *     workspaces = ["/home/me/src/project"]
 * `vthost trust [DIR]` adds one. */
#ifndef VTHOST_PERM_TRUST_H
#define VTHOST_PERM_TRUST_H

#include <cjson/cJSON.h>

/* The user's vtcode.toml path ($XDG_CONFIG_HOME/vtcode/vtcode.toml, else
 * ~/.config/vtcode/vtcode.toml); malloc'd, or NULL without a home. */
char *perm_trust_user_config(void);

/* [trust] has the expected shape (workspaces: an array of strings, no
 * other key); else VT_ERR_INVALID and *err naming file and line. */
int perm_trust_check(const cJSON *tree, const char *path, char **err);

/* 1 when `workspace` (canonical) is listed in the tree's [trust]. */
int perm_trust_listed(const cJSON *tree, const char *workspace);

/* Add `dir` (made canonical) to the user's trust list, creating the file
 * when needed and keeping the rest of it byte for byte.  0 with *msg
 * (malloc'd) saying what was done; else an error with *msg. */
int perm_trust_add(const char *dir, char **msg);

/* A workspace vtcode.toml a command made and the exec plugin could not
 * set aside is recorded under $XDG_STATE_HOME/vthost/refused/<dev>-<ino>
 * (plugins/exec/sandbox.c).  The record's path (malloc'd) when `path`
 * (not followed) is such a file, else NULL. */
char *perm_trust_refused(const char *path);

/* Remove the record of `path` when there is one (`vthost trust`, after
 * the user reviewed the file).  1 when one was removed. */
int perm_trust_refused_clear(const char *path);

#endif
