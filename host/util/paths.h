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

/* The directory `name` under an XDG base directory: "$VAR/name" when
 * the variable `var` (XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME)
 * holds an absolute path, else "$HOME/`fallback`/name" (".config",
 * ".local/state", ".cache").  malloc'd, or NULL without an absolute
 * home.  The host's one reader of XDG_* (tools/check_calls.sh). */
char *paths_xdg_dir(const char *var, const char *fallback, const char *name);

/* paths_xdg_dir(var, fallback, "vthost"). */
char *paths_xdg_vthost(const char *var, const char *fallback);

/* mkdir -p relative to an absolute path; 0 or VT_ERR_IO. */
int paths_mkdirs(const char *abs_dir, int mode);

/* Why the canonical directory `dir` must not be a workspace chosen for
 * the user (a client's root, the working directory of `serve`) nor
 * trusted: "/" and everything inside the system trees (/usr, /etc, /var,
 * /boot, /lib*, /bin, /sbin, /opt, /run, /proc, /sys, /dev, /snap), the
 * canonical `home` (may be NULL) and every directory above it, every
 * hidden directory of `home` and what is inside one, and a directory
 * holding other users' homes (paths_holds_homes with /etc/passwd).  A
 * static string, or NULL when it may be. */
const char *paths_unsafe_workspace(const char *dir, const char *home);

/* "a directory of users' home directories" when the canonical `dir` is
 * /home, /Users, or the parent (or an ancestor other than /) of a home
 * directory listed in the passwd-format file `passwd`, as written or
 * through links; else NULL.  With one as the workspace the sandbox would
 * let a command write into every user's home. */
const char *paths_holds_homes(const char *dir, const char *passwd);

/* Why the workspace's `.vtcode` is refused as a policy source and as a
 * place the host writes to, or NULL when it is missing or a plain
 * directory on the workspace's own mount.  A link, a file, or a directory
 * that is another filesystem or a mount (a bind mount of somewhere else)
 * would let the repository or a command point vthost's reads and writes
 * anywhere.  A static string. */
const char *paths_vtcode_refusal(const char *workspace);

#endif
