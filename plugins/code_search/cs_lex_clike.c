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

int cs_lex_clike(int lexer, const char *b, size_t len, cs_toks *t)
{
    lx L = {b, len, t, lexer};
    int cpp = lexer == CS_LEX_CPP || lexer == CS_LEX_C;
    int rust = lexer == CS_LEX_RUST, go = lexer == CS_LEX_GO, java = lexer == CS_LEX_JAVA;
    int line_start = 1, directive = 0, directive_name = 0;
    size_t i = 0;
    while (i < len && !t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\n') {
            if (directive) {
                cs_tok_push(t, 'Q', i, i);
                directive = directive_name = 0;
            }
            if (go && go_semicolon_after(t))
                cs_tok_push(t, ';', i, i);
            line_start = 1;
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
            continue;
        }
        if (c == '\\' && i + 1 < len && (b[i + 1] == '\n' || b[i + 1] == '\r')) {
            i += b[i + 1] == '\r' && i + 2 < len && b[i + 2] == '\n' ? 3 : 2;
            continue;
        }
        if (c == '/' && i + 1 < len && b[i + 1] == '/') {
            i = cs_scan_eol(b, len, i);
            continue;
        }
        if (c == '/' && i + 1 < len && b[i + 1] == '*') {
            i = cs_scan_block_comment(b, len, i, rust);
            continue;
        }
        int at_line_start = line_start;
        line_start = 0;
        if (cpp && c == '#' && at_line_start) {
            cs_tok_push(t, 'P', i, i + 1);
            directive = directive_name = 1;
            i++;
            continue;
        }
        if (cs_id_start(c)) {
            i = ident_or_prefixed(&L, i, &directive_name);
            continue;
        }
        if ((c >= '0' && c <= '9') ||
            (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9')) {
            size_t e = cs_scan_number(b, len, i, cpp ? '\'' : 0);
            cs_tok_push(t, '0', i, e);
            i = e;
            continue;
        }
        if (c == '"') {
            size_t e;
            if (java && i + 2 < len && b[i + 1] == '"' && b[i + 2] == '"') {
                const char *q = memmem(b + i + 3, len - i - 3, "\"\"\"", 3);
                e = q ? (size_t)(q - b) + 3 : len;
                while (e < len && b[e] == '"') /* """ closing with extra quotes */
                    e++;
            } else {
                e = cs_scan_quoted(b, len, i, '"', rust);
            }
            cs_tok_push(t, '"', i, e);
            i = e;
            continue;
        }
        if (c == '`' && go) {
            const char *q = memchr(b + i + 1, '`', len - i - 1);
            size_t e = q ? (size_t)(q - b) + 1 : len;
            cs_tok_push(t, '"', i, e);
            i = e;
            continue;
        }
        if (c == '\'') {
            size_t e = rust ? rust_char(&L, i) : cs_scan_quoted(b, len, i, '\'', 0);
            if (e) {
                cs_tok_push(t, '"', i, e);
                i = e;
            } else { /* lifetime or label: not an identifier */
                e = cs_scan_ident(b, len, i + 1);
                cs_tok_push(t, '\'', i, e);
                i = e > i + 1 ? e : i + 1;
            }
            continue;
        }
        if (c < 0x80)
            cs_tok_push(t, (char)c, i, i + 1);
        i++;
    }
    if (directive)
        cs_tok_push(t, 'Q', len, len);
    return t->oom ? -1 : 0;
}
