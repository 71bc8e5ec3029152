/* One file: read, prefilter, classify every match. */
#ifndef CS_FILE_H
#define CS_FILE_H

#include "cs_index.h"
#include "cs_lex.h"
#include "cs_query.h"

typedef struct cs_hit {
    unsigned char cat; /* enum cs_cat */
    uint32_t line, col;
    char *snippet; /* malloc'd */
    char *name;    /* malloc'd; definitions and usages */
} cs_hit;

typedef struct cs_file_hits {
    cs_hit *v;
    size_t n;
    unsigned counts[3]; /* kept hits per content category */
    int dropped;        /* a hit of a requested category was not kept */
} cs_file_hits;

/* Per-thread scratch space, reused from file to file. */
typedef struct cs_worker {
    cs_matcher m;
    cs_span *sp;
    size_t nsp, capsp;
    cs_toks toks;
    char *buf;
    size_t bufcap;
    /* The directory of the last file opened (files come in path order, so
     * most files are opened relative to it, without a path walk). */
    int dirfd;
    char *dir; /* its workspace-relative path */
    size_t dirlen, dircap;
    /* With a content index: where the entry of the file being scanned
     * goes (NULL: none is made), the index's old entry for it, and the
     * racy limit (cs_index_note). */
    cs_fresh *fresh;
    const cs_ientry *old;
    int64_t limit;
    cs_ixbudget *budget;
} cs_worker;

int cs_worker_init(cs_worker *w, const cs_query *q);
/* The workspace-relative file `rel` of the workspace root open at
 * `rootfd`: scanned as cs_file_scan does, its directory opened once for
 * all its files. */
int cs_worker_scan(cs_worker *w, int rootfd, const char *rel, int lexer, unsigned cats,
                   unsigned live, size_t cap, cs_file_hits *out);
void cs_worker_free(cs_worker *w);
/* Is the file `rel` below `rootfd` still the content of `old` (a fresh
 * lstat of it, relative to its directory, gives old's identity)? */
int cs_worker_unchanged(cs_worker *w, int rootfd, const char *rel, const cs_ientry *old);

/* Scan the file `name` of the directory open at `dirfd` (or AT_FDCWD) for hits of the categories `cats` (bits of enum
 * cs_cat).  Hits of `live` categories are kept, at most `cap` per category,
 * first ones first; a hit of any other requested category only sets
 * out->dropped.  Unreadable and binary files give no hits.  Returns 0 or
 * VT_ERR_NOMEM. */
int cs_file_scan(cs_worker *w, int dirfd, const char *name, int lexer, unsigned cats, unsigned live,
                 size_t cap, cs_file_hits *out);
/* The same for an in-memory buffer (what cs_file_scan does after reading). */
int cs_buf_scan(cs_worker *w, const char *buf, size_t len, int lexer, unsigned cats, unsigned live,
                size_t cap, cs_file_hits *out);
void cs_file_hits_free(cs_file_hits *h);

#endif
