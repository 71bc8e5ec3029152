/* Strict permission configuration: the permission tables and agent
 * `permissions:` blocks accept only the keys vthost knows, and a mistake
 * is an error that names the file, the line and the closest valid
 * spelling (a silently ignored key could be a dropped deny rule). */
#ifndef VTHOST_PERM_STRICT_H
#define VTHOST_PERM_STRICT_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The candidate closest to `word` (edit distance, case differences cheap),
 * or NULL when none is close.  Borrowed from `cands`. */
const char *perm_closest(const char *word, const char *const *cands, size_t n);

/* Every key of table `t` (at TOML path `dotted`) is one of `keys`
 * (NULL-terminated); else *err = "FILE:LINE: unknown key ...; did you
 * mean ...?" (malloc'd) and VT_ERR_INVALID. */
int perm_strict_keys(const cJSON *t, const char *dotted, const char *const *keys, const char *path,
                     char **err);

/* Top-level keys of a vtcode.toml that are near misses of a permission
 * table name ([permission], [Permissions], [trusts]): an error. */
int perm_strict_top(const cJSON *tree, const char *path, char **err);

/* 1 when `k` is a near miss of `want` (not equal to it). */
int perm_near_miss(const char *k, const char *want);

#endif
