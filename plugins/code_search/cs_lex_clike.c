/* Lexer for C, C++, Rust, Go and Java: the C family shares comments,
 * quoting and punctuation; each language adds its own literal forms:
 *   C/C++  preprocessor lines (P..Q), <header> names, L/u/U/u8 prefixes,
 *          raw strings R"delim(...)delim", digit separators 1'000
 *   Rust   nested block comments, r"..", r#".."#, b"..", br#".."#,
 *          chars vs lifetimes, raw identifiers r#name
 *   Go     raw `...` strings, automatic semicolons at line ends
 *   Java   text blocks """...""" */
#include "cs_lex.h"
#include "cs_types.h"

#include <string.h>

typedef struct lx {
    const char *b;
    size_t len;
    cs_toks *t;
    int lexer;
    int line_start;     /* nothing but blanks since the last newline */
    int directive;      /* inside a preprocessor line (C, C++) */
    int directive_name; /* the next identifier names the directive */
} lx;

static int word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* C++ raw string at i (the '"' after R): end index. */
static size_t cpp_raw(const lx *L, size_t i)
{
    size_t d = i + 1;
    while (d < L->len && d - i <= 17 && L->b[d] != '(' && L->b[d] != '"' && L->b[d] != '\n' &&
           L->b[d] != ' ' && L->b[d] != '\\')
        d++;
    if (d >= L->len || L->b[d] != '(')
        return cs_scan_quoted(L->b, L->len, i, '"', 0);
    size_t dl = d - (i + 1);
    char close[20];
    close[0] = ')';
    memcpy(close + 1, L->b + i + 1, dl);
    close[dl + 1] = '"';
    const char *e = memmem(L->b + d + 1, L->len - d - 1, close, dl + 2);
    return e ? (size_t)(e - L->b) + dl + 2 : L->len;
}

/* Rust raw string: i at the first '#' or '"' after r / br. */
static size_t rust_raw(const lx *L, size_t i)
{
    size_t h = 0;
    while (i < L->len && L->b[i] == '#') {
        h++;
        i++;
    }
    if (i >= L->len || L->b[i] != '"')
        return i;
    for (size_t j = i + 1; j < L->len; j++) {
        if (L->b[j] != '"')
            continue;
        size_t k = 0;
        while (k < h && j + 1 + k < L->len && L->b[j + 1 + k] == '#')
            k++;
        if (k == h)
            return j + 1 + h;
    }
    return L->len;
}

/* Rust ': a character literal, or a lifetime/label (returns 0 then). */
static size_t rust_char(const lx *L, size_t i)
{
    const char *b = L->b;
    if (i + 1 < L->len && b[i + 1] == '\\')
        return cs_scan_quoted(b, L->len, i, '\'', 0);
    size_t j = i + 1;
    if (j < L->len && ((unsigned char)b[j] & 0x80)) { /* one UTF-8 char */
        j++;
        while (j < L->len && ((unsigned char)b[j] & 0xC0) == 0x80)
            j++;
    } else {
        j++;
    }
    if (j < L->len && b[j] == '\'')
        return j + 1;
    return 0;
}

/* An identifier at i, or a literal it prefixes.  Returns the end. */
static size_t ident_or_prefixed(lx *L, size_t i, int *directive_name)
{
    const char *b = L->b;
    size_t e = cs_scan_ident(b, L->len, i);
    size_t n = e - i;
    char nx = e < L->len ? b[e] : '\0';
    if (L->lexer == CS_LEX_CPP) {
        if (nx == '"' &&
            (word_is(b + i, n, "R") || word_is(b + i, n, "LR") || word_is(b + i, n, "uR") ||
             word_is(b + i, n, "UR") || word_is(b + i, n, "u8R"))) {
            size_t end = cpp_raw(L, e);
            cs_tok_push(L->t, '"', i, end);
            return end;
        }
        if ((nx == '"' || nx == '\'') && (word_is(b + i, n, "L") || word_is(b + i, n, "u") ||
                                          word_is(b + i, n, "U") || word_is(b + i, n, "u8"))) {
            size_t end = cs_scan_quoted(b, L->len, e, nx, 0);
            cs_tok_push(L->t, '"', i, end);
            return end;
        }
    } else if (L->lexer == CS_LEX_RUST) {
        if ((word_is(b + i, n, "r") || word_is(b + i, n, "br")) && (nx == '"' || nx == '#')) {
            if (nx == '#' && word_is(b + i, n, "r") && e + 1 < L->len &&
                cs_id_start((unsigned char)b[e + 1])) { /* r#ident */
                size_t ie = cs_scan_ident(b, L->len, e + 1);
                cs_tok_push(L->t, 'i', e + 1, ie);
                return ie;
            }
            size_t end = rust_raw(L, e);
            if (end > e) {
                cs_tok_push(L->t, '"', i, end);
                return end;
            }
        }
        if (word_is(b + i, n, "b") && (nx == '"' || nx == '\'')) {
            size_t end = cs_scan_quoted(b, L->len, e, nx, nx == '"');
            cs_tok_push(L->t, '"', i, end);
            return end;
        }
    }
    cs_tok_push(L->t, 'i', i, e);
    if (*directive_name) {
        *directive_name = 0;
        /* #include <a/b.h>: the header name is a string, not code. */
        if (word_is(b + i, n, "include") || word_is(b + i, n, "include_next") ||
            word_is(b + i, n, "import")) {
            size_t j = e;
            while (j < L->len && (b[j] == ' ' || b[j] == '\t'))
                j++;
            if (j < L->len && b[j] == '<') {
                size_t k = j;
                while (k < L->len && b[k] != '>' && b[k] != '\n')
                    k++;
                size_t end = k < L->len && b[k] == '>' ? k + 1 : k;
                cs_tok_push(L->t, '"', j, end);
                return end;
            }
        }
    }
    return e;
}

