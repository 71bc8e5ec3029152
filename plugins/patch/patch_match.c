/* The four matching passes (see patch_match.h). */
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
        for (size_t i = lo; i + n <= total; i++) {
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
