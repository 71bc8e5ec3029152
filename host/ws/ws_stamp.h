/* What a path is now, to tell later whether it changed: device, inode,
 * size, modification and change times, by lstat (a link is stamped as
 * a link) or, for files read through links, by stat.  A file rewritten in place, replaced by a rename or touched
 * back to its old time differs (its change time moves). */
#ifndef VTHOST_WS_STAMP_H
#define VTHOST_WS_STAMP_H

#include <sys/stat.h>
#include <time.h>

typedef struct ws_stamp {
    int exists;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
} ws_stamp;

/* Stamp `path`; a path that cannot be stamped counts as absent. */
void ws_stamp_take(const char *path, ws_stamp *s);
/* The same following links: stamps what a reader of `path` would read
 * (git's config files and their includes may be links). */
void ws_stamp_take_follow(const char *path, ws_stamp *s);
/* The same for `rel` below the directory open at `dirfd` (no path to
 * build: the table's rows are stamped around every call). */
void ws_stamp_take_at(int dirfd, const char *rel, ws_stamp *s);

/* 1 when both stamps say the same (both absent included). */
int ws_stamp_same(const ws_stamp *a, const ws_stamp *b);

#endif
