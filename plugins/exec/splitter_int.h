/* The splitter's reader, shared by its files: the parser's state and
 * the steps one file takes for another.  splitter_word.c reads words
 * (quotes, expansions, substitutions), splitter_redirect.c redirections
 * and here-documents, splitter_command.c judges a finished simple
 * command, splitter.c reads commands and lists. */
#ifndef VTHOST_EXEC_SPLITTER_INT_H
#define VTHOST_EXEC_SPLITTER_INT_H

#include "splitter.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>

#define MAX_DEPTH 24
#define MAX_NEST 64 /* ${ ${ "$( ... nesting inside one word */
#define MAX_HEREDOCS 16

typedef struct sbuf {
    char *p;
    size_t len, cap;
    int oom;
} sbuf;

static inline void sb_putn(sbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (VT_GROW(&b->p, &b->cap, b->len + n + 1) != 0) {
        b->oom = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static inline void sb_putc(sbuf *b, char c) { sb_putn(b, &c, 1); }
static inline void sb_puts(sbuf *b, const char *s) { sb_putn(b, s, strlen(s)); }
static inline const char *sb_str(sbuf *b) { return b->p ? b->p : ""; }

typedef struct heredoc {
    char *delim;
    int strip_tabs; /* <<- */
    int expands;    /* unquoted delimiter: the body is expanded */
} heredoc;

typedef struct parser {
    const char *s;
    size_t i, n;
    int depth;
    int nest;  /* parse_dollar recursion: past MAX_NEST the text is opaque */
    int error; /* syntax the reader does not accept */
    int oom;
    split_list *out;
    heredoc hd[MAX_HEREDOCS];
    int nhd;
} parser;

/* One word: its text after quote removal, its source text, and whether
 * the shell would expand anything in it. */
typedef struct word {
    sbuf lit;
    size_t start, end;
    int has_exp;
    int glob; /* unquoted * ? [ */
    int quoted;
} word;

static inline void split_word_free(word *w) { free(w->lit.p); }

static inline int peek(const parser *p, size_t off)
{
    return p->i + off < p->n ? (unsigned char)p->s[p->i + off] : -1;
}

static inline int is_meta(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' ||
           c == ')' || c == '<' || c == '>' || c < 0;
}

static inline int is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline int is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }

/* splitter_word.c */
void split_emit(parser *p, split_kind kind, const char *text);
void split_parse_subst(parser *p);
void split_skip_arith(parser *p, size_t start);
void split_parse_word(parser *p, word *w);
void split_word_render(const parser *p, const word *w, sbuf *out);
int split_is_assignment(const parser *p, const word *w);
void split_skip_blanks(parser *p);
void split_skip_comment(parser *p);

/* splitter_redirect.c */
size_t split_redirect_at(const parser *p, char *kind, int *strip);
void split_parse_redirect(parser *p, size_t len, char kind, int strip);
void split_skip_heredocs(parser *p);

/* splitter_command.c */
void split_finish_command(parser *p, word *ws, int nw);

/* splitter.c */
void split_parse_list(parser *p, int term);
void split_text(parser *parent, const char *text, size_t len);

#endif
