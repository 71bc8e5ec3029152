/* The four matching passes (see patch_match.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "patch_match.h"

enum { PASS_EXACT, PASS_RSTRIP, PASS_TRIM, PASS_FOLD, PASS_COUNT };

void matcher_init(matcher *m, const text_lines *file)
{
    memset(m, 0, sizeof *m);
    m->file = file;
}

void matcher_free(matcher *m)
{
    free(m->ix_start);
    free(m->ix_pos);
    m->ix_start = m->ix_pos = NULL;
    if (m->fold) {
        for (size_t i = 0; i < m->file->n; i++)
            free(m->fold[i]);
    }
    free(m->fold);
    free(m->fold_len);
    m->fold = NULL;
    m->fold_len = NULL;
}

static int folded_file_line(matcher *m, size_t i, const char **s, size_t *len)
{
    if (!m->fold) {
        m->fold = calloc(m->file->n ? m->file->n : 1, sizeof *m->fold);
        m->fold_len = calloc(m->file->n ? m->file->n : 1, sizeof *m->fold_len);
        if (!m->fold || !m->fold_len)
            return VT_ERR_NOMEM;
    }
    if (!m->fold[i]) {
        m->fold[i] = text_fold(text_line_ptr(m->file, i), m->file->v[i].len, &m->fold_len[i]);
        if (!m->fold[i])
            return VT_ERR_NOMEM;
    }
    *s = m->fold[i];
    *len = m->fold_len[i];
    return 0;
}

static int same(const char *a, size_t al, const char *b, size_t bl)
{
    return al == bl && memcmp(a, b, al) == 0;
}

/* 1 when file line i equals pattern line p under `pass`. */
static int line_eq(matcher *m, int pass, size_t i, const match_span *p, const match_span *pf)
{
    const char *a = text_line_ptr(m->file, i);
    size_t al = m->file->v[i].len;
    const char *b = p->s;
    size_t bl = p->len;
    switch (pass) {
    case PASS_EXACT: return same(a, al, b, bl);
    case PASS_RSTRIP:
        text_rstrip(&a, &al);
        text_rstrip(&b, &bl);
        return same(a, al, b, bl);
    case PASS_TRIM:
        text_trim(&a, &al);
        text_trim(&b, &bl);
        return same(a, al, b, bl);
    default:
        if (folded_file_line(m, i, &a, &al))
            return -1;
        return same(a, al, pf->s, pf->len);
    }
}

static int try_at(matcher *m, int pass, size_t at, const match_span *pat, const match_span *folded,
                  size_t n)
{
    for (size_t k = 0; k < n; k++) {
        int r = line_eq(m, pass, at + k, &pat[k], folded ? &folded[k] : NULL);
        if (r != 1)
            return r;
    }
    return 1;
}

static size_t trimmed_hash(const char *s, size_t len)
{
    text_trim(&s, &len);
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return (size_t)(h ^ (h >> 29));
}

/* Build the context index (two passes over the lines: counts, then
 * positions in ascending order).  Out of memory leaves it unbuilt: the
 * scans still work. */
static void index_build(matcher *m)
{
    const text_lines *f = m->file;
    size_t nb = 64;
    while (nb < 2 * f->n)
        nb *= 2;
    size_t *start = calloc(nb + 1, sizeof *start);
    size_t *pos = malloc((f->n ? f->n : 1) * sizeof *pos);
    size_t *hash = malloc((f->n ? f->n : 1) * sizeof *hash);
    if (!start || !pos || !hash) {
        free(start);
        free(pos);
        free(hash);
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        hash[i] = trimmed_hash(text_line_ptr(f, i), f->v[i].len) & (nb - 1);
        start[hash[i] + 1]++;
    }
    for (size_t b = 0; b < nb; b++)
        start[b + 1] += start[b];
    /* start[b] is used as the fill cursor, then restored from its end. */
    for (size_t i = 0; i < f->n; i++)
        pos[start[hash[i]]++] = i;
    for (size_t b = nb; b > 0; b--)
        start[b] = start[b - 1];
    start[0] = 0;
    free(hash);
    m->ix_start = start;
    m->ix_pos = pos;
    m->ix_mask = nb - 1;
}

/* The first i in [lo, total - n] where the pattern matches under `pass`
 * (one of the first three), by the index: only where pattern line k's
 * trimmed hash is found.  k is the pattern line with the fewest
 * candidates.  Returns 1 and *at, 0, or negative. */
static int index_seek(matcher *m, int pass, size_t lo, const match_span *pat, size_t n, size_t *at)
{
    size_t total = m->file->n, k = 0, best = (size_t)-1, b = 0;
    for (size_t j = 0; j < n && best > 0; j++) {
        size_t bj = trimmed_hash(pat[j].s, pat[j].len) & m->ix_mask;
        size_t cnt = m->ix_start[bj + 1] - m->ix_start[bj];
        if (cnt < best) {
            best = cnt;
            k = j;
            b = bj;
        }
    }
    const size_t *p = m->ix_pos + m->ix_start[b], *end = m->ix_pos + m->ix_start[b + 1];
    /* The first candidate line at or after lo + k. */
    size_t a = 0, z = (size_t)(end - p);
    while (a < z) {
        size_t mid = (a + z) / 2;
        if (p[mid] < lo + k)
            a = mid + 1;
        else
            z = mid;
    }
    for (p += a; p < end && p[0] - k + n <= total; p++) {
        int r = try_at(m, pass, p[0] - k, pat, NULL, n);
        if (r != 0) {
            if (r == 1)
                *at = p[0] - k;
            return r;
        }
    }
    return 0;
}

int matcher_seek(matcher *m, size_t from, const match_span *pat, size_t n, int eof, size_t *at)
{
    size_t total = m->file->n;
    if (n > total || from > total - n)
        return 0;
    match_span *folded = NULL;
    int found = 0;
    for (int pass = PASS_EXACT; pass < PASS_COUNT && !found; pass++) {
        if (pass == PASS_FOLD) {
            folded = calloc(n ? n : 1, sizeof *folded);
            if (!folded)
                return VT_ERR_NOMEM;
            for (size_t k = 0; k < n; k++) {
                folded[k].s = text_fold(pat[k].s, pat[k].len, &folded[k].len);
                if (!folded[k].s) {
                    found = VT_ERR_NOMEM;
                    goto out;
                }
            }
        }
        /* End of File: only where the lines end the file, and not
         * before the cursor. */
        size_t lo = eof ? total - n : from;
        if (lo < from)
            break;
        if (!m->ix_start && m->scanned > 4 * total + 4096)
            index_build(m);
        if (m->ix_start && pass != PASS_FOLD && n > 0) {
            found = index_seek(m, pass, lo, pat, n, at);
            if (found < 0)
                goto out;
            continue;
        }
        for (size_t i = lo; i + n <= total; i++) {
            m->scanned++;
            int r = try_at(m, pass, i, pat, folded, n);
            if (r < 0) {
                found = r;
                goto out;
            }
            if (r == 1) {
                *at = i;
                found = 1;
                break;
            }
        }
    }
out:
    if (folded) {
        for (size_t k = 0; k < n; k++)
            free((char *)folded[k].s);
        free(folded);
    }
    return found;
}
