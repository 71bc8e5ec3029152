/* BM25 index: interned terms, postings per term, a forward list of terms
 * per document (so removal can keep the statistics exact). */
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "bm25.h"
#include "lazy_lib.h"
#include "stem.h"
#include "tokenize.h"

typedef struct posting {
    uint32_t doc;
    uint16_t tf; /* saturates at UINT16_MAX */
    uint16_t in_name;
} posting;

typedef struct term {
    char *s;
    uint32_t len;
    uint32_t hash;
    uint32_t df;       /* live documents holding the term */
    uint32_t last_doc; /* document whose posting is last (while adding) */
    posting *p;
    uint32_t np, cap;
} term;

typedef struct doc_info {
    uint32_t len;     /* terms in all fields */
    uint32_t fwd_off; /* distinct terms: fwd[fwd_off .. fwd_off+fwd_n) */
    uint32_t fwd_n;
    uint32_t removed;
} doc_info;

struct bm25_index {
    term *terms;
    uint32_t nterms, tcap;
    uint32_t *slots; /* open addressing: term index + 1, 0 = empty */
    uint32_t nslots; /* power of two */
    doc_info *docs;
    uint32_t ndocs, dcap;
    uint32_t *fwd;
    size_t nfwd, fwdcap;
    size_t live;
    uint64_t total_len;
};

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 16777619u;
    }
    return h;
}

/* vt_grow for a table whose capacity is kept in 32 bits (the index
 * stays small per term and per document). */
static int grow32(void **p, uint32_t *cap, size_t need, size_t elem)
{
    size_t c = *cap;
    if (vt_grow(p, &c, need, elem) != 0 || c > UINT32_MAX)
        return VT_ERR_NOMEM;
    *cap = (uint32_t)c;
    return 0;
}

/* Slot of `s`: its term's slot, or the empty slot where it belongs. */
static uint32_t find_slot(const bm25_index *ix, const char *s, size_t n, uint32_t h)
{
    uint32_t mask = ix->nslots - 1, i = h & mask;
    for (;;) {
        uint32_t t = ix->slots[i];
        if (t == 0)
            return i;
        const term *e = &ix->terms[t - 1];
        if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
            return i;
        i = (i + 1) & mask;
    }
}

static int rehash(bm25_index *ix, uint32_t nslots)
{
    uint32_t *old = ix->slots, oldn = ix->nslots;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return VT_ERR_NOMEM;
    ix->slots = slots;
    ix->nslots = nslots;
    for (uint32_t i = 0; i < oldn; i++)
        if (old[i]) {
            const term *e = &ix->terms[old[i] - 1];
            ix->slots[find_slot(ix, e->s, e->len, e->hash)] = old[i];
        }
    free(old);
    return 0;
}

/* Index of term `s`, created when new; negative on failure. */
static int64_t intern(bm25_index *ix, const char *s, size_t n)
{
    uint32_t h = hash_bytes(s, n);
    uint32_t slot = find_slot(ix, s, n, h);
    if (ix->slots[slot])
        return ix->slots[slot] - 1;
    /* Keep the load factor under one half. */
    if ((uint64_t)(ix->nterms + 1) * 2 > ix->nslots) {
        if (rehash(ix, ix->nslots * 2) != 0)
            return VT_ERR_NOMEM;
        slot = find_slot(ix, s, n, h);
    }
    if (grow32((void **)&ix->terms, &ix->tcap, (size_t)ix->nterms + 1, sizeof(term)) != 0)
        return VT_ERR_NOMEM;
    char *copy = malloc(n + 1);
    if (!copy)
        return VT_ERR_NOMEM;
    memcpy(copy, s, n);
    copy[n] = '\0';
    ix->terms[ix->nterms] =
        (term){.s = copy, .len = (uint32_t)n, .hash = h, .last_doc = UINT32_MAX};
    ix->slots[slot] = ++ix->nterms;
    return ix->nterms - 1;
}

