/* libcrypto's SHA-256 and HMAC, bound on first use, and base64url. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "digest.h"
#include "opened_lib.h"

/* The few libcrypto entry points used, declared as libcrypto 3 exports
 * them (only the soname is known at build time, not the headers). */
typedef struct evp_md evp_md;
static struct {
    unsigned char *(*sha256)(const unsigned char *d, size_t n, unsigned char *md);
    const evp_md *(*evp_sha256)(void);
    unsigned char *(*hmac)(const evp_md *md, const void *key, int key_len, const unsigned char *d,
                           size_t n, unsigned char *out, unsigned int *out_len);
} C;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char *open_error; /* kept for the process, as the library is */

static void bind_crypto(void)
{
    const opened_sym syms[] = {
        {"SHA256", (void **)&C.sha256},
        {"EVP_sha256", (void **)&C.evp_sha256},
        {"HMAC", (void **)&C.hmac},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_CRYPTO_SONAME, syms, &open_error);
}

static int opened(char **err)
{
    pthread_once(&once, bind_crypto);
    if (C.sha256)
        return 1;
    if (err)
        *err = open_error ? strdup(open_error) : NULL;
    return 0;
}

int digest_sha256(const void *data, size_t len, unsigned char out[DIGEST_SHA256_LEN], char **err)
{
    if (err)
        *err = NULL;
    if (!opened(err))
        return VT_ERR_UNSUPPORTED;
    return C.sha256(data, len, out) ? VT_OK : VT_ERR_IO;
}

int digest_hmac_sha256(const void *key, size_t key_len, const void *data, size_t len,
                       unsigned char out[DIGEST_SHA256_LEN], char **err)
{
    if (err)
        *err = NULL;
    if (!opened(err))
        return VT_ERR_UNSUPPORTED;
    unsigned int n = 0;
    if (key_len > INT32_MAX || !C.hmac(C.evp_sha256(), key, (int)key_len, data, len, out, &n) ||
        n != DIGEST_SHA256_LEN)
        return VT_ERR_IO;
    return VT_OK;
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

unsigned char *digest_b64url_decode(const char *text, size_t len, size_t *out_len)
{
    *out_len = 0;
    if (len % 4 == 1)
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
        acc = (acc << 6 | (uint32_t)v) & 0xffffff;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}
