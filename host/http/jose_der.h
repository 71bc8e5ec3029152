/* The few DER (ITU-T X.690) structures a JOSE key or signature needs
 * written out: a JWK's public key as SubjectPublicKeyInfo, an ECDSA
 * signature (JWS: r || s) as the SEQUENCE of two INTEGERs OpenSSL
 * verifies.  Only writing, never parsing: what is read comes from
 * OpenSSL's own decoder. */
#ifndef VTHOST_JOSE_DER_H
#define VTHOST_JOSE_DER_H

#include <stddef.h>

typedef struct jose_der {
    unsigned char *p; /* malloc'd; NULL when empty or out of memory */
    size_t n, cap;
    int oom; /* an allocation failed: the content is incomplete */
} jose_der;

void jose_der_put(jose_der *d, const void *b, size_t n);
/* A tag, the length of `in`, then its content. */
void jose_der_wrap(jose_der *out, unsigned char tag, const jose_der *in);
/* An unsigned big-endian integer as a DER INTEGER (minimal, positive). */
void jose_der_integer(jose_der *out, const unsigned char *v, size_t n);
void jose_der_free(jose_der *d);

/* SubjectPublicKeyInfo: SEQUENCE { SEQUENCE { algorithm OIDs }, BIT
 * STRING { key } } with `alg` the encoded AlgorithmIdentifier content. */
int jose_der_spki(const unsigned char *alg, size_t alg_len, const jose_der *key, jose_der *out);

/* ECDSA-Sig-Value (RFC 3279): SEQUENCE { INTEGER r, INTEGER s } from
 * the JWS form, r and s of `half` bytes each. */
int jose_der_ecdsa_sig(const unsigned char *rs, size_t half, jose_der *out);

#endif
