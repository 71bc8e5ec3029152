/* The one-shot index on disk: $XDG_CACHE_HOME/vthost/wsindex/<key>.idx,
 * the directories in pre-order with their inode, mtime and flags.  A
 * load trusts nothing it cannot check: the file must be the user's own
 * and not writable by others, name this workspace, pass its checksum and
 * bounds, and every directory is stat'ed again; one whose inode moved is
 * read anew, one whose mtime moved is re-read.  Anything else rebuilds.
 * A directory changed within the last seconds before a save is stored
 * with no mtime: a change in the same clock tick would not move it. */
#include "monotime.h"
#include "ws_index_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/own_file.h>
#include <vthost/plugin.h>
#include "paths.h"

/* 2: directories with a HEAD flagged; 3: the keeper's stamp; 4: the
 * checksum by words (sum) */
#define MAGIC "VTWSIX4"
#define UNSTABLE_NS 2000000000LL
#define MAX_FILE (1u << 30)

typedef struct rec {
    uint32_t parent, name;
    uint8_t flags, pad[7];
    uint64_t ino;
    int64_t mtime_ns;
} rec;

typedef struct head {
    char magic[8];
    uint32_t ndirs, rootlen;
    uint64_t names_len;
    /* the keeper that wrote the file and its change count then (0, 0:
     * written by a call), so that a call it vouches for loads the file
     * without checking a directory (ws_keeper.h) */
    uint64_t keeper_id, keeper_seq;
} head;

char *ws_index_cache_dir(void) { return paths_xdg_vthost("XDG_CACHE_HOME", ".cache"); }
char *ws_index_state_dir(void) { return paths_xdg_vthost("XDG_STATE_HOME", ".local/state"); }

static uint64_t fnv(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return h;
}

/* The file's checksum over one of its parts, carried on from `h`: FNV-1a
 * on 64-bit words in four lanes, the tail by bytes.  A one-shot call
 * vouched for by the keeper checks a file of some 400 KB per 100,000
 * files; by bytes that took a millisecond, a twelfth of the call. */
static uint64_t sum(const void *p, size_t n, uint64_t h)
{
    const unsigned char *s = p;
    const uint64_t prime = 1099511628211ull;
    uint64_t l[4] = {h, h ^ 0x9e3779b97f4a7c15ull, h + 1, h + 2};
    size_t i = 0;
    for (; i + sizeof l <= n; i += sizeof l) {
        uint64_t w[4];
        memcpy(w, s + i, sizeof w);
        for (int k = 0; k < 4; k++)
            l[k] = (l[k] ^ w[k]) * prime;
    }
    return fnv(s + i, n - i, fnv(l, sizeof l, h));
}

void ws_index_key(const char *root, char buf[17])
{
    snprintf(buf, 17, "%016llx",
             (unsigned long long)fnv(root, strlen(root), 1469598103934665603ull));
}

static char *cache_file(ws_index *ix)
{
    if (ix->cache_path)
        return strdup(ix->cache_path);
    char *dir = ws_index_cache_dir(), key[17], *f = NULL;
    ws_index_key(ix->root, key);
    if (dir && asprintf(&f, "%s/wsindex/%s.idx", dir, key) < 0)
        f = NULL;
    free(dir);
    return f;
}

static int64_t now_ns(void) { return wall_now_ns(); }

/* The directories in pre-order (a parent before its children),
 * renumbered: their records into r (room for live_dirs) and their names
 * into names (room for nlen + 1 bytes); -1 when out of memory or when
 * the tree holds more directories than it counts. */
static int flatten(const ws_index *ix, rec *r, char *names, uint32_t *nout_out, size_t *nlen_out)
{
    uint32_t *order = malloc((size_t)ix->n * sizeof *order);
    uint32_t *newidx = malloc((size_t)ix->n * sizeof *newidx);
    uint32_t nout = 0, top = 0;
    size_t nlen = 0;
    int rc = order && newidx ? 0 : -1;
    int64_t unstable = now_ns() - UNSTABLE_NS;
    if (rc == 0)
        order[top++] = 0;
    while (rc == 0 && top) {
        uint32_t s = order[--top];
        const wsx_dir *d = &ix->d[s];
        const char *nm = ix->names + d->name;
        size_t nl = strlen(nm);
        if (nout == ix->live_dirs) {
            rc = -1;
            break;
        }
        newidx[s] = nout;
        r[nout] = (rec){.parent = d->parent == WSX_NONE ? WSX_NONE : newidx[d->parent],
                        .name = (uint32_t)nlen,
                        .flags = d->flags,
                        .ino = d->ino,
                        .mtime_ns = d->mtime_ns >= unstable ? 0 : d->mtime_ns};
        memcpy(names + nlen, nm, nl + 1);
        nlen += nl + 1;
        nout++;
        for (uint32_t c = d->child; c != WSX_NONE; c = ix->d[c].next)
            order[top++] = c;
    }
    free(order);
    free(newidx);
    *nout_out = nout;
    *nlen_out = nlen;
    return rc;
}

