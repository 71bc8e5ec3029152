/* One search's use of the content index: load it, let the workers skip
 * the files it vouches for, collect the entries made while reading the
 * others, and write the index back when it changed. */
#ifndef CS_IXRUN_H
#define CS_IXRUN_H

#include "cs.h"
#include "cs_file.h"
#include "cs_index.h"
#include "cs_tri.h"
#include "cs_walk.h"

typedef struct cs_ixrun {
    int on;
    const char *root;      /* the workspace root (borrowed) */
    const char *dir;       /* the index directory (borrowed) */
    char *path;            /* the index file */
    cs_index ix;           /* as loaded */
    const cs_ientry **old; /* per file of the search: its loaded entry or NULL */
    cs_fresh *fresh;       /* per file: what this search learnt */
    cs_trq trq;
    int64_t limit; /* racy limit: times from this second on are too new */
    int full;      /* the walk covered the whole workspace */
    cs_ixbudget budget;
} cs_ixrun;

/* Start (r->on stays 0 without an index directory, above the index's
 * bound or out of memory: the search then reads every file).  files:
 * the walk's file entries in path order.  Returns 0. */
int cs_ixrun_begin(cs_ixrun *r, const cs_options *opt, const cs_query *q, const cs_walk *walk,
                   const size_t *files, size_t nfiles);
/* Before file i (`rel`) is scanned: 1 when the index vouches that it
 * holds no match (then it is not read), else 0 with the worker set to
 * make its entry. */
int cs_ixrun_skip(cs_ixrun *r, cs_worker *w, int rootfd, size_t i, const char *rel);
/* After the search: write the index back if it changed (ok: the search
 * ran to its end or its early stop, not an error), then free. */
void cs_ixrun_end(cs_ixrun *r, const cs_walk *walk, const size_t *files, size_t nfiles, int ok);

#endif
