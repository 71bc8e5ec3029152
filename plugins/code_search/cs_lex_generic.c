/* The table-driven lexer: one row of syntax per language (comment
 * openers, quote characters, string forms, identifier rules), read by one
 * scanner.  It keeps what the declaration recognisers and the classifier
 * need: identifiers ('i'), literals ('"'), numbers ('0'), punctuation, and
 * an 'L' marker before a token that starts a line in column 0. */
#include "cs_lex.h"
#include "cs_types.h"

#include <string.h>

enum {
    G_TRIPLE = 1u << 0,           /* """...""" (and ''' where ' quotes) */
    G_VERBATIM = 1u << 1,         /* C# @"..." with "" inside, $"..." */
    G_LUA_LONG = 1u << 2,         /* [[...]], [==[...]==], --[[...]] */
    G_RUBY_DOC = 1u << 3,         /* =begin ... =end at line starts */
    G_NIX_STR = 1u << 4,          /* ''...'' indented strings */
    G_ZIG_LINE = 1u << 5,         /* \\ multiline string lines */
    G_ID_SUFFIX = 1u << 6,        /* one trailing ? or ! in an identifier */
    G_ID_PRIME = 1u << 7,         /* ' inside/after an identifier (foo') */
    G_ID_DASH = 1u << 8,          /* - inside an identifier (nix) */
    G_LINE_MARK = 1u << 9,        /* 'L' before column-0 tokens */
    G_HEREDOC = 1u << 10,         /* <<ID, <<-ID, <<~ID, <<<ID bodies are strings */
    G_SIGIL = 1u << 11,           /* elixir ~r/.../, ~s(...) */
    G_HASH_LINESTART = 1u << 12,  /* '#' comments only first on a line (C# directives) */
    G_HASH_ATTR = 1u << 13,       /* '#[' is not a comment (PHP attributes) */
    G_DASH_COMMENT_HS = 1u << 14, /* '--' starts a comment only when not an operator */
    G_BACKTICK_ID = 1u << 15,     /* `name` is an identifier (Kotlin, Scala, Swift) */
    G_LINE_MARK_ALL = 1u << 16,   /* 'L' before the first token of every line */
};

typedef struct gsyn {
    const char *line[3]; /* line comment openers */
    const char *bopen, *bclose;
    int bnested;
    const char *quotes;    /* quote characters (backslash escapes) */
    const char *multiline; /* those of them that may span lines */
    unsigned flags;
} gsyn;

#define ROW(lx) [(lx)-CS_LEX_FIRST_GENERIC]
static const gsyn SYN[CS_LEX_FIRST_DATA - CS_LEX_FIRST_GENERIC] = {
    ROW(CS_LEX_CSHARP) =
        {{"//", "#"}, "/*", "*/", 0, "\"'", "", G_VERBATIM | G_TRIPLE | G_HASH_LINESTART},
    ROW(CS_LEX_KOTLIN) = {{"//"}, "/*", "*/", 1, "\"'", "", G_TRIPLE | G_BACKTICK_ID},
    ROW(CS_LEX_SWIFT) = {{"//"}, "/*", "*/", 1, "\"", "", G_TRIPLE | G_BACKTICK_ID},
    ROW(CS_LEX_SCALA) = {{"//"}, "/*", "*/", 1, "\"'", "", G_TRIPLE | G_BACKTICK_ID},
    ROW(CS_LEX_DART) = {{"//"}, "/*", "*/", 1, "\"'", "", G_TRIPLE},
    ROW(CS_LEX_ZIG) = {{"//"}, NULL, NULL, 0, "\"'", "", G_ZIG_LINE},
    ROW(CS_LEX_PROTO) = {{"//"}, "/*", "*/", 0, "\"'", "", 0},
    ROW(CS_LEX_SOLIDITY) = {{"//"}, "/*", "*/", 0, "\"'", "", 0},
    ROW(CS_LEX_PHP) = {{"//", "#"}, "/*", "*/", 0, "\"'`", "\"'`", G_HEREDOC | G_HASH_ATTR},
    ROW(CS_LEX_RUBY) = {{"#"},
                        NULL,
                        NULL,
                        0,
                        "\"'`",
                        "\"'`",
                        G_RUBY_DOC | G_ID_SUFFIX | G_HEREDOC | G_LINE_MARK_ALL},
    ROW(CS_LEX_LUA) = {{"--"}, NULL, NULL, 0, "\"'", "", G_LUA_LONG | G_LINE_MARK},
    ROW(CS_LEX_ELIXIR) = {{"#"}, NULL, NULL, 0, "\"'", "\"'", G_TRIPLE | G_ID_SUFFIX | G_SIGIL},
    ROW(CS_LEX_HASKELL) =
        {{"--"}, "{-", "-}", 1, "\"'", "", G_ID_PRIME | G_LINE_MARK_ALL | G_DASH_COMMENT_HS},
    ROW(CS_LEX_NIX) = {{"#"}, "/*", "*/", 0, "\"", "\"", G_NIX_STR | G_ID_PRIME | G_ID_DASH},
    ROW(CS_LEX_SQL) = {{"--", "#"}, "/*", "*/", 0, "'\"`", "'\"`", 0},
    ROW(CS_LEX_HCL) = {{"#", "//"}, "/*", "*/", 0, "\"", "", G_HEREDOC},
};

