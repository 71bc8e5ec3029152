/* vthost's own data directories for a workspace (the persisted index
 * under $XDG_CACHE_HOME/vthost/wsindex, the guard's count under
 * $XDG_STATE_HOME/vthost/guard, the owed checks under .../owed) are
 * judged where they lead, by what the file system says of them, never
 * by the text of their path: ~/.cache or ~/.local/state is often a link
 * into /tmp, where another user or an earlier command could have made
 * the directory first and could forge the index (a repository's .git
 * then looks absent and stays writable) or reset the count.
 *
 * Each directory is made 0700 when missing; then it, the files kept for
 * this workspace in it, and the vthost directory above it must be this
 * user's, not writable by group or others, and not links, and the
 * directory holding the vthost directory must not let others rename it
 * (another user's, or writable by others without the sticky bit).  Otherwise the start is
 * refused with a message naming the path and the fix. */
#ifndef VTHOST_WS_DATADIR_H
#define VTHOST_WS_DATADIR_H

/* Check the data directories of `root` (canonical).  0, or
 * VT_ERR_DENIED with *err (malloc'd) saying which path and what to do. */
int ws_datadir_check(const char *root, char **err);

#endif
