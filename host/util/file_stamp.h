/* A file's stat stamp: what stat says of it at one moment, to tell later
 * whether it was replaced or written since (same device, inode, size,
 * modification and change times). */
#ifndef VTHOST_UTIL_FILE_STAMP_H
#define VTHOST_UTIL_FILE_STAMP_H

#include <sys/types.h>
#include <time.h>

typedef struct file_stamp {
    int exists; /* stat found it; the other fields are 0 when not */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} file_stamp;

/* Which stat takes the stamp: a link itself (lstat) or what it names. */
typedef enum { FILE_STAMP_LINK, FILE_STAMP_FOLLOW } file_stamp_how;

/* The stamp of `path` now into *out (a missing file gives exists 0). */
void file_stamp_take(const char *path, file_stamp_how how, file_stamp *out);

/* 1 when `a` and `b` are the same stamp: both missing, or both there
 * with the same identity, size and times. */
int file_stamp_same(const file_stamp *a, const file_stamp *b);

#endif
