/* Declared names in the content index (see cs_decls.h). */
#include "cs_decls.h"
#include "cs_types.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/plugin.h>

#define BITS_PER_NAME 16 /* with two bits a name: ~1.4 % false positives */

/* 64-bit FNV-1a over the bytes with ASCII letters lowered. */
static uint64_t name_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 'A' && c <= 'Z')
            c = (unsigned char)(c + 32);
        h = (h ^ c) * 0x100000001b3ull;
    }
    return h;
}

static inline uint64_t bit1(uint64_t h, uint32_t log2) { return h >> (64u - log2); }
static inline uint64_t bit2(uint64_t h, uint32_t log2)
{
    return (h * 0x9E3779B97F4A7C15ull) >> (64u - log2);
}

void cs_dq_init(cs_dq *dq, const cs_query *q)
{
    memset(dq, 0, sizeof *dq);
    if (q->fold_lines || q->len == 0)
        return;
    dq->h = name_hash(q->text, q->len);
    dq->usable = 1;
}

int cs_decls_may(const cs_dq *dq, const cs_ientry *e)
{
    if (!dq->usable || !(e->flags & CS_IX_DECLS))
        return 1;
    if (e->dlog2 == 0)
        return 0;
    uint64_t a = bit1(dq->h, e->dlog2), b = bit2(dq->h, e->dlog2);
    return (e->dbits[a / 64] >> (a % 64) & 1) && (e->dbits[b / 64] >> (b % 64) & 1);
}

static uint32_t set_log2(size_t names)
{
    uint32_t log2 = CS_IX_DLOG_MIN;
    while (log2 < CS_IX_DLOG_MAX && ((size_t)1 << log2) < names * BITS_PER_NAME)
        log2++;
    return log2;
}

int cs_decls_make(cs_fresh *f, int lexer, const char *buf, size_t len, cs_toks *t)
{
    size_t names = 0;
    /* Without a lexer a file gives no definitions (cs_buf_scan). */
    if (lexer != CS_LEX_NONE) {
        if (cs_lex(lexer, buf, len, t) < 0 || cs_decl_mark(lexer, buf, t) < 0)
            return VT_ERR_NOMEM;
        for (size_t i = 0; i < t->n; i++)
            names += t->v[i].def != 0;
    }
    f->dlog2 = 0;
    if (names) {
        f->dlog2 = set_log2(names);
        f->dbits = calloc(((size_t)1 << f->dlog2) / 64, 8);
        if (!f->dbits)
            return VT_ERR_NOMEM;
        for (size_t i = 0; i < t->n; i++) {
            if (!t->v[i].def)
                continue;
            uint64_t h = name_hash(buf + t->v[i].start, t->v[i].end - t->v[i].start);
            uint64_t a = bit1(h, f->dlog2), b = bit2(h, f->dlog2);
            f->dbits[a / 64] |= 1ull << (a % 64);
            f->dbits[b / 64] |= 1ull << (b % 64);
        }
    }
    f->flags |= CS_IX_DECLS;
    return 0;
}

static uint64_t build_id;
static pthread_once_t build_once = PTHREAD_ONCE_INIT;

/* The object file holding this code, by identity: a rebuilt or
 * reinstalled plugin is another file (or the same one with other times). */
static void find_build(void)
{
    Dl_info self;
    struct stat st;
    if (!dladdr((void *)&cs_decls_make, &self) || !self.dli_fname || stat(self.dli_fname, &st) != 0)
        return;
    uint64_t v[5] = {(uint64_t)st.st_dev, (uint64_t)st.st_ino, (uint64_t)st.st_size,
                     (uint64_t)st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec};
    uint64_t h = name_hash((const char *)v, sizeof v);
    build_id = h ? h : 1;
}

uint64_t cs_decls_build(void)
{
    pthread_once(&build_once, find_build);
    return build_id;
}
