/* Helpers for code_search unit tests: scratch trees and compact results. */
#ifndef CS_TEST_UTIL_H
#define CS_TEST_UTIL_H

#include "cs.h"

/* A fresh directory under $TMPDIR (malloc'd, canonical path). */
char *tu_mkdtemp(void);
/* Write root/rel (creating parent directories) with n bytes of data
 * (n < 0: strlen). */
void tu_write(const char *root, const char *rel, const char *data, long n);
void tu_rmrf(const char *root);
/* Run a search; cats is a bit set of enum cs_cat (0: all).  Returns the
 * compact form "D4:12 U10:26 T1:20 P:path" (malloc'd), with " +" appended
 * when truncated, or NULL when the search failed. */
char *tu_search(const char *root, const char *scope, const char *query,
                unsigned cats, int max, uint64_t lang_mask, int threads);
/* Like tu_search, but prefixes every location with its path: "D a.c:1:2". */
char *tu_search_paths(const char *root, const char *scope, const char *query,
                      unsigned cats, int max, uint64_t lang_mask, int threads);
/* A search through the content index in `ixdir` (NULL: none), in the
 * form "cat path line col;" per result and "+" when truncated, so that
 * searches with and without the index compare as strings (malloc'd). */
char *tu_search_indexed(const char *root, const char *ixdir, const char *query,
                        unsigned cats, int max);

#endif
