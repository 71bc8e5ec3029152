/* Parser for the apply_patch grammar (see patch_parse.h and the tool
 * description).  Lenient where models are sloppy: surrounding whitespace
 * on markers and headers, a heredoc wrapper, CRLF patch text, blank lines
 * around hunks and after the end marker, unified-diff style '@@ -a,b +c,d @@'
 * chunk headers.  Everything else is an error naming the patch line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "patch_parse.h"

typedef struct span {
    const char *s;
    size_t len;
} span;

typedef struct parser {
    span *ln; /* every input line, '\r' before '\n' dropped */
    size_t nln;
    size_t pos; /* next line index */
    size_t end; /* index of the '*** End Patch' line */
    patch *p;
    size_t cap_ops, cap_chunks, cap_lines;
    char *err;
} parser;

static int fail(parser *ps, const char *fmt, ...) VT_PRINTF(2, 3);
static int fail(parser *ps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    free(ps->err);
    ps->err = malloc((size_t)n + 1);
    if (!ps->err)
        return VT_ERR_NOMEM;
    va_start(ap, fmt);
    vsnprintf(ps->err, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return VT_ERR_INVALID;
}

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

static span trim(span x)
{
    while (x.len && is_ws(x.s[0])) {
        x.s++;
        x.len--;
    }
    while (x.len && is_ws(x.s[x.len - 1]))
        x.len--;
    return x;
}

static int blank(span x) { return trim(x).len == 0; }

static int eq(span x, const char *lit)
{
    size_t n = strlen(lit);
    return x.len == n && memcmp(x.s, lit, n) == 0;
}

static int starts(span x, const char *lit)
{
    size_t n = strlen(lit);
    return x.len >= n && memcmp(x.s, lit, n) == 0;
}

/* Quote a line for an error message; NUL bytes would cut it short. */
static int shown(span x) { return x.len > 200 ? 200 : (int)x.len; }

static int split_lines(parser *ps, const char *buf, size_t len)
{
    size_t cap = 0;
    size_t i = 0;
    while (i < len) {
        const char *nl = memchr(buf + i, '\n', len - i);
        size_t e = nl ? (size_t)(nl - buf) : len;
        span s = {buf + i, e - i};
        if (s.len && s.s[s.len - 1] == '\r')
            s.len--;
        if (VT_GROW(&ps->ln, &cap, ps->nln + 1) != 0)
            return VT_ERR_NOMEM;
        ps->ln[ps->nln++] = s;
        i = nl ? e + 1 : len;
    }
    return 0;
}

/* '<<EOF', "<<'EOF'", '<<"EOF"': returns the delimiter word. */
static span heredoc_word(span first)
{
    span none = {NULL, 0};
    span t = trim(first);
    if (!starts(t, "<<"))
        return none;
    t.s += 2;
    t.len -= 2;
    if (t.len && t.s[0] == '-') { /* <<-EOF */
        t.s++;
        t.len--;
    }
    t = trim(t);
    if (t.len >= 2 && (t.s[0] == '\'' || t.s[0] == '"') && t.s[t.len - 1] == t.s[0]) {
        t.s++;
        t.len -= 2;
    }
    for (size_t i = 0; i < t.len; i++) {
        char c = t.s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return none;
    }
    return t.len ? t : none;
}

static int add_line(parser *ps, char kind, span s)
{
    patch *p = ps->p;
    if (VT_GROW(&p->lines, &ps->cap_lines, p->nlines + 1) != 0)
        return VT_ERR_NOMEM;
    p->lines[p->nlines++] = (patch_line){kind, s.s, s.len};
    return 0;
}

static patch_op *new_op(parser *ps, patch_op_kind kind, span path, size_t line_no)
{
    patch *p = ps->p;
    if (VT_GROW(&p->ops, &ps->cap_ops, p->nops + 1) != 0)
        return NULL;
    patch_op *op = &p->ops[p->nops];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->line_no = line_no;
    op->path = strndup(path.s, path.len);
    if (!op->path)
        return NULL;
    p->nops++;
    return op;
}

/* Header "*** <name>: path" -> path (trimmed); 1 when it is that header. */
static int header(span t, const char *name, span *path)
{
    if (!starts(t, name))
        return 0;
    path->s = t.s + strlen(name);
    path->len = t.len - strlen(name);
    *path = trim(*path);
    return 1;
}

/* A header line, even when indented (a context line would rarely read
 * exactly like one, and a sloppy indent is far more common). */
static int is_file_header(span t)
{
    return starts(t, "*** Add File:") || starts(t, "*** Delete File:") ||
           starts(t, "*** Update File:") || eq(t, "*** End Patch");
}

/* '@@', '@@ ctx', or a unified '@@ -a,b +c,d @@ [ctx]'. */
static void chunk_header(span l, patch_chunk *c)
{
    span rest = {l.s + 2, l.len - 2};
    c->ctx = NULL;
    c->ctx_len = 0;
    if (rest.len && rest.s[0] == ' ') {
        rest.s++;
        rest.len--;
    }
    if (rest.len && rest.s[0] == '-') {
        /* Unified range header: the numbers are ignored, a trailing
         * section text after the closing '@@' is the context to seek. */
        const char *close = NULL;
        for (size_t i = 0; i + 1 < rest.len; i++)
            if (rest.s[i] == '@' && rest.s[i + 1] == '@') {
                close = rest.s + i;
                break;
            }
        int ranges = 1;
        for (const char *q = rest.s; q < (close ? close : rest.s + rest.len); q++)
            if (!strchr("-+0123456789, ", *q))
                ranges = 0;
        if (close && ranges) {
            span after = {close + 2, (size_t)(rest.s + rest.len - close - 2)};
            after = trim(after);
            if (after.len) {
                c->ctx = after.s;
                c->ctx_len = after.len;
            }
            return;
        }
    }
    if (trim(rest).len) {
        c->ctx = rest.s;
        c->ctx_len = rest.len;
    }
}

static int parse_update(parser *ps, patch_op *op)
{
    patch *p = ps->p;
    op->chunk_first = p->nchunks;
    if (ps->pos < ps->end) {
        span path;
        if (header(trim(ps->ln[ps->pos]), "*** Move to:", &path)) {
            if (!path.len)
                return fail(ps, "Invalid patch hunk on line %zu: '*** Move to:' needs a path",
                            ps->pos + 1);
            op->move_to = strndup(path.s, path.len);
            if (!op->move_to)
                return VT_ERR_NOMEM;
            op->move_line_no = ps->pos + 1;
            ps->pos++;
        }
    }
    while (ps->pos < ps->end) {
        span l = ps->ln[ps->pos];
        patch_chunk c = {0};
        c.line_no = ps->pos + 1;
        if (starts(l, "@@")) {
            chunk_header(l, &c);
            ps->pos++;
        } else if (starts(l, "***") || is_file_header(trim(l))) {
            break;
        } else if (p->nchunks > op->chunk_first) {
            /* Unreachable: a chunk only ends at '@@' or '***'. */
            return fail(ps, "Invalid patch hunk on line %zu: expected '@@'", ps->pos + 1);
        } else if (blank(l) && op->move_to) {
            ps->pos++; /* blank lines after a bare move */
            continue;
        }
        c.first = p->nlines;
        while (ps->pos < ps->end) {
            l = ps->ln[ps->pos];
            span t = trim(l);
            if (starts(l, "@@"))
                break;
            if (eq(t, "*** End of File")) {
                c.eof = 1;
                ps->pos++;
                break;
            }
            if (starts(l, "***") || is_file_header(t))
                break;
            int rc;
            if (l.len == 0)
                rc = add_line(ps, ' ', l);
            else if (l.s[0] == ' ' || l.s[0] == '-' || l.s[0] == '+')
                rc = add_line(ps, l.s[0], (span){l.s + 1, l.len - 1});
            else
                return fail(ps,
                            "Invalid patch hunk on line %zu: Unexpected line found in update "
                            "hunk: '%.*s'. Every line should start with ' ' (context line), "
                            "'+' (added line), or '-' (removed line)",
                            ps->pos + 1, shown(l), l.s);
            if (rc)
                return rc;
            ps->pos++;
        }
        c.count = p->nlines - c.first;
        if (c.count == 0)
            return fail(ps,
                        "Invalid patch hunk on line %zu: Update hunk for '%s' does not "
                        "contain any lines",
                        c.line_no, op->path);
        if (VT_GROW(&p->chunks, &ps->cap_chunks, p->nchunks + 1) != 0)
            return VT_ERR_NOMEM;
        p->chunks[p->nchunks++] = c;
    }
    op->chunk_count = p->nchunks - op->chunk_first;
    if (op->chunk_count == 0 && !op->move_to)
        return fail(ps, "Invalid patch hunk on line %zu: Update file hunk for path '%s' is empty",
                    op->line_no, op->path);
    return 0;
}

static int parse_hunks(parser *ps)
{
    while (ps->pos < ps->end) {
        span l = ps->ln[ps->pos];
        if (blank(l)) {
            ps->pos++;
            continue;
        }
        span t = trim(l), path;
        size_t line_no = ps->pos + 1;
        patch_op_kind kind;
        const char *name;
        if (header(t, "*** Add File:", &path)) {
            kind = PATCH_ADD;
            name = "*** Add File:";
        } else if (header(t, "*** Delete File:", &path)) {
            kind = PATCH_DELETE;
            name = "*** Delete File:";
        } else if (header(t, "*** Update File:", &path)) {
            kind = PATCH_UPDATE;
            name = "*** Update File:";
        } else {
            return fail(ps,
                        "Invalid patch hunk on line %zu: '%.*s' is not a valid hunk header. "
                        "Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', "
                        "'*** Update File: {path}'",
                        line_no, shown(t), t.s);
        }
        if (!path.len)
            return fail(ps, "Invalid patch hunk on line %zu: '%s' needs a path", line_no, name);
        patch_op *op = new_op(ps, kind, path, line_no);
        if (!op)
            return VT_ERR_NOMEM;
        ps->pos++;
        if (kind == PATCH_ADD) {
            op->first = ps->p->nlines;
            while (ps->pos < ps->end) {
                span a = ps->ln[ps->pos];
                if (!a.len || a.s[0] != '+')
                    break;
                int rc = add_line(ps, '+', (span){a.s + 1, a.len - 1});
                if (rc)
                    return rc;
                ps->pos++;
            }
            op->count = ps->p->nlines - op->first;
        } else if (kind == PATCH_UPDATE) {
            int rc = parse_update(ps, op);
            if (rc)
                return rc;
        }
    }
    return 0;
}

void patch_free(patch *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nops; i++) {
        free(p->ops[i].path);
        free(p->ops[i].move_to);
    }
    free(p->ops);
    free(p->chunks);
    free(p->lines);
    free(p->buf);
    memset(p, 0, sizeof *p);
}

