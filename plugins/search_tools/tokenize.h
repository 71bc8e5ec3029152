/* Search terms from free text: the one place search_tools reads Unicode.
 *
 * Text is split into words at every character that is not a letter, a
 * number or a combining mark (utf8proc categories), so punctuation never
 * reaches a term.  Each word is also split at camelCase humps.  Every
 * piece is case-folded, composed (NFC) and stripped of marks with
 * utf8proc; pieces of one character are dropped.
 *
 * Besides the pieces, a word that was split at humps ("GitHub") is also
 * emitted whole ("github"), and an identifier joined by '_', '.' or '-'
 * ("create_pull_request") is also emitted whole, so a query naming a tool
 * exactly matches it exactly.  Invalid UTF-8 bytes act as separators. */
#ifndef VT_SEARCH_TOKENIZE_H
#define VT_SEARCH_TOKENIZE_H

#include <stddef.h>

/* Receives each term in text order.  `term` is borrowed, valid only for
 * the call, NUL-terminated at term[len].  Return 0 to go on, non-zero to
 * stop (tok_split then returns that value). */
typedef int (*tok_fn)(void *ctx, const char *term, size_t len);

/* Split `text` (len bytes, need not be NUL-terminated) into terms.
 * Returns 0, a callback's non-zero value, or VT_ERR_NOMEM (negative). */
int tok_split(const char *text, size_t len, tok_fn fn, void *ctx);

/* Non-zero when `text` holds nothing but whitespace (Unicode Z* or
 * control characters); invalid UTF-8 counts as content. */
int tok_is_blank(const char *text, size_t len);

#endif
