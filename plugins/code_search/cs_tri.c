/* Trigram signatures (see cs_tri.h).  A trigram is three ASCII-folded
 * bytes (A-Z lowered, every other byte itself) in 24 bits; its bit in a
 * file's bitmap is a multiplicative hash of it. */
#include "cs_tri.h"

#include <string.h>

#define TRI_MUL 0x9E3779B1u

static inline uint32_t fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (uint32_t)c + 32u : c;
}

/* fold() as a table: the comparison's branch mispredicts on text that
 * mixes cases, and the fill runs once per byte of every entered file. */
#define FC(c) ((c) >= 'A' && (c) <= 'Z' ? (c) + 32 : (c))
#define F4(c) FC(c), FC(c + 1), FC(c + 2), FC(c + 3)
#define F16(c) F4(c), F4(c + 4), F4(c + 8), F4(c + 12)
#define F64(c) F16(c), F16(c + 16), F16(c + 32), F16(c + 48)
static const unsigned char FOLD[256] = {F64(0), F64(64), F64(128), F64(192)};

static inline uint32_t tri_bit(uint32_t t, uint32_t log2) { return (t * TRI_MUL) >> (32u - log2); }

void cs_trq_init(cs_trq *tq, const cs_query *q)
{
    memset(tq, 0, sizeof *tq);
    if (q->fold_lines || q->len < 3)
        return;
    const unsigned char *s = (const unsigned char *)q->text;
    for (size_t i = 0; i + 3 <= q->len && tq->n < CS_TRI_QMAX; i++)
        tq->t[tq->n++] = fold(s[i]) | fold(s[i + 1]) << 8 | fold(s[i + 2]) << 16;
    tq->usable = 1;
}

int cs_tri_may_match(const cs_trq *tq, const cs_ientry *e)
{
    if (e->flags & CS_IX_BINARY)
        return 0;
    if (!tq->usable)
        return 1;
    for (size_t i = 0; i < tq->n; i++) {
        uint32_t b = tri_bit(tq->t[i], e->log2);
        if (!(e->bits[b >> 6] & (1ull << (b & 63))))
            return 0;
    }
    return 1;
}

/* About four bytes of content a bit: a source file holds far fewer
 * distinct trigrams than bytes, so a bitmap stays sparse enough that a
 * query of a few trigrams rarely finds all of its bits set by chance. */
uint32_t cs_tri_log2(size_t len)
{
    uint32_t l = CS_IX_LOG_MIN;
    while (l < CS_IX_LOG_MAX && ((size_t)1 << l) < len / 4)
        l++;
    return l;
}

void cs_tri_fill(const char *buf, size_t len, uint32_t log2, uint64_t *bits)
{
    if (len < 3)
        return;
    const unsigned char *s = (const unsigned char *)buf;
    uint32_t t = (uint32_t)FOLD[s[0]] << 8 | (uint32_t)FOLD[s[1]] << 16;
    uint32_t sh = 32u - log2;
    for (size_t i = 2; i < len; i++) {
        t = t >> 8 | (uint32_t)FOLD[s[i]] << 16;
        uint32_t b = (t * TRI_MUL) >> sh;
        bits[b >> 6] |= 1ull << (b & 63);
    }
}
