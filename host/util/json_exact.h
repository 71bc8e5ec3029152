/* The JSON boundary: cJSON parsing that keeps each number's exact text.
 *
 * cJSON stores numbers as doubles, so 9007199254740993 and 1e300 can no
 * longer be echoed as sent, and 1.0 cannot be told from 1.  The parser
 * here parses with cJSON and then stores every number's raw lexeme in
 * that item's valuestring (allocated with cJSON's hooks, so cJSON_Delete
 * frees it and cJSON_Duplicate copies it).  Both front ends (MCP, CLI)
 * parse requests through it. */
#ifndef VTHOST_JSON_EXACT_H
#define VTHOST_JSON_EXACT_H

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stddef.h>

/* Parse `len` bytes of `text`.  *end (may be NULL) gets where parsing
 * stopped (also on failure, as cJSON reports it).  Returns a new tree the
 * caller frees with cJSON_Delete, or NULL. */
cJSON *json_parse_exact(const char *text, size_t len, const char **end);

/* One JSON text that is the whole of `len` bytes: json_parse_exact, and
 * nothing but whitespace after it, and no NUL byte anywhere (cJSON would
 * skip one as whitespace).  The one reader of a JSON-RPC message, for
 * stdio's lines and HTTP's bodies alike.  Returns a new tree or NULL. */
cJSON *json_parse_document(const char *text, size_t len);

/* The number's text as sent, or NULL (not a number, or built in memory). */
const char *json_number_lexeme(const cJSON *v);

/* True for a number written as an integer literal: no fraction, no
 * exponent, not -0.  A number without a lexeme counts when it is whole
 * and not negative zero. */
bool json_is_integer_literal(const cJSON *v);

/* True for a number that is a whole value from `lo` to `hi` (a
 * configuration key's range).  NaN and the infinities fail, and the range
 * is tested before the value is cast, so the cast is always defined. */
bool json_integer_within(const cJSON *v, double lo, double hi);

/* A copy of `v` that prints exactly as it was sent: a number with a
 * lexeme becomes a raw item holding that text.  Caller owns it. */
cJSON *json_copy_exact(const cJSON *v);

#endif
