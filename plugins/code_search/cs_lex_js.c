/* Lexer for JavaScript and TypeScript, with JSX in .js/.jsx/.tsx files.
 * Template literals nest code in ${...}; a '/' or '<' starts a regex or a
 * JSX element only where an expression may begin, judged from the
 * previous token. */
#include "cs_lex.h"
#include "cs_types.h"

#include <string.h>

typedef struct jl {
    const char *b;
    size_t len;
    cs_toks *t;
    int jsx;
    int depth; /* recursion guard for ${} and JSX nesting */
} jl;

static size_t lex_code(jl *L, size_t i, int until_brace);

static int word_in(const char *s, size_t n, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == n && memcmp(s, *words, n) == 0)
            return 1;
    return 0;
}

/* Can an expression start here (so '/' is a regex, '<' may be JSX)? */
static int expr_allowed(const jl *L)
{
    static const char *const kw[] = {"return", "typeof", "instanceof", "in",    "of",
                                     "new",    "delete", "void",       "throw", "case",
                                     "do",     "else",   "yield",      "await", NULL};
    const cs_toks *t = L->t;
    if (!t->n)
        return 1;
    const cs_tok *p = &t->v[t->n - 1];
    switch (p->kind) {
    case 'i': return word_in(L->b + p->start, p->end - p->start, kw);
    case '0':
    case '"':
    case ')':
    case ']':
    case '}': return 0;
    default: return 1;
    }
}

static size_t scan_regex(const jl *L, size_t i)
{
    const char *b = L->b;
    int cls = 0;
    for (i++; i < L->len && b[i] != '\n'; i++) {
        if (b[i] == '\\' && i + 1 < L->len) /* a trailing backslash ends it */
            i++;
        else if (b[i] == '[')
            cls = 1;
        else if (b[i] == ']')
            cls = 0;
        else if (b[i] == '/' && !cls)
            return cs_scan_ident(b, L->len, i + 1); /* flags */
    }
    return i;
}

static size_t scan_template(jl *L, size_t i)
{
    size_t s = i;
    for (i++; i < L->len; i++) {
        if (L->b[i] == '\\') {
            i++;
        } else if (L->b[i] == '`') {
            cs_tok_push(L->t, '"', s, i + 1);
            return i + 1;
        } else if (L->b[i] == '$' && i + 1 < L->len && L->b[i + 1] == '{') {
            cs_tok_push(L->t, '"', s, i);
            i = lex_code(L, i + 2, 1);
            s = i;
            i--;
        }
    }
    cs_tok_push(L->t, '"', s, L->len);
    return L->len;
}

static int jsx_name_char(unsigned char c)
{
    return cs_id_char(c) || c == '-' || c == ':' || c == '.' || c == '$';
}

/* A JSX element at i ('<').  Returns the index after it. */
static size_t scan_jsx(jl *L, size_t i)
{
    const char *b = L->b;
    size_t len = L->len;
    cs_tok_push(L->t, '<', i, i + 1);
    i++;
    /* Tag name: components are identifiers in code (usages). */
    size_t n = i;
    while (n < len && jsx_name_char((unsigned char)b[n]))
        n++;
    for (size_t s = i; s < n;) {
        size_t e = s;
        while (e < n && cs_id_char((unsigned char)b[e]))
            e++;
        if (e > s && cs_id_start((unsigned char)b[s]))
            cs_tok_push(L->t, 'i', s, e);
        s = e + 1;
    }
    i = n;
    /* Attributes. */
    while (i < len) {
        char c = b[i];
        if (c == '/' && i + 1 < len && b[i + 1] == '>')
            return i + 2;
        if (c == '>') {
            i++;
            break;
        }
        if (c == '{') {
            i = lex_code(L, i + 1, 1);
        } else if (c == '"' || c == '\'') {
            const char *q = memchr(b + i + 1, c, len - i - 1);
            size_t e = q ? (size_t)(q - b) + 1 : len;
            cs_tok_push(L->t, '"', i, e);
            i = e;
        } else {
            i++;
        }
    }
    /* Children: text, {expressions}, nested elements, the closing tag. */
    while (i < len) {
        char c = b[i];
        if (c == '{') {
            i = lex_code(L, i + 1, 1);
        } else if (c == '<' && i + 1 < len && b[i + 1] == '/') {
            const char *q = memchr(b + i, '>', len - i);
            return q ? (size_t)(q - b) + 1 : len;
        } else if (c == '<' && L->depth < 200) {
            L->depth++;
            i = scan_jsx(L, i);
            L->depth--;
        } else {
            i++;
        }
    }
    return len;
}

/* Lex code from i; with until_brace, stop after the '}' that closes the
 * enclosing ${ or { (not emitted). */
static size_t lex_code(jl *L, size_t i, int until_brace)
{
    const char *b = L->b;
    size_t len = L->len;
    int braces = 0;
    if (++L->depth > 200) { /* pathological nesting: give up on structure */
        L->depth--;
        return len;
    }
    while (i < len && !L->t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '/' && i + 1 < len && b[i + 1] == '/') {
            i = cs_scan_eol(b, len, i);
        } else if (c == '/' && i + 1 < len && b[i + 1] == '*') {
            i = cs_scan_block_comment(b, len, i, 0);
        } else if (c == '/' && expr_allowed(L)) {
            size_t e = scan_regex(L, i);
            cs_tok_push(L->t, '"', i, e);
            i = e;
        } else if (c == '<' && L->jsx && expr_allowed(L) && i + 1 < len &&
                   (cs_id_start((unsigned char)b[i + 1]) || b[i + 1] == '>')) {
            i = scan_jsx(L, i);
            /* The element is a value, like a string. */
            cs_tok_push(L->t, '"', i, i);
        } else if (cs_id_start(c) || c == '$') {
            size_t e = i + 1;
            while (e < len && (cs_id_char((unsigned char)b[e]) || b[e] == '$'))
                e++;
            cs_tok_push(L->t, 'i', i, e);
            i = e;
        } else if ((c >= '0' && c <= '9') ||
                   (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9')) {
            size_t e = cs_scan_number(b, len, i, 0);
            cs_tok_push(L->t, '0', i, e);
            i = e;
        } else if (c == '"' || c == '\'') {
            size_t e = cs_scan_quoted(b, len, i, (char)c, 0);
            cs_tok_push(L->t, '"', i, e);
            i = e;
        } else if (c == '`') {
            i = scan_template(L, i);
        } else if (c == '{') {
            braces++;
            cs_tok_push(L->t, '{', i, i + 1);
            i++;
        } else if (c == '}') {
            if (until_brace && braces == 0) {
                L->depth--;
                return i + 1;
            }
            braces--;
            cs_tok_push(L->t, '}', i, i + 1);
            i++;
        } else {
            if (c < 0x80)
                cs_tok_push(L->t, (char)c, i, i + 1);
            i++;
        }
    }
    L->depth--;
    return len;
}

int cs_lex_js(int lexer, const char *b, size_t len, cs_toks *t)
{
    jl L = {b, len, t, lexer == CS_LEX_JSX || lexer == CS_LEX_TSX, 0};
    size_t i = 0;
    if (len >= 2 && b[0] == '#' && b[1] == '!') /* hashbang */
        i = cs_scan_eol(b, len, 0);
    lex_code(&L, i, 0);
    return t->oom ? -1 : 0;
}
