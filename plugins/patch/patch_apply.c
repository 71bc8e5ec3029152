/* Computing an update: locate every chunk with a moving cursor, then
 * build the new bytes and the edit script the diff is rendered from. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_apply.h"
#include "patch_match.h"
#include "patch_text.h"

typedef struct edit {
    size_t at;           /* first old line replaced */
    size_t old_n;        /* old lines replaced */
    size_t first, count; /* patch lines of the chunk actually used */
} edit;

typedef struct builder {
    struct iovec *seg; /* the new content's pieces */
    size_t nseg, cap_seg, len;
    diff_item *items;
    size_t n, cap_items;
    int prev_noeol;
    const char *eol;
    size_t eol_len;
    int oom;
} builder;

/* Append n bytes at s as a piece, or extend the last piece when s
 * follows it (kept lines of the old text run on). */
static void bput(builder *b, const char *s, size_t n)
{
    if (b->oom || n == 0)
        return;
    b->len += n;
    struct iovec *last = b->nseg ? &b->seg[b->nseg - 1] : NULL;
    if (last && (const char *)last->iov_base + last->iov_len == s) {
        last->iov_len += n;
        return;
    }
    if (VT_GROW(&b->seg, &b->cap_seg, b->nseg + 1) != 0) {
        b->oom = 1;
        return;
    }
    b->seg[b->nseg++] = (struct iovec){(void *)s, n};
}

static void item(builder *b, char op, const char *s, size_t len, int noeol)
{
    if (b->oom)
        return;
    if (VT_GROW(&b->items, &b->cap_items, b->n + 1) != 0) {
        b->oom = 1;
        return;
    }
    b->items[b->n++] = (diff_item){op, (unsigned char)noeol, s, len};
}

static void out_line(builder *b, const char *s, size_t len, const char *eol, size_t eol_len)
{
    if (b->prev_noeol)
        bput(b, b->eol, b->eol_len);
    bput(b, s, len);
    bput(b, eol, eol_len);
    b->prev_noeol = eol_len == 0;
}

static void keep(builder *b, const text_lines *f, size_t i)
{
    const char *s = text_line_ptr(f, i);
    size_t len = f->v[i].len;
    out_line(b, s, len, s + len, f->v[i].eol);
    if (f->v[i].eol == 0) {
        /* The result gains a line ending here: show it as a change. */
        item(b, '-', s, len, 1);
        item(b, '+', s, len, 0);
    } else {
        item(b, ' ', s, len, 0);
    }
}

/* Kept lines [from, to): copied as one block, and in the edit script
 * only the DIFF_CONTEXT lines at each end stand for themselves; the
 * middle, which no hunk can show, is one '=' item.  The file's last line
 * is always kept line by line (it may lack its ending). */
static void keep_run(builder *b, const text_lines *f, size_t from, size_t to)
{
    size_t last = to < f->n ? to : f->n - 1;
    if (to <= from || last - from <= 2 * DIFF_CONTEXT) {
        for (size_t i = from; i < to; i++)
            keep(b, f, i);
        return;
    }
    for (size_t i = from; i < from + DIFF_CONTEXT; i++)
        keep(b, f, i);
    size_t a = from + DIFF_CONTEXT, z = last - DIFF_CONTEXT; /* [a, z) skipped */
    if (b->prev_noeol)
        bput(b, b->eol, b->eol_len);
    b->prev_noeol = 0;
    size_t start = f->v[a].off, end = f->v[z - 1].off + f->v[z - 1].len + f->v[z - 1].eol;
    bput(b, f->base + start, end - start);
    item(b, '=', NULL, z - a, 0);
    for (size_t i = z; i < to; i++)
        keep(b, f, i);
}

static void add(builder *b, const char *s, size_t len)
{
    out_line(b, s, len, b->eol, b->eol_len);
    item(b, '+', s, len, 0);
}

/* The lines a chunk expects (context and removed). */
static size_t pattern(const patch *p, size_t first, size_t count, match_span *pat)
{
    size_t n = 0;
    for (size_t k = first; k < first + count; k++)
        if (p->lines[k].kind != '+')
            pat[n++] = (match_span){p->lines[k].text, p->lines[k].len};
    return n;
}