typedef struct gl {
    const char *b;
    size_t len;
    cs_toks *t;
    const gsyn *s;
} gl;

static int starts(const gl *L, size_t i, const char *w)
{
    size_t n = strlen(w);
    return i + n <= L->len && memcmp(L->b + i, w, n) == 0;
}

static int is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Start of the line holding i is only whitespace up to i? */
static int first_on_line(const gl *L, size_t i)
{
    while (i > 0 && is_space((unsigned char)L->b[i - 1]))
        i--;
    return i == 0 || L->b[i - 1] == '\n';
}

/* Lua long bracket at i ('['): its level (number of '='), or -1. */
static int lua_level(const gl *L, size_t i)
{
    size_t j = i + 1;
    while (j < L->len && L->b[j] == '=')
        j++;
    return j < L->len && L->b[j] == '[' ? (int)(j - i - 1) : -1;
}

static size_t lua_long_end(const gl *L, size_t i, int level)
{
    size_t j = i + (size_t)level + 2;
    for (; j < L->len; j++) {
        if (L->b[j] != ']')
            continue;
        size_t k = j + 1;
        int n = 0;
        while (k < L->len && L->b[k] == '=') {
            k++;
            n++;
        }
        if (n == level && k < L->len && L->b[k] == ']')
            return k + 1;
    }
    return L->len;
}

/* A string with the quote q opened at i; triple when the row allows. */
static size_t scan_string(const gl *L, size_t i, char q)
{
    const char *b = L->b;
    if ((L->s->flags & G_TRIPLE) && i + 2 < L->len && b[i + 1] == q && b[i + 2] == q) {
        for (size_t j = i + 3; j < L->len; j++) {
            if (b[j] == '\\')
                j++;
            else if (b[j] == q && j + 2 < L->len && b[j + 1] == q && b[j + 2] == q) {
                j += 3;
                while (j < L->len && b[j] == q)
                    j++;
                return j;
            }
        }
        return L->len;
    }
    return cs_scan_quoted(b, L->len, i, q, strchr(L->s->multiline, q) != NULL);
}

/* C# verbatim string @"..." ("" is a quote) at i ('@'). */
static size_t verbatim(const gl *L, size_t i)
{
    for (size_t j = i + 2; j < L->len; j++)
        if (L->b[j] == '"') {
            if (j + 1 < L->len && L->b[j + 1] == '"')
                j++;
            else
                return j + 1;
        }
    return L->len;
}

/* A heredoc operator at i ("<<"): the end of its body, or 0 when this is
 * not one (a shift).  The delimiter is an upper-case word, optionally
 * quoted, right after <<, <<-, <<~ or <<<. */
static size_t heredoc(const gl *L, size_t i)
{
    const char *b = L->b;
    size_t j = i + 2;
    if (j < L->len && (b[j] == '-' || b[j] == '~' || b[j] == '<'))
        j++;
    char q = j < L->len && (b[j] == '\'' || b[j] == '"') ? b[j] : 0;
    if (q)
        j++;
    size_t ds = j;
    while (j < L->len &&
           ((b[j] >= 'A' && b[j] <= 'Z') || b[j] == '_' || (j > ds && b[j] >= '0' && b[j] <= '9')))
        j++;
    size_t dn = j - ds;
    if (dn == 0 || (j < L->len && cs_id_char((unsigned char)b[j])))
        return 0;
    if (q && (j >= L->len || b[j] != q))
        return 0;
    /* The body starts on the next line and ends with a line that is the
     * delimiter (indented, and followed by ; , or ) for PHP). */
    size_t p = cs_scan_eol(b, L->len, j);
    while (p < L->len) {
        size_t ls = p + 1, s = ls;
        while (s < L->len && is_space((unsigned char)b[s]))
            s++;
        if (s + dn <= L->len && memcmp(b + s, b + ds, dn) == 0 &&
            (s + dn == L->len || !cs_id_char((unsigned char)b[s + dn])))
            return s + dn;
        p = cs_scan_eol(b, L->len, ls);
    }
    return L->len;
}

