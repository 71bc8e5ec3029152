/* SHA-256 and HMAC through crypto_lib.h (libcrypto opened on first use),
 * and the host's one base64url codec. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "crypto_lib.h"
#include "digest.h"

static int opened(char **err)
{
    char *why = NULL;
    if (crypto_lib_open(&why) == 0)
        return 1;
    if (err)
        *err = why;
    else
        free(why);
    return 0;
}

int digest_sha256(const void *data, size_t len, unsigned char out[DIGEST_SHA256_LEN], char **err)
{
    if (err)
        *err = NULL;
    if (!opened(err))
        return VT_ERR_UNSUPPORTED;
    return crypto_sha256(data, len, out) == 0 ? VT_OK : VT_ERR_IO;
}

int digest_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[DIGEST_SHA256_LEN], char **err)
{
    if (err)
        *err = NULL;
    if (!opened(err))
        return VT_ERR_UNSUPPORTED;
    return crypto_hmac_sha256(key, key_len, data, len, out) == 0 ? VT_OK : VT_ERR_IO;
}

int digest_equal(const void *a, const void *b, size_t n)
{
    const volatile unsigned char *x = a, *y = b;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= x[i] ^ y[i];
    return d == 0;
}

void digest_hex(const unsigned char *in, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[in[i] >> 4];
        out[2 * i + 1] = hex[in[i] & 15];
    }
    out[2 * n] = '\0';
}

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *digest_b64url_encode(const void *data, size_t len)
{
    const unsigned char *p = data;
    char *out = malloc((len + 2) / 3 * 4 + 1), *w = out;
    if (!out)
        return NULL;
    size_t i = 0;
    for (; i + 2 < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (uint32_t)p[i + 1] << 8 | p[i + 2];
        *w++ = b64url[v >> 18 & 63];
        *w++ = b64url[v >> 12 & 63];
        *w++ = b64url[v >> 6 & 63];
        *w++ = b64url[v & 63];
    }
    if (i < len) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0);
        *w++ = b64url[v >> 18 & 63];
        *w++ = b64url[v >> 12 & 63];
        if (i + 1 < len)
            *w++ = b64url[v >> 6 & 63];
    }
    *w = '\0';
    return out;
}

static int b64url_value(unsigned char c)
{
    const char *at = c ? memchr(b64url, c, 64) : NULL;
    return at ? (int)(at - b64url) : -1;
}

unsigned char *digest_b64url_decode(const char *text, size_t len, int allow_pad, size_t *out_len)
{
    *out_len = 0;
    size_t pad = 0;
    if (allow_pad && len % 4 == 0)
        while (pad < 2 && len > 0 && text[len - 1] == '=')
            len--, pad++;
    if (len % 4 == 1 || (pad && len % 4 != 4 - pad))
        return NULL; /* one character cannot carry a whole byte */
    unsigned char *out = malloc(len / 4 * 3 + 3);
    if (!out)
        return NULL;
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64url_value((unsigned char)text[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
        acc &= (1u << bits) - 1;
    }
    /* the bits left over must be zero: one encoding per byte string */
    if (acc != 0) {
        free(out);
        return NULL;
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}
