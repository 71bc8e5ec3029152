/* Workspace path resolution: containment is enforced here, once. */
#ifndef VTHOST_PATHS_H
#define VTHOST_PATHS_H

/* Resolve `path` (relative to `root`, or absolute) to a canonical absolute
 * path inside `root` (flags: enum vt_resolve_flag).  *out is malloc'd. */
int paths_resolve(const char *root, const char *path, unsigned flags, char **out);

/* 1 when `path` equals `root` or lies below it (both canonical). */
int paths_is_within(const char *root, const char *path);

/* Join a and b with one '/' (malloc'd). */
char *paths_join(const char *a, const char *b);

/* mkdir -p relative to an absolute path; 0 or VT_ERR_IO. */
int paths_mkdirs(const char *abs_dir, int mode);

#endif
