/* Unified diff rendering and head/tail bounding (see patch_diff.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_diff.h"
#include "patch_text.h"

/* The rendered text.  Only the first and last DIFF_MAX_LINES/2 lines
 * are kept: a first pass counts the lines (`counting`), the second
 * writes the kept ones and a marker where the middle is left out, so a
 * large diff is never built whole. */
typedef struct buf {
    char *p;
    size_t len, cap;
    size_t line;             /* lines started so far */
    size_t adds, dels;       /* '+' and '-' lines (counted when counting) */
    size_t mute_lo, mute_hi; /* lines [mute_lo, mute_hi) are left out */
    int counting, muted, oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom || b->muted)
        return;
    if (VT_GROW(&b->p, &b->cap, b->len + n + 1) != 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void line_start(buf *b)
{
    size_t i = b->line++;
    if (b->counting) {
        b->muted = 1;
        return;
    }
    if (i == b->mute_lo && b->mute_hi > b->mute_lo) {
        char mark[96];
        int m = snprintf(mark, sizeof mark, "... %zu lines omitted ...\n", b->mute_hi - b->mute_lo);
        b->muted = 0;
        put(b, mark, (size_t)m);
    }
    b->muted = i >= b->mute_lo && i < b->mute_hi;
}

static void emit(buf *b, char op, const char *s, size_t n)
{
    line_start(b);
    put(b, &op, 1);
    put(b, s, n);
    put(b, "\n", 1);
}

static void range(char *out, size_t size, size_t start, size_t count)
{
    /* GNU form: the start is the line before an empty range. */
    if (count == 1)
        snprintf(out, size, "%zu", start + 1);
    else
        snprintf(out, size, "%zu,%zu", count ? start + 1 : start, count);
}

static void hunk(buf *b, const diff_item *it, size_t lo, size_t hi, size_t old_no, size_t new_no)
{
    size_t oc = 0, nc = 0;
    for (size_t i = lo; i < hi; i++) {
        if (it[i].op != '+')
            oc++;
        if (it[i].op != '-')
            nc++;
    }
    line_start(b);
    if (!b->muted) {
        char a[48], c[48], h[112];
        range(a, sizeof a, old_no, oc);
        range(c, sizeof c, new_no, nc);
        int n = snprintf(h, sizeof h, "@@ -%s +%s @@", a, c);
        put(b, h, (size_t)n);
        put(b, "\n", 1);
    }
    for (size_t i = lo; i < hi; i++) {
        emit(b, it[i].op, it[i].s, it[i].len);
        if (it[i].noeol) {
            static const char m[] = "\\ No newline at end of file";
            line_start(b);
            put(b, m, sizeof m - 1);
            put(b, "\n", 1);
        }
    }
}

/* One pass over the edit script into b (see buf). */
static void render(const diff_item *it, size_t n, buf *b)
{
    size_t old_no = 0, new_no = 0; /* lines before item i */
    size_t i = 0;
    while (i < n) {
        if (it[i].op == ' ' || it[i].op == '=') {
            size_t k = it[i].op == '=' ? it[i].len : 1;
            old_no += k;
            new_no += k;
            i++;
            continue;
        }
        /* A hunk: from DIFF_CONTEXT before this change to DIFF_CONTEXT
         * after the last change that lies within 2*DIFF_CONTEXT of the
         * previous one. */
        size_t lo = i >= DIFF_CONTEXT ? i - DIFF_CONTEXT : 0;
        for (size_t k = lo; k < i; k++)
            if (it[k].op == '=')
                lo = k + 1;
        size_t back = i - lo;
        size_t last = i;
        size_t j = i;
        while (j < n && it[j].op != '=') {
            if (it[j].op != ' ') {
                last = j;
                j++;
                continue;
            }
            if (j - last > 2 * DIFF_CONTEXT)
                break;
            j++;
        }
        size_t hi = last + 1 + DIFF_CONTEXT;
        if (hi > j && j < n && it[j].op == '=')
            hi = j; /* a skipped run is never shown */
        if (hi > n)
            hi = n;
        hunk(b, it, lo, hi, old_no - back, new_no - back);
        for (size_t k = i; k < hi; k++) {
            if (it[k].op != '+')
                old_no++;
            if (it[k].op != '-')
                new_no++;
            if (b->counting) {
                b->adds += it[k].op == '+';
                b->dels += it[k].op == '-';
            }
        }
        i = hi;
    }
}

int diff_render(const diff_item *it, size_t n, diff_out *out)
{
    buf b = {.counting = 1};
    render(it, n, &b);
    size_t total = b.line;
    *out = (diff_out){.additions = b.adds, .deletions = b.dels};
    b = (buf){0};
    if (total > DIFF_MAX_LINES) {
        b.mute_lo = DIFF_MAX_LINES / 2;
        b.mute_hi = total - DIFF_MAX_LINES / 2;
        out->omitted = b.mute_hi - b.mute_lo;
        out->truncated = 1;
    }
    render(it, n, &b);
    out->content = b.p ? b.p : strdup("");
    if (b.oom || !out->content) {
        free(b.p);
        out->content = NULL;
        return VT_ERR_NOMEM;
    }
    return 0;
}

void diff_out_free(diff_out *d)
{
    free(d->content);
    d->content = NULL;
}