static int not_found(char **err, const char *path, size_t chunk_no, const patch_chunk *c,
                     const match_span *pat, size_t n)
{
    size_t cap = 64;
    for (size_t k = 0; k < n && k < 40; k++)
        cap += pat[k].len + 1;
    char *lines = malloc(cap);
    if (!lines)
        return VT_ERR_NOMEM;
    size_t o = 0;
    for (size_t k = 0; k < n && k < 40; k++) {
        memcpy(lines + o, pat[k].s, pat[k].len);
        o += pat[k].len;
        lines[o++] = '\n';
    }
    if (n > 40)
        o += (size_t)snprintf(lines + o, cap - o, "... (%zu more lines)\n", n - 40);
    lines[o] = '\0';
    int rc = patch_fail(err, VT_ERR_INVALID,
                        "Failed to find expected lines in %s (chunk %zu, patch line %zu):\n%s%s",
                        path, chunk_no, c->line_no, lines, c->eof ? "*** End of File\n" : "");
    free(lines);
    return rc;
}

/* Locate one chunk; fills e.  cursor is updated. */
static int locate(const patch *p, const patch_chunk *c, size_t chunk_no, const char *path,
                  matcher *m, size_t *cursor, match_span *pat, edit *e, char **err)
{
    const text_lines *f = m->file;
    size_t from = *cursor;
    if (c->ctx) {
        match_span ctx = {c->ctx, c->ctx_len};
        size_t idx;
        int r = matcher_seek(m, *cursor, &ctx, 1, 0, &idx);
        if (r < 0)
            return r;
        if (r == 0)
            return patch_fail(err, VT_ERR_INVALID,
                              "Failed to find expected lines in %s (chunk %zu, patch line %zu):\n"
                              "@@ %.*s\n",
                              path, chunk_no, c->line_no, (int)c->ctx_len, c->ctx);
        from = idx + 1;
        /* Models often repeat the '@@' line as the first context line. */
        size_t n0 = pattern(p, c->first, c->count, pat);
        if (n0) {
            size_t at;
            r = matcher_seek(m, from, pat, n0, c->eof, &at);
            if (r == 0)
                from = idx;
            else if (r < 0)
                return r;
        }
    }
    size_t count = c->count;
    for (;;) {
        size_t n = pattern(p, c->first, count, pat);
        if (n == 0) {
            /* Only additions: append at the end of the file. */
            *e = (edit){f->n, 0, c->first, count};
            *cursor = f->n;
            return 0;
        }
        size_t at;
        int r = matcher_seek(m, from, pat, n, c->eof, &at);
        if (r < 0)
            return r;
        if (r == 1) {
            *e = (edit){at, n, c->first, count};
            *cursor = at + n;
            return 0;
        }
        /* Blank lines trailing a chunk are usually spacing before the
         * next header, not lines the file must have: retry without. */
        const patch_line *last = &p->lines[c->first + count - 1];
        if (count > 1 && last->kind == ' ' && last->len == 0) {
            count--;
            continue;
        }
        n = pattern(p, c->first, c->count, pat);
        return not_found(err, path, chunk_no, c, pat, n);
    }
}

/* The built pieces and the diff into `out`; `b` is spent either way. */
static int finish(builder *b, file_result *out)
{
    int rc = b->oom ? VT_ERR_NOMEM : diff_render(b->items, b->n, &out->diff);
    free(b->items);
    /* An empty content still has its (empty) list. */
    if (rc == 0 && !b->seg && !(b->seg = malloc(sizeof *b->seg))) {
        diff_out_free(&out->diff);
        rc = VT_ERR_NOMEM;
    }
    if (rc) {
        free(b->seg);
        return rc;
    }
    out->seg = b->seg;
    out->nseg = b->nseg;
    out->size = b->len;
    return 0;
}

static int build(const patch *p, const text_lines *f, const edit *ed, size_t ne, file_result *out)
{
    builder b = {0};
    b.eol = f->eol;
    b.eol_len = f->eol_len;
    /* Size both lists once, from the chunks (they grow if needed). */
    size_t patch_lines = 0;
    for (size_t k = 0; k < ne; k++)
        patch_lines += ed[k].count;
    /* An added line is two pieces (text, ending); each chunk starts
     * about one run of old text. */
    b.cap_seg = 2 * patch_lines + ne + 4;
    b.seg = malloc(b.cap_seg * sizeof *b.seg);
    b.cap_items = patch_lines + (ne + 1) * (2 * DIFF_CONTEXT + 1) + 2;
    b.items = malloc(b.cap_items * sizeof *b.items);
    if (!b.seg || !b.items) {
        free(b.seg);
        free(b.items);
        return VT_ERR_NOMEM;
    }
    size_t pos = 0;
    for (size_t k = 0; k < ne; k++) {
        keep_run(&b, f, pos, ed[k].at);
        pos = ed[k].at > pos ? ed[k].at : pos;
        for (size_t l = ed[k].first; l < ed[k].first + ed[k].count; l++) {
            const patch_line *pl = &p->lines[l];
            if (pl->kind == '+') {
                add(&b, pl->text, pl->len);
            } else if (pl->kind == ' ') {
                keep(&b, f, pos++);
            } else {
                item(&b, '-', text_line_ptr(f, pos), f->v[pos].len, f->v[pos].eol == 0);
                pos++;
            }
        }
    }
    keep_run(&b, f, pos, f->n);
    if (b.prev_noeol)
        bput(&b, b.eol, b.eol_len);
    return finish(&b, out);
}

