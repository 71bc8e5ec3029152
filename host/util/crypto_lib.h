/* libcrypto (OpenSSL 3), opened by soname on first use: most starts never
 * need it.  Its users: the HTTP server's OAuth mode (public-key signature
 * checks of access tokens) and the MCP engine's requestState (SHA-256 and
 * HMAC-SHA256, through digest.h).  crypto_lib.c is the only place that
 * opens libcrypto or names OpenSSL's functions (tools/check_calls.sh). */
#ifndef VTHOST_CRYPTO_LIB_H
#define VTHOST_CRYPTO_LIB_H

#include <stddef.h>

typedef struct crypto_key crypto_key; /* a public key (OpenSSL's EVP_PKEY) */

enum crypto_family {
    CRYPTO_OTHER = 0,
    CRYPTO_RSA,  /* RSA with PKCS #1 v1.5 signatures (not RSA-PSS keys) */
    CRYPTO_P256, /* EC on NIST P-256 */
    CRYPTO_P384, /* EC on NIST P-384 */
    CRYPTO_P521, /* EC on NIST P-521 */
};

/* Open libcrypto (once per process; later calls return the first
 * answer).  Returns 0, or -1 with *err (malloc'd) naming the library and
 * what failed. */
int crypto_lib_open(char **err);

/* Free the calling thread's libcrypto state (its error queue, ...) now,
 * if libcrypto was opened.  For a detached thread that is about to say
 * it has ended: the library would free that state after the thread's
 * function returns, racing its own clean-up at the process's exit,
 * which then loses it. */
void crypto_thread_end(void);

/* A public key from DER SubjectPublicKeyInfo, or from PEM text
 * ("-----BEGIN PUBLIC KEY-----").  NULL when it is not one. */
crypto_key *crypto_key_from_der(const unsigned char *der, size_t n);
crypto_key *crypto_key_from_pem(const char *pem);
void crypto_key_free(crypto_key *k);
/* The key's family, and its size in bits (RSA: the modulus). */
enum crypto_family crypto_key_family(const crypto_key *k, int *bits);

/* 0 when `sig` is a valid signature of `data` by `k` with SHA-2 of
 * `sha_bits` (256, 384, 512): PKCS #1 v1.5 for RSA, a DER ECDSA-Sig-Value
 * for EC.  -1 otherwise. */
int crypto_verify(const crypto_key *k, int sha_bits, const unsigned char *data, size_t n,
                  const unsigned char *sig, size_t sig_len);

/* SHA-256 of `n` bytes.  Returns 0, or -1 when libcrypto is not open. */
int crypto_sha256(const void *data, size_t n, unsigned char out[32]);

/* HMAC-SHA256 of `n` bytes under `key`.  Returns 0, or -1 when libcrypto
 * is not open or the key is too long for it. */
int crypto_hmac_sha256(const void *key, size_t key_len, const void *data, size_t n,
                       unsigned char out[32]);

#endif
