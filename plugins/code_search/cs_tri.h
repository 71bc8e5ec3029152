/* Trigram signatures: a file's ASCII-folded trigrams hashed into a
 * bitmap, and the test whether a query can occur in such a file. */
#ifndef CS_TRI_H
#define CS_TRI_H

#include <stddef.h>
#include <stdint.h>

#include "cs_index.h"
#include "cs_query.h"

#define CS_TRI_QMAX 64

typedef struct cs_trq {
    int usable;              /* the index can serve the query */
    uint32_t t[CS_TRI_QMAX]; /* folded trigrams of the query */
    size_t n;
} cs_trq;

/* The query's trigrams.  Usable when the query is at least three bytes
 * and its matches are byte matches: exact (case-sensitive), or
 * ASCII-caseless (an ASCII case-insensitive query).  Either kind of
 * match contains every ASCII-folded trigram of the query in the
 * ASCII-folded file.  A case-insensitive non-ASCII query folds through
 * utf8proc (ß matches SS): not usable. */
void cs_trq_init(cs_trq *tq, const cs_query *q);
/* 0 when the file of entry e cannot hold a match of the query: binary,
 * or some query trigram absent from its bitmap (usable queries only). */
int cs_tri_may_match(const cs_trq *tq, const cs_ientry *e);
/* The bitmap size for a file of len bytes (log2 bits). */
uint32_t cs_tri_log2(size_t len);
/* Set the bit of every folded trigram of buf in bits (1 << log2 bits,
 * zeroed by the caller). */
void cs_tri_fill(const char *buf, size_t len, uint32_t log2, uint64_t *bits);

#endif
