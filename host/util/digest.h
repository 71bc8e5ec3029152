/* SHA-256, HMAC-SHA256 and base64url, for values the host must be able
 * to recognise as its own when a client hands them back (the MCP
 * engine's requestState), and the base64url of JOSE tokens (http/).
 * The hashes are libcrypto's, opened by soname on first use
 * (crypto_lib.h): most starts never need them. */
#ifndef VTHOST_DIGEST_H
#define VTHOST_DIGEST_H

#include <stddef.h>

#define DIGEST_SHA256_LEN 32

/* out = SHA-256(data).  Returns 0, or VT_ERR_UNSUPPORTED and *err
 * (malloc'd, may be NULL) when libcrypto cannot be opened. */
int digest_sha256(const void *data, size_t len, unsigned char out[DIGEST_SHA256_LEN], char **err);

/* out = HMAC-SHA256(key, data).  Returns as digest_sha256. */
int digest_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[DIGEST_SHA256_LEN], char **err);

/* 1 when the n bytes at a and b are equal; the time taken does not
 * depend on where they differ. */
int digest_equal(const void *a, const void *b, size_t n);

/* Lower-case hex of n bytes into out (2n + 1 bytes with the NUL). */
void digest_hex(const unsigned char *in, size_t n, char *out);

/* base64url without padding (RFC 4648 section 5); malloc'd, NULL when
 * out of memory. */
char *digest_b64url_encode(const void *data, size_t len);
/* Decode base64url in its canonical form: the alphabet A-Z a-z 0-9 - _
 * only, no padding (or, with allow_pad, '=' padding to a multiple of
 * four, which some JWK sets carry), no length that leaves a lone
 * character, unused trailing bits zero, so that each byte string has one
 * encoding.  malloc'd (*out_len bytes, plus a NUL not counted), NULL on
 * anything else or out of memory. */
unsigned char *digest_b64url_decode(const char *text, size_t len, int allow_pad, size_t *out_len);

#endif
