/* A cheap picture of the workspace's files (path, inode, size, mode,
 * change and modification times, from one fstatat each), taken before
 * and after a command so the guard counts what the command actually
 * changed, whatever it was called. */
#ifndef VTHOST_GUARD_SNAPSHOT_H
#define VTHOST_GUARD_SNAPSHOT_H

#include <stddef.h>

typedef struct guard_snapshot guard_snapshot;

/* Walk `root` without following links, skipping version-control and
 * tool directories and the usual build-output and dependency folders
 * (.git, .vtcode, node_modules, target, build, ...), up to `max_entries`
 * entries.  *out is owned by the caller (guard_snapshot_free). */
int guard_snapshot_take(const char *root, size_t max_entries, guard_snapshot **out);

/* How many paths were added, removed or changed from `a` to `b`; up to
 * `max_names` of their workspace-relative paths are put in names[]
 * (malloc'd strings the caller frees). */
size_t guard_snapshot_diff(const guard_snapshot *a, const guard_snapshot *b, char **names,
                           size_t max_names);

/* Entries recorded, and whether the walk stopped at max_entries. */
size_t guard_snapshot_count(const guard_snapshot *s);
int guard_snapshot_cut(const guard_snapshot *s);

void guard_snapshot_free(guard_snapshot *s);

#endif
