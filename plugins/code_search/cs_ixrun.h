/* One search's use of the content index: load it, let the workers skip
 * the files it vouches for, collect the entries made while reading the
 * others, and write the index back when it changed. */
#ifndef CS_IXRUN_H
#define CS_IXRUN_H

#include "cs.h"
#include "cs_decls.h"
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
    cs_dq dq;
    uint64_t build; /* cs_decls_build() */
    int64_t limit;  /* racy limit: times from this second on are too new */
    int full;       /* the walk covered the whole workspace */
    cs_ixbudget budget;
} cs_ixrun;

/* Start (r->on stays 0 without an index directory, above the index's
 * bound or out of memory: the search then reads every file).  files:
 * the walk's file entries in path order.  Returns 0. */
int cs_ixrun_begin(cs_ixrun *r, const cs_options *opt, const cs_query *q, const cs_walk *walk,
                   const size_t *files, size_t nfiles);
/* Before file i (`rel`) is scanned: 1 when the index vouches that it
 * holds no match (then it is not read), else 0 with the worker set to
 * make its entry.  defs_only: the caller knows that no hit of the file
 * but a definition could change the answer (no other category can still
 * be returned, and a hit it would only notice changes nothing); then a
 * file vouched to declare no name equal to the query is not read either. */
int cs_ixrun_skip(cs_ixrun *r, cs_worker *w, int rootfd, size_t i, const char *rel, int defs_only);
/* After the search: write the index back if it changed (ok: the search
 * ran to its end or its early stop, not an error), then free. */
void cs_ixrun_end(cs_ixrun *r, const cs_walk *walk, const size_t *files, size_t nfiles, int ok);

#endif
