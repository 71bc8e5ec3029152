/* Lexer dispatch and the scanning helpers the lexers share. */
#include "cs_lex.h"
#include "cs_types.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#define ALPHA3(c) ['a' + (c)] = 3, ['A' + (c)] = 3
const unsigned char cs_byte_class[256] = {
    ALPHA3(0),  ALPHA3(1),  ALPHA3(2),           ALPHA3(3),  ALPHA3(4),  ALPHA3(5),  ALPHA3(6),
    ALPHA3(7),  ALPHA3(8),  ALPHA3(9),           ALPHA3(10), ALPHA3(11), ALPHA3(12), ALPHA3(13),
    ALPHA3(14), ALPHA3(15), ALPHA3(16),          ALPHA3(17), ALPHA3(18), ALPHA3(19), ALPHA3(20),
    ALPHA3(21), ALPHA3(22), ALPHA3(23),          ALPHA3(24), ALPHA3(25), ['_'] = 3,  ['0'] = 2,
    ['1'] = 2,  ['2'] = 2,  ['3'] = 2,           ['4'] = 2,  ['5'] = 2,  ['6'] = 2,  ['7'] = 2,
    ['8'] = 2,  ['9'] = 2,  [0x80 ... 0xFF] = 3,
};

void cs_tok_grow(cs_toks *t)
{
    if (t->oom)
        return;
    /* a first table of 4096 tokens, doubled after */
    if (VT_GROW(&t->v, &t->cap, t->cap ? t->cap + 1 : 4096) != 0)
        t->oom = 1;
}

void cs_toks_free(cs_toks *t)
{
    free(t->v);
    free(t->shape);
    free(t->depth);
    pcre2_match_data_free(t->md);
    memset(t, 0, sizeof *t);
}

size_t cs_scan_ident(const char *b, size_t len, size_t i)
{
    while (i < len && cs_id_char((unsigned char)b[i]))
        i++;
    return i;
}

size_t cs_scan_number(const char *b, size_t len, size_t i, char sep)
{
    while (i < len) {
        unsigned char c = (unsigned char)b[i];
        if (cs_id_char(c) || c == '.' ||
            (sep && c == (unsigned char)sep && i + 1 < len &&
             cs_id_char((unsigned char)b[i + 1]))) {
            i++;
        } else if ((c == '+' || c == '-') &&
                   (b[i - 1] == 'e' || b[i - 1] == 'E' || b[i - 1] == 'p' || b[i - 1] == 'P')) {
            i++;
        } else {
            break;
        }
    }
    return i;
}

size_t cs_scan_quoted(const char *b, size_t len, size_t i, char q, int multiline)
{
    for (i++; i < len; i++) {
        if (b[i] == '\\') {
            i++;
        } else if (b[i] == q) {
            return i + 1;
        } else if (b[i] == '\n' && !multiline) {
            return i;
        }
    }
    return len;
}

size_t cs_scan_block_comment(const char *b, size_t len, size_t i, int nested)
{
    if (!nested) {
        const char *e = i + 2 < len ? memmem(b + i + 2, len - i - 2, "*/", 2) : NULL;
        return e ? (size_t)(e - b) + 2 : len;
    }
    int depth = 1;
    for (i += 2; i < len; i++) {
        if (b[i] == '*' && i + 1 < len && b[i + 1] == '/') {
            i++;
            if (--depth == 0)
                return i + 1;
        } else if (nested && b[i] == '/' && i + 1 < len && b[i + 1] == '*') {
            i++;
            depth++;
        }
    }
    return len;
}

size_t cs_scan_eol(const char *b, size_t len, size_t i)
{
    const char *nl = memchr(b + i, '\n', len - i);
    return nl ? (size_t)(nl - b) : len;
}

int cs_lex(int lexer, const char *buf, size_t len, cs_toks *t)
{
    t->n = 0;
    t->oom = 0;
    switch (lexer) {
    case CS_LEX_C:
    case CS_LEX_CPP:
    case CS_LEX_RUST:
    case CS_LEX_GO:
    case CS_LEX_JAVA: cs_lex_clike(lexer, buf, len, t); break;
    case CS_LEX_JS:
    case CS_LEX_JSX:
    case CS_LEX_TS:
    case CS_LEX_TSX: cs_lex_js(lexer, buf, len, t); break;
    case CS_LEX_PYTHON: cs_lex_python(buf, len, t); break;
    case CS_LEX_SHELL: cs_lex_shell(buf, len, t); break;
    default:
        if (lexer >= CS_LEX_FIRST_DATA && lexer < CS_LEX_COUNT)
            cs_lex_data(lexer, buf, len, t);
        else if (lexer >= CS_LEX_FIRST_GENERIC)
            cs_lex_generic(lexer, buf, len, t);
        break;
    }
    return t->oom ? VT_ERR_NOMEM : 0;
}
