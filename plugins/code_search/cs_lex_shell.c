/* Lexer for POSIX shell and bash: '#' comments at a word start; '...',
 * $'...' and "..." strings (with $VAR, ${VAR} and $(...) inside double
 * quotes kept as code); here-documents (<<, <<-, quoted delimiters) whose
 * bodies are strings.  A name in command position (a command or function
 * name) is an identifier, as are variable references and the NAME of an
 * assignment (NAME=value in command position, also after export,
 * readonly, declare and typeset and their options); arguments and other
 * words are 'w' tokens (they are data).
 * An 'L' token marks the first word of every line. */
#include "cs_lex.h"

#include <string.h>

#define MAX_HEREDOCS 16

typedef struct heredoc {
    size_t ds, dn; /* delimiter in the buffer */
    int strip_tabs;
} heredoc;

typedef struct sl {
    const char *b;
    size_t len;
    cs_toks *t;
    heredoc hd[MAX_HEREDOCS];
    int nhd;
    int depth;
} sl;

static size_t lex_sh(sl *L, size_t i, char until);

static int is_meta(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' ||
           c == '(' || c == ')' || c == '<' || c == '>' || c == '"' || c == '\'' || c == '`' ||
           c == '$' || c == '\\';
}

static int is_name(const char *s, size_t n)
{
    if (!n || !(cs_id_start((unsigned char)s[0]) && (unsigned char)s[0] < 0x80))
        return 0;
    for (size_t i = 1; i < n; i++)
        if (!cs_id_char((unsigned char)s[i]) || (unsigned char)s[i] >= 0x80)
            return 0;
    return 1;
}

/* $NAME, ${NAME...}, $(...), $((...)), $'...', $1 ...: at i ('$'). */
static size_t dollar(sl *L, size_t i)
{
    const char *b = L->b;
    size_t len = L->len;
    if (i + 1 >= len)
        return len;
    char c = b[i + 1];
    if (c == '{') {
        size_t s = i + 2, e = s;
        while (e < len && is_name(b + s, e - s + 1))
            e++;
        if (e > s)
            cs_tok_push(L->t, 'i', s, e);
        int depth = 1;
        for (; e < len && depth; e++)
            depth += b[e] == '{' ? 1 : b[e] == '}' ? -1 : 0;
        return e;
    }
    if (c == '(') {
        cs_tok_push(L->t, '$', i, i + 1);
        return lex_sh(L, i + 2, ')');
    }
    if (c == '\'') {
        size_t e = cs_scan_quoted(b, len, i + 1, '\'', 1);
        cs_tok_push(L->t, '"', i, e);
        return e;
    }
    if (cs_id_start((unsigned char)c) && (unsigned char)c < 0x80) {
        size_t e = i + 2;
        while (e < len && cs_id_char((unsigned char)b[e]) && (unsigned char)b[e] < 0x80)
            e++;
        cs_tok_push(L->t, 'i', i + 1, e);
        return e;
    }
    return i + 2; /* $1 $? $# $@ ... */
}

static size_t dquote(sl *L, size_t i)
{
    const char *b = L->b;
    size_t s = i;
    for (i++; i < L->len; i++) {
        if (b[i] == '\\') {
            i++;
        } else if (b[i] == '"') {
            cs_tok_push(L->t, '"', s, i + 1);
            return i + 1;
        } else if (b[i] == '$') {
            cs_tok_push(L->t, '"', s, i);
            i = dollar(L, i);
            s = i;
            i--;
        }
    }
    cs_tok_push(L->t, '"', s, L->len);
    return L->len;
}

/* At '<<' (i): register a here-document; returns the index after it. */
static size_t heredoc_op(sl *L, size_t i)
{
    const char *b = L->b;
    size_t len = L->len;
    size_t j = i + 2;
    int strip = 0;
    if (j < len && b[j] == '-') {
        strip = 1;
        j++;
    }
    while (j < len && (b[j] == ' ' || b[j] == '\t'))
        j++;
    size_t ds, dn;
    if (j < len && (b[j] == '\'' || b[j] == '"')) {
        char q = b[j];
        ds = j + 1;
        const char *e = memchr(b + ds, q, len - ds);
        dn = e ? (size_t)(e - b) - ds : 0;
        j = e ? (size_t)(e - b) + 1 : len;
    } else {
        ds = j;
        while (j < len && !is_meta((unsigned char)b[j]))
            j++;
        dn = j - ds;
        if (dn && b[ds] == '\\') { /* \EOF */
            ds++;
            dn--;
        }
    }
    cs_tok_push(L->t, '<', i, i + 2);
    if (dn && L->nhd < MAX_HEREDOCS)
        L->hd[L->nhd++] = (heredoc){ds, dn, strip};
    return j;
}

/* At the start of the line after a here-document operator: skip bodies. */
static size_t heredoc_bodies(sl *L, size_t i)
{
    const char *b = L->b;
    for (int h = 0; h < L->nhd; h++) {
        size_t s = i;
        while (i < L->len) {
            size_t e = cs_scan_eol(b, L->len, i);
            size_t k = i;
            if (L->hd[h].strip_tabs)
                while (k < e && b[k] == '\t')
                    k++;
            size_t n = e - k;
            if (n && b[e - 1] == '\r')
                n--;
            i = e < L->len ? e + 1 : e;
            if (n == L->hd[h].dn && memcmp(b + k, b + L->hd[h].ds, n) == 0)
                break;
        }
        cs_tok_push(L->t, '"', s, i);
    }
    L->nhd = 0;
    return i;
}

