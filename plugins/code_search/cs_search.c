/* The search: walk the scope, scan files on a thread per core, merge.
 *
 * Files are claimed in path order from a shared counter and each file's
 * hits land in that file's slot, so the merged output does not depend on
 * scheduling.  Pruning: a hit sorts after every hit of a lower category
 * and after the hits of its own category in earlier files, so once the
 * completed prefix of files holds max_results hits of categories up to c,
 * later files' hits of category c and above cannot be returned: they are
 * no longer kept, only noticed (then the output is truncated).  Early
 * stop: once nothing later can be returned and truncation is certain, the
 * remaining files are skipped. */
#include "cs.h"
#include "cs_file.h"
#include "cs_ixrun.h"
#include "cs_query.h"
#include "cs_walk.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/plugin.h>

typedef struct job {
    const cs_options *opt;
    const cs_query *q;
    cs_walk *walk;
    int rootfd;    /* opt->root, opened once for the walk and every worker */
    size_t *files; /* indices of file entries in walk */
    size_t nfiles;
    cs_file_hits *hits; /* one slot per file */
    unsigned char *done;
    size_t cap;       /* per-file, per-category bound */
    int first_cat;    /* first requested content category */
    unsigned cats;    /* requested content categories */
    atomic_uint live; /* categories whose hits may still be returned */
    atomic_size_t next;
    size_t batch; /* files claimed at once */
    atomic_int stop;
    int rc; /* first error */
    pthread_mutex_t lock;
    size_t frontier;    /* files [0, frontier) are done */
    size_t prefix[3];   /* their kept hits per category */
    int dropped;        /* some file noticed a hit it did not keep */
    atomic_int noticed; /* dropped, read without the lock */
    int early;          /* stopped early: output is truncated */
    cs_ixrun ix;        /* the content index */
} job;

/* Files [lo, hi) are scanned (rc: the first error among them). */
static void finish_files(job *j, size_t lo, size_t hi, int rc)
{
    size_t max = (size_t)j->opt->max_results;
    pthread_mutex_lock(&j->lock);
    for (size_t i = lo; i < hi && i < j->nfiles; i++) {
        j->done[i] = 1;
        if (j->hits[i].dropped)
            j->dropped = 1;
    }
    if (j->dropped)
        atomic_store(&j->noticed, 1);
    if (rc < 0 && j->rc == 0)
        j->rc = rc;
    while (j->frontier < j->nfiles && j->done[j->frontier]) {
        for (int c = 0; c < 3; c++)
            j->prefix[c] += j->hits[j->frontier].counts[c];
        j->frontier++;
    }
    size_t cum = 0;
    unsigned live = 0;
    for (int c = 0; c < 3; c++) {
        if (!(j->cats & (1u << c)))
            continue;
        cum += j->prefix[c];
        if (cum < max)
            live |= 1u << c;
        else
            break; /* and every later category */
    }
    atomic_store(&j->live, live);
    int certain = j->prefix[j->first_cat] > max || (live == 0 && j->dropped);
    if (rc < 0 || (certain && j->frontier < j->nfiles)) {
        if (rc == 0)
            j->early = 1;
        atomic_store(&j->stop, 1);
    }
    pthread_mutex_unlock(&j->lock);
}

/* Can only a definition of the next file still change the answer?  When
 * no other requested category is live, and a hit that would only be
 * noticed (not kept) changes nothing: none can arise (definitions alone
 * are requested: a file with no definition gives nothing) or the output
 * is already truncated by another file's. */
static int defs_only(job *j, unsigned live)
{
    unsigned def = 1u << CS_DEF;
    if (live & j->cats & ~def)
        return 0;
    return j->cats == def || atomic_load(&j->noticed);
}

static int cancelled(job *j)
{
    if (!j->opt->cancelled || !j->opt->cancelled(j->opt->cancel_ud))
        return 0;
    pthread_mutex_lock(&j->lock);
    if (j->rc == 0)
        j->rc = VT_ERR_CANCELLED;
    pthread_mutex_unlock(&j->lock);
    atomic_store(&j->stop, 1);
    return 1;
}

/* Files are claimed a batch at a time: neighbours in path order share a
 * directory, so a worker opens each directory about once instead of at
 * every file the other worker took in between, and the lock that tracks
 * the frontier is taken once per batch. */
