/* Closing a descriptor whose last close waits in the kernel, without
 * waiting: see fd_release.c. */
#ifndef VTHOST_FD_RELEASE_H
#define VTHOST_FD_RELEASE_H

/* Close `fd` (>= 0), the kernel's release of it happening in a short-lived
 * detached process instead of this one; a plain close where that cannot
 * be set up.  Meant for a process about to end. */
void fd_release_detached(int fd);

#endif
