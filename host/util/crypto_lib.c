/* libcrypto opened by soname: see crypto_lib.h. */
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "crypto_lib.h"
#include "opened_lib.h"
#include "strutil.h"

static struct {
    EVP_PKEY *(*d2i_pubkey)(EVP_PKEY **a, const unsigned char **pp, long length);
    BIO *(*bio_mem)(const void *buf, int len);
    int (*bio_free)(BIO *b);
    EVP_PKEY *(*pem_pubkey)(BIO *b, EVP_PKEY **x, pem_password_cb *cb, void *u);
    void (*pkey_free)(EVP_PKEY *k);
    int (*pkey_id)(const EVP_PKEY *k);
    int (*pkey_bits)(const EVP_PKEY *k);
    int (*pkey_group)(const EVP_PKEY *k, char *name, size_t size, size_t *len);
    EVP_MD_CTX *(*md_new)(void);
    void (*md_free)(EVP_MD_CTX *c);
    int (*verify_init)(EVP_MD_CTX *c, EVP_PKEY_CTX **pc, const EVP_MD *md, ENGINE *e, EVP_PKEY *k);
    int (*verify)(EVP_MD_CTX *c, const unsigned char *sig, size_t sig_len, const unsigned char *tbs,
                  size_t n);
    int (*digest)(const void *data, size_t n, unsigned char *md, unsigned int *size,
                  const EVP_MD *type, ENGINE *e);
    const EVP_MD *(*sha256)(void);
    const EVP_MD *(*sha384)(void);
    const EVP_MD *(*sha512)(void);
    unsigned char *(*hmac)(const EVP_MD *md, const void *key, int key_len, const unsigned char *d,
                           size_t n, unsigned char *out, unsigned int *out_len);
    void (*err_clear)(void);
    void (*thread_stop)(void);
} cr;
/* Set once every pointer above is bound: read by threads that never
 * called crypto_lib_open (crypto_thread_end). */
static atomic_int cr_bound;
static char *cr_error;
static pthread_once_t cr_once = PTHREAD_ONCE_INIT;

static void bind_crypto(void)
{
    const opened_sym syms[] = {
        {"d2i_PUBKEY", (void **)&cr.d2i_pubkey},
        {"BIO_new_mem_buf", (void **)&cr.bio_mem},
        {"BIO_free", (void **)&cr.bio_free},
        {"PEM_read_bio_PUBKEY", (void **)&cr.pem_pubkey},
        {"EVP_PKEY_free", (void **)&cr.pkey_free},
        {"EVP_PKEY_get_base_id", (void **)&cr.pkey_id},
        {"EVP_PKEY_get_bits", (void **)&cr.pkey_bits},
        {"EVP_PKEY_get_group_name", (void **)&cr.pkey_group},
        {"EVP_MD_CTX_new", (void **)&cr.md_new},
        {"EVP_MD_CTX_free", (void **)&cr.md_free},
        {"EVP_DigestVerifyInit", (void **)&cr.verify_init},
        {"EVP_DigestVerify", (void **)&cr.verify},
        {"EVP_Digest", (void **)&cr.digest},
        {"EVP_sha256", (void **)&cr.sha256},
        {"EVP_sha384", (void **)&cr.sha384},
        {"EVP_sha512", (void **)&cr.sha512},
        {"HMAC", (void **)&cr.hmac},
        {"ERR_clear_error", (void **)&cr.err_clear},
        {"OPENSSL_thread_stop", (void **)&cr.thread_stop},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_CRYPTO_SONAME, syms, &cr_error);
    if (!cr_error && cr.thread_stop)
        atomic_store_explicit(&cr_bound, 1, memory_order_release);
}

void crypto_thread_end(void)
{
    if (atomic_load_explicit(&cr_bound, memory_order_acquire))
        cr.thread_stop();
}

int crypto_lib_open(char **err)
{
    pthread_once(&cr_once, bind_crypto);
    if (cr_error || !cr.verify) {
        *err = str_printf("libcrypto (OpenSSL 3) is needed here: %s",
                          cr_error ? cr_error : "cannot open it");
        return -1;
    }
    return 0;
}

static int is_open(void) { return cr.verify != NULL; }

crypto_key *crypto_key_from_der(const unsigned char *der, size_t n)
{
    if (!is_open() || n > 65536)
        return NULL;
    const unsigned char *p = der;
    EVP_PKEY *k = cr.d2i_pubkey(NULL, &p, (long)n);
    if (k && p != der + n) { /* bytes after the key: not one key */
        cr.pkey_free(k);
        k = NULL;
    }
    cr.err_clear();
    return (crypto_key *)k;
}

crypto_key *crypto_key_from_pem(const char *pem)
{
    size_t n = strlen(pem);
    if (!is_open() || n > 65536)
        return NULL;
    BIO *b = cr.bio_mem(pem, (int)n);
    EVP_PKEY *k = b ? cr.pem_pubkey(b, NULL, NULL, NULL) : NULL;
    if (b)
        cr.bio_free(b);
    cr.err_clear();
    return (crypto_key *)k;
}

void crypto_key_free(crypto_key *k)
{
    if (k && is_open())
        cr.pkey_free((EVP_PKEY *)k);
}

enum crypto_family crypto_key_family(const crypto_key *k, int *bits)
{
    const EVP_PKEY *pk = (const EVP_PKEY *)k;
    *bits = cr.pkey_bits(pk);
    int id = cr.pkey_id(pk);
    if (id == EVP_PKEY_RSA)
        return CRYPTO_RSA;
    char group[64] = "";
    size_t len = 0;
    if (id != EVP_PKEY_EC || cr.pkey_group(pk, group, sizeof group, &len) != 1)
        return CRYPTO_OTHER;
    /* the NIST curves only, by name: a 256-bit key on another curve
     * (secp256k1, brainpoolP256r1) is no ES256 key */
    if (!strcmp(group, "prime256v1") || !strcmp(group, "P-256"))
        return CRYPTO_P256;
    if (!strcmp(group, "secp384r1") || !strcmp(group, "P-384"))
        return CRYPTO_P384;
    if (!strcmp(group, "secp521r1") || !strcmp(group, "P-521"))
        return CRYPTO_P521;
    return CRYPTO_OTHER;
}

int crypto_verify(const crypto_key *k, int sha_bits, const unsigned char *data, size_t n,
                  const unsigned char *sig, size_t sig_len)
{
    const EVP_MD *md = sha_bits == 256   ? cr.sha256()
                       : sha_bits == 384 ? cr.sha384()
                       : sha_bits == 512 ? cr.sha512()
                                         : NULL;
    EVP_MD_CTX *c = md ? cr.md_new() : NULL;
    int ok = c && cr.verify_init(c, NULL, md, NULL, (EVP_PKEY *)k) == 1 &&
             cr.verify(c, sig, sig_len, data, n) == 1;
    if (c)
        cr.md_free(c);
    /* a failed check leaves its reasons on this thread's error queue */
    cr.err_clear();
    return ok ? 0 : -1;
}

int crypto_sha256(const void *data, size_t n, unsigned char out[32])
{
    unsigned int len = 0;
    if (!is_open() || cr.digest(data, n, out, &len, cr.sha256(), NULL) != 1 || len != 32)
        return -1;
    return 0;
}

int crypto_hmac_sha256(const void *key, size_t key_len, const void *data, size_t n,
                       unsigned char out[32])
{
    unsigned int len = 0;
    if (!is_open() || key_len > INT32_MAX ||
        !cr.hmac(cr.sha256(), key, (int)key_len, data, n, out, &len) || len != 32)
        return -1;
    return 0;
}
