/* The content index file (see cs_index.h).
 *
 * Layout, little-endian as the host writes it (the file never leaves the
 * machine), every part 8-byte aligned:
 *   header   magic "VTCSIX2\n", u64 total length, u64 checksum of all that
 *            follows the header, u32 entries, u32 root length,
 *            u64 string bytes, u64 bitmap words, u64 the writer's build
 *            (cs_decls_build: another build's file is ignored whole)
 *   root     the workspace root's real path (padded to 8)
 *   entries  per file: u64 dev, ino, size; i64 mtime s/ns, ctime s/ns;
 *            u32 flags, log2; u64 path offset, bitmap word offset;
 *            u32 names' log2 (0: none), u32 0; u64 names' word offset
 *   strings  the paths, each NUL-terminated (padded to 8)
 *   bitmaps  u64 words (trigrams and declared names)
 * A reader checks every length and offset, the checksum and that paths
 * are sorted before it uses anything. */
#include "cs_index.h"
#include "cs_index_fmt.h"
#include "cs_tri.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>

void cs_ident_of(const struct stat *st, cs_ident *id)
{
    memset(id, 0, sizeof *id);
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->msec = (int64_t)st->st_mtim.tv_sec;
    id->mnsec = (int64_t)st->st_mtim.tv_nsec;
    id->csec = (int64_t)st->st_ctim.tv_sec;
    id->cnsec = (int64_t)st->st_ctim.tv_nsec;
}

int cs_ident_eq(const cs_ident *a, const cs_ident *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->msec == b->msec &&
           a->mnsec == b->mnsec && a->csec == b->csec && a->cnsec == b->cnsec;
}

/* 64-bit FNV-1a: names the file after the root. */
static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/* Four lanes of 64-bit words. */
uint64_t cs_index_checksum(const char *p, size_t n)
{
    uint64_t l[4] = {1, 2, 3, 4};
    size_t i = 0;
    for (; i + 32 <= n; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            l[k] = (l[k] ^ w) * 0x9E3779B97F4A7C15ull;
            l[k] ^= l[k] >> 29;
        }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        l[0] = (l[0] ^ w) * 0x9E3779B97F4A7C15ull;
        l[0] ^= l[0] >> 29;
    }
    return l[0] ^ (l[1] * 3) ^ (l[2] * 5) ^ (l[3] * 7) ^ n;
}

char *cs_index_path(const char *dir, const char *root)
{
    char *p = NULL;
    if (asprintf(&p, "%s/code_search-%016llx.idx", dir,
                 (unsigned long long)fnv(root, strlen(root))) < 0)
        return NULL;
    return p;
}

void cs_index_free(cs_index *ix)
{
    if (ix->buf)
        munmap(ix->buf, ix->buflen);
    free(ix->v);
    memset(ix, 0, sizeof *ix);
}

/* The whole file into a new mapping of *len bytes (page-aligned);
 * NULL when it cannot be read or is larger than the limit.  The mapping
 * is anonymous and populated at once: the file's pages are copied, so a
 * file truncated meanwhile cannot raise SIGBUS, and the kernel fills the
 * page tables in one pass rather than at a fault per page (a few
 * milliseconds for a 6 MB index). */
static char *read_all(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return NULL;
    struct stat st;
    char *buf = NULL;
    size_t size = 0, got = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof(ix_header) &&
        (uint64_t)st.st_size <= CS_IX_MAX_BYTES) {
        size = (size_t)st.st_size;
        buf = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
                   -1, 0);
        if (buf == MAP_FAILED)
            buf = NULL;
        else
            cs_index_touch(fd, &st);
    }
    while (buf && got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (buf && got != size) {
        munmap(buf, size);
        buf = NULL;
    }
    *len = size;
    return buf;
}

