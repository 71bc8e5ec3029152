/* Writing a whole buffer to a descriptor: write(2) may take part of it,
 * or be interrupted by a signal before it wrote anything. */
#ifndef VTHOST_FD_WRITE_H
#define VTHOST_FD_WRITE_H

#include <stddef.h>

/* Writes all `len` bytes of `buf` to `fd`, retrying after EINTR and
 * after short writes.  0, or a negative errno (-ENOSPC when the kernel
 * took nothing); on failure part of `buf` may have been written. */
int fd_write_all(int fd, const void *buf, size_t len);

#endif