static int64_t lookup(const bm25_index *ix, const char *s, size_t n)
{
    uint32_t slot = find_slot(ix, s, n, hash_bytes(s, n));
    return (int64_t)ix->slots[slot] - 1;
}

int bm25_new(bm25_index **out)
{
    bm25_index *ix = calloc(1, sizeof *ix);
    if (!ix)
        return VT_ERR_NOMEM;
    ix->nslots = 1024;
    ix->slots = calloc(ix->nslots, sizeof *ix->slots);
    if (!ix->slots) {
        free(ix);
        return VT_ERR_NOMEM;
    }
    *out = ix;
    return 0;
}

void bm25_free(bm25_index *ix)
{
    if (!ix)
        return;
    for (uint32_t i = 0; i < ix->nterms; i++) {
        free(ix->terms[i].s);
        free(ix->terms[i].p);
    }
    free(ix->terms);
    free(ix->slots);
    free(ix->docs);
    free(ix->fwd);
    free(ix);
}

typedef struct add_ctx {
    bm25_index *ix;
    uint32_t doc;
    int is_name;
} add_ctx;

static int add_term(void *vctx, const char *s, size_t n)
{
    add_ctx *c = vctx;
    bm25_index *ix = c->ix;
    int64_t id = intern(ix, s, n);
    if (id < 0)
        return (int)id;
    term *t = &ix->terms[id];
    if (t->last_doc != c->doc) {
        if (grow32((void **)&t->p, &t->cap, (size_t)t->np + 1, sizeof(posting)) != 0 ||
            VT_GROW(&ix->fwd, &ix->fwdcap, ix->nfwd + 1) != 0)
            return VT_ERR_NOMEM;
        t->p[t->np++] = (posting){.doc = c->doc};
        t->last_doc = c->doc;
        t->df++;
        ix->fwd[ix->nfwd++] = (uint32_t)id;
        ix->docs[c->doc].fwd_n++;
    }
    posting *p = &t->p[t->np - 1];
    if (p->tf < UINT16_MAX)
        p->tf++;
    p->in_name |= (uint16_t)(c->is_name != 0);
    ix->docs[c->doc].len++;
    return 0;
}

int bm25_add(bm25_index *ix, const bm25_field *fields, size_t n, uint32_t *doc)
{
    if (ix->ndocs == UINT32_MAX - 1 || ix->nfwd > UINT32_MAX)
        return VT_ERR_NOMEM;
    if (grow32((void **)&ix->docs, &ix->dcap, (size_t)ix->ndocs + 1, sizeof(doc_info)) != 0)
        return VT_ERR_NOMEM;
    uint32_t d = ix->ndocs++;
    ix->docs[d] = (doc_info){.fwd_off = (uint32_t)ix->nfwd};
    add_ctx c = {ix, d, 0};
    for (size_t i = 0; i < n; i++) {
        if (!fields[i].text)
            continue;
        c.is_name = fields[i].is_name;
        int rc = stem_split(fields[i].text, fields[i].len, add_term, &c);
        if (rc != 0)
            return rc < 0 ? rc : VT_ERR_INTERNAL;
    }
    ix->live++;
    ix->total_len += ix->docs[d].len;
    if (doc)
        *doc = d;
    return 0;
}

void bm25_remove(bm25_index *ix, uint32_t doc)
{
    if (doc >= ix->ndocs || ix->docs[doc].removed)
        return;
    doc_info *d = &ix->docs[doc];
    d->removed = 1;
    ix->live--;
    ix->total_len -= d->len;
    for (uint32_t i = 0; i < d->fwd_n; i++)
        ix->terms[ix->fwd[d->fwd_off + i]].df--;
}

size_t bm25_size(const bm25_index *ix) { return ix->live; }

typedef struct query_ctx {
    const bm25_index *ix;
    uint32_t ids[64]; /* distinct known terms; more are ignored */
    size_t nids;
    size_t nterms;
} query_ctx;

