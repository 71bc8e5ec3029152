/* The declaration pre-check of C and C++ before any lexing: from the
 * bytes around a match, could it be a declaration's name?  A file none of
 * whose matches could be is not lexed at all when only definitions can
 * still be returned (a common word's usages fill the results early, its
 * few definitions are wanted from every file).  It answers 1 wherever
 * cs_decl_clike_possible could for a token there; test_decl_filter checks
 * both against the marking on random programs and real trees. */
#include "cs_lex.h"

#include <string.h>

static int in(char c, const char *set) { return c && strchr(set, c) != NULL; }

static int raw_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n';
}

/* Is buf[ws, we) one of `words`? */
static int raw_word_in(const char *buf, size_t ws, size_t we, const char *const *words)
{
    for (; *words; words++)
        if (strlen(*words) == we - ws && memcmp(buf + ws, *words, we - ws) == 0)
            return 1;
    return 0;
}

/* Could the line holding buf[i] hide the tokens before its end: a
 * comment on it, a directive (its end is a 'Q' token), or a continued
 * line before it? */
static int raw_line_hides(const char *buf, size_t i)
{
    size_t ls = i;
    while (ls > 0 && buf[ls - 1] != '\n')
        ls--;
    size_t fs = ls;
    while (fs < i && (buf[fs] == ' ' || buf[fs] == '\t'))
        fs++;
    if (buf[fs] == '#' || memmem(buf + ls, i + 1 - ls, "//", 2) ||
        memmem(buf + ls, i + 1 - ls, "/*", 2) || memmem(buf + ls, i + 1 - ls, "*/", 2))
        return 1;
    size_t pe = ls > 0 ? ls - 1 : 0; /* the '\n' ending the line before */
    if (pe > 0 && buf[pe - 1] == '\r')
        pe--;
    return pe > 0 && buf[pe - 1] == '\\';
}

/* Is buf[j] code for sure, given that the bytes after it up to where a
 * backward scan started are plain: nothing on its line before it can
 * open a comment, a literal (a quote not closed before the line's end
 * swallows the rest of it) or a directive, nor continue the line before? */
static int raw_code_at(const char *buf, size_t j)
{
    size_t ls = j;
    while (ls > 0 && buf[ls - 1] != '\n')
        ls--;
    return !memchr(buf + ls, '"', j - ls) && !memchr(buf + ls, '\'', j - ls) &&
           !raw_line_hides(buf, j);
}

/* in_parens on bytes: is [.., s) inside a '(' or '[' opened within the
 * 512 bytes before s (so within in_parens's 512 tokens) and in its
 * statement?  0 whenever a byte could belong to something the lexer
 * skips or makes a boundary of (a comment, a literal, a directive). */
static int raw_in_parens(const char *buf, size_t s)
{
    int d = 0;
    for (size_t j = s, n = 0; j-- > 0 && n < 512; n++) {
        unsigned char c = (unsigned char)buf[j];
        if (c == ')' || c == ']')
            d++;
        else if ((c == '(' || c == '[') && d-- == 0)
            return raw_code_at(buf, j);
        else if (in((char)c, ";{}/\"'\\#") || c >= 0x80)
            return 0;
        else if (c == '\n' && raw_line_hides(buf, j - (j > 0)))
            return 0;
    }
    return 0;
}

int cs_parens_hold(const char *rev, size_t n)
{
    int pd = 0;  /* the walk's depth: '(' and '[' alike, never below 0 */
    long tp = 0; /* typedef_names' depth: '(' only, may go below 0 */
    for (size_t i = n; i-- > 0;) {
        char c = rev[i];
        tp += c == '(' ? 1 : c == ')' ? -1 : 0;
        if (c == '(' || c == '[')
            pd++;
        else if (pd > 0 && --pd == 0)
            return 0; /* a macro statement may start after this ')' */
    }
    return pd > 0 && tp != 0;
}

/* cs_parens_hold on bytes: the brackets between the statement start
 * before s (';', '{' or the file's start) and s, 0 whenever a byte
 * between could belong to something the lexer skips or makes a boundary
 * of, or the boundary itself could be inside a comment or literal. */
static int raw_parens_hold(const char *buf, size_t s)
{
    char rev[256];
    size_t n = 0, j = s;
    for (size_t steps = 0; j > 0; j--, steps++) {
        unsigned char c = (unsigned char)buf[j - 1];
        if (c == ';' || c == '{')
            break;
        if (steps >= 4096 || in((char)c, "}/\"'\\#") || c >= 0x80 ||
            (c == '\n' && j >= 2 && raw_line_hides(buf, j - 2)))
            return 0;
        if (in((char)c, "()[]")) {
            if (n == sizeof rev)
                return 0;
            rev[n++] = (char)c;
        }
    }
    if (j > 0 && !raw_code_at(buf, j - 1))
        return 0;
    return cs_parens_hold(rev, n);
}

/* cs_decl_clike_possible's rules read from the bytes next to the match:
 * the neighbours' first and last bytes stand for their tokens.  Where a
 * byte could belong to something the lexer skips (a comment, a line
 * continuation, a byte >= 0x80) or a directive could end between (a 'Q'
 * token), the answer is yes; the enumerator rule asks whether the match
 * is outside parentheses and may be in an enum body (cs_raw_enum_body). */
int cs_decl_clike_raw_possible(const char *buf, size_t len, size_t s, size_t e, cs_raw_enum *re)
{
    static const char *const type_kw[] = {"struct", "class", "union", "enum", NULL};
    static const char *const lead_kw[] = {"define", "namespace", NULL};
    size_t j = e, i = s;
    while (j < len && raw_blank((unsigned char)buf[j]))
        j++;
    int nl = 0;
    while (i > 0 && raw_blank((unsigned char)buf[i - 1]))
        nl |= buf[--i] == '\n';
    if (j >= len || i == 0)
        return 1; /* the first or the last token */
    unsigned char nc = (unsigned char)buf[j], pc = (unsigned char)buf[i - 1];
    if (nc == '/' || nc == '\\' || nc >= 0x80 || pc == '/' || pc == '\\' || pc >= 0x80)
        return 1;
    if (nl && raw_line_hides(buf, i - 1))
        return 1;
    if (in((char)nc, "<{:") || (nc == ')' && pc == '*') || (nc == '=' && cs_id_char(pc)))
        return 1;
    if (in((char)nc, "=;,[") && !raw_parens_hold(buf, s))
        return 1;
    if (nc == '(' && (cs_id_char(pc) || in((char)pc, "*&>:~);{}")))
        return 1;
    if (in((char)pc, ";{}),") && !raw_in_parens(buf, s) && cs_raw_enum_body(re, buf, len, s))
        return 1;
    int next_id = cs_id_start(nc) != 0;
    if (next_id && (pc == ')' || pc == ']'))
        return 1;
    if (!cs_id_char(pc))
        return 0;
    size_t ws = i - 1;
    while (ws > 0 && cs_id_char((unsigned char)buf[ws - 1]))
        ws--;
    return (next_id && raw_word_in(buf, ws, i, type_kw)) || raw_word_in(buf, ws, i, lead_kw);
}
