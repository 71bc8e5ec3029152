/* search_tools benchmark over the synthetic catalog plugins in a
 * directory (10,000 tools in the build's bench plugins).  Two figures:
 *   core: the ranking engine alone (index build once, then queries), and
 *         queries followed by the in-place expansion the plugin performs;
 *   host: full `search_tools` calls through the host pipeline (schema
 *         check, preflight, run, expansion, output budget), in-process.
 * Prints the median per query against the 1 ms target.
 *   usage: bench_search [--host] PLUGIN_DIR [ROUNDS] */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "catalog.h"
#include "opened_lib.h"
#include "lazy_lib.h"
#include "stem.h"
#ifdef BENCH_HOST
#include "host.h"
#include "test_host.h"
#include "pipeline.h"
#endif

static const char *const queries[] = {
    "GitHub pull request review", "create a jira issue", "postgres table index",
    "export invoices from stripe", "slack channel message", "sentry alert",
    "archive project", "merge pull_request", "redis row count", "webhook",
    "sync users with team", "s3 bucket object delete", "label issue",
    "dashboard datadog", "restore deleted branch", "summarize release notes",
    "dry run", "cursor pagination", "lock mongodb table", "approve invoice"};
#define NQ (sizeof queries / sizeof queries[0])

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *what, double *t, size_t n)
{
    qsort(t, n, sizeof *t, cmp_double);
    double med = t[n / 2], p90 = t[n * 9 / 10];
    printf("%-34s n=%zu median %.1f us  p90 %.1f us  max %.1f us  "
           "(target 1000 us: ratio %.3f)\n", what, n, med, p90, t[n - 1], med / 1000.0);
}

/* Every tool of one module, as the host's catalog_list would give it. */
static void add_module(cJSON *arr, const char *so, size_t *count)
{
    void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "bench_search: %s\n", dlerror());
        exit(1);
    }
    vt_plugin_entry_fn entry = (vt_plugin_entry_fn)dlsym(h, VT_PLUGIN_ENTRY_SYMBOL);
    const vt_plugin *p = entry ? entry() : NULL;
    if (!p) {
        fprintf(stderr, "bench_search: %s has no %s\n", so, VT_PLUGIN_ENTRY_SYMBOL);
        exit(1);
    }
    for (const vt_tool *t = p->tools; t->name; t++, (*count)++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", t->name);
        cJSON_AddStringToObject(e, "description", t->description);
        cJSON_AddItemToObject(e, "input_schema", cJSON_Parse(t->input_schema));
        cJSON_AddItemToArray(arr, e);
    }
    /* The module stays loaded: nothing of it is borrowed, but unloading
     * is not what is measured. */
}

static cJSON *load_catalog(const char *dir, size_t *count)
{
    cJSON *arr = cJSON_CreateArray();
    *count = 0;
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        exit(1);
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 3, ".so") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        add_module(arr, path, count);
    }
    closedir(d);
    if (*count == 0) {
        fprintf(stderr, "bench_search: no tools in %s\n", dir);
        exit(1);
    }
    return arr;
}

static void bench_core(const char *dir, size_t rounds)
{
    size_t ntools;
    cJSON *cat = load_catalog(dir, &ntools);
    double t0 = now_us();
    catalog_index *ci;
    if (catalog_index_build(cat, &ci) != 0) {
        fprintf(stderr, "bench_search: index build failed\n");
        exit(1);
    }
    printf("catalog: %zu tools; index build %.1f ms (once per catalog epoch "
           "change not made by search_tools)\n", ntools, (now_us() - t0) / 1000.0);

    size_t n = rounds * NQ;
    double *t = malloc(n * sizeof *t);
    bm25_hit hits[25];
    size_t nh;
    for (size_t i = 0; i < n; i++) {
        double s = now_us();
        catalog_index_search(ci, queries[i % NQ], 5, hits, &nh, NULL);
        t[i] = now_us() - s;
    }
    report("core: query, limit 5", t, n);
    for (size_t i = 0; i < n; i++) {
        double s = now_us();
        catalog_index_search(ci, queries[i % NQ], 25, hits, &nh, NULL);
        t[i] = now_us() - s;
    }
    report("core: query, limit 25", t, n);
    /* As the plugin runs: every query expands its hits, which leave the
     * catalog; the index is updated in place. */
    size_t m = n < 1000 ? n : 1000;
    for (size_t i = 0; i < m; i++) {
        double s = now_us();
        catalog_index_search(ci, queries[i % NQ], 5, hits, &nh, NULL);
        for (size_t k = 0; k < nh; k++)
            catalog_index_remove(ci, hits[k].doc);
        t[i] = now_us() - s;
    }
    report("core: query + expand, limit 5", t, m);
    free(t);
    catalog_index_free(ci);
}

#ifdef BENCH_HOST
static void bench_host(const char *dir, size_t rounds)
{
    char ws[256] = "/tmp/vthost-bench-XXXXXX";
    if (test_host_open(ws, sizeof ws, NULL, dir, 0) != 0)
        exit(1);
    cJSON *cat = host_api()->catalog_list();
    printf("host catalog: %d deferred tools\n", cJSON_GetArraySize(cat));
    if (cJSON_GetArraySize(cat) < 10) {
        fprintf(stderr, "bench_search: the host loaded no catalog from %s "
                        "(see `vthost --plugin-dir %s plugins`)\n", dir, dir);
        exit(1);
    }
    cJSON_Delete(cat);
    size_t n = rounds * NQ;
    if (n > 1000)
        n = 1000;
    double *t = malloc(n * sizeof *t);
    for (size_t i = 0; i < n; i++) {
        cJSON *args = cJSON_CreateObject();
        cJSON_AddStringToObject(args, "query", queries[i % NQ]);
        call_request req = {.tool = "search_tools", .args = args};
        call_result r = {0};
        double s = now_us();
        int rc = pipeline_call(&req, &r);
        t[i] = now_us() - s;
        if (rc != 0 || r.status != CALL_OK ||
            cJSON_GetObjectItem(r.response, "count")->valueint < 1) {
            fprintf(stderr, "bench_search: call failed: %s\n", r.message ? r.message : "?");
            exit(1);
        }
        call_result_free(&r);
        cJSON_Delete(args);
    }
    printf("first host call (builds the index): %.1f ms\n", t[0] / 1000.0);
    report("host: search_tools call, limit 5", t + 1, n - 1);
    free(t);
    test_host_close(ws);
}
#endif

int main(int argc, char **argv)
{
    lazy_lib_set_opener(opened_lib_bind); /* what the host gives the plugin */
    int host = argc > 1 && strcmp(argv[1], "--host") == 0;
    if (argc < 2 + host) {
        fprintf(stderr, "usage: bench_search [--host] PLUGIN_DIR [ROUNDS]\n");
        return 2;
    }
    const char *dir = argv[1 + host];
    size_t rounds = argc > 2 + host ? strtoul(argv[2 + host], NULL, 10) : 100;
    if (rounds == 0)
        rounds = 1;
    if (host) {
#ifdef BENCH_HOST
        bench_host(dir, rounds);
        return 0;
#else
        fprintf(stderr, "bench_search: built without the host\n");
        return 2;
#endif
    }
    bench_core(dir, rounds);
    return 0;
}
