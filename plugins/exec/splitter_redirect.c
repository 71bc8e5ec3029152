/* The splitter's reading of redirections (what a command writes or
 * reads) and of here-document bodies. */
#include "splitter_int.h"

/* Whether a redirect target is a device that edits nothing. */
static int harmless_target(const char *t)
{
    return !strcmp(t, "/dev/null") || !strcmp(t, "/dev/stdout") || !strcmp(t, "/dev/stderr") ||
           !strcmp(t, "/dev/tty");
}

/* A redirection operator at p->i (after an optional fd number or {var}).
 * Returns its length, or 0 when there is none.  *kind: 'w' write,
 * 'r' read, 'd'/'D' duplicate-or-path (>&, <&), 'h' here-doc,
 * 's' here-string. */
static size_t redirect_op(const parser *p, size_t at, char *kind, int *strip)
{
    const char *s = p->s + at;
    size_t n = p->n - at;
    *strip = 0;
#define OP(str, k)                                                                                 \
    if (n >= sizeof(str) - 1 && !strncmp(s, str, sizeof(str) - 1)) {                               \
        *kind = k;                                                                                 \
        return sizeof(str) - 1;                                                                    \
    }
    OP("&>>", 'w')
    OP("&>", 'w')
    OP("<<<", 's')
    if (n >= 3 && !strncmp(s, "<<-", 3)) {
        *kind = 'h';
        *strip = 1;
        return 3;
    }
    OP("<<", 'h')
    OP("<>", 'w')
    OP("<&", 'D')
    OP(">&", 'd')
    OP(">>", 'w')
    OP(">|", 'w')
    OP(">", 'w')
    OP("<", 'r')
#undef OP
    return 0;
}

/* The start of a redirection at p->i: [n] or {name} then an operator. */
size_t split_redirect_at(const parser *p, char *kind, int *strip)
{
    size_t at = p->i;
    if (peek(p, 0) == '{') {
        size_t j = at + 1;
        while (j < p->n && is_name_char((unsigned char)p->s[j]))
            j++;
        if (j < p->n && p->s[j] == '}' && j > at + 1)
            at = j + 1;
    } else {
        while (at < p->n && p->s[at] >= '0' && p->s[at] <= '9')
            at++;
    }
    if (at == p->i && at + 1 < p->n && p->s[at] == '&' && p->s[at + 1] == '>')
        return redirect_op(p, at, kind, strip);
    if (at < p->n && (p->s[at] == '<' || p->s[at] == '>') &&
        !(at + 1 < p->n && p->s[at + 1] == '(')) {
        size_t len = redirect_op(p, at, kind, strip);
        if (len)
            return at + len - p->i;
    }
    return 0;
}

void split_parse_redirect(parser *p, size_t len, char kind, int strip)
{
    p->i += len;
    split_skip_blanks(p);
    if (is_meta(peek(p, 0))) {
        p->error = 1;
        return;
    }
    word w;
    split_parse_word(p, &w);
    sbuf t = {0};
    if (kind == 'h') {
        if (p->nhd < MAX_HEREDOCS) {
            heredoc *h = &p->hd[p->nhd++];
            h->delim = strdup(sb_str(&w.lit));
            h->strip_tabs = strip;
            h->expands = !w.quoted;
            /* bash's delimiter is the word's text, unexpanded: whatever
             * the splitter reads as the delimiter may not be it. */
            if (w.has_exp || w.glob)
                split_emit(p, SPLIT_OPAQUE, "here-document whose delimiter holds an expansion");
            if (!h->delim)
                p->oom = 1;
        } else {
            p->error = 1;
        }
        split_word_free(&w);
        return;
    }
    if (kind == 's') {
        split_word_free(&w);
        return;
    }
    split_word_render(p, &w, &t);
    const char *lit = sb_str(&w.lit);
    if (kind == 'd' || kind == 'D') {
        /* >&N, >&- duplicate descriptors; >&word redirects to a file. */
        int dup = !w.has_exp && w.lit.len > 0;
        for (const char *c = lit; *c; c++)
            if (!(*c >= '0' && *c <= '9') && strcmp(lit, "-"))
                dup = 0;
        kind = dup ? 'x' : (kind == 'd' ? 'w' : 'r');
    }
    if (kind == 'w' && !harmless_target(lit))
        split_emit(p, SPLIT_WRITE, sb_str(&t));
    else if (kind == 'r')
        split_emit(p, SPLIT_READ, sb_str(&t));
    if (t.oom)
        p->oom = 1;
    free(t.p);
    split_word_free(&w);
}

/* Here-document bodies start after the newline that ends their command. */
void split_skip_heredocs(parser *p)
{
    for (int k = 0; k < p->nhd; k++) {
        heredoc *h = &p->hd[k];
        int substitutes = 0;
        while (p->i < p->n) {
            size_t ls = p->i;
            while (p->i < p->n && p->s[p->i] != '\n')
                p->i++;
            size_t le = p->i;
            if (p->i < p->n)
                p->i++;
            size_t a = ls;
            if (h->strip_tabs)
                while (a < le && p->s[a] == '\t')
                    a++;
            if (h->delim && le - a == strlen(h->delim) && !strncmp(p->s + a, h->delim, le - a))
                break;
            for (size_t j = ls; j < le; j++)
                if (p->s[j] == '`' || (p->s[j] == '$' && j + 1 < le && strchr("({[", p->s[j + 1])))
                    substitutes = 1;
        }
        if (h->expands && substitutes)
            split_emit(p, SPLIT_OPAQUE, "expansion inside a here-document");
        free(h->delim);
        h->delim = NULL;
    }
    p->nhd = 0;
}