static size_t sigil(const gl *L, size_t i)
{
    const char *b = L->b;
    char open = b[i + 2], close;
    switch (open) {
    case '(': close = ')'; break;
    case '[': close = ']'; break;
    case '{': close = '}'; break;
    case '<': close = '>'; break;
    default: close = open;
    }
    if (open == '"' || open == '\'')
        return scan_string(L, i + 2, open);
    for (size_t j = i + 3; j < L->len; j++) {
        if (b[j] == '\\')
            j++;
        else if (b[j] == close)
            return cs_scan_ident(b, L->len, j + 1); /* modifiers */
    }
    return L->len;
}

static size_t identifier(const gl *L, size_t i)
{
    const char *b = L->b;
    unsigned f = L->s->flags;
    size_t e = i;
    for (;;) {
        e = cs_scan_ident(b, L->len, e);
        if (e < L->len && (f & G_ID_PRIME) && b[e] == '\'') {
            e++;
            continue;
        }
        if (e + 1 < L->len && (f & G_ID_DASH) && b[e] == '-' &&
            cs_id_char((unsigned char)b[e + 1])) {
            e++;
            continue;
        }
        break;
    }
    if ((f & G_ID_SUFFIX) && e < L->len && (b[e] == '?' || b[e] == '!') &&
        !(e + 1 < L->len && (b[e + 1] == '=' || b[e + 1] == '?' || b[e + 1] == '!')))
        e++;
    return e;
}

/* A line comment opener of the row at i (the language's exceptions
 * applied: C# '#' only first on a line, PHP '#[' attributes, Haskell
 * operators such as -->)? */
static inline int line_comment_at(const gl *L, size_t i)
{
    const gsyn *s = L->s;
    const char *b = L->b;
    unsigned f = s->flags;
    for (int k = 0; k < 3 && s->line[k]; k++) {
        if (!starts(L, i, s->line[k]))
            continue;
        if (s->line[k][0] == '#' && (f & G_HASH_LINESTART) && !first_on_line(L, i))
            continue;
        if (s->line[k][0] == '#' && (f & G_HASH_ATTR) && i + 1 < L->len && b[i + 1] == '[')
            continue;
        if ((f & G_DASH_COMMENT_HS) && s->line[k][0] == '-') {
            size_t j = i;
            while (j < L->len && b[j] == '-')
                j++;
            if (j < L->len && strchr("!#$%&*+./<=>?@\\^|~:", b[j]))
                continue; /* an operator such as --> */
        }
        return 1;
    }
    return 0;
}

/* The block comment opened at i: its end (nested when the row says). */
static inline size_t block_comment_end(const gl *L, size_t i)
{
    const gsyn *s = L->s;
    if (s->bopen[0] == '/' && !s->bnested)
        return cs_scan_block_comment(L->b, L->len, i, 0);
    size_t ol = strlen(s->bopen), cl = strlen(s->bclose);
    int depth = 1;
    size_t j = i + ol;
    while (j < L->len && depth) {
        if (starts(L, j, s->bclose)) {
            depth--;
            j += cl;
        } else if (s->bnested && starts(L, j, s->bopen)) {
            depth++;
            j += ol;
        } else {
            j++;
        }
    }
    return j;
}

/* A comment of any form at i (col0: i starts a line): the offset after
 * it, or i when no comment starts here. */
static inline size_t skip_comment(const gl *L, size_t i, int col0)
{
    const char *b = L->b;
    unsigned f = L->s->flags;
    if ((f & G_RUBY_DOC) && col0 && starts(L, i, "=begin")) {
        const char *e = memmem(b + i, L->len - i, "\n=end", 5);
        return e ? cs_scan_eol(b, L->len, (size_t)(e - b) + 1) : L->len;
    }
    if ((f & G_LUA_LONG) && starts(L, i, "--[")) {
        int lv = lua_level(L, i + 2);
        if (lv >= 0)
            return lua_long_end(L, i + 2, lv);
    }
    if (line_comment_at(L, i))
        return cs_scan_eol(b, L->len, i);
    if (L->s->bopen && starts(L, i, L->s->bopen))
        return block_comment_end(L, i);
    return i;
}

/* Nix ''...'' at i: its end (''' ''$ ''\ are escapes inside). */
static inline size_t nix_string(const gl *L, size_t i)
{
    const char *b = L->b;
    size_t j = i + 2;
    for (; j + 1 < L->len; j++) {
        if (b[j] == '\'' && b[j + 1] == '\'') {
            if (j + 2 < L->len && (b[j + 2] == '\'' || b[j + 2] == '$' || b[j + 2] == '\\')) {
                j += 2; /* ''' ''$ ''\ escapes */
                continue;
            }
            break;
        }
    }
    return j + 1 < L->len ? j + 2 : L->len;
}

