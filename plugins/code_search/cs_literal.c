/* Two-byte literal search (see cs_literal.h). */
#include "cs_literal.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* How common a byte is in source text, roughly (higher: more common). */
static int commonness(unsigned char c, int caseless)
{
    static const char order[] = " etainosrlcd_uphm\tf()gb,;.=ywv*/kx0\"-jqz";
    if (caseless && c >= 'A' && c <= 'Z')
        c = (unsigned char)(c + 32);
    const char *at = c ? strchr(order, c) : NULL;
    if (at)
        return 300 - (int)(at - order) * 6;
    if (c >= '1' && c <= '9')
        return 100;
    if (c >= 'A' && c <= 'Z')
        return 80;
    return c >= 0x80 ? 10 : 40;
}

static int lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

void cs_lit_init(cs_lit *l, const char *needle, size_t n, int caseless)
{
    memset(l, 0, sizeof *l);
    l->needle = needle;
    l->n = n;
    l->caseless = caseless;
    /* The rarest byte, then the rarest other byte value (a repeat of the
     * same byte at another offset says little more). */
    size_t a = 0, b = 0;
    for (size_t i = 1; i < n; i++)
        if (commonness((unsigned char)needle[i], caseless) <
            commonness((unsigned char)needle[a], caseless))
            a = i;
    int have_b = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == a || needle[i] == needle[a])
            continue;
        if (!have_b || commonness((unsigned char)needle[i], caseless) <
                           commonness((unsigned char)needle[b], caseless)) {
            b = i;
            have_b = 1;
        }
    }
    if (!have_b)
        b = n - 1 != a ? n - 1 : 0;
    l->at[0] = a < b ? a : b;
    l->at[1] = a < b ? b : a;
    for (int k = 0; k < 2; k++) {
        unsigned char c = (unsigned char)needle[l->at[k]];
        l->want[k] = c;
        l->fold[k] = caseless && c >= 'a' && c <= 'z' ? 0x20 : 0;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    l->avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
}

static int equal_at(const cs_lit *l, const char *p)
{
    if (!l->caseless)
        return memcmp(p, l->needle, l->n) == 0;
    for (size_t i = 0; i < l->n; i++)
        if (lower((unsigned char)p[i]) != (unsigned char)l->needle[i])
            return 0;
    return 1;
}

static int pair_at(const cs_lit *l, const char *s)
{
    return ((unsigned char)s[l->at[0]] | l->fold[0]) == l->want[0] &&
           ((unsigned char)s[l->at[1]] | l->fold[1]) == l->want[1];
}

#ifdef __SSE2__
/* Candidates among the 16 starts at s: bit i set when both rare bytes
 * are in place for the start s + i. */
static unsigned block_mask(const cs_lit *l, const char *s, __m128i w0, __m128i w1, __m128i f0,
                           __m128i f1)
{
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)(s + l->at[0]));
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + l->at[1]));
    __m128i h = _mm_and_si128(_mm_cmpeq_epi8(_mm_or_si128(x0, f0), w0),
                              _mm_cmpeq_epi8(_mm_or_si128(x1, f1), w1));
    return (unsigned)_mm_movemask_epi8(h);
}
#endif

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define CS_HAVE_AVX2 1

/* The same test 32 starts at a time: the search reads each byte of the
 * file once, right after the kernel copied it in, and half the
 * instructions per byte is what shows in a profile of a rare query. */
__attribute__((target("avx2"))) static const char *find_avx2(const cs_lit *l, const char **sp,
                                                             const char *last)
{
    const char *s = *sp;
    __m256i w0 = _mm256_set1_epi8((char)l->want[0]), w1 = _mm256_set1_epi8((char)l->want[1]);
    __m256i f0 = _mm256_set1_epi8((char)l->fold[0]), f1 = _mm256_set1_epi8((char)l->fold[1]);
    for (; last - s >= 32; s += 32) {
        __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(s + l->at[0]));
        __m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(s + l->at[1]));
        __m256i h = _mm256_and_si256(_mm256_cmpeq_epi8(_mm256_or_si256(x0, f0), w0),
                                     _mm256_cmpeq_epi8(_mm256_or_si256(x1, f1), w1));
        unsigned m = (unsigned)_mm256_movemask_epi8(h);
        while (m) {
            const char *c = s + __builtin_ctz(m);
            if (equal_at(l, c))
                return c;
            m &= m - 1;
        }
    }
    *sp = s;
    return NULL;
}
#endif

const char *cs_lit_find(const cs_lit *l, const char *buf, size_t len, size_t from)
{
    if (l->n == 0 || from > len || len - from < l->n)
        return NULL;
    const char *s = buf + from, *last = buf + len - l->n; /* match starts: [s, last] */
#ifdef CS_HAVE_AVX2
    if (l->avx2) {
        const char *c = find_avx2(l, &s, last);
        if (c)
            return c;
    }
#endif
#ifdef __SSE2__
    __m128i w0 = _mm_set1_epi8((char)l->want[0]), w1 = _mm_set1_epi8((char)l->want[1]);
    __m128i f0 = _mm_set1_epi8((char)l->fold[0]), f1 = _mm_set1_epi8((char)l->fold[1]);
    /* Blocks of 16 starts while every byte loaded lies in buf. */
    for (; last - s >= 16; s += 16) {
        unsigned m = block_mask(l, s, w0, w1, f0, f1);
        while (m) {
            const char *c = s + __builtin_ctz(m);
            if (equal_at(l, c))
                return c;
            m &= m - 1;
        }
    }
#endif
    for (; s <= last; s++)
        if (pair_at(l, s) && equal_at(l, s))
            return s;
    return NULL;
}
