/* A BM25 index over short documents with a name field.
 *
 * Okapi BM25 with k1 = 1.5, b = 0.75 and the non-negative idf
 * log(1 + (N - df + 0.5) / (df + 0.5)).  A document's term frequency and
 * length count every field; a query term that occurs in the document's
 * name field counts double.  Repeated query terms count once.
 *
 * Documents are numbered in the order they are added; results with equal
 * (rounded) scores keep that order, so a caller that adds documents
 * sorted by name gets ties by name.  Removing a document updates N, the
 * document frequencies and the average length exactly as if the index
 * had been built without it.
 *
 * Not thread-safe: the caller serialises access to one index. */
#ifndef VT_SEARCH_BM25_H
#define VT_SEARCH_BM25_H

#include <stddef.h>
#include <stdint.h>

#define BM25_K1 1.5
#define BM25_B 0.75
/* Scores are rounded to this many decimals before ranking, so that what
 * a caller shows is what decided the order. */
#define BM25_SCORE_DECIMALS 6

typedef struct bm25_index bm25_index;

typedef struct bm25_field {
    const char *text; /* borrowed; NULL is skipped */
    size_t len;       /* bytes of text */
    int is_name;
} bm25_field;

typedef struct bm25_hit {
    uint32_t doc;
    double score; /* > 0, rounded to BM25_SCORE_DECIMALS */
} bm25_hit;

int bm25_new(bm25_index **out);
void bm25_free(bm25_index *ix);

/* Add one document made of `n` fields; *doc receives its number. */
int bm25_add(bm25_index *ix, const bm25_field *fields, size_t n, uint32_t *doc);

/* Take a document out of the collection (its number stays reserved). */
void bm25_remove(bm25_index *ix, uint32_t doc);

/* Number of live (not removed) documents. */
size_t bm25_size(const bm25_index *ix);

/* The best `limit` documents for `query`, best first; *n receives how
 * many were stored in `hits` (room for `limit`).  Documents matching no
 * query term are never returned.  *terms (may be NULL) receives the
 * number of distinct searchable terms in the query.  Returns 0,
 * VT_ERR_NOMEM, or VT_ERR_UNSUPPORTED when there is something to score
 * but the math library cannot be opened (no opener set, lazy_lib.h). */
int bm25_search(const bm25_index *ix, const char *query, size_t qlen, size_t limit, bm25_hit *hits,
                size_t *n, size_t *terms);

#endif