int apply_update(const patch *p, const patch_op *op, const char *path, const char *old,
                 size_t old_len, file_result *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    text_lines f;
    int rc = text_split(old, old_len, &f);
    if (rc)
        return rc;
    matcher m;
    matcher_init(&m, &f);
    edit *ed = calloc(op->chunk_count ? op->chunk_count : 1, sizeof *ed);
    size_t maxn = 1;
    for (size_t k = 0; k < op->chunk_count; k++)
        if (p->chunks[op->chunk_first + k].count > maxn)
            maxn = p->chunks[op->chunk_first + k].count;
    match_span *pat = malloc(maxn * sizeof *pat);
    if (!ed || !pat) {
        rc = VT_ERR_NOMEM;
        goto done;
    }
    size_t cursor = 0;
    for (size_t k = 0; k < op->chunk_count && rc == 0; k++)
        rc = locate(p, &p->chunks[op->chunk_first + k], k + 1, path, &m, &cursor, pat, &ed[k], err);
    if (rc == 0)
        rc = build(p, &f, ed, op->chunk_count, out);
done:
    free(pat);
    free(ed);
    matcher_free(&m);
    text_lines_free(&f);
    return rc;
}

int apply_add(const patch *p, const patch_op *op, file_result *out)
{
    memset(out, 0, sizeof *out);
    builder b = {0};
    b.eol = "\n";
    b.eol_len = 1;
    for (size_t l = op->first; l < op->first + op->count; l++)
        add(&b, p->lines[l].text, p->lines[l].len);
    int rc = finish(&b, out);
    return rc ? rc : file_result_flatten(out);
}

/* The diff of a whole content removed ('-') or added ('+'). */
static int whole_file_diff(char op, const char *data, size_t len, file_result *out)
{
    memset(out, 0, sizeof *out);
    text_lines f;
    int rc = text_split(data, len, &f);
    if (rc)
        return rc;
    builder b = {0};
    for (size_t i = 0; i < f.n; i++)
        item(&b, op, text_line_ptr(&f, i), f.v[i].len, op == '-' && f.v[i].eol == 0);
    rc = b.oom ? VT_ERR_NOMEM : diff_render(b.items, b.n, &out->diff);
    free(b.items);
    text_lines_free(&f);
    return rc;
}

int apply_delete(const char *old, size_t old_len, file_result *out)
{
    return whole_file_diff('-', old, old_len, out);
}

int apply_created_diff(const char *data, size_t len, file_result *out)
{
    return whole_file_diff('+', data, len, out);
}

int file_result_flatten(file_result *r)
{
    if (r->data || !r->seg)
        return 0;
    char *d = malloc(r->size + 1);
    if (!d)
        return VT_ERR_NOMEM;
    size_t o = 0;
    for (size_t i = 0; i < r->nseg; i++) {
        memcpy(d + o, r->seg[i].iov_base, r->seg[i].iov_len);
        o += r->seg[i].iov_len;
    }
    d[o] = '\0';
    r->data = d;
    /* From here on the pieces are the block: they no longer borrow. */
    r->nseg = 1;
    r->seg[0] = (struct iovec){d, o};
    return 0;
}

int file_result_same(const file_result *r, const char *old, size_t len)
{
    if (r->size != len)
        return 0;
    size_t o = 0;
    for (size_t i = 0; i < r->nseg; i++) {
        const struct iovec *v = &r->seg[i];
        /* A kept run usually sits where it was: nothing to compare. */
        if (v->iov_base != old + o && memcmp(v->iov_base, old + o, v->iov_len) != 0)
            return 0;
        o += v->iov_len;
    }
    return 1;
}

void file_result_free(file_result *r)
{
    free(r->data);
    free(r->seg);
    r->data = NULL;
    r->seg = NULL;
    r->nseg = 0;
    diff_out_free(&r->diff);
}
