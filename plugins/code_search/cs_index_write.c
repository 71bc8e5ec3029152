/* Writing the content index (layout in cs_index.c) and making a file's
 * entry while it is read for a search. */
#include "cs_index.h"
#include "cs_index_fmt.h"
#include "cs_tri.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <vthost/plugin.h>

#define BINARY_PROBE 8192 /* as cs_file.c's */

static size_t words_of(const cs_ientry *e)
{
    return (e->flags & CS_IX_BINARY) ? 0 : ((size_t)1 << e->log2) / 64;
}

static size_t dwords_of(const cs_ientry *e)
{
    return (e->flags & CS_IX_DECLS) && e->dlog2 ? ((size_t)1 << e->dlog2) / 64 : 0;
}

/* The whole file image in a new buffer of *len bytes; NULL when out of
 * memory or above the limits. */
static char *image(const char *root, uint64_t build, const cs_ientry *v, size_t n, size_t *len)
{
    uint64_t strbytes = 0, words = 0;
    for (size_t i = 0; i < n; i++) {
        strbytes += strlen(v[i].rel) + 1;
        words += words_of(&v[i]) + dwords_of(&v[i]);
    }
    size_t rootlen = strlen(root);
    uint64_t total = sizeof(ix_header) + PAD8(rootlen) + (uint64_t)n * sizeof(ix_rec) +
                     PAD8(strbytes) + words * 8;
    if (n > CS_IX_MAX_FILES || total > CS_IX_MAX_BYTES)
        return NULL;
    char *buf = calloc(1, (size_t)total);
    if (!buf)
        return NULL;
    ix_header h = {.total = total,
                   .nent = (uint32_t)n,
                   .rootlen = (uint32_t)rootlen,
                   .strbytes = strbytes,
                   .words = words,
                   .build = build};
    memcpy(h.magic, CS_IX_MAGIC, 8);
    char *p = buf + sizeof h;
    memcpy(p, root, rootlen);
    ix_rec *recs = (ix_rec *)(void *)(p + PAD8(rootlen));
    char *strs = (char *)(recs + n);
    uint64_t *w = (uint64_t *)(void *)(strs + PAD8(strbytes));
    uint64_t so = 0, wo = 0;
    for (size_t i = 0; i < n; i++) {
        const cs_ientry *e = &v[i];
        recs[i] = (ix_rec){e->id.dev,  e->id.ino,   e->id.size, e->id.msec, e->id.mnsec,
                           e->id.csec, e->id.cnsec, e->flags,   e->log2,    so,
                           wo,         0,           0,          0};
        size_t sl = strlen(e->rel) + 1;
        memcpy(strs + so, e->rel, sl);
        so += sl;
        if (words_of(e))
            memcpy(w + wo, e->bits, words_of(e) * 8);
        wo += words_of(e);
        if (dwords_of(e)) {
            recs[i].dlog2 = e->dlog2;
            recs[i].dbitoff = wo;
            memcpy(w + wo, e->dbits, dwords_of(e) * 8);
            wo += dwords_of(e);
        }
    }
    h.sum = cs_index_checksum(p, (size_t)total - sizeof h);
    memcpy(buf, &h, sizeof h);
    *len = (size_t)total;
    return buf;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t r = write(fd, p, n);
        if (r <= 0)
            return -1;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

int cs_index_save(const char *path, const char *root, uint64_t build, const cs_ientry *v, size_t n)
{
    size_t len = 0;
    char *img = image(root, build, v, n, &len);
    if (!img) {
        /* Above the limits: no index rather than a stale one. */
        unlink(path);
        return VT_ERR_NOMEM;
    }
    /* A name of this process and this save: concurrent saves, in this
     * process or others, never share a temporary file. */
    static atomic_uint seq;
    char *tmp = NULL;
    unsigned k = atomic_fetch_add(&seq, 1);
    int rc = asprintf(&tmp, "%s.%d.%u.tmp", path, (int)getpid(), k) < 0 ? VT_ERR_NOMEM : 0;
    int fd = rc == 0 ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    if (rc == 0 && fd < 0)
        rc = VT_ERR_IO;
    if (fd >= 0) {
        /* rename makes the last writer win; a reader sees one whole file. */
        if (write_all(fd, img, len) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
            unlink(tmp);
            rc = VT_ERR_IO;
        }
    }
    free(tmp);
    free(img);
    return rc;
}

/* Is the file open at fd on a local filesystem whose ctime every change
 * of content moves?  Not a network one: NFS, for one, may answer lstat
 * from attributes cached for up to a minute while another machine
 * changes the file, where an open and read would see the change.  Files
 * elsewhere get no entry: they are always read.  Asked per entry made
 * (a mount may change between searches). */
static int local_fs(int fd)
{
    struct statfs sf;
    int ok = 0;
    if (fstatfs(fd, &sf) == 0) {
        switch ((unsigned long)sf.f_type) {
        case EXT4_SUPER_MAGIC: /* ext2 and ext3 too */
        case XFS_SUPER_MAGIC:
        case BTRFS_SUPER_MAGIC:
        case TMPFS_MAGIC:
        case F2FS_SUPER_MAGIC:
        case OVERLAYFS_SUPER_MAGIC:
        case 0x2fc12fc1ul: /* zfs */
        case 0xca451a4eul: /* bcachefs */ ok = 1; break;
        default: ok = 0;
        }
    }
    return ok;
}

void cs_fresh_free(cs_fresh *f)
{
    free(f->bits);
    free(f->dbits);
    memset(f, 0, sizeof *f);
}

void cs_ixbudget_seen(cs_ixbudget *b, uint64_t len)
{
    atomic_fetch_add_explicit(&b->seen, len, memory_order_relaxed);
}

int cs_ixbudget_spend(cs_ixbudget *b, uint64_t len)
{
    uint64_t seen = atomic_load_explicit(&b->seen, memory_order_relaxed);
    uint64_t cap = seen / 100 * CS_IX_SHARE_PCT + CS_IX_SLACK;
    uint64_t spent = atomic_fetch_add_explicit(&b->spent, len, memory_order_relaxed);
    if (spent + len <= cap)
        return 1;
    atomic_fetch_sub_explicit(&b->spent, len, memory_order_relaxed);
    return 0;
}

void cs_index_note(cs_fresh *f, const cs_ientry *old, int fd, const char *buf, size_t len,
                   uint64_t cost, int64_t limit, cs_ixbudget *budget)
{
    struct stat st;
    cs_ident id;
    if (budget)
        cs_ixbudget_seen(budget, len);
    f->state = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != len)
        return;
    cs_ident_of(&st, &id);
    /* git's racy rule: a write in the same clock tick as an earlier one
     * may leave the times as they were; such a file is not entered. */
    if (id.msec >= limit || id.csec >= limit)
        return;
    f->id = id;
    if (old && cs_ident_eq(&old->id, &id)) {
        f->state = 1;
        return;
    }
    if (!local_fs(fd))
        return;
    if (budget && !cs_ixbudget_spend(budget, cost)) {
        f->state = 0;
        return;
    }
    size_t probe = len < BINARY_PROBE ? len : BINARY_PROBE;
    if (memchr(buf, '\0', probe)) {
        f->flags = CS_IX_BINARY;
        f->state = 2;
        return;
    }
    f->log2 = cs_tri_log2(len);
    f->bits = calloc(((size_t)1 << f->log2) / 64, 8);
    if (!f->bits)
        return;
    cs_tri_fill(buf, len, f->log2, f->bits);
    f->state = 2;
}
