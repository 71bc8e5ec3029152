/* The enumerator rule of the raw pre-check: could a match be in an enum
 * body?  The declaration walk marks an enumerator only when its innermost
 * level is an enum body, a '{' whose statement holds the enum keyword.
 * Saying "the file says enum somewhere" sent every file with an enum and
 * a common word at a statement start to the lexer; this scan follows the
 * braces instead, without making tokens.
 *
 * Sound by construction where it can be, generous where it cannot:
 *   - comments, literals, line continuations and directives are skipped
 *     exactly as cs_lex_clike skips them (the same helpers, the same
 *     order), so its braces and ';' are the walk's; a C++ raw string
 *     (R"x(...)x") is not followed: the rest of the file answers yes;
 *   - a level counts as a possible enum body when enum stands anywhere
 *     in the longest statement the walk could have before its '{': after
 *     a '}' the statement is taken to go on (as it does after an
 *     initializer, class or enum body), so an enum inside the closed
 *     braces or before them still counts; directives do not end it here;
 *     paren depth, declarators and initializers are not looked at;
 *   - the walk keeps MAX_LEVELS levels: deeper than CS_RAW_LEVELS, the
 *     rest of the file answers yes. */
#include "cs_lex.h"
#include "cs_literal.h"
#include "cs_types.h"

#include <string.h>

enum { L_ENUM = 1, L_SAVED = 2, L_INNER = 4 }; /* bits of a level */

void cs_raw_enum_init(cs_raw_enum *r, int lexer)
{
    memset(r, 0, sizeof *r);
    r->state = -1;
    r->cpp = lexer == CS_LEX_CPP;
    r->line_start = 1;
}

