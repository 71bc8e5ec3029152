/* Lexer for Python: '#' comments; strings with any r/b/u/f prefix, single
 * or triple quoted; an 'L' token opens each logical line that starts in
 * column 0 (outside brackets and continuations), which is where
 * module-level assignments live. */
#include "cs_lex.h"

#include <string.h>

static int is_prefix(const char *s, size_t n)
{
    if (n == 0 || n > 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strchr("rRbBuUfF", s[i]))
            return 0;
    return 1;
}

/* String whose opening quote is at q.  Returns the end. */
static size_t scan_string(const char *b, size_t len, size_t q)
{
    char c = b[q];
    if (q + 2 < len && b[q + 1] == c && b[q + 2] == c) {
        for (size_t i = q + 3; i < len; i++) {
            if (b[i] == '\\')
                i++;
            else if (b[i] == c && i + 2 < len && b[i + 1] == c && b[i + 2] == c)
                return i + 3;
        }
        return len;
    }
    return cs_scan_quoted(b, len, q, c, 0);
}

int cs_lex_python(const char *b, size_t len, cs_toks *t)
{
    int brackets = 0, line_start = 1, continued = 0;
    size_t i = 0;
    while (i < len && !t->oom) {
        unsigned char c = (unsigned char)b[i];
        if (line_start) {
            line_start = 0;
            if (brackets == 0 && !continued && c != ' ' && c != '\t' && c != '\n' && c != '\r' &&
                c != '#' && c != '\f')
                cs_tok_push(t, 'L', i, i);
            continued = 0;
        }
        if (c == '\n') {
            line_start = 1;
            i++;
        } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
            i++;
        } else if (c == '\\' && i + 1 < len && (b[i + 1] == '\n' || b[i + 1] == '\r')) {
            continued = 1;
            i++;
        } else if (c == '#') {
            i = cs_scan_eol(b, len, i);
        } else if (c == '"' || c == '\'') {
            size_t e = scan_string(b, len, i);
            cs_tok_push(t, '"', i, e);
            i = e;
        } else if (cs_id_start(c)) {
            size_t e = cs_scan_ident(b, len, i);
            if (e < len && (b[e] == '"' || b[e] == '\'') && is_prefix(b + i, e - i)) {
                size_t se = scan_string(b, len, e);
                cs_tok_push(t, '"', i, se);
                i = se;
            } else {
                cs_tok_push(t, 'i', i, e);
                i = e;
            }
        } else if ((c >= '0' && c <= '9') ||
                   (c == '.' && i + 1 < len && b[i + 1] >= '0' && b[i + 1] <= '9')) {
            size_t e = cs_scan_number(b, len, i, 0);
            cs_tok_push(t, '0', i, e);
            i = e;
        } else {
            if (c == '(' || c == '[' || c == '{')
                brackets++;
            else if ((c == ')' || c == ']' || c == '}') && brackets > 0)
                brackets--;
            if (c < 0x80)
                cs_tok_push(t, (char)c, i, i + 1);
            i++;
        }
    }
    return t->oom ? -1 : 0;
}
