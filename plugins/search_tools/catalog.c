/* Catalog entries -> BM25 documents. */
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "catalog.h"

/* Deeper schema nesting adds nothing a model searches for. */
#define SCHEMA_MAX_DEPTH 6

struct catalog_index {
    cJSON *catalog;
    const cJSON **entries; /* sorted by name; index = document number */
    uint32_t n;
    bm25_index *bm;
};

typedef struct field_list {
    bm25_field *v;
    size_t n, cap;
} field_list;

static int field_add(field_list *fl, const char *text, int is_name)
{
    if (!text || !*text)
        return 0;
    if (VT_GROW(&fl->v, &fl->cap, fl->n + 1) != 0)
        return VT_ERR_NOMEM;
    fl->v[fl->n++] = (bm25_field){text, strlen(text), is_name};
    return 0;
}

/* Parameter names and descriptions of a schema, nested ones included. */
static int schema_fields(field_list *fl, const cJSON *schema, int depth)
{
    if (!cJSON_IsObject(schema) || depth > SCHEMA_MAX_DEPTH)
        return 0;
    int rc;
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *p;
    cJSON_ArrayForEach(p, props)
    {
        /* The host adds max_output_tokens to every tool: it tells tools
         * apart no more than a stop word does. */
        if (!p->string || (depth == 0 && strcmp(p->string, "max_output_tokens") == 0))
            continue;
        const cJSON *d = cJSON_GetObjectItemCaseSensitive(p, "description");
        if ((rc = field_add(fl, p->string, 0)) != 0 ||
            (rc = field_add(fl, cJSON_GetStringValue(d), 0)) != 0 ||
            (rc = schema_fields(fl, p, depth + 1)) != 0)
            return rc;
    }
    return schema_fields(fl, cJSON_GetObjectItemCaseSensitive(schema, "items"), depth + 1);
}

static const char *entry_name(const cJSON *e)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(entry_name(*(const cJSON *const *)a), entry_name(*(const cJSON *const *)b));
}

int catalog_index_build(cJSON *catalog, catalog_index **out)
{
    catalog_index *ci = calloc(1, sizeof *ci);
    if (!ci) {
        cJSON_Delete(catalog);
        return VT_ERR_NOMEM;
    }
    ci->catalog = catalog;
    int count = cJSON_GetArraySize(catalog);
    ci->entries = malloc(((size_t)count + 1) * sizeof *ci->entries);
    int rc = ci->entries ? bm25_new(&ci->bm) : VT_ERR_NOMEM;
    if (rc != 0) {
        catalog_index_free(ci);
        return rc;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, catalog) if (entry_name(e)) ci->entries[ci->n++] = e;
    qsort(ci->entries, ci->n, sizeof *ci->entries, by_name);

    field_list fl = {0};
    for (uint32_t i = 0; i < ci->n && rc == 0; i++) {
        e = ci->entries[i];
        fl.n = 0;
        const cJSON *desc = cJSON_GetObjectItemCaseSensitive(e, "description");
        if ((rc = field_add(&fl, entry_name(e), 1)) == 0 &&
            (rc = field_add(&fl, cJSON_GetStringValue(desc), 0)) == 0 &&
            (rc = schema_fields(&fl, cJSON_GetObjectItemCaseSensitive(e, "input_schema"), 0)) == 0)
            rc = bm25_add(ci->bm, fl.v, fl.n, NULL);
    }
    free(fl.v);
    if (rc != 0) {
        catalog_index_free(ci);
        return rc;
    }
    *out = ci;
    return 0;
}

void catalog_index_free(catalog_index *ci)
{
    if (!ci)
        return;
    bm25_free(ci->bm);
    free(ci->entries);
    cJSON_Delete(ci->catalog);
    free(ci);
}

size_t catalog_index_size(const catalog_index *ci) { return bm25_size(ci->bm); }

const cJSON *catalog_index_entry(const catalog_index *ci, uint32_t doc)
{
    return doc < ci->n ? ci->entries[doc] : NULL;
}

const char *catalog_index_name(const catalog_index *ci, uint32_t doc)
{
    return doc < ci->n ? entry_name(ci->entries[doc]) : NULL;
}

int64_t catalog_index_find(const catalog_index *ci, const char *name)
{
    size_t lo = 0, hi = ci->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(entry_name(ci->entries[mid]), name);
        if (c == 0)
            return (int64_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

int catalog_index_search(const catalog_index *ci, const char *query, size_t limit, bm25_hit *hits,
                         size_t *n, size_t *terms)
{
    return bm25_search(ci->bm, query, strlen(query), limit, hits, n, terms);
}

void catalog_index_remove(catalog_index *ci, uint32_t doc) { bm25_remove(ci->bm, doc); }

void catalog_index_mark_listed(catalog_index *ci, uint32_t doc)
{
    if (doc >= ci->n)
        return;
    /* The entries are the index's own copy of the catalog. */
    cJSON *e = (cJSON *)ci->entries[doc];
    cJSON_DeleteItemFromObjectCaseSensitive(e, "listed");
    cJSON_AddBoolToObject(e, "listed", 1);
}
