/* Smart case and literal matching over whole files: a case-insensitive
 * ASCII query by the two-byte scan of cs_literal.h, a case-sensitive one
 * by a PCRE2 literal search (JIT); a case-insensitive non-ASCII query folds
 * candidate lines with utf8proc and searches the folded text, mapping hits
 * back to bytes. */
#include "cs_lex.h"
#include "cs_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define FOLD_OPTS (UTF8PROC_CASEFOLD | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT)

/* Fold one code point into dst (UTF-8); returns bytes written (<= 72). */
static size_t fold_cp(int32_t cp, char *dst)
{
    utf8proc_int32_t tmp[18];
    int bound = 0;
    utf8proc_ssize_t n = utf8proc_decompose_char(cp, tmp, 18, FOLD_OPTS, &bound);
    size_t o = 0;
    if (n < 0 || n > 18) {
        tmp[0] = cp;
        n = 1;
    }
    for (utf8proc_ssize_t i = 0; i < n; i++)
        o += (size_t)utf8proc_encode_char(tmp[i], (utf8proc_uint8_t *)dst + o);
    return o;
}

static pcre2_code *compile_literal(const char *s, size_t n, int caseless)
{
    int errc;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile(
        (PCRE2_SPTR)s, n, PCRE2_LITERAL | (caseless ? PCRE2_CASELESS : 0), &errc, &erroff, NULL);
    if (re)
        (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* interpreter otherwise */
    return re;
}

int cs_query_init(cs_query *q, const char *text, char **err)
{
    memset(q, 0, sizeof *q);
    size_t len = strlen(text);
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)text;
    int upper = 0, ascii = 1;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t n = utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
        if (n < 0) {
            *err = strdup("query is not valid UTF-8");
            return VT_ERR_INVALID;
        }
        utf8proc_category_t c = utf8proc_category(cp);
        if (c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LT)
            upper = 1;
        if (cp >= 0x80)
            ascii = 0;
        i += (size_t)n;
    }
    q->text = strdup(text);
    q->len = len;
    q->insensitive = !upper;
    q->fold_lines = q->insensitive && !ascii;
    if (!q->text)
        goto nomem;
    if (q->fold_lines) {
        q->folded = malloc(len * 72 + 1);
        if (!q->folded)
            goto nomem;
        for (size_t i = 0; i < len;) {
            utf8proc_int32_t cp;
            i += (size_t)utf8proc_iterate(p + i, (utf8proc_ssize_t)(len - i), &cp);
            q->flen += fold_cp(cp, q->folded + q->flen);
        }
        q->folded[q->flen] = '\0';
        int fascii = 1;
        for (size_t i = 0; i < q->flen; i++)
            if ((unsigned char)q->folded[i] >= 0x80)
                fascii = 0;
        if (fascii && !(q->re = compile_literal(q->folded, q->flen, 1)))
            goto nomem;
    } else if (q->insensitive && len > 1) {
        /* Faster than PCRE2's caseless search; the case-sensitive one is
         * PCRE2's strength (and a one-byte query is mostly matches). */
        if (!(q->lower = strdup(text)))
            goto nomem;
        for (char *c = q->lower; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c + 32);
        cs_lit_init(&q->lit, q->lower, len, 1);
    } else if (!(q->re = compile_literal(text, len, q->insensitive))) {
        goto nomem;
    }
    return 0;
nomem:
    cs_query_free(q);
    *err = strdup("out of memory");
    return VT_ERR_NOMEM;
}

void cs_query_free(cs_query *q)
{
    free(q->text);
    free(q->folded);
    free(q->lower);
    pcre2_code_free(q->re);
    memset(q, 0, sizeof *q);
}

int cs_matcher_init(cs_matcher *m, const cs_query *q)
{
    memset(m, 0, sizeof *m);
    m->q = q;
    if (q->re && !(m->md = pcre2_match_data_create_from_pattern(q->re, NULL)))
        return VT_ERR_NOMEM;
    return 0;
}

void cs_matcher_free(cs_matcher *m)
{
    pcre2_match_data_free(m->md);
    free(m->fbuf);
    free(m->fmap);
    free(m->fbound);
    memset(m, 0, sizeof *m);
}

/* Next byte match at or after `from`: 1 with [*s,*e), else 0. */
static int re_next(cs_matcher *m, const char *buf, size_t len, size_t from, size_t *s, size_t *e)
{
    int rc = pcre2_jit_match(m->q->re, (PCRE2_SPTR)buf, len, from, 0, m->md, NULL);
    if (rc == PCRE2_ERROR_JIT_BADOPTION)
        rc = pcre2_match(m->q->re, (PCRE2_SPTR)buf, len, from, 0, m->md, NULL);
    if (rc < 0)
        return 0;
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
    *s = ov[0];
    *e = ov[1];
    return 1;
}

static int push(cs_span **v, size_t *n, size_t *cap, size_t s, size_t e)
{
    if (VT_GROW(v, cap, *n + 1) != 0)
        return VT_ERR_NOMEM;
    (*v)[(*n)++] = (cs_span){(uint32_t)s, (uint32_t)e};
    return 0;
}

/* Offset of the first byte >= 0x80 in s[from, n), or n.  Eight bytes at a
 * time: most text is ASCII. */
