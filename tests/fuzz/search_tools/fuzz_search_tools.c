/* Fuzz target for search_tools' text reader: tok_split (words, camelCase
 * humps, joined identifiers, case folding and NFC with utf8proc) and
 * stem_split (the same, stemmed).  Checked besides memory safety: every
 * term is non-empty, NUL-terminated at its length, holds no ASCII
 * separator, and is valid UTF-8; a blank text yields no term.
 * The same input is then a catalog searched with BM25 (catalog.c,
 * bm25.c): its first line the query, every other line a tool
 * "name<TAB>description<TAB>parameter<TAB>its description"; or, when the
 * whole input is a JSON array, that catalog as the host hands it over
 * (input_schema included).  Checked: hits are live documents, best
 * first, with finite positive scores, at most the limit; a removed tool
 * is never found again. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include <cjson/cJSON.h>
#include <math.h>

#include "catalog.h"
#include "opened_lib.h"
#include "lazy_lib.h"
#include "stem.h"
#include "tokenize.h"
#include "../fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int check_term(void *ctx, const char *term, size_t len)
{
    size_t *count = ctx;
    if (len == 0 || term[len] != '\0' || strlen(term) != len)
        abort();
    for (size_t i = 0; i < len; i++)
        if (term[i] == ' ' || term[i] == '\n' || term[i] == '\t')
            abort();
    utf8proc_int32_t cp;
    for (size_t i = 0; i < len;) {
        utf8proc_ssize_t n = utf8proc_iterate((const utf8proc_uint8_t *)term + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (n <= 0)
            abort();
        i += (size_t)n;
    }
    (*count)++;
    return 0;
}

static int stop_at_two(void *ctx, const char *term, size_t len)
{
    (void)term;
    (void)len;
    return ++*(size_t *)ctx >= 2 ? 7 : 0;
}

/* hits[0..n) are valid: live documents, best first, finite scores > 0. */
static void check_hits(const catalog_index *ci, const bm25_hit *hits, size_t n, size_t limit,
                       int64_t removed)
{
    if (n > limit)
        abort();
    for (size_t i = 0; i < n; i++) {
        if (!catalog_index_entry(ci, hits[i].doc) || (int64_t)hits[i].doc == removed)
            abort();
        if (!isfinite(hits[i].score) || !(hits[i].score > 0))
            abort();
        if (i && hits[i].score > hits[i - 1].score)
            abort();
    }
}

static void search_twice(catalog_index *ci, const char *query)
{
    bm25_hit hits[5];
    size_t n = 0, terms = 0;
    if (catalog_index_search(ci, query, 5, hits, &n, &terms) != 0)
        return;
    check_hits(ci, hits, n, 5, -1);
    if (n == 0)
        return;
    uint32_t gone = hits[0].doc;
    /* found by its name (or a tool of the same name: names may repeat here) */
    int64_t found = catalog_index_find(ci, catalog_index_name(ci, gone));
    if (found < 0 || strcmp(catalog_index_name(ci, (uint32_t)found), catalog_index_name(ci, gone)))
        abort();
    catalog_index_mark_listed(ci, gone);
    catalog_index_remove(ci, gone);
    if (catalog_index_search(ci, query, 5, hits, &n, &terms) == 0)
        check_hits(ci, hits, n, 5, gone);
}

/* The input as a catalog of lines (see the top), searched. */
static void fuzz_catalog(const char *text, size_t size)
{
    cJSON *json = cJSON_ParseWithLength(text, size);
    if (cJSON_IsArray(json)) {
        catalog_index *ci = NULL;
        if (catalog_index_build(json, &ci) == 0) {
            search_twice(ci, "run a command read files");
            catalog_index_free(ci);
        }
        return;
    }
    cJSON_Delete(json);
    char *copy = fuzz_cstring((const uint8_t *)text, size);
    if (!copy)
        return;
    char *save = NULL, *query = strtok_r(copy, "\n", &save), *line;
    cJSON *catalog = cJSON_CreateArray();
    while (query && (line = strtok_r(NULL, "\n", &save))) {
        char *f[4] = {line, NULL, NULL, NULL};
        for (int i = 1; i < 4 && f[i - 1]; i++) {
            char *tab = strchr(f[i - 1], '\t');
            if (tab) {
                *tab = '\0';
                f[i] = tab + 1;
            }
        }
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", f[0]);
        if (f[1])
            cJSON_AddStringToObject(t, "description", f[1]);
        if (f[2]) {
            cJSON *props = cJSON_AddObjectToObject(cJSON_AddObjectToObject(t, "input_schema"),
                                                   "properties");
            cJSON *prop = cJSON_AddObjectToObject(props, f[2]);
            if (f[3])
                cJSON_AddStringToObject(prop, "description", f[3]);
        }
        cJSON_AddItemToArray(catalog, t);
    }
    catalog_index *ci = NULL;
    if (query && catalog_index_build(catalog, &ci) == 0) {
        search_twice(ci, query);
        catalog_index_free(ci);
    } else if (!query) {
        cJSON_Delete(catalog);
    }
    free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int opener_set;
    if (!opener_set) { /* libstemmer as the host opens it for the plugin */
        lazy_lib_set_opener(opened_lib_bind);
        opener_set = 1;
    }
    /* Not NUL-terminated: the reader must stay within len. */
    char *text = malloc(size ? size : 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    size_t n1 = 0, n2 = 0, n3 = 0;
    if (tok_split(text, size, check_term, &n1) != 0)
        abort();
    if (stem_split(text, size, check_term, &n2) != 0 || n2 != n1)
        abort();
    if (tok_is_blank(text, size) && n1 != 0)
        abort();
    int rc = tok_split(text, size, stop_at_two, &n3);
    if ((n1 >= 2) != (rc == 7))
        abort();
    fuzz_catalog(text, size);
    free(text);
    return 0;
}