static int query_term(void *vctx, const char *s, size_t n)
{
    query_ctx *q = vctx;
    q->nterms++;
    int64_t id = lookup(q->ix, s, n);
    if (id < 0)
        return 0;
    for (size_t i = 0; i < q->nids; i++)
        if (q->ids[i] == (uint32_t)id)
            return 0;
    if (q->nids < sizeof q->ids / sizeof q->ids[0])
        q->ids[q->nids++] = (uint32_t)id;
    return 0;
}

static int count_term(void *vctx, const char *s, size_t n)
{
    (void)s;
    (void)n;
    ((query_ctx *)vctx)->nterms++;
    return 0;
}

/* Better first: higher score, then lower document number. */
static int better(const bm25_hit *a, const bm25_hit *b)
{
    if (a->score != b->score)
        return a->score > b->score;
    return a->doc < b->doc;
}

/* The C math library, opened on the first score (lazy_lib.h): of all
 * search_tools does, only scoring needs it. */
static struct {
    double (*log)(double x);
    double (*round)(double x);
} m;
static int open_libm(void)
{
    static int once;
    const vt_library_symbol syms[] = {
        {"log", (void **)&m.log},
        {"round", (void **)&m.round},
        {NULL, NULL},
    };
    return lazy_lib_open(&once, VTHOST_LIBM_SONAME, syms);
}

int bm25_search(const bm25_index *ix, const char *query, size_t qlen, size_t limit, bm25_hit *hits,
                size_t *n, size_t *terms)
{
    *n = 0;
    query_ctx q = {.ix = ix};
    /* An empty index finds nothing whatever the words: they are counted
     * (the caller warns when there are none) but not stemmed, so a search
     * of an empty catalog never opens the stemmer library (stem.c). */
    int rc = ix->live == 0 ? tok_split(query, qlen, count_term, &q)
                           : stem_split(query, qlen, query_term, &q);
    if (rc != 0)
        return rc < 0 ? rc : VT_ERR_INTERNAL;
    if (terms)
        *terms = q.nterms;
    if (q.nids == 0 || ix->live == 0 || limit == 0)
        return 0;
    rc = open_libm();
    if (rc != 0)
        return rc;

    double *acc = calloc(ix->ndocs, sizeof *acc);
    uint32_t *touched = malloc(ix->ndocs * sizeof *touched);
    if (!acc || !touched) {
        free(acc);
        free(touched);
        return VT_ERR_NOMEM;
    }
    size_t nt = 0;
    const double N = (double)ix->live;
    const double avgdl = (double)ix->total_len / N;
    for (size_t k = 0; k < q.nids; k++) {
        const term *t = &ix->terms[q.ids[k]];
        if (t->df == 0)
            continue;
        double idf = m.log(1.0 + (N - t->df + 0.5) / (t->df + 0.5));
        for (uint32_t j = 0; j < t->np; j++) {
            const posting *p = &t->p[j];
            const doc_info *d = &ix->docs[p->doc];
            if (d->removed)
                continue;
            double tf = p->tf;
            double norm = BM25_K1 * (1.0 - BM25_B + BM25_B * d->len / avgdl);
            double s = idf * tf * (BM25_K1 + 1.0) / (tf + norm);
            if (p->in_name)
                s *= 2.0;
            if (acc[p->doc] == 0.0)
                touched[nt++] = p->doc;
            acc[p->doc] += s;
        }
    }

    /* Keep the best `limit` in `hits`, sorted, by insertion. */
    double scale = 1.0;
    for (int i = 0; i < BM25_SCORE_DECIMALS; i++)
        scale *= 10.0;
    size_t have = 0;
    for (size_t i = 0; i < nt; i++) {
        bm25_hit h = {touched[i], m.round(acc[touched[i]] * scale) / scale};
        if (have == limit && !better(&h, &hits[have - 1]))
            continue;
        size_t pos = have < limit ? have++ : have - 1;
        while (pos > 0 && better(&h, &hits[pos - 1])) {
            hits[pos] = hits[pos - 1];
            pos--;
        }
        hits[pos] = h;
    }
    free(acc);
    free(touched);
    *n = have;
    return 0;
}