/* Reserved words after which a command starts. */
static int leads_command(const char *s, size_t n)
{
    static const char *const w[] = {"if",      "then", "else",  "elif",     "do",   "while",
                                    "until",   "time", "!",     "function", "exec", "command",
                                    "builtin", "sudo", "xargs", NULL};
    for (int i = 0; w[i]; i++)
        if (strlen(w[i]) == n && memcmp(w[i], s, n) == 0)
            return 1;
    return 0;
}

/* Builtins whose arguments may be assignments. */
static int is_decl_word(const char *s, size_t n)
{
    static const char *const w[] = {"export", "readonly", "declare", "typeset", NULL};
    for (int i = 0; w[i]; i++)
        if (strlen(w[i]) == n && memcmp(w[i], s, n) == 0)
            return 1;
    return 0;
}

/* Where a word stands: in command position, after a declaration
 * builtin (export, readonly, declare, typeset). */
typedef struct sh_pos {
    int cmd;  /* the next word is in command position */
    int decl; /* after export/readonly/declare/typeset */
} sh_pos;

/* NAME=value in command position at i (e at the '='): pushes the name,
 * the '=' and the value (data); returns the offset after the value. */
static inline size_t assignment(sl *L, size_t i, size_t e)
{
    const char *b = L->b;
    cs_tok_push(L->t, 'i', i, e);
    cs_tok_push(L->t, '=', e, e + 1);
    size_t v = e + 1;
    while (v < L->len && !is_meta((unsigned char)b[v]))
        v++;
    if (v > e + 1)
        cs_tok_push(L->t, 'w', e + 1, v);
    return v;
}

/* A word at i (c is b[i]), up to the next metacharacter: a command name
 * or an assignment's NAME is an identifier, anything else data ('w').
 * Updates the position and returns the offset after the word. */
static inline size_t word(sl *L, size_t i, unsigned char c, sh_pos *pos)
{
    const char *b = L->b;
    size_t len = L->len;
    size_t e = i;
    while (e < len && !is_meta((unsigned char)b[e]) && b[e] != '=')
        e++;
    if (pos->cmd && e < len && b[e] == '=' && is_name(b + i, e - i))
        return assignment(L, i, e);
    while (e < len && !is_meta((unsigned char)b[e]))
        e++;
    if (e - i == 1 && (c == '{' || c == '}')) {
        cs_tok_push(L->t, (char)c, i, e);
        pos->cmd = 1;
    } else if (pos->cmd && is_name(b + i, e - i)) {
        cs_tok_push(L->t, 'i', i, e);
        pos->cmd = leads_command(b + i, e - i) || is_decl_word(b + i, e - i);
    } else {
        cs_tok_push(L->t, 'w', i, e);
        /* declare -r NAME=...: options keep the assignment position */
        pos->cmd = pos->cmd && (leads_command(b + i, e - i) || (c == '-' && pos->decl));
    }
    pos->decl = L->t->n && L->t->v[L->t->n - 1].kind == 'i' ? is_decl_word(b + i, e - i)
                                                            : pos->decl && c == '-';
    return e;
}

/* '...' at i (no escapes inside): pushes it, returns its end. */
static inline size_t squote(sl *L, size_t i)
{
    const char *q = memchr(L->b + i + 1, '\'', L->len - i - 1);
    size_t e = q ? (size_t)(q - L->b) + 1 : L->len;
    cs_tok_push(L->t, '"', i, e);
    return e;
}

static size_t lex_sh(sl *L, size_t i, char until)
{
    sh_pos pos = {1, 0};
    const char *b = L->b;
    size_t len = L->len;
    int line_start = until == 0 && i == 0;
    if (++L->depth > 200) {
        L->depth--;
        return len;
    }
    int parens = 0;
    while (i < len && !L->t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\n') {
            i++;
            if (L->nhd)
                i = heredoc_bodies(L, i);
            line_start = 1;
            pos.cmd = 1;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            i++;
            continue;
        }
        if (line_start) {
            line_start = 0;
            if (c != '#')
                cs_tok_push(L->t, 'L', i, i);
        }
        if (c == '#') {
            i = cs_scan_eol(b, len, i);
        } else if (c == '\\') {
            i += 2;
        } else if (c == '\'') {
            i = squote(L, i);
        } else if (c == '"') {
            i = dquote(L, i);
        } else if (c == '$') {
            i = dollar(L, i);
        } else if (c == '<' && i + 1 < len && b[i + 1] == '<' &&
                   !(i + 2 < len && b[i + 2] == '<')) {
            i = heredoc_op(L, i);
        } else if (c == '(') {
            pos.cmd = 1;
            parens++;
            cs_tok_push(L->t, '(', i, i + 1);
            i++;
        } else if (c == ')') {
            if (until == ')' && parens == 0) {
                L->depth--;
                return i + 1;
            }
            parens--;
            cs_tok_push(L->t, ')', i, i + 1);
            i++;
        } else if (c == '`') {
            i++;
        } else if (is_meta(c)) {
            if (c == ';' || c == '&' || c == '|')
                pos.cmd = 1;
            cs_tok_push(L->t, (char)c, i, i + 1);
            i++;
        } else {
            i = word(L, i, c, &pos);
        }
    }
    L->depth--;
    return len;
}

int cs_lex_shell(const char *b, size_t len, cs_toks *t)
{
    sl L = {.b = b, .len = len, .t = t};
    lex_sh(&L, 0, 0);
    return t->oom ? -1 : 0;
}
