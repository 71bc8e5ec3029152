/* Stamps of paths (ws_stamp.h). */
#include "ws_stamp.h"

#include <fcntl.h>
#include <string.h>

static void fill(ws_stamp *s, const struct stat *st)
{
    s->dev = st->st_dev;
    s->ino = st->st_ino;
    s->size = st->st_size;
    s->mtime = st->st_mtim;
    s->ctime = st->st_ctim;
}

static void take(const char *path, ws_stamp *s, int follow)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    s->exists = path && (follow ? stat(path, &st) : lstat(path, &st)) == 0;
    if (s->exists)
        fill(s, &st);
}

void ws_stamp_take(const char *path, ws_stamp *s) { take(path, s, 0); }

void ws_stamp_take_follow(const char *path, ws_stamp *s) { take(path, s, 1); }

void ws_stamp_take_at(int dirfd, const char *rel, ws_stamp *s)
{
    struct stat st;
    memset(s, 0, sizeof *s);
    s->exists = dirfd >= 0 && fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (s->exists)
        fill(s, &st);
}

int ws_stamp_same(const ws_stamp *a, const ws_stamp *b)
{
    if (a->exists != b->exists)
        return 0;
    return !a->exists ||
           (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
            a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
            a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec);
}
