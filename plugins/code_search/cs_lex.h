/* Token streams.  Lexers keep identifiers, strings and punctuation (one
 * token per character) and drop comments and whitespace, so identifiers
 * inside comments or strings never become tokens.
 *
 * Token kinds:
 *   'i'  identifier            '"'  string / character literal
 *   '0'  number                'P'  start of a C preprocessor directive
 *   'Q'  end of a C directive  'L'  start of a top-level line (Python,
 *                                   shell: column 0, outside brackets)
 *   'D'  a name the lexer itself knows is declared (data and markup:
 *        keys, headings, selectors); always a definition
 *   ';'  also Go's automatic semicolon at a line end
 *   any other ASCII punctuation character: itself */
#ifndef CS_LEX_H
#define CS_LEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct cs_tok {
    uint32_t start, end; /* byte offsets [start, end) */
    char kind;
    unsigned char def; /* set by cs_decl_mark: a declaration's name */
} cs_tok;

typedef struct cs_toks {
    cs_tok *v;
    size_t n, cap;
    int oom;
    /* Scratch space of cs_decl_mark, kept between files. */
    char *shape;
    int *depth;
    size_t scap;
    void *md; /* pcre2_match_data */
} cs_toks;

/* Lex buf with lexer (enum cs_lexer), replacing t's contents.
 * Returns 0 or VT_ERR_NOMEM. */
int cs_lex(int lexer, const char *buf, size_t len, cs_toks *t);
/* Mark declaration names (tok.def) in a lexed stream. */
int cs_decl_mark(int lexer, const char *buf, cs_toks *t);
/* Where a file's enum bodies may be, for the raw pre-check: a scan of
 * the bytes that skips comments, literals and directives as cs_lex does
 * and follows the braces, run once per file as far as its matches go.
 * Set up with cs_raw_enum_init for each file; nothing to free. */
#define CS_RAW_LEVELS 240
typedef struct cs_raw_enum {
    int state;   /* -1 not started, 0 no enum in the file, 1 scanning, 2 assume any */
    int cpp;     /* lexed as C++ (raw strings, literal prefixes) */
    size_t pos;  /* read up to here */
    size_t last; /* the last match asked about */
    int line_start, directive, directive_name;
    int cur; /* the statement being read may hold enum */
    int sp;
    unsigned char lvl[CS_RAW_LEVELS];
} cs_raw_enum;
void cs_raw_enum_init(cs_raw_enum *r, int lexer);
/* Do the bytes say enum anywhere (a comment or a longer word too)? */
int cs_says_enum(const char *buf, size_t len);
/* Could the match at s (a token start, matches in increasing order) be
 * in an enum body, as the declaration walk sees it? */
int cs_raw_enum_body(cs_raw_enum *r, const char *buf, size_t len, size_t s);
/* The same question for token k of t (tokens in increasing order; a
 * cs_raw_enum of its own, not one cs_raw_enum_body has used). */
int cs_tok_enum_body(cs_raw_enum *r, const char *buf, size_t len, const cs_toks *t, size_t k);
/* C and C++ (lexed by cs_lex): could cs_decl_mark mark the identifier
 * token k a declaration's name?  0 only when no rule can: a cheap look at
 * its neighbours, so a file whose matches all answer 0 need not be marked
 * at all.  `re`: cs_raw_enum_init'd for the file of `len` bytes, the
 * same one for every token of a file, tokens in order (state 0 when the
 * file is known never to say enum). */
int cs_decl_clike_possible(const char *buf, size_t len, const cs_toks *t, size_t k,
                           cs_raw_enum *re);
/* The same question for the match [s, e) of buf before any lexing, from
 * the bytes around it: 1 whenever cs_decl_clike_possible could say 1 for
 * a token there (and more often).  `re`: cs_raw_enum_init'd for the
 * file, the same one for every match of a file, matches in order. */
int cs_decl_clike_raw_possible(const char *buf, size_t len, size_t s, size_t e, cs_raw_enum *re);
/* Is a token surely inside brackets for every rule of the marking that
 * wants paren depth 0 (variables, typedef names)?  `rev` holds the
 * brackets ('(', ')', '[', ']') between the start of its statement (a
 * ';', '{' or directive end, with no '}' between) and it, last first.
 * Yes when the walk's depth (both kinds, never below 0) is above 0 there
 * and never fell back to 0 on the way (a macro statement may restart
 * there), and typedef_names' count of '(' alone is not 0. */
int cs_parens_hold(const char *rev, size_t n);
void cs_toks_free(cs_toks *t);
/* Free the compiled declaration patterns (at unload; no search may run
 * afterwards). */
void cs_decl_release(void);

/* ---- for the lexers ---- */
void cs_tok_grow(cs_toks *t);
static inline void cs_tok_push(cs_toks *t, char kind, size_t start, size_t end)
{
    if (t->n == t->cap)
        cs_tok_grow(t);
    if (t->oom)
        return;
    t->v[t->n++] = (cs_tok){(uint32_t)start, (uint32_t)end, kind, 0};
}

/* Byte classes: bit 1 starts an identifier (letters, '_', and every
 * byte of a UTF-8 sequence), bit 2 continues one (adds digits). */
extern const unsigned char cs_byte_class[256];
static inline int cs_id_start(unsigned char c) { return cs_byte_class[c] & 1; }
static inline int cs_id_char(unsigned char c) { return cs_byte_class[c] & 2; }
/* End of the identifier starting at i. */
size_t cs_scan_ident(const char *b, size_t len, size_t i);
/* End of a number starting at i (digits, letters, '.', digit separators,
 * exponent signs). */
size_t cs_scan_number(const char *b, size_t len, size_t i, char sep);
/* End of a quoted literal opened at i (b[i] == q) with backslash escapes;
 * stops at a newline when !multiline. */
size_t cs_scan_quoted(const char *b, size_t len, size_t i, char q, int multiline);
/* End of a block comment opened at i ("/" "*"), nested when asked. */
size_t cs_scan_block_comment(const char *b, size_t len, size_t i, int nested);
/* End of the line (index of '\n' or len) from i. */
size_t cs_scan_eol(const char *b, size_t len, size_t i);

int cs_lex_clike(int lexer, const char *b, size_t len, cs_toks *t);
int cs_lex_js(int lexer, const char *b, size_t len, cs_toks *t);
int cs_lex_python(const char *b, size_t len, cs_toks *t);
int cs_lex_shell(const char *b, size_t len, cs_toks *t);
int cs_lex_generic(int lexer, const char *b, size_t len, cs_toks *t);
int cs_lex_data(int lexer, const char *b, size_t len, cs_toks *t);

#endif