/* The header, the root, the records, the names and their checksum, in a
 * new file renamed over `file` (left as it was on any failure). */
static void write_file(const char *file, const ws_index *ix, const head *h, const rec *r,
                       const char *names)
{
    char *tmp = NULL;
    if (asprintf(&tmp, "%s.%d", file, (int)getpid()) < 0)
        return;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        free(tmp);
        return;
    }
    uint32_t nout = h->ndirs;
    size_t nlen = h->names_len;
    uint64_t ck = 1469598103934665603ull;
    ck = sum(h, sizeof *h, ck);
    ck = sum(ix->root, ix->rootlen, ck);
    ck = sum(r, nout * sizeof *r, ck);
    ck = sum(names, nlen, ck);
    int w = fwrite(h, sizeof *h, 1, f) == 1 && fwrite(ix->root, 1, ix->rootlen, f) == ix->rootlen &&
            fwrite(r, sizeof *r, nout, f) == nout && fwrite(names, 1, nlen, f) == nlen &&
            fwrite(&ck, sizeof ck, 1, f) == 1;
    if (fclose(f) != 0 || !w || rename(tmp, file) != 0)
        unlink(tmp);
    free(tmp);
}

void wsx_cache_save(ws_index *ix)
{
    if (ix->degraded || ix->cut)
        return;
    char *file = cache_file(ix);
    if (!file)
        return;
    char *slash = strrchr(file, '/');
    *slash = '\0';
    int ok = paths_mkdirs(file, 0700) == VT_OK;
    *slash = '/';
    rec *r = ok ? calloc(ix->live_dirs ? ix->live_dirs : 1, sizeof *r) : NULL;
    char *names = ok ? malloc(ix->nlen + 1) : NULL;
    uint32_t nout = 0;
    size_t nlen = 0;
    if (r && names && flatten(ix, r, names, &nout, &nlen) == 0) {
        head h = {.magic = MAGIC,
                  .ndirs = nout,
                  .rootlen = (uint32_t)ix->rootlen,
                  .names_len = nlen,
                  .keeper_id = ix->stamp_id,
                  .keeper_seq = ix->stamp_seq};
        write_file(file, ix, &h, r, names);
        /* a new workspace's file is what makes the directory grow */
        if (!ix->cache_path) {
            *slash = '\0';
            wsx_cache_sweep(file, slash + 1);
            *slash = '/';
        }
    }
    free(r);
    free(names);
    free(file);
}

static int valid_name(const char *s, size_t max)
{
    size_t n = strnlen(s, max);
    return n && n < max && !memchr(s, '/', n) && strcmp(s, ".") && strcmp(s, "..") &&
           strcmp(s, ".git");
}

/* The file's tree into ix (empty), or -1. */
/* The header of the file in buf (len bytes) into *h when the file is
 * whole: its sizes add up, its root is ix's, its checksum holds. */
static int file_ok(const ws_index *ix, const char *buf, size_t len, head *h)
{
    memcpy(h, buf, sizeof *h);
    if (memcmp(h->magic, MAGIC, sizeof h->magic) || h->rootlen != ix->rootlen || !h->ndirs ||
        h->ndirs > (len / sizeof(rec)) || h->names_len > len)
        return 0;
    size_t recs = (size_t)h->ndirs * sizeof(rec);
    if (sizeof *h + h->rootlen + recs + h->names_len + 8 != len ||
        memcmp(buf + sizeof *h, ix->root, ix->rootlen))
        return 0;
    uint64_t want, ck = 1469598103934665603ull;
    memcpy(&want, buf + len - 8, 8);
    ck = sum(buf, sizeof *h, ck);
    ck = sum(buf + sizeof *h, h->rootlen, ck);
    ck = sum(buf + sizeof *h + h->rootlen, recs, ck);
    ck = sum(buf + sizeof *h + h->rootlen + recs, h->names_len, ck);
    return ck == want;
}

/* The file's tree into ix (emptied first), or -1.  The records are read
 * where they lie in buf (one at a time: they need not be aligned there)
 * and the tree's arrays sized once: a 100,000-file workspace's file is
 * loaded at every call the keeper vouches for. */
