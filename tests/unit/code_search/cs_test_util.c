#define _GNU_SOURCE
#include "cs_test_util.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *tu_mkdtemp(void)
{
    const char *tmp = getenv("TMPDIR");
    char tmpl[PATH_MAX];
    snprintf(tmpl, sizeof tmpl, "%s/cs_test_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmpl))
        return NULL;
    return realpath(tmpl, NULL);
}

void tu_write(const char *root, const char *rel, const char *data, long n)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", root, rel);
    for (char *p = path + strlen(root) + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            mkdir(path, 0755);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(data, 1, n < 0 ? strlen(data) : (size_t)n, f);
    fclose(f);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(p);
}

void tu_rmrf(const char *root)
{
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static char *run(const char *root, const char *scope, const char *query,
                 unsigned cats, int max, uint64_t mask, int threads, int paths)
{
    char sc[PATH_MAX];
    if (scope && scope[0] != '/')
        snprintf(sc, sizeof sc, "%s/%s", root, scope);
    else
        snprintf(sc, sizeof sc, "%s", scope ? scope : root);
    cs_options o = {.root = root, .scope = sc, .query = query,
                    .categories = cats ? cats : CS_CAT_ALL, .max_results = max,
                    .lang_mask = mask, .threads = threads};
    cs_output out;
    char *err = NULL;
    if (cs_search(&o, &out, &err) < 0) {
        fprintf(stderr, "search failed: %s\n", err ? err : "?");
        free(err);
        return NULL;
    }
    size_t cap = 64 + out.n * 300;
    char *s = calloc(cap, 1);
    size_t o2 = 0;
    for (size_t i = 0; i < out.n; i++) {
        const cs_result *r = &out.v[i];
        const char *sep = i ? " " : "";
        if (r->cat == CS_PATH)
            o2 += (size_t)snprintf(s + o2, cap - o2, "%sP:%s", sep, r->path);
        else if (paths)
            o2 += (size_t)snprintf(s + o2, cap - o2, "%s%c %s:%u:%u", sep, "DUTP"[r->cat],
                                   r->path, r->line, r->col);
        else
            o2 += (size_t)snprintf(s + o2, cap - o2, "%s%c%u:%u", sep, "DUTP"[r->cat],
                                   r->line, r->col);
    }
    if (out.truncated)
        snprintf(s + o2, cap - o2, " +");
    cs_output_free(&out);
    return s;
}

char *tu_search(const char *root, const char *scope, const char *query,
                unsigned cats, int max, uint64_t mask, int threads)
{
    return run(root, scope, query, cats, max, mask, threads, 0);
}

char *tu_search_paths(const char *root, const char *scope, const char *query,
                      unsigned cats, int max, uint64_t mask, int threads)
{
    return run(root, scope, query, cats, max, mask, threads, 1);
}

char *tu_search_indexed(const char *root, const char *ixdir, const char *query,
                        unsigned cats, int max)
{
    cs_options o = {.root = root, .scope = root, .query = query, .categories = cats,
                    .max_results = max, .index_dir = ixdir};
    cs_output out;
    char *err = NULL;
    assert_int_equal(cs_search(&o, &out, &err), 0);
    size_t cap = 64 + out.n * 512, n = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    s[0] = '\0';
    for (size_t i = 0; i < out.n; i++)
        n += (size_t)snprintf(s + n, cap - n, "%d %s %u %u;", out.v[i].cat, out.v[i].path,
                              out.v[i].line, out.v[i].col);
    snprintf(s + n, cap - n, "%s", out.truncated ? "+" : "");
    cs_output_free(&out);
    return s;
}