static int parse_body(parser *ps)
{
    size_t lo = 0, hi = ps->nln;
    while (lo < hi && blank(ps->ln[lo]))
        lo++;
    while (hi > lo && blank(ps->ln[hi - 1]))
        hi--;
    if (hi - lo >= 2) {
        span word = heredoc_word(ps->ln[lo]);
        if (word.len) {
            span last = trim(ps->ln[hi - 1]);
            if (last.len == word.len && memcmp(last.s, word.s, word.len) == 0) {
                lo++;
                hi--;
                while (lo < hi && blank(ps->ln[lo]))
                    lo++;
                while (hi > lo && blank(ps->ln[hi - 1]))
                    hi--;
            }
        }
    }
    if (lo == hi)
        return fail(ps, "Invalid patch: the patch is empty; it must start with "
                        "'*** Begin Patch' and end with '*** End Patch'");
    if (!eq(trim(ps->ln[lo]), "*** Begin Patch"))
        return fail(ps,
                    "Invalid patch on line %zu: The first line of the patch must be "
                    "'*** Begin Patch', found '%.*s'",
                    lo + 1, shown(ps->ln[lo]), ps->ln[lo].s);
    if (hi - lo < 2 || !eq(trim(ps->ln[hi - 1]), "*** End Patch"))
        return fail(ps,
                    "Invalid patch on line %zu: The last line of the patch must be "
                    "'*** End Patch'",
                    hi);
    ps->pos = lo + 1;
    ps->end = hi - 1;
    int rc = parse_hunks(ps);
    if (rc)
        return rc;
    if (ps->p->nops == 0)
        return fail(ps, "No files were modified.");
    return 0;
}

int patch_parse(const char *text, size_t len, patch *out, char **err)
{
    *err = NULL;
    patch p = {0};
    parser ps = {0};
    ps.p = &p;
    p.buf = malloc(len + 1);
    if (!p.buf)
        return VT_ERR_NOMEM;
    if (len)
        memcpy(p.buf, text, len);
    p.buf[len] = '\0';
    int rc = split_lines(&ps, p.buf, len);
    if (rc == 0)
        rc = parse_body(&ps);
    free(ps.ln);
    if (rc) {
        patch_free(&p);
        *err = ps.err ? ps.err : strdup("out of memory while parsing the patch");
        return rc;
    }
    free(ps.err);
    *out = p;
    return 0;
}
