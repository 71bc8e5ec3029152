/* Bare repositories the change log shows (ws_bare.h). */
#include "ws_bare.h"

#include <stdlib.h>
#include <string.h>
#include "strutil.h"
#include "ws_gitdir.h"

/* `drel` (a directory relative to `root`, "" the root) or the directory
 * above it, the first git takes for a git directory, to `fn`.  The root
 * itself is judged by the caller. */
static void bare_dir(const char *root, const char *drel, void (*fn)(void *, const char *),
                     void *ctx)
{
    char *dir = str_printf("%s/%s", root, drel);
    size_t rl = strlen(root);
    for (int up = 0; dir && up < 2; up++) {
        if (up) {
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir)
                break;
            *slash = '\0';
        }
        if (strlen(dir) > rl + 1 && ws_gitdir_judge(dir, NULL) == 1) {
            fn(ctx, dir);
            break;
        }
    }
    free(dir);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The directory part of change `it`'s path ("" at the root), malloc'd;
 * NULL for a change inside a repository, or without memory (*nomem set). */
static char *dir_of(const cJSON *it, int *nomem)
{
    const char *rel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
    if (!rel || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "repo")))
        return NULL;
    const char *slash = strrchr(rel, '/');
    char *d = strndup(rel, slash ? (size_t)(slash - rel) : 0);
    *nomem |= !d;
    return d;
}

/* Each change's directory, *n of them, malloc'd; NULL without memory. */
static char **dirs_of(const cJSON *arr, size_t *n)
{
    *n = 0;
    size_t cap = (size_t)cJSON_GetArraySize(arr);
    char **v = calloc(cap ? cap : 1, sizeof *v);
    int nomem = !v;
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        char *d = nomem ? NULL : dir_of(it, &nomem);
        if (d)
            v[(*n)++] = d;
    }
    if (nomem && v) {
        while (*n)
            free(v[--*n]);
        free(v);
        v = NULL;
    }
    return v;
}

void ws_bare_find(const char *root, const cJSON *arr, void (*fn)(void *, const char *), void *ctx)
{
    size_t n = 0;
    char **dirs = dirs_of(arr, &n);
    if (!dirs) {
        /* without memory to sort them: each change's directory in turn */
        const cJSON *it;
        cJSON_ArrayForEach(it, arr)
        {
            int nomem = 0;
            char *d = dir_of(it, &nomem);
            if (d)
                bare_dir(root, d, fn, ctx);
            free(d);
        }
        return;
    }
    qsort(dirs, n, sizeof *dirs, by_name);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(dirs[i], dirs[i - 1]))
            bare_dir(root, dirs[i], fn, ctx);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
}
