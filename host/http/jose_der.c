/* DER writing for JOSE keys and signatures: see jose_der.h. */
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "jose_der.h"

void jose_der_put(jose_der *d, const void *b, size_t n)
{
    if (d->oom || n == 0)
        return;
    if (VT_GROW(&d->p, &d->cap, d->n + n) != 0) {
        d->oom = 1;
        return;
    }
    memcpy(d->p + d->n, b, n);
    d->n += n;
}

void jose_der_wrap(jose_der *out, unsigned char tag, const jose_der *in)
{
    unsigned char h[6] = {tag};
    size_t hl = 1, n = in->n;
    if (n < 128) {
        h[hl++] = (unsigned char)n;
    } else if (n < 256) {
        h[hl++] = 0x81;
        h[hl++] = (unsigned char)n;
    } else if (n < 65536) {
        h[hl++] = 0x82;
        h[hl++] = (unsigned char)(n >> 8);
        h[hl++] = (unsigned char)n;
    } else {
        h[hl++] = 0x83;
        h[hl++] = (unsigned char)(n >> 16);
        h[hl++] = (unsigned char)(n >> 8);
        h[hl++] = (unsigned char)n;
    }
    jose_der_put(out, h, hl);
    jose_der_put(out, in->p, in->n);
    out->oom |= in->oom;
}

void jose_der_integer(jose_der *out, const unsigned char *v, size_t n)
{
    while (n > 1 && v[0] == 0) {
        v++;
        n--;
    }
    jose_der c = {0};
    if (n == 0 || (v[0] & 0x80))
        jose_der_put(&c, "\0", 1); /* zero, or a leading 0 keeps it positive */
    jose_der_put(&c, v, n);
    jose_der_wrap(out, 0x02, &c);
    jose_der_free(&c);
}

void jose_der_free(jose_der *d)
{
    free(d->p);
    *d = (jose_der){0};
}

int jose_der_spki(const unsigned char *alg, size_t alg_len, const jose_der *key, jose_der *out)
{
    jose_der a = {0}, algseq = {0}, bits = {0}, seq = {0};
    jose_der_put(&a, alg, alg_len);
    jose_der_wrap(&algseq, 0x30, &a);
    jose_der_put(&bits, "\0", 1); /* no unused bits */
    jose_der_put(&bits, key->p, key->n);
    bits.oom |= key->oom;
    jose_der_put(&seq, algseq.p, algseq.n);
    seq.oom |= algseq.oom;
    jose_der_wrap(&seq, 0x03, &bits);
    *out = (jose_der){0};
    jose_der_wrap(out, 0x30, &seq);
    jose_der_free(&a);
    jose_der_free(&algseq);
    jose_der_free(&bits);
    jose_der_free(&seq);
    if (out->oom || !out->p) {
        jose_der_free(out);
        return -1;
    }
    return 0;
}

int jose_der_ecdsa_sig(const unsigned char *rs, size_t half, jose_der *out)
{
    jose_der ints = {0};
    jose_der_integer(&ints, rs, half);
    jose_der_integer(&ints, rs + half, half);
    *out = (jose_der){0};
    jose_der_wrap(out, 0x30, &ints);
    jose_der_free(&ints);
    if (out->oom || !out->p) {
        jose_der_free(out);
        return -1;
    }
    return 0;
}
