/* The deferred-tool catalog as a searchable index: the catalog array the
 * host hands out ([{"name","listed","description","input_schema"}]) plus a BM25
 * index over each entry's name, description, and parameter names and
 * descriptions. */
#ifndef VT_SEARCH_CATALOG_H
#define VT_SEARCH_CATALOG_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include "bm25.h"

typedef struct catalog_index catalog_index;

/* Index `catalog` (a JSON array; the index takes it over and deletes it
 * in catalog_index_free).  Entries without a string "name" are skipped.
 * Entries are numbered in byte order of their names, which is the tie
 * order of results. */
int catalog_index_build(cJSON *catalog, catalog_index **out);
void catalog_index_free(catalog_index *ci);

/* Live entries. */
size_t catalog_index_size(const catalog_index *ci);
/* Entry `doc` (borrowed, valid until the index is freed) and its name. */
const cJSON *catalog_index_entry(const catalog_index *ci, uint32_t doc);
const char *catalog_index_name(const catalog_index *ci, uint32_t doc);
/* Number of entry called `name`, or -1. */
int64_t catalog_index_find(const catalog_index *ci, const char *name);

/* Ranked matches of `query` (see bm25_search). */
int catalog_index_search(const catalog_index *ci, const char *query, size_t limit, bm25_hit *hits,
                         size_t *n, size_t *terms);
/* Drop entry `doc` from the catalog. */
void catalog_index_remove(catalog_index *ci, uint32_t doc);
/* Mark entry `doc` listed ("listed": true; it got expanded). */
void catalog_index_mark_listed(catalog_index *ci, uint32_t doc);

#endif