static void *worker_main(void *arg)
{
    job *j = arg;
    cs_worker w;
    if (cs_worker_init(&w, j->q) < 0) {
        finish_files(j, 0, 0, VT_ERR_NOMEM);
        cs_worker_free(&w);
        return NULL;
    }
    while (!atomic_load(&j->stop)) {
        size_t lo = atomic_fetch_add(&j->next, j->batch);
        if (lo >= j->nfiles)
            break;
        size_t hi = lo + j->batch < j->nfiles ? lo + j->batch : j->nfiles, i = lo;
        int rc = 0;
        for (; i < hi && rc == 0 && !atomic_load(&j->stop) && !cancelled(j); i++) {
            const cs_entry *e = &j->walk->v[j->files[i]];
            unsigned live = atomic_load(&j->live);
            if (cs_ixrun_skip(&j->ix, &w, j->rootfd, i, e->rel, defs_only(j, live)))
                continue;
            rc =
                cs_worker_scan(&w, j->rootfd, e->rel, e->lexer, j->cats, live, j->cap, &j->hits[i]);
        }
        finish_files(j, lo, i, rc);
    }
    cs_worker_free(&w);
    return NULL;
}

static int nthreads(const cs_options *opt, size_t nfiles)
{
    long n = opt->threads > 0 ? opt->threads : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    if (n > 64)
        n = 64;
    if ((size_t)n > nfiles / 4 + 1)
        n = (long)(nfiles / 4 + 1);
    return (int)n;
}

typedef struct sort_item {
    int cat;
    size_t file; /* order of the path */
    uint32_t line, col;
    cs_hit *hit; /* NULL for path results */
    const char *path;
} sort_item;

static int item_cmp(const void *a, const void *b)
{
    const sort_item *x = a, *y = b;
    if (x->cat != y->cat)
        return x->cat < y->cat ? -1 : 1;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->col < y->col ? -1 : x->col > y->col;
}

/* Path results: entries whose name (or, for a query with a slash, whose
 * whole relative path) contains the query. */
static int path_matches(cs_matcher *m, const cs_entry *e, const char *query)
{
    const char *s = e->rel;
    if (!strchr(query, '/')) {
        const char *slash = strrchr(s, '/');
        if (slash)
            s = slash + 1;
    }
    return cs_match_any(m, s, strlen(s));
}

static int run_scan(job *j)
{
    int nt = nthreads(j->opt, j->nfiles);
    /* Small enough that the last batches still share out evenly. */
    j->batch = j->nfiles / ((size_t)nt * 16);
    if (j->batch < 1)
        j->batch = 1;
    if (j->batch > 32)
        j->batch = 32;
    if (nt <= 1) {
        worker_main(j);
        return j->rc;
    }
    pthread_t *th = calloc((size_t)nt, sizeof *th);
    if (!th)
        return VT_ERR_NOMEM;
    int started = 0;
    for (int i = 0; i < nt; i++, started++)
        if (pthread_create(&th[i], NULL, worker_main, j) != 0)
            break;
    if (started == 0)
        worker_main(j);
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    return j->rc;
}

/* The job's file list (the non-directory entries of the walk, in path
 * order), a hit slot and a done flag per file; then the content
 * categories (first three bits of cats) it scans for. */
static int job_prepare(job *j, unsigned content)
{
    const cs_walk *walk = j->walk;
    j->files = calloc(walk->n + 1, sizeof *j->files);
    for (size_t i = 0; j->files && i < walk->n; i++)
        if (!walk->v[i].is_dir)
            j->files[j->nfiles++] = i;
    j->hits = calloc(j->nfiles + 1, sizeof *j->hits);
    j->done = calloc(j->nfiles + 1, 1);
    pthread_mutex_init(&j->lock, NULL);
    if (!j->files || !j->hits || !j->done)
        return VT_ERR_NOMEM;
    for (int c = 0; c < 3; c++)
        if (content & (1u << c)) {
            j->first_cat = c;
            break;
        }
    j->cats = content;
    atomic_init(&j->live, content);
    return 0;
}

static void job_release(job *j)
{
    for (size_t i = 0; j->hits && i < j->nfiles; i++)
        cs_file_hits_free(&j->hits[i]);
    free(j->hits);
    free(j->done);
    free(j->files);
    pthread_mutex_destroy(&j->lock);
}

/* The path results (at most cap of them) appended to items. */
static int add_path_items(const job *j, sort_item *items, size_t *nitems)
{
    cs_matcher m;
    if (cs_matcher_init(&m, j->q) < 0) {
        cs_matcher_free(&m);
        return VT_ERR_NOMEM;
    }
    size_t np = 0;
    for (size_t i = 0; i < j->walk->n && np < j->cap; i++)
        if (path_matches(&m, &j->walk->v[i], j->opt->query) && ++np)
            items[(*nitems)++] = (sort_item){CS_PATH, i, 0, 0, NULL, j->walk->v[i].rel};
    cs_matcher_free(&m);
    return 0;
}