static int word_is(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* The enum keyword: the statement holds it, and so does the level's body
 * (for the statement that goes on after the level's '}'). */
static void saw_enum(cs_raw_enum *r)
{
    r->cur = 1;
    if (r->sp > 0)
        r->lvl[r->sp - 1] |= L_INNER;
}

static void punct(cs_raw_enum *r, unsigned char c)
{
    if (r->directive)
        return; /* the walk skips a directive's tokens */
    if (c == ';') {
        r->cur = 0;
    } else if (c == '{') {
        if (r->sp + 1 >= CS_RAW_LEVELS) {
            r->state = 2;
            return;
        }
        r->lvl[r->sp++] = (unsigned char)(r->cur ? L_ENUM | L_SAVED : 0);
        r->cur = 0;
    } else if (c == '}') {
        if (r->sp == 0) {
            r->cur = 0; /* a stray '}' at file level starts a statement */
            return;
        }
        unsigned char l = r->lvl[--r->sp];
        r->cur = (l & (L_SAVED | L_INNER)) != 0;
        if (r->sp > 0 && (l & L_INNER))
            r->lvl[r->sp - 1] |= L_INNER;
    }
}

/* An identifier at i (ident_or_prefixed's forms): the offset after it or
 * the literal it prefixes. */
static size_t ident(cs_raw_enum *r, const char *b, size_t len, size_t i)
{
    size_t e = cs_scan_ident(b, len, i), n = e - i;
    char nx = e < len ? b[e] : '\0';
    if (nx == '"' &&
        (word_is(b + i, n, "R") || word_is(b + i, n, "LR") || word_is(b + i, n, "uR") ||
         word_is(b + i, n, "UR") || word_is(b + i, n, "u8R"))) {
        r->state = 2; /* a raw string's end is not followed */
        return e;
    }
    if (r->cpp && (nx == '"' || nx == '\'') &&
        (word_is(b + i, n, "L") || word_is(b + i, n, "u") || word_is(b + i, n, "U") ||
         word_is(b + i, n, "u8")))
        return cs_scan_quoted(b, len, e, nx, 0);
    if (word_is(b + i, n, "enum"))
        saw_enum(r);
    if (!r->directive_name)
        return e;
    r->directive_name = 0;
    if (!word_is(b + i, n, "include") && !word_is(b + i, n, "include_next") &&
        !word_is(b + i, n, "import"))
        return e;
    size_t j = e;
    while (j < len && (b[j] == ' ' || b[j] == '\t'))
        j++;
    if (j >= len || b[j] != '<')
        return e;
    while (j < len && b[j] != '>' && b[j] != '\n')
        j++;
    return j < len && b[j] == '>' ? j + 1 : j;
}

/* A token at i that is not a blank, newline or comment (lex_token). */
static size_t token(cs_raw_enum *r, const char *b, size_t len, size_t i, unsigned char c)
{
    int at_line_start = r->line_start;
    r->line_start = 0;
    if (c == '#' && at_line_start) {
        r->directive = r->directive_name = 1;
        return i + 1;
    }
    if (cs_id_start(c))
        return ident(r, b, len, i);
    if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9'))
        return cs_scan_number(b, len, i, '\'');
    if (c == '"' || c == '\'')
        return cs_scan_quoted(b, len, i, (char)c, 0);
    punct(r, c);
    return i + 1;
}

/* Follow the bytes [r->pos, s) as cs_lex_clike's loop reads them. */
static void scan_to(cs_raw_enum *r, const char *b, size_t len, size_t s)
{
    size_t i = r->pos;
    while (i < s && r->state == 1) {
        unsigned char c = (unsigned char)b[i];
        if (c == '\n') {
            if (r->directive)
                r->directive = r->directive_name = r->cur = 0;
            r->line_start = 1;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
            i++;
        } else if (c == '\\' && i + 1 < len && (b[i + 1] == '\n' || b[i + 1] == '\r')) {
            i += b[i + 1] == '\r' && i + 2 < len && b[i + 2] == '\n' ? 3 : 2;
        } else if (c == '/' && i + 1 < len && b[i + 1] == '/') {
            i = cs_scan_eol(b, len, i);
        } else if (c == '/' && i + 1 < len && b[i + 1] == '*') {
            i = cs_scan_block_comment(b, len, i, 0);
        } else {
            i = token(r, b, len, i, c);
        }
    }
    r->pos = i;
}

int cs_says_enum(const char *buf, size_t len)
{
    /* Most files never say it, and the whole file is searched: the
     * vectorised literal search, not memmem. */
    cs_lit l;
    cs_lit_init(&l, "enum", 4, 0);
    return cs_lit_find(&l, buf, len, 0) != NULL;
}

int cs_raw_enum_body(cs_raw_enum *r, const char *buf, size_t len, size_t s)
{
    if (r->state < 0)
        r->state = cs_says_enum(buf, len);
    if (r->state != 1)
        return r->state == 2;
    if (s < r->last) { /* out of order: read again from the start */
        cs_raw_enum_init(r, r->cpp ? CS_LEX_CPP : CS_LEX_C);
        r->state = 1;
    }
    r->last = s;
    scan_to(r, buf, len, s);
    if (r->state == 2)
        return 1;
    /* A token at s starts where the scan stopped.  Past s, s is inside a
     * comment, literal or longer token: the walk never sees a token
     * there, and any answer serves. */
    return r->sp > 0 && (r->lvl[r->sp - 1] & L_ENUM);
}

/* The same brace scan over tokens already lexed (the token pre-check):
 * r->pos counts tokens.  Exact where the byte scan mirrors the lexer;
 * directives ('P' to 'Q') are read as the byte scan reads them. */
int cs_tok_enum_body(cs_raw_enum *r, const char *buf, size_t len, const cs_toks *t, size_t k)
{
    if (r->state < 0)
        r->state = cs_says_enum(buf, len);
    if (r->state != 1)
        return r->state == 2;
    if (k < r->last) {
        cs_raw_enum_init(r, r->cpp ? CS_LEX_CPP : CS_LEX_C);
        r->state = 1;
    }
    r->last = k;
    for (; r->pos < k && r->state == 1; r->pos++) {
        const cs_tok *tk = &t->v[r->pos];
        if (tk->kind == 'P') {
            r->directive = 1;
        } else if (tk->kind == 'Q') {
            r->directive = r->cur = 0;
        } else if (tk->kind == 'i') {
            if (tk->end - tk->start == 4 && memcmp(buf + tk->start, "enum", 4) == 0)
                saw_enum(r);
        } else {
            punct(r, (unsigned char)tk->kind);
        }
    }
    return r->state == 2 || (r->sp > 0 && (r->lvl[r->sp - 1] & L_ENUM));
}