/* C# @"..", $"..", $@"..", @$"..": the end of the string prefixed at i
 * (c is b[i]), or 0 when none is. */
static inline size_t prefixed_string(const gl *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    if (!(L->s->flags & G_VERBATIM) || (c != '@' && c != '$') || i + 1 >= L->len)
        return 0;
    size_t j = i + 1;
    if (j < L->len && (b[j] == '@' || b[j] == '$') && b[j] != (char)c)
        j++;
    if (j >= L->len || b[j] != '"')
        return 0;
    return c == '@' || b[i + 1] == '@' ? verbatim(L, j - 1) : scan_string(L, j, '"');
}

/* The string forms of a few rows (Zig \\ lines, Nix '', Lua long
 * brackets, Elixir sigils, heredocs) at i: the end, or 0 when none
 * starts here. */
static inline size_t row_string(const gl *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    size_t len = L->len;
    unsigned f = L->s->flags;
    if ((f & G_ZIG_LINE) && c == '\\' && i + 1 < len && b[i + 1] == '\\')
        return cs_scan_eol(b, len, i);
    if ((f & G_NIX_STR) && c == '\'' && i + 1 < len && b[i + 1] == '\'')
        return nix_string(L, i);
    if ((f & G_LUA_LONG) && c == '[') {
        int lv = lua_level(L, i);
        if (lv >= 0)
            return lua_long_end(L, i, lv);
    }
    if ((f & G_SIGIL) && c == '~' && i + 2 < len &&
        ((b[i + 1] >= 'a' && b[i + 1] <= 'z') || (b[i + 1] >= 'A' && b[i + 1] <= 'Z')) &&
        strchr("/|\"'([{<", b[i + 2]))
        return sigil(L, i);
    if ((f & G_HEREDOC) && c == '<' && i + 1 < len && b[i + 1] == '<')
        return heredoc(L, i);
    return 0;
}

/* The token at i (c is b[i], not blank, not a comment): pushes it and
 * returns the offset after it. */
static inline size_t lex_token(const gl *L, size_t i, unsigned char c)
{
    const char *b = L->b;
    size_t len = L->len, e;
    cs_toks *t = L->t;
    if ((L->s->flags & G_BACKTICK_ID) && c == '`') {
        const char *q = memchr(b + i + 1, '`', len - i - 1);
        const char *nl = memchr(b + i + 1, '\n', len - i - 1);
        if (q && (!nl || q < nl) && q > b + i + 1) {
            cs_tok_push(t, 'i', i + 1, (size_t)(q - b));
            return (size_t)(q - b) + 1;
        }
    }
    if (cs_id_start(c)) {
        e = identifier(L, i);
        cs_tok_push(t, 'i', i, e);
        return e;
    }
    if ((e = prefixed_string(L, i, c)) != 0) {
        cs_tok_push(t, '"', i, e);
        return e;
    }
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9')) {
        e = cs_scan_number(b, len, i, '_');
        cs_tok_push(t, '0', i, e);
        return e;
    }
    if ((e = row_string(L, i, c)) != 0) {
        cs_tok_push(t, '"', i, e);
        return e;
    }
    if (c < 0x80 && strchr(L->s->quotes, (int)c) && c) {
        /* Haskell/Nix: a prime after an identifier was taken above;
         * here ' opens a character literal. */
        e = scan_string(L, i, (char)c);
        cs_tok_push(t, '"', i, e);
        return e > i ? e : i + 1;
    }
    if (c < 0x80)
        cs_tok_push(t, (char)c, i, i + 1);
    return i + 1;
}

int cs_lex_generic(int lexer, const char *b, size_t len, cs_toks *t)
{
    if (lexer < CS_LEX_FIRST_GENERIC || lexer >= CS_LEX_FIRST_DATA)
        return 0;
    gl L = {b, len, t, &SYN[lexer - CS_LEX_FIRST_GENERIC]};
    unsigned f = L.s->flags;
    size_t i = 0;
    if (len >= 2 && b[0] == '#' && b[1] == '!') /* shebang */
        i = cs_scan_eol(b, len, 0);
    while (i < len && !t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\n' || is_space(c)) {
            i++;
            continue;
        }
        int col0 = i == 0 || b[i - 1] == '\n';
        size_t e = skip_comment(&L, i, col0);
        if (e != i) {
            i = e;
            continue;
        }
        if ((col0 && (f & G_LINE_MARK)) || ((f & G_LINE_MARK_ALL) && first_on_line(&L, i)))
            cs_tok_push(t, 'L', i, i);
        i = lex_token(&L, i, c);
    }
    return t->oom ? -1 : 0;
}
