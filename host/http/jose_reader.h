/* The one reader of JOSE input: JWS compact tokens (OAuth access tokens)
 * and JWK sets.  Each part is base64url-decoded strictly and parsed once,
 * with cJSON, and whatever two JSON parsers could read two ways is
 * refused rather than resolved: a member name twice in any object (RFC
 * 7515 section 4 allows refusing, RFC 8259 leaves the meaning open), a
 * NUL in a string, bytes that are not UTF-8.  Everything that judges a
 * token (the key, the algorithm, the claims) reads the tree built here,
 * so no later step can see a different header or payload. */
#ifndef VTHOST_JOSE_READER_H
#define VTHOST_JOSE_READER_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The longest token read: a JWT of a few hundred claims fits; anything
 * longer is refused before it is decoded. */
#define JOSE_TOKEN_MAX 16384

/* Parse `n` bytes as one JSON value with no duplicate member name in any
 * object (names compared byte for byte), no \u0000 and valid UTF-8.
 * Returns the tree (cJSON_Delete frees it), or NULL with *why (static
 * text: "is not JSON", "names a member twice", ...). */
cJSON *jose_json_parse(const char *text, size_t n, const char **why);

/* A JWS in compact serialisation (RFC 7515 section 7.1), read. */
typedef struct jose_jws {
    cJSON *header;         /* a JSON object */
    cJSON *claims;         /* the payload: a JSON object (RFC 7519 claims) */
    const char *alg, *kid; /* the header's, borrowed from it; kid may be NULL */
    size_t signed_len;     /* the signing input is the token's first signed_len bytes */
    unsigned char *sig;
    size_t sig_len;
} jose_jws;

/* Read `token`: three base64url parts, the header and payload JSON
 * objects as jose_json_parse reads them; the header with a string "alg",
 * kid a string when present, no "crit" (no extension is understood here)
 * and no registered header parameter spelt in another case ("ALG",
 * "Kid").  Returns 0 and *out (jose_jws_free), or -1 with *why (static
 * text, safe to show: it never quotes the token). */
int jose_jws_read(const char *token, jose_jws *out, const char **why);
void jose_jws_free(jose_jws *j);

#endif
