/* A file's stat stamp (file_stamp.h). */
#include "file_stamp.h"

#include <string.h>
#include <sys/stat.h>

void file_stamp_take(const char *path, file_stamp_how how, file_stamp *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (!path)
        return;
    out->exists = (how == FILE_STAMP_LINK ? lstat(path, &st) : stat(path, &st)) == 0;
    if (!out->exists)
        return;
    out->dev = st.st_dev;
    out->ino = st.st_ino;
    out->size = st.st_size;
    out->mtime = st.st_mtim;
    out->ctime = st.st_ctim;
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

int file_stamp_same(const file_stamp *a, const file_stamp *b)
{
    if (a->exists != b->exists)
        return 0;
    return !a->exists || (a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
                          same_time(&a->mtime, &b->mtime) && same_time(&a->ctime, &b->ctime));
}
