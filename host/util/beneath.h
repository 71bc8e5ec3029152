/* Host writes inside a directory a command can change (the workspace's
 * .vtcode/): every component is resolved beneath a directory descriptor
 * and no symbolic link is followed, so a link planted by a command never
 * sends the host's write elsewhere. */
#ifndef VTHOST_BENEATH_H
#define VTHOST_BENEATH_H

#include <sys/types.h>

/* openat2(root, rel, flags, RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), or a
 * walk of `rel` one component at a time with O_NOFOLLOW where openat2 is
 * missing or refused.  A descriptor, or -1 with errno (ELOOP or ENOTDIR
 * for a link on the way, EXDEV for ".." leaving `root`). */
int beneath_open(int root, const char *rel, int flags, mode_t mode);

/* mkdir -p of `rel` beneath `root`, never through a link; 0 or -1 with
 * errno (ENOTDIR or ELOOP when a component is a link or not a
 * directory). */
int beneath_mkdirs(int root, const char *rel, mode_t mode);

#endif