static size_t find_high(const char *s, size_t from, size_t n)
{
    size_t i = from;
    while (i < n && (i & 7))
        if ((unsigned char)s[i++] >= 0x80)
            return i - 1;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        if (w & 0x8080808080808080ull)
            break;
    }
    for (; i < n; i++)
        if ((unsigned char)s[i] >= 0x80)
            return i;
    return n;
}

/* Fold line [ls, le) into m->fbuf; returns the folded length or -1. */
static long fold_line(cs_matcher *m, const char *ls, size_t n)
{
    size_t need = n * 72 + 1;
    if (need > m->fcap) {
        char *b = realloc(m->fbuf, need);
        if (b)
            m->fbuf = b;
        uint32_t *mp = realloc(m->fmap, need * sizeof *mp);
        if (mp)
            m->fmap = mp;
        uint8_t *fb = realloc(m->fbound, need);
        if (fb)
            m->fbound = fb;
        if (!b || !mp || !fb)
            return -1;
        m->fcap = need;
    }
    size_t o = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)ls;
    for (size_t i = 0; i < n;) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &cp);
        size_t w;
        if (k < 0) { /* invalid byte: kept as itself */
            m->fbuf[o] = ls[i];
            w = 1;
            k = 1;
        } else {
            w = fold_cp(cp, m->fbuf + o);
        }
        for (size_t j = 0; j < w; j++) {
            m->fmap[o + j] = (uint32_t)i;
            m->fbound[o + j] = j == 0;
        }
        o += w;
        i += (size_t)k;
    }
    m->fmap[o] = (uint32_t)n;
    m->fbound[o] = 1;
    return (long)o;
}

/* Matches of a folded query on one line, appended as file offsets. */
static int fold_matches(cs_matcher *m, const char *buf, size_t ls, size_t le, size_t limit,
                        cs_span **v, size_t *n, size_t *cap)
{
    long fl = fold_line(m, buf + ls, le - ls);
    if (fl < 0)
        return VT_ERR_NOMEM;
    const cs_query *q = m->q;
    size_t pos = 0;
    while (pos + q->flen <= (size_t)fl) {
        const char *hit = memmem(m->fbuf + pos, (size_t)fl - pos, q->folded, q->flen);
        if (!hit)
            break;
        size_t fs = (size_t)(hit - m->fbuf), fe = fs + q->flen;
        if (m->fbound[fs] && m->fbound[fe]) {
            if (push(v, n, cap, ls + m->fmap[fs], ls + m->fmap[fe]) < 0)
                return VT_ERR_NOMEM;
            if (limit && *n >= limit)
                return 0;
            pos = fe;
        } else {
            pos = fs + 1;
        }
    }
    return 0;
}

int cs_match_all(cs_matcher *m, const char *buf, size_t len, size_t limit, cs_span **v, size_t *n,
                 size_t *cap)
{
    return cs_match_from(m, buf, len, 0, limit, v, n, cap);
}

int cs_match_from(cs_matcher *m, const char *buf, size_t len, size_t from, size_t limit,
                  cs_span **v, size_t *n, size_t *cap)
{
    const cs_query *q = m->q;
    size_t s, e;
    if (q->lower) {
        size_t pos = from;
        const char *hit;
        while ((hit = cs_lit_find(&q->lit, buf, len, pos))) {
            s = (size_t)(hit - buf);
            if (push(v, n, cap, s, s + q->len) < 0)
                return VT_ERR_NOMEM;
            if (limit && *n >= limit)
                break;
            pos = s + q->len;
        }
        return 0;
    }
    if (!q->fold_lines) {
        size_t pos = from;
        while (pos < len && re_next(m, buf, len, pos, &s, &e)) {
            if (push(v, n, cap, s, e) < 0)
                return VT_ERR_NOMEM;
            if (limit && *n >= limit)
                break;
            pos = e > s ? e : s + 1;
        }
        return 0;
    }
    /* Folding: only lines with a non-ASCII byte or a byte hit of an ASCII
     * folded query can match; jump from one such line to the next. */
    if (from > 0)
        return VT_ERR_INVALID;
    size_t hi = find_high(buf, 0, len);
    size_t hit = q->re && re_next(m, buf, len, 0, &s, &e) ? s : len;
    while (hi < len || hit < len) {
        size_t at = hi < hit ? hi : hit;
        size_t ls = at;
        while (ls > 0 && buf[ls - 1] != '\n')
            ls--;
        size_t le = cs_scan_eol(buf, len, at);
        int rc = fold_matches(m, buf, ls, le, limit, v, n, cap);
        if (rc < 0)
            return rc;
        if ((limit && *n >= limit) || le >= len)
            return 0;
        if (hi <= le)
            hi = find_high(buf, le + 1, len);
        if (hit <= le)
            hit = q->re && re_next(m, buf, len, le + 1, &s, &e) ? s : len;
    }
    return 0;
}

int cs_match_any(cs_matcher *m, const char *s, size_t len)
{
    cs_span *v = NULL;
    size_t n = 0, cap = 0;
    int rc = cs_match_all(m, s, len, 1, &v, &n, &cap);
    free(v);
    return rc == 0 && n > 0;
}
