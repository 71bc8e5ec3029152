/* Snowball English stemming (libstemmer) for search terms.  One stemmer
 * serves every thread under a mutex: a stemmer instance is not
 * thread-safe, and a stem takes well under a microsecond. */
#include <libstemmer.h>
#include <pthread.h>
#include <string.h>
#include "stem.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct sb_stemmer *stemmer;

/* Folded terms are at most a few hundred bytes (tokenize.c). */
#define STEM_CAP 1024

void stem_word(const char *term, size_t len, char *out, size_t cap, size_t *outlen)
{
    const sb_symbol *s = NULL;
    int n = 0;
    pthread_mutex_lock(&mu);
    if (!stemmer)
        stemmer = sb_stemmer_new("english", "UTF_8");
    if (stemmer && len <= (size_t)0x7fffffff) {
        s = sb_stemmer_stem(stemmer, (const sb_symbol *)term, (int)len);
        n = s ? sb_stemmer_length(stemmer) : 0;
    }
    if (s && n > 0 && (size_t)n < cap) {
        memcpy(out, s, (size_t)n);
        *outlen = (size_t)n;
    } else {
        /* Unchanged: no stemmer (out of memory), or too long to hold. */
        *outlen = len < cap ? len : cap - 1;
        memcpy(out, term, *outlen);
    }
    out[*outlen] = '\0';
    pthread_mutex_unlock(&mu);
}

typedef struct stem_ctx {
    tok_fn fn;
    void *ctx;
} stem_ctx;

static int stem_term(void *ud, const char *term, size_t len)
{
    const stem_ctx *sc = ud;
    char buf[STEM_CAP];
    size_t n;
    stem_word(term, len, buf, sizeof buf, &n);
    return sc->fn(sc->ctx, buf, n);
}

int stem_split(const char *text, size_t len, tok_fn fn, void *ctx)
{
    stem_ctx sc = {fn, ctx};
    return tok_split(text, len, stem_term, &sc);
}

void stem_release(void)
{
    pthread_mutex_lock(&mu);
    sb_stemmer_delete(stemmer);
    stemmer = NULL;
    pthread_mutex_unlock(&mu);
}
