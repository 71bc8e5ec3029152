/* English stemming of search terms with the Snowball stemmer (libstemmer):
 * the one place search_tools uses it.  Documents and queries go through
 * the same stemming, so "greet", "greets" and "greeting" are one term. */
#ifndef VT_SEARCH_STEM_H
#define VT_SEARCH_STEM_H

#include <stddef.h>
#include "tokenize.h"

/* libstemmer is opened on the first stem (lazy_lib.h); until an opener
 * is set, terms are not stemmed. */

/* tok_split (see tokenize.h), each term replaced by its English stem
 * before `fn` sees it.  Thread-safe.  Returns as tok_split does. */
int stem_split(const char *text, size_t len, tok_fn fn, void *ctx);

/* The stem of one case-folded UTF-8 term into out (cap bytes, NUL
 * added); *outlen its length.  A term whose stem does not fit, or when
 * no stemmer can be made, is copied unchanged.  Thread-safe. */
void stem_word(const char *term, size_t len, char *out, size_t cap, size_t *outlen);

/* Free the stemmer (at plugin fini); the next use makes a new one. */
void stem_release(void);

#endif