/* Go ends a statement at a newline after these tokens. */
static int go_semicolon_after(const cs_toks *t)
{
    if (!t->n)
        return 0;
    char k = t->v[t->n - 1].kind;
    return k == 'i' || k == '0' || k == '"' || k == ')' || k == ']' || k == '}' || k == '+' ||
           k == '-';
}

/* A newline at i: closes a preprocessor line ('Q') and, in Go, adds the
 * automatic semicolon. */
static inline void end_line(lx *L, size_t i)
{
    if (L->directive) {
        cs_tok_push(L->t, 'Q', i, i);
        L->directive = L->directive_name = 0;
    }
    if (L->lexer == CS_LEX_GO && go_semicolon_after(L->t))
        cs_tok_push(L->t, ';', i, i);
    L->line_start = 1;
}

/* Blanks, line continuations and comments at i: the offset after them,
 * or i when none starts here. */
static inline size_t skip_gap(const lx *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    size_t len = L->len;
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v')
        return i + 1;
    if (c == '\\' && i + 1 < len && (b[i + 1] == '\n' || b[i + 1] == '\r'))
        return i + (b[i + 1] == '\r' && i + 2 < len && b[i + 2] == '\n' ? 3 : 2);
    if (c == '/' && i + 1 < len && b[i + 1] == '/')
        return cs_scan_eol(b, len, i);
    if (c == '/' && i + 1 < len && b[i + 1] == '*')
        return cs_scan_block_comment(b, len, i, L->lexer == CS_LEX_RUST);
    return i;
}

/* A "..." string at i (a Java text block """...""" too): its end. */
static inline size_t dquoted(const lx *L, size_t i)
{
    const char *b = L->b;
    size_t len = L->len;
    if (L->lexer == CS_LEX_JAVA && i + 2 < len && b[i + 1] == '"' && b[i + 2] == '"') {
        const char *q = memmem(b + i + 3, len - i - 3, "\"\"\"", 3);
        size_t e = q ? (size_t)(q - b) + 3 : len;
        while (e < len && b[e] == '"') /* """ closing with extra quotes */
            e++;
        return e;
    }
    return cs_scan_quoted(b, len, i, '"', L->lexer == CS_LEX_RUST);
}

/* A quote at i (c is b[i]: ", ` or '): pushes the literal (or a Rust
 * lifetime) and returns the offset after it; i when c opens nothing. */
static inline size_t lex_quoted(lx *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    size_t len = L->len, e;
    if (c == '"') {
        e = dquoted(L, i);
        cs_tok_push(L->t, '"', i, e);
        return e;
    }
    if (c == '`' && L->lexer == CS_LEX_GO) {
        const char *q = memchr(b + i + 1, '`', len - i - 1);
        e = q ? (size_t)(q - b) + 1 : len;
        cs_tok_push(L->t, '"', i, e);
        return e;
    }
    if (c != '\'')
        return i;
    e = L->lexer == CS_LEX_RUST ? rust_char(L, i) : cs_scan_quoted(b, len, i, '\'', 0);
    if (e) {
        cs_tok_push(L->t, '"', i, e);
        return e;
    }
    /* lifetime or label: not an identifier */
    e = cs_scan_ident(b, len, i + 1);
    cs_tok_push(L->t, '\'', i, e);
    return e > i + 1 ? e : i + 1;
}

/* The token at i (c is b[i], not a newline, blank or comment): pushes it
 * and returns the offset after it. */
static inline size_t lex_token(lx *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    size_t len = L->len;
    int cpp = L->lexer == CS_LEX_CPP || L->lexer == CS_LEX_C;
    int at_line_start = L->line_start;
    L->line_start = 0;
    if (cpp && c == '#' && at_line_start) {
        cs_tok_push(L->t, 'P', i, i + 1);
        L->directive = L->directive_name = 1;
        return i + 1;
    }
    if (cs_id_start(c))
        return ident_or_prefixed(L, i, &L->directive_name);
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9')) {
        size_t e = cs_scan_number(b, len, i, cpp ? '\'' : 0);
        cs_tok_push(L->t, '0', i, e);
        return e;
    }
    size_t e = lex_quoted(L, i, c);
    if (e != i)
        return e;
    if (c < 0x80)
        cs_tok_push(L->t, (char)c, i, i + 1);
    return i + 1;
}

int cs_lex_clike(int lexer, const char *b, size_t len, cs_toks *t)
{
    lx L = {.b = b, .len = len, .t = t, .lexer = lexer, .line_start = 1};
    size_t i = 0;
    while (i < len && !t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\n') {
            end_line(&L, i);
            i++;
            continue;
        }
        size_t e = skip_gap(&L, i, c);
        i = e != i ? e : lex_token(&L, i, c);
    }
    if (L.directive)
        cs_tok_push(t, 'Q', len, len);
    return t->oom ? -1 : 0;
}
