/* One search's use of the content index (see cs_ixrun.h). */
#include "cs_ixrun.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vthost/plugin.h>

/* Times within this many seconds of the search's start are too new for
 * an entry: a clock tick is far shorter, and a write in the same tick as
 * the previous one could leave every time as it was. */
#define RACY_MARGIN 2

int cs_ixrun_begin(cs_ixrun *r, const cs_options *opt, const cs_query *q, const cs_walk *walk,
                   const size_t *files, size_t nfiles)
{
    memset(r, 0, sizeof *r);
    /* Above the bound the index would never be written: no search then
     * pays for entries. */
    if (!opt->index_dir || nfiles > CS_IX_MAX_FILES)
        return 0;
    /* An index is only written and read by one build (cs_index_load). */
    r->build = cs_decls_build();
    if (r->build == 0)
        return 0;
    /* Files' times are the wall clock's (coarse) seconds. */
    r->limit = (int64_t)time(NULL) - RACY_MARGIN;
    r->root = opt->root;
    r->full = strcmp(opt->scope, opt->root) == 0 && opt->lang_mask == 0;
    cs_trq_init(&r->trq, q);
    cs_dq_init(&r->dq, q);
    r->dir = opt->index_dir;
    r->path = cs_index_path(opt->index_dir, opt->root);
    r->old = calloc(nfiles + 1, sizeof *r->old);
    r->fresh = calloc(nfiles + 1, sizeof *r->fresh);
    /* Out of memory here costs the index, not the search. */
    if (!r->path || !r->old || !r->fresh ||
        cs_index_load(r->path, opt->root, r->build, &r->ix) < 0) {
        cs_ixrun_end(r, walk, files, nfiles, 0);
        return 0;
    }
    /* Both lists are in strcmp order: one merge pairs them. */
    size_t k = 0;
    for (size_t i = 0; i < nfiles; i++) {
        const char *rel = walk->v[files[i]].rel;
        int c = 1;
        while (k < r->ix.n && (c = strcmp(r->ix.v[k].rel, rel)) < 0)
            k++;
        if (k < r->ix.n && c == 0)
            r->old[i] = &r->ix.v[k];
    }
    r->on = 1;
    return 0;
}

int cs_ixrun_skip(cs_ixrun *r, cs_worker *w, int rootfd, size_t i, const char *rel, int defs_only)
{
    w->fresh = NULL;
    if (!r->on)
        return 0;
    const cs_ientry *o = r->old[i];
    if (o && (!cs_tri_may_match(&r->trq, o) || (defs_only && !cs_decls_may(&r->dq, o))) &&
        cs_worker_unchanged(w, rootfd, rel, o)) {
        r->fresh[i].state = 1;
        cs_ixbudget_seen(&r->budget, o->id.size);
        return 1;
    }
    w->fresh = &r->fresh[i];
    w->old = o;
    w->limit = r->limit;
    w->budget = &r->budget;
    return 0;
}

/* File i's entry in the new index into *e: 1, or 0 for none.  *changed
 * is set when it differs from the loaded one. */
static int new_entry(const cs_ixrun *r, const char *rel, size_t i, cs_ientry *e, int *changed)
{
    const cs_fresh *f = &r->fresh[i];
    if (f->state == 2) {
        *e = (cs_ientry){rel, f->id, f->flags, f->log2, f->bits, f->dlog2, f->dbits};
        *changed = 1;
        return 1;
    }
    if (f->state < 0) { /* read, and no entry can vouch for it */
        *changed |= r->old[i] != NULL;
        return 0;
    }
    /* Unchanged, or not looked at (an early stop): the old entry stays;
     * a later search checks it before trusting it. */
    if (r->old[i])
        *e = *r->old[i];
    return r->old[i] != NULL;
}

/* The new index: the search's files and, unless the walk covered the
 * whole workspace, the loaded entries of files outside it; in path
 * order.  *changed when it differs from the loaded one. */
static cs_ientry *merge(const cs_ixrun *r, const cs_walk *walk, const size_t *files, size_t nfiles,
                        size_t *n, int *changed)
{
    cs_ientry *v = calloc(nfiles + r->ix.n + 1, sizeof *v);
    if (!v)
        return NULL;
    size_t k = 0, i = 0;
    *n = 0;
    while (i < nfiles || k < r->ix.n) {
        const char *rel = i < nfiles ? walk->v[files[i]].rel : NULL;
        int c = !rel ? -1 : k < r->ix.n ? strcmp(r->ix.v[k].rel, rel) : 1;
        if (c < 0) { /* an entry of a file this search did not see */
            if (!r->full)
                v[(*n)++] = r->ix.v[k];
            else
                *changed = 1;
            k++;
            continue;
        }
        if (c == 0)
            k++;
        *n += (size_t)new_entry(r, rel, i, &v[*n], changed);
        i++;
    }
    return v;
}

void cs_ixrun_end(cs_ixrun *r, const cs_walk *walk, const size_t *files, size_t nfiles, int ok)
{
    if (r->on && ok) {
        size_t n = 0;
        int changed = 0;
        cs_ientry *v = merge(r, walk, files, nfiles, &n, &changed);
        /* A failure to write leaves the index as it was: only slower. */
        if (v && changed) {
            (void)cs_index_save(r->path, r->root, r->build, v, n);
            cs_index_sweep(r->dir);
        }
        free(v);
    }
    for (size_t i = 0; r->fresh && i < nfiles; i++)
        cs_fresh_free(&r->fresh[i]);
    free(r->fresh);
    free(r->old);
    free(r->path);
    cs_index_free(&r->ix);
    memset(r, 0, sizeof *r);
}
