/* The content index: per file of the workspace, which (ASCII-folded,
 * hashed) trigrams its content holds and the identity of the content
 * that was read, so a search can leave out a file that cannot contain
 * the query without reading it.  The file is trusted only when a fresh
 * lstat gives the same identity; anything else is read as without the
 * index. */
#ifndef CS_INDEX_H
#define CS_INDEX_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* What any change of a file's content alters: ctime cannot be set by a
 * user, and a rename or replacement brings another inode. */
typedef struct cs_ident {
    uint64_t dev, ino, size;
    int64_t msec, mnsec, csec, cnsec;
} cs_ident;

#define CS_IX_BINARY 1u /* NUL in the first 8 KiB: no content results */
/* The entry holds the names the file declares (cs_decls.h): a search
 * that can only still return definitions need not read a file that
 * declares no name equal to the query. */
#define CS_IX_DECLS 2u
#define CS_IX_DLOG_MIN 6u
#define CS_IX_DLOG_MAX 20u
#define CS_IX_LOG_MIN 8u
#define CS_IX_LOG_MAX 17u

typedef struct cs_ientry {
    const char *rel; /* workspace-relative path */
    cs_ident id;
    uint32_t flags;
    uint32_t log2;        /* the bitmap has 1 << log2 bits (no bitmap for binary) */
    const uint64_t *bits; /* hashed trigrams of the content */
    /* With CS_IX_DECLS: hashed declared names, 1 << dlog2 bits, or none
     * (dlog2 0) when the file declares nothing. */
    uint32_t dlog2;
    const uint64_t *dbits;
} cs_ientry;

typedef struct cs_index {
    char *buf; /* the file as read (a mapping); entries point into it */
    size_t buflen;
    cs_ientry *v; /* sorted by rel (strcmp) */
    size_t n;
} cs_index;

/* One file's fresh entry, made while it was read for the search. */
typedef struct cs_fresh {
    int state; /* 0: not read; -1: read, no entry; 1: the old entry holds; 2: built */
    cs_ident id;
    uint32_t flags, log2;
    uint64_t *bits; /* malloc'd (state 2) */
    uint32_t dlog2;
    uint64_t *dbits; /* malloc'd (state 2 with CS_IX_DECLS) */
} cs_fresh;

/* Limits: an index above them is neither written nor read (every file is
 * then searched). */
#define CS_IX_MAX_FILES 2000000u
#define CS_IX_MAX_BYTES (256ull << 20)

/* What one search may spend on making entries: hashing the trigrams of a
 * file costs more than searching it, so a search makes entries for about
 * CS_IX_SHARE of the bytes it covers (read or left out thanks to the
 * index), plus CS_IX_SLACK; the index is complete after a few searches. */
#define CS_IX_SHARE_PCT 10u
#define CS_IX_SLACK (1u << 20)
typedef struct cs_ixbudget {
    atomic_uint_least64_t seen, spent; /* bytes covered; bytes entered */
} cs_ixbudget;
void cs_ixbudget_seen(cs_ixbudget *b, uint64_t len);
/* 1 when an entry for len more bytes fits (then they are counted). */
int cs_ixbudget_spend(cs_ixbudget *b, uint64_t len);

void cs_ident_of(const struct stat *st, cs_ident *id);
int cs_ident_eq(const cs_ident *a, const cs_ident *b);

/* The index file for the workspace `root` in `dir`: a new string. */
char *cs_index_path(const char *dir, const char *root);
/* Load `path`; a missing, truncated, corrupted, foreign or oversized file,
 * or one written by another build (`build`: cs_decls_build(); declared
 * names depend on the rules of the build that found them), gives an
 * empty index (0).  Returns 0 or VT_ERR_NOMEM. */
int cs_index_load(const char *path, const char *root, uint64_t build, cs_index *out);
void cs_index_free(cs_index *ix);
/* Write the n entries (sorted by rel, strictly) to `path` atomically (a
 * temporary file in the same directory, then rename).  Returns 0 or
 * negative; nothing is left behind on failure. */
int cs_index_save(const char *path, const char *root, uint64_t build, const cs_ientry *v, size_t n);

/* Remove the index files of `dir` neither written nor used for 30 days
 * and temporary files older than an hour. */
void cs_index_sweep(const char *dir);
/* Mark the index open at fd (st: its fstat) as used. */
void cs_index_touch(int fd, const struct stat *st);

/* After `len` bytes of the regular file open at `fd` were read whole
 * (`buf`): the entry for them in *f, or none when the file's times are
 * not older than `limit` (seconds since the epoch; a change within the
 * clock's granularity could go unseen) or its size is not len.  `old`
 * (or NULL): the entry the index had, kept when the identity is its.
 * `budget` (or NULL: no limit): the entry is charged `cost` bytes (what
 * making all of it costs, in bytes' worth of trigrams); when it is
 * spent, *f is left as not read (the old entry stays, checked before
 * any use). */
void cs_index_note(cs_fresh *f, const cs_ientry *old, int fd, const char *buf, size_t len,
                   uint64_t cost, int64_t limit, cs_ixbudget *budget);
void cs_fresh_free(cs_fresh *f);

#endif
