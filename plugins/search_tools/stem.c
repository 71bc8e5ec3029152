/* Snowball English stemming (libstemmer) for search terms.  One stemmer
 * serves every thread under a mutex: a stemmer instance is not
 * thread-safe, and a stem takes well under a microsecond.
 *
 * libstemmer is opened on the first stem, not linked: it holds every
 * Snowball language's tables, 10,800 relocations over 320 KiB that a
 * start would otherwise copy page by page (about a third of the page
 * faults of `vthost tools`, which never searches).  Its soname comes from
 * the library the build found (VTHOST_STEMMER_SONAME), and the package
 * depends on it by name. */
#include <libstemmer.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lazy_lib.h"
#include "stem.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct sb_stemmer *stemmer;

static struct {
    struct sb_stemmer *(*create)(const char *algorithm, const char *charenc);
    void (*destroy)(struct sb_stemmer *stemmer);
    const sb_symbol *(*stem)(struct sb_stemmer *stemmer, const sb_symbol *word, int size);
    int (*length)(struct sb_stemmer *stemmer);
} lib;

/* Under mu.  Without the library terms stay as folded, which still finds
 * exact words. */
static void open_lib(void)
{
    static int once;
    const vt_library_symbol syms[] = {
        {"sb_stemmer_new", (void **)&lib.create},
        {"sb_stemmer_delete", (void **)&lib.destroy},
        {"sb_stemmer_stem", (void **)&lib.stem},
        {"sb_stemmer_length", (void **)&lib.length},
        {NULL, NULL},
    };
    lazy_lib_open(&once, VTHOST_STEMMER_SONAME, syms);
}

/* Folded terms are at most a few hundred bytes (tokenize.c). */
#define STEM_CAP 1024

void stem_word(const char *term, size_t len, char *out, size_t cap, size_t *outlen)
{
    const sb_symbol *s = NULL;
    int n = 0;
    pthread_mutex_lock(&mu);
    open_lib();
    if (!stemmer && lib.create)
        stemmer = lib.create("english", "UTF_8");
    if (stemmer && len <= (size_t)0x7fffffff) {
        s = lib.stem(stemmer, (const sb_symbol *)term, (int)len);
        n = s ? lib.length(stemmer) : 0;
    }
    if (s && n > 0 && (size_t)n < cap) {
        memcpy(out, s, (size_t)n);
        *outlen = (size_t)n;
    } else {
        /* Unchanged: no stemmer (no library, out of memory), or too
         * long to hold. */
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
    if (stemmer)
        lib.destroy(stemmer);
    stemmer = NULL;
    pthread_mutex_unlock(&mu);
}
