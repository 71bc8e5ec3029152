/* The query: smart case, Unicode case folding and the literal search. */
#ifndef CS_QUERY_H
#define CS_QUERY_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>
#include "cs_literal.h"

typedef struct cs_query {
    char *text; /* the query as given */
    size_t len;
    int insensitive; /* no upper-case letter in the query */
    /* Insensitive and not ASCII: candidate lines are folded with utf8proc
     * and searched for `folded`. */
    int fold_lines;
    char *folded; /* case-folded, compatibility-decomposed query */
    size_t flen;
    /* Byte search: the query itself (ASCII-caseless when insensitive), or
     * for fold_lines the folded query when that is ASCII; else NULL. */
    pcre2_code *re;
    /* Insensitive ASCII queries of two bytes or more: the query with its
     * letters lowered and the literal search for it (then re is NULL). */
    char *lower;
    cs_lit lit;
} cs_query;

typedef struct cs_span {
    uint32_t start, end;
} cs_span;

/* Per-thread matching state. */
typedef struct cs_matcher {
    const cs_query *q;
    pcre2_match_data *md;
    char *fbuf;      /* folded line */
    uint32_t *fmap;  /* folded byte -> original offset in the line */
    uint8_t *fbound; /* folded byte starts a character's folding */
    size_t fcap;
} cs_matcher;

int cs_query_init(cs_query *q, const char *text, char **err);
void cs_query_free(cs_query *q);
int cs_matcher_init(cs_matcher *m, const cs_query *q);
void cs_matcher_free(cs_matcher *m);

/* Append the non-overlapping matches in buf to *v (growing it), at most
 * `limit` in total in *n (0: no limit).  Returns 0 or VT_ERR_NOMEM. */
int cs_match_all(cs_matcher *m, const char *buf, size_t len, size_t limit, cs_span **v, size_t *n,
                 size_t *cap);
/* The same from offset `from` on: where a call with a limit stopped (the
 * end of its last match, or one past it when that match was empty), so
 * the two calls find what one would.  Byte searches only: a folding query
 * (q->fold_lines) takes 0 alone (else VT_ERR_INVALID). */
int cs_match_from(cs_matcher *m, const char *buf, size_t len, size_t from, size_t limit,
                  cs_span **v, size_t *n, size_t *cap);
/* 1 when s contains the query, else 0. */
int cs_match_any(cs_matcher *m, const char *s, size_t len);

#endif
