/* Reading a file the host itself wrote into the user's data directories
 * (a cache, an index): only when it is still the user's own regular file
 * that the bits named cannot have let others write or read, and of a
 * size the caller expects. */
#ifndef VTHOST_UTIL_OWN_FILE_H
#define VTHOST_UTIL_OWN_FILE_H

#include <stddef.h>
#include <sys/types.h>

/* The whole text of `path` (not followed if a link), NUL-terminated
 * (*len excludes the NUL), or NULL when it is missing, not a regular
 * file of the effective user, has any of `forbidden` mode bits (022:
 * others could write it; 077: others could read it too), is smaller
 * than `min` or larger than `max` bytes, or cannot be read whole.  The
 * caller frees it. */
char *own_file_read(const char *path, mode_t forbidden, size_t min, size_t max, size_t *len);

#endif