/* Every kept hit and (want_paths) the path results, unsorted, in a new
 * array *items of *nitems; the caller frees it. */
static int gather_items(const job *j, int want_paths, sort_item **items, size_t *nitems)
{
    size_t cap = 0;
    for (size_t i = 0; i < j->nfiles; i++)
        cap += j->hits[i].n;
    cap += j->cap + 1;
    sort_item *v = calloc(cap, sizeof *v);
    *items = v;
    *nitems = 0;
    if (!v)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < j->nfiles; i++)
        for (size_t k = 0; k < j->hits[i].n; k++) {
            cs_hit *h = &j->hits[i].v[k];
            v[(*nitems)++] =
                (sort_item){h->cat, j->files[i], h->line, h->col, h, j->walk->v[j->files[i]].rel};
        }
    return want_paths ? add_path_items(j, v, nitems) : 0;
}

/* The first max_results of the sorted items into out; the hits' snippets
 * and names move there. */
static int fill_output(const job *j, sort_item *items, size_t nitems, cs_output *out)
{
    size_t max = (size_t)j->opt->max_results;
    size_t keep = nitems < max ? nitems : max;
    out->truncated = j->early || j->dropped || nitems > keep;
    out->v = calloc(keep + 1, sizeof *out->v);
    if (!out->v)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < keep; i++) {
        cs_result *r = &out->v[out->n++];
        r->cat = items[i].cat;
        r->line = items[i].line;
        r->col = items[i].col;
        r->path = strdup(items[i].path);
        if (items[i].hit) { /* ownership moves to the output */
            r->snippet = items[i].hit->snippet;
            r->name = items[i].hit->name;
            items[i].hit->snippet = items[i].hit->name = NULL;
        }
        if (!r->path)
            return VT_ERR_NOMEM;
    }
    return 0;
}

int cs_search(const cs_options *opt, cs_output *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    cs_query q;
    int rc = cs_query_init(&q, opt->query, err);
    if (rc < 0)
        return rc;
    out->insensitive = q.insensitive;
    unsigned cats = opt->categories ? opt->categories : CS_CAT_ALL;
    int want_paths = (cats & (1u << CS_PATH)) != 0;
    unsigned content = cats & 7u;
    cs_walk walk;
    int rootfd = open(opt->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    rc = rootfd < 0 ? VT_ERR_NOT_FOUND
                    : cs_walk_run_filtered(opt->root, rootfd, opt->scope, opt->lang_mask,
                                           want_paths && !opt->lang_mask, opt->skip_path,
                                           opt->skip_ud, nthreads(opt, SIZE_MAX), &walk);
    if (rc < 0) {
        if (rootfd >= 0)
            close(rootfd);
        cs_query_free(&q);
        *err = strdup(rc == VT_ERR_NOMEM ? "out of memory" : "cannot walk the search path");
        return rc;
    }
    job j = {
        .opt = opt, .q = &q, .walk = &walk, .rootfd = rootfd, .cap = (size_t)opt->max_results + 1};
    sort_item *items = NULL;
    size_t nitems = 0;
    rc = job_prepare(&j, content);
    if (rc >= 0 && content)
        rc = cs_ixrun_begin(&j.ix, opt, &q, &walk, j.files, j.nfiles);
    if (rc >= 0 && content)
        rc = run_scan(&j);
    cs_ixrun_end(&j.ix, &walk, j.files, j.nfiles, rc >= 0);
    if (rc >= 0)
        rc = gather_items(&j, want_paths, &items, &nitems);
    if (rc >= 0 && nitems > 1)
        qsort(items, nitems, sizeof *items, item_cmp);
    if (rc >= 0)
        rc = fill_output(&j, items, nitems, out);
    free(items);
    job_release(&j);
    cs_walk_free(&walk);
    close(rootfd);
    cs_query_free(&q);
    if (rc < 0) {
        cs_output_free(out);
        if (!*err)
            *err = strdup(rc == VT_ERR_CANCELLED ? "cancelled" : "out of memory");
    }
    return rc;
}

void cs_output_free(cs_output *out)
{
    for (size_t i = 0; i < out->n; i++) {
        free(out->v[i].path);
        free(out->v[i].snippet);
        free(out->v[i].name);
    }
    free(out->v);
    memset(out, 0, sizeof *out);
}
