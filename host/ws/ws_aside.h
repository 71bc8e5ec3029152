/* Where the host puts what a tool call left behind that must not act:
 * the workspace's .vtcode/set-aside/, made when missing.  Nothing is
 * deleted: originals are moved there and named in the call's result.
 * Fail closed: when that directory cannot be used (.vtcode or set-aside
 * is a file, a link, another filesystem, not ours), the caller makes the
 * artifact inert in place instead (WS_ASIDE_IN_PLACE). */
#ifndef VTHOST_WS_ASIDE_H
#define VTHOST_WS_ASIDE_H

/* Prefix of the names originals keep when they are made inert in place,
 * beside what they were (git, IDEs and agents never read such a name). */
#define WS_ASIDE_IN_PLACE "vthost-set-aside-"

/* .vtcode/set-aside/ of the workspace `root` (canonical), opened beneath
 * it without following a link: a directory descriptor, or -1 and *why (a
 * static sentence) saying why it cannot be used.  *first is set to 1 the
 * first time this process meets that refusal (report it once), else 0. */
int ws_aside_open(const char *root, const char **why, int *first);

/* A unique prefix for the names set aside from `rel` (workspace-relative;
 * '/' written as '%'), ending in '%' (malloc'd). */
char *ws_aside_prefix(const char *rel);

#endif
