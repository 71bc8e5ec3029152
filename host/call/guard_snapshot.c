/* Before/after metadata snapshots of the workspace.  One fstatat per
 * entry, no file contents read: a 10 000-file tree takes a few
 * milliseconds (tests/bench/guard/snapshot.sh measures it).  Entries
 * are keyed by a 64-bit hash of their relative path and sorted, so a
 * diff is one merge. */
#include "guard_snapshot.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "ws_index.h"

#define MAX_DEPTH 64

typedef struct snap_entry {
    uint64_t key;
    uint64_t ino;
    int64_t size;
    int64_t mtime_ns, ctime_ns;
    uint32_t mode;
    uint32_t name; /* offset in the arena */
} snap_entry;

struct guard_snapshot {
    snap_entry *v;
    size_t n, cap, max;
    char *arena;
    size_t alen, acap;
    int cut;
    int oom;
};

/* Not the project's files (tools' own state, dependencies, build
 * output): the same list the workspace index's events are judged by. */
static int skip(const char *name) { return ws_index_noise(name); }

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

static int add(guard_snapshot *s, const char *path, size_t plen, const struct stat *st)
{
    if (s->n == s->max) {
        s->cut = 1;
        return -1;
    }
    if (VT_GROW(&s->v, &s->cap, s->n + 1) != 0 ||
        VT_GROW(&s->arena, &s->acap, s->alen + plen + 1) != 0)
        return s->oom = -1;
    memcpy(s->arena + s->alen, path, plen + 1);
    int dir = S_ISDIR(st->st_mode);
    /* A directory's times move with its entries, which are counted
     * themselves. */
    s->v[s->n++] = (snap_entry){
        .key = fnv(path, plen),
        .ino = st->st_ino,
        .size = dir ? 0 : st->st_size,
        .mtime_ns = dir ? 0 : (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec,
        .ctime_ns = dir ? 0 : (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec,
        .mode = st->st_mode,
        .name = (uint32_t)s->alen};
    s->alen += plen + 1;
    return 0;
}

/* `path` holds the directory's relative path (len bytes, "" at the
 * root); it is extended in place for the entries. */
static int walk(guard_snapshot *s, int dfd, char *path, size_t len, size_t cap, int depth)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return 0;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        const char *nm = e->d_name;
        if (!strcmp(nm, ".") || !strcmp(nm, "..") || skip(nm))
            continue;
        size_t nl = strlen(nm);
        if (len + nl + 2 > cap)
            continue; /* absurdly deep: beyond PATH_MAX */
        size_t plen = len;
        if (len)
            path[plen++] = '/';
        memcpy(path + plen, nm, nl + 1);
        plen += nl;
        struct stat st;
        if (fstatat(dirfd(d), nm, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            rc = add(s, path, plen, &st);
            if (rc == 0 && S_ISDIR(st.st_mode) && depth < MAX_DEPTH) {
                int sub = openat(dirfd(d), nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (sub >= 0)
                    rc = walk(s, sub, path, plen, cap, depth + 1);
            }
        }
        path[len] = '\0';
    }
    closedir(d);
    return rc;
}

static int by_key(const void *a, const void *b)
{
    uint64_t x = ((const snap_entry *)a)->key, y = ((const snap_entry *)b)->key;
    return x < y ? -1 : x > y;
}

int guard_snapshot_take(const char *root, size_t max_entries, guard_snapshot **out)
{
    *out = NULL;
    guard_snapshot *s = calloc(1, sizeof *s);
    char *path = malloc(4096);
    int fd = root ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (!s || !path || fd < 0) {
        if (fd >= 0)
            close(fd);
        free(path);
        free(s);
        return fd < 0 && root ? VT_ERR_IO : VT_ERR_NOMEM;
    }
    s->max = max_entries ? max_entries : 1;
    path[0] = '\0';
    walk(s, fd, path, 0, 4096, 0);
    free(path);
    if (s->oom) {
        guard_snapshot_free(s);
        return VT_ERR_NOMEM;
    }
    if (s->n)
        qsort(s->v, s->n, sizeof *s->v, by_key);
    *out = s;
    return VT_OK;
}

static int same(const snap_entry *a, const snap_entry *b)
{
    return a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
           a->ctime_ns == b->ctime_ns && a->mode == b->mode;
}

static void name(const guard_snapshot *s, const snap_entry *e, char **names, size_t max,
                 size_t count)
{
    if (count < max)
        names[count] = strdup(s->arena + e->name);
}

size_t guard_snapshot_diff(const guard_snapshot *a, const guard_snapshot *b, char **names,
                           size_t max_names)
{
    /* Past a cut walk, "new" or "gone" may only mean "not reached". */
    int whole = !a->cut && !b->cut;
    size_t i = 0, j = 0, n = 0;
    while (i < a->n || j < b->n) {
        if (j == b->n || (i < a->n && a->v[i].key < b->v[j].key)) {
            if (whole)
                name(a, &a->v[i], names, max_names, n++); /* removed */
            i++;
        } else if (i == a->n || b->v[j].key < a->v[i].key) {
            if (whole)
                name(b, &b->v[j], names, max_names, n++); /* added */
            j++;
        } else {
            if (!same(&a->v[i], &b->v[j]))
                name(b, &b->v[j], names, max_names, n++);
            i++;
            j++;
        }
    }
    return n;
}

size_t guard_snapshot_count(const guard_snapshot *s) { return s ? s->n : 0; }

int guard_snapshot_cut(const guard_snapshot *s) { return s && s->cut; }

void guard_snapshot_free(guard_snapshot *s)
{
    if (!s)
        return;
    free(s->v);
    free(s->arena);
    free(s);
}