/* The header's parts fit the file's length exactly. */
static int header_ok(const ix_header *h, size_t len, const char *root, uint64_t build)
{
    if (memcmp(h->magic, CS_IX_MAGIC, 8) != 0 || h->build != build || build == 0 ||
        h->total != len || h->nent > CS_IX_MAX_FILES || h->rootlen != strlen(root) ||
        h->strbytes > len || h->words > len / 8)
        return 0;
    uint64_t need = sizeof *h + PAD8(h->rootlen) + (uint64_t)h->nent * sizeof(ix_rec) +
                    PAD8(h->strbytes) + h->words * 8;
    return need == len;
}

/* Does the bitmap of 1 << log2 bits at word `off` lie within nwords? */
static int bits_in(uint64_t off, uint32_t log2, uint64_t nwords)
{
    return off <= nwords && nwords - off >= ((uint64_t)1 << log2) / 64;
}

/* The declared names of record r (flag CS_IX_DECLS) into e. */
static int names_of(const ix_rec *r, const uint64_t *words, uint64_t nwords, cs_ientry *e)
{
    e->dlog2 = 0;
    e->dbits = NULL;
    if (r->zero != 0)
        return 0;
    if (!(r->flags & CS_IX_DECLS))
        return r->dlog2 == 0 && r->dbitoff == 0;
    if (r->dlog2 == 0)
        return r->dbitoff == 0;
    if (r->dlog2 < CS_IX_DLOG_MIN || r->dlog2 > CS_IX_DLOG_MAX ||
        !bits_in(r->dbitoff, r->dlog2, nwords))
        return 0;
    e->dlog2 = r->dlog2;
    e->dbits = words + r->dbitoff;
    return 1;
}

/* Entry i from its record, checked against the string and bitmap areas. */
static int entry_of(const ix_rec *r, const char *strs, uint64_t strbytes, const uint64_t *words,
                    uint64_t nwords, cs_ientry *e)
{
    if (r->stroff >= strbytes || !memchr(strs + r->stroff, '\0', strbytes - r->stroff))
        return 0;
    e->rel = strs + r->stroff;
    e->id = (cs_ident){r->dev, r->ino, r->size, r->msec, r->mnsec, r->csec, r->cnsec};
    e->flags = r->flags;
    e->log2 = r->log2;
    e->bits = NULL;
    if ((r->flags & ~(CS_IX_BINARY | CS_IX_DECLS)) || !names_of(r, words, nwords, e))
        return 0;
    if (r->flags & CS_IX_BINARY)
        return !(r->flags & CS_IX_DECLS);
    if (r->log2 < CS_IX_LOG_MIN || r->log2 > CS_IX_LOG_MAX || !bits_in(r->bitoff, r->log2, nwords))
        return 0;
    e->bits = words + r->bitoff;
    return 1;
}

static int parse(cs_index *ix, size_t len, const char *root, uint64_t build)
{
    ix_header h;
    memcpy(&h, ix->buf, sizeof h);
    if (!header_ok(&h, len, root, build))
        return 0;
    const char *p = ix->buf + sizeof h;
    if (memcmp(p, root, h.rootlen) != 0 || cs_index_checksum(p, len - sizeof h) != h.sum)
        return 0;
    p += PAD8(h.rootlen);
    const ix_rec *recs = (const ix_rec *)(const void *)p;
    const char *strs = p + (size_t)h.nent * sizeof(ix_rec);
    const uint64_t *words = (const uint64_t *)(const void *)(strs + PAD8(h.strbytes));
    ix->v = calloc((size_t)h.nent + 1, sizeof *ix->v);
    if (!ix->v)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < h.nent; i++) {
        if (!entry_of(&recs[i], strs, h.strbytes, words, h.words, &ix->v[i]) ||
            (i > 0 && strcmp(ix->v[i - 1].rel, ix->v[i].rel) >= 0))
            return 0;
    }
    ix->n = h.nent;
    return 1;
}

int cs_index_load(const char *path, const char *root, uint64_t build, cs_index *out)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    out->buf = read_all(path, &len);
    out->buflen = len;
    if (!out->buf)
        return 0;
    int rc = parse(out, len, root, build);
    if (rc <= 0) {
        cs_index_free(out);
        return rc < 0 ? rc : 0;
    }
    return 0;
}
