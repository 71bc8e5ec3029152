/* Reading directories into the index: a subtree at a time, each
 * directory watched before it is read, so that whatever appears in it
 * after the read is an event and whatever appeared before is read. */
#include "ws_index_int.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

static int open_rel(ws_index *ix, uint32_t slot, char *rel, size_t cap)
{
    if (slot && !wsx_path(ix, slot, rel, cap))
        return -1;
    if (!slot)
        rel[0] = '\0';
    char *abs = NULL;
    if (asprintf(&abs, "%s/%s", ix->root, rel) < 0)
        return -1;
    int fd = open(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    free(abs);
    return fd;
}

static unsigned char type_of(int dfd, const struct dirent *e)
{
    if (e->d_type != DT_UNKNOWN)
        return e->d_type;
    struct stat st;
    if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return DT_UNKNOWN;
    return S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
}

static void set_stat(wsx_dir *d, int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0) {
        d->ino = st.st_ino;
        d->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    }
}

typedef struct stack {
    uint32_t *v;
    size_t n, cap;
} stack;

static int push(stack *s, uint32_t x)
{
    if (VT_GROW(&s->v, &s->cap, s->n + 1) != 0)
        return -1;
    s->v[s->n++] = x;
    return 0;
}

static void log_entry(ws_index *ix, const char *rel, const char *name, int dir, int noise)
{
    char p[4096];
    int w = snprintf(p, sizeof p, "%s%s%s", rel, rel[0] ? "/" : "", name);
    if (w > 0 && (size_t)w < sizeof p)
        wsx_log_change(ix, p, WSX_K_CREATE, dir, noise);
}

/* Read one directory (already open as `fd`, consumed): flags, and its
 * new subdirectories pushed on `todo` (known ones kept).  `seen`, when
 * given, collects the children found, so that the caller can drop the
 * others. */
static int read_dir(ws_index *ix, uint32_t slot, int fd, const char *rel, stack *todo, int log_new,
                    stack *seen)
{
    DIR *dir = fdopendir(fd);
    if (!dir) {
        close(fd);
        return -1;
    }
    set_stat(&ix->d[slot], fd);
    uint8_t flags = 0;
    struct dirent *e;
    while ((e = readdir(dir))) {
        const char *nm = e->d_name;
        if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
            continue;
        unsigned char t = type_of(dirfd(dir), e);
        flags |= wsx_name_flag(nm, t);
        int isdir = t == DT_DIR;
        if (log_new)
            log_entry(ix, rel, nm, isdir, ix->d[slot].noise || ws_index_noise(nm));
        /* a repository's insides are git's business: never indexed */
        if (!isdir || !strcmp(nm, ".git"))
            continue;
        uint32_t c = seen ? wsx_find_child(ix, slot, nm) : WSX_NONE;
        if (c != WSX_NONE) {
            push(seen, c);
            continue;
        }
        if (ix->d[slot].depth + 1 > WSX_MAX_DEPTH) {
            ix->cut = 1;
            continue;
        }
        c = wsx_add_dir(ix, slot, nm, strlen(nm));
        if (c == WSX_NONE)
            break;
        if (seen)
            push(seen, c);
        push(todo, c);
    }
    ix->d[slot].flags = flags;
    closedir(dir);
    return 0;
}

int wsx_scan(ws_index *ix, uint32_t slot, int log_new)
{
    stack todo = {0};
    char rel[4096];
    int rc = push(&todo, slot);
    while (rc == 0 && todo.n) {
        uint32_t s = todo.v[--todo.n];
        if (s >= ix->n || (ix->d[s].flags & WSX_FREE))
            continue;
        if (ix->watching && !ix->degraded)
            wsx_watch(ix, s);
        int fd = open_rel(ix, s, rel, sizeof rel);
        if (fd < 0) {
            if (s != 0)
                wsx_remove_dir(ix, s); /* gone, or not a directory now */
            continue;
        }
        rc = read_dir(ix, s, fd, rel, &todo, log_new, NULL);
    }
    free(todo.v);
    return rc;
}

int wsx_reread(ws_index *ix, uint32_t slot)
{
    char rel[4096];
    int fd = open_rel(ix, slot, rel, sizeof rel);
    if (fd < 0) {
        if (slot)
            wsx_remove_dir(ix, slot);
        return 0;
    }
    stack todo = {0}, seen = {0};
    int rc = read_dir(ix, slot, fd, rel, &todo, 0, &seen);
    /* children not seen again are gone */
    for (uint32_t c = ix->d[slot].child; rc == 0 && c != WSX_NONE;) {
        uint32_t nx = ix->d[c].next;
        int found = 0;
        for (size_t i = 0; i < seen.n && !found; i++)
            found = seen.v[i] == c;
        if (!found)
            wsx_remove_dir(ix, c);
        c = nx;
    }
    for (size_t i = 0; rc == 0 && i < todo.n; i++)
        rc = wsx_scan(ix, todo.v[i], 0);
    free(todo.v);
    free(seen.v);
    return rc;
}

int wsx_build(ws_index *ix) { return wsx_scan(ix, 0, 0); }
