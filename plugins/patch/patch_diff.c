/* Unified diff rendering and head/tail bounding (see patch_diff.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_diff.h"
#include "patch_text.h"

typedef struct buf {
    char *p;
    size_t len, cap;
    size_t *lines; /* start offset of each output line */
    size_t nlines, lcap;
    int oom;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->oom)
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
    if (b->oom)
        return;
    if (VT_GROW(&b->lines, &b->lcap, b->nlines + 1) != 0) {
        b->oom = 1;
        return;
    }
    b->lines[b->nlines++] = b->len;
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
    char a[48], c[48], h[112];
    range(a, sizeof a, old_no, oc);
    range(c, sizeof c, new_no, nc);
    int n = snprintf(h, sizeof h, "@@ -%s +%s @@", a, c);
    line_start(b);
    put(b, h, (size_t)n);
    put(b, "\n", 1);
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

/* Keep the first and last DIFF_MAX_LINES/2 lines around a marker. */
static int bound(buf *b, diff_out *out)
{
    out->content = b->p ? b->p : strdup("");
    b->p = NULL;
    if (!out->content)
        return VT_ERR_NOMEM;
    if (b->nlines <= DIFF_MAX_LINES)
        return 0;
    size_t half = DIFF_MAX_LINES / 2;
    size_t head_end = b->lines[half];
    size_t tail_start = b->lines[b->nlines - half];
    out->omitted = b->nlines - 2 * half;
    out->truncated = 1;
    char mark[96];
    int m = snprintf(mark, sizeof mark, "... %zu lines omitted ...\n", out->omitted);
    size_t tail_len = b->len - tail_start;
    char *c = malloc(head_end + (size_t)m + tail_len + 1);
    if (!c)
        return VT_ERR_NOMEM;
    memcpy(c, out->content, head_end);
    memcpy(c + head_end, mark, (size_t)m);
    memcpy(c + head_end + m, out->content + tail_start, tail_len);
    c[head_end + (size_t)m + tail_len] = '\0';
    free(out->content);
    out->content = c;
    return 0;
}

int diff_render(const diff_item *it, size_t n, diff_out *out)
{
    memset(out, 0, sizeof *out);
    buf b = {0};
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
        hunk(&b, it, lo, hi, old_no - back, new_no - back);
        for (size_t k = i; k < hi; k++) {
            if (it[k].op != '+')
                old_no++;
            if (it[k].op != '-')
                new_no++;
            if (it[k].op == '+')
                out->additions++;
            if (it[k].op == '-')
                out->deletions++;
        }
        i = hi;
    }
    int rc = b.oom ? VT_ERR_NOMEM : bound(&b, out);
    free(b.p);
    free(b.lines);
    if (rc)
        diff_out_free(out);
    return rc;
}

void diff_out_free(diff_out *d)
{
    free(d->content);
    d->content = NULL;
}