static int parse(ws_index *ix, const char *buf, size_t len)
{
    head h;
    if (!file_ok(ix, buf, len, &h))
        return -1;
    const char *recs = buf + sizeof h + h.rootlen;
    const char *names = recs + (size_t)h.ndirs * sizeof(rec);
    uint32_t *slot = malloc((size_t)h.ndirs * sizeof *slot);
    if (!slot)
        return -1;
    wsx_reset_tree(ix);
    /* the root is in already; a failure here only means growing later */
    (void)VT_GROW(&ix->d, &ix->cap, (size_t)h.ndirs);
    (void)VT_GROW(&ix->names, &ix->ncap, ix->nlen + h.names_len);
    slot[0] = 0;
    int ok = 1;
    for (uint32_t i = 0; ok && i < h.ndirs; i++) {
        rec r;
        memcpy(&r, recs + (size_t)i * sizeof r, sizeof r);
        if (i == 0) {
            ok = r.parent == WSX_NONE;
        } else {
            ok = r.parent < i && r.name < h.names_len &&
                 valid_name(names + r.name, h.names_len - r.name) &&
                 ix->d[slot[r.parent]].depth < WSX_MAX_DEPTH;
            const char *nm = names + r.name;
            slot[i] = ok ? wsx_add_dir(ix, slot[r.parent], nm, strlen(nm)) : WSX_NONE;
            ok = slot[i] != WSX_NONE;
        }
        if (ok) {
            ix->d[slot[i]].flags = r.flags & (uint8_t)~WSX_FREE;
            ix->d[slot[i]].ino = r.ino;
            ix->d[slot[i]].mtime_ns = r.mtime_ns;
        }
    }
    free(slot);
    if (!ok)
        return -1;
    ix->file_id = h.keeper_id;
    ix->file_seq = h.keeper_seq;
    return (int)h.ndirs;
}

int wsx_cache_read(ws_index *ix)
{
    char *file = cache_file(ix);
    size_t len = 0;
    /* host data: the user's own, written by nobody else */
    char *buf = NULL;
    if (file)
        vt_own_file_read(file, 022, sizeof(head), MAX_FILE, &buf, &len);
    free(file);
    int n = buf ? parse(ix, buf, len) : -1;
    free(buf);
    if (n < 0)
        return -1;
    ix->dirty = 0;
    return 0;
}

int wsx_cache_load(ws_index *ix, int watch)
{
    return wsx_cache_read(ix) == 0 ? wsx_validate(ix, watch) : -1;
}

/* The directories as they are now, parents first (what a re-read adds
 * is read already): malloc'd, *n of them, or NULL. */
static uint32_t *parents_first(const ws_index *ix, size_t *n)
{
    size_t room = ix->live_dirs ? ix->live_dirs : 1;
    uint32_t *order = malloc(room * sizeof *order);
    uint32_t *stack = malloc(room * sizeof *stack);
    uint32_t top = 0;
    *n = 0;
    if (order && stack)
        stack[top++] = 0;
    while (top) {
        uint32_t s = stack[--top];
        if (*n < ix->live_dirs)
            order[(*n)++] = s;
        for (uint32_t c = ix->d[s].child; c != WSX_NONE && top < ix->live_dirs; c = ix->d[c].next)
            stack[top++] = c;
    }
    free(stack);
    if (!stack) {
        free(order);
        return NULL;
    }
    return order;
}

/* Directory `s` (at `rel`) checked against the disk: gone, replaced by
 * another of the same name (read anew) or changed (re-read).  -1 when it
 * is the root and it went. */
static int check_dir(ws_index *ix, int root, uint32_t s, const char *rel, int watch)
{
    if (watch && !ix->degraded)
        wsx_watch_rel(ix, s, rel); /* first: a change after the stat is an event */
    struct stat st;
    int there = fstatat(root, s ? rel : ".", &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
    int64_t mt = there ? (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec : 0;
    if (!there && !s) /* the root itself went */
        return -1;
    if (!there) {
        wsx_remove_dir(ix, s);
        ix->dirty = 1;
    } else if (st.st_ino != ix->d[s].ino && s) {
        /* another directory under the same name: read it anew */
        uint32_t parent = ix->d[s].parent;
        char nm[256];
        snprintf(nm, sizeof nm, "%s", ix->names + ix->d[s].name);
        wsx_remove_dir(ix, s);
        uint32_t c = wsx_add_dir(ix, parent, nm, strlen(nm));
        if (c != WSX_NONE)
            wsx_scan(ix, c, 0);
        ix->dirty = 1;
    } else if (mt != ix->d[s].mtime_ns || !ix->d[s].mtime_ns) {
        wsx_reread(ix, s);
        ix->dirty = 1;
    }
    return 0;
}

int wsx_validate(ws_index *ix, int watch)
{
    size_t n = 0;
    uint32_t *order = parents_first(ix, &n);
    if (!order)
        return -1;
    int root = open(ix->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    char rel[4096];
    ix->loading = 1;
    for (size_t i = 0; root >= 0 && i < n; i++) {
        uint32_t s = order[i];
        if (ix->d[s].flags & WSX_FREE) /* its parent went */
            continue;
        if (s && !wsx_path(ix, s, rel, sizeof rel))
            continue;
        if (!s)
            rel[0] = '\0';
        if (check_dir(ix, root, s, rel, watch) < 0) {
            close(root);
            root = -1;
        }
    }
    ix->loading = 0;
    if (root >= 0)
        close(root);
    free(order);
    return root >= 0 ? 0 : -1;
}
