/*
 * Knowing when this process's mount table changed, without reading it:
 * an open /proc/self/mountinfo reports POLLPRI|POLLERR to poll(2) after
 * any mount, unmount or remount in the process's mount namespace since
 * the last poll of that descriptor (mounts propagated into it included;
 * proc(5)).  Whatever is derived from the table (the table itself, a
 * filesystem's mount options) is kept beside such a watch and derived
 * again when it reports a change.  Poll first and derive after: a change
 * between the two is reported by the next poll.
 * Header-only (nothing to link, no host call): the host and plugins share
 * it.  Not locked: a caller shared between threads holds its own lock.
 */
#ifndef VTHOST_MOUNT_WATCH_H
#define VTHOST_MOUNT_WATCH_H

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

/* Initialise as {.fd = -1}. */
typedef struct vt_mount_watch {
    int fd; /* the descriptor polled; -1 before the first use */
} vt_mount_watch;

/* 1 when the mount table may have changed since the previous call (always
 * on the first, which opens the descriptor; always when it cannot be
 * opened or polled), 0 when it has not. */
static inline int vt_mount_watch_changed(vt_mount_watch *w)
{
    if (w->fd < 0) {
        w->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
        return 1;
    }
    struct pollfd p = {.fd = w->fd, .events = POLLPRI};
    return poll(&p, 1, 0) != 0;
}

/* 1 when the watch can report changes: only then may what was derived
 * from the table be kept for later. */
static inline int vt_mount_watch_active(const vt_mount_watch *w) { return w->fd >= 0; }

static inline void vt_mount_watch_close(vt_mount_watch *w)
{
    if (w->fd >= 0)
        close(w->fd);
    w->fd = -1;
}

#endif
