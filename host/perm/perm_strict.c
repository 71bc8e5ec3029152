/* Unknown-key and near-miss checks with "did you mean" suggestions. */
#include "edit_distance.h"
#include "perm_strict.h"
#include "strutil.h"
#include "toml_reader.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <vthost/plugin.h>

/* A change of case costs 1 and any other edit 2, so `Deny` is closer to
 * `deny` than `dent` is.  Long words are not compared. */
static size_t distance(const char *a, const char *b)
{
    static const edit_costs costs = {.case_change = 1, .edit = 2, .transpose = 1};
    return edit_distance(a, b, &costs);
}

const char *perm_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = distance(word, cands[i]);
        if (d < bd) {
            bd = d;
            best = cands[i];
        }
    }
    size_t len = strlen(word);
    /* up to two edits, more for long words; any case-only difference */
    size_t limit = len > 12 ? len / 2 : 4;
    if (best && (bd <= limit || strcasecmp(word, best) == 0))
        return best;
    return NULL;
}

int perm_near_miss(const char *k, const char *want)
{
    if (strcmp(k, want) == 0)
        return 0;
    if (strlen(want) <= 6) /* short names: [rust] is not a typo of [trust] */
        return strncasecmp(k, want, strlen(want)) == 0 && strlen(k) <= strlen(want) + 1;
    size_t limit = 4;
    return strcasecmp(k, want) == 0 || distance(k, want) <= limit;
}

static char *where(const char *path, const char *dotted)
{
    int line = 0;
    if (path && toml_key_line(path, dotted, &line) == 0 && line > 0)
        return str_printf("%s:%d", path, line);
    return strdup(path ? path : "vtcode.toml");
}

int perm_strict_keys(const cJSON *t, const char *dotted, const char *const *keys, const char *path,
                     char **err)
{
    const cJSON *it;
    size_t n = 0;
    while (keys[n])
        n++;
    cJSON_ArrayForEach(it, t)
    {
        int ok = 0;
        for (size_t i = 0; i < n && !ok; i++)
            ok = strcmp(it->string, keys[i]) == 0;
        if (ok)
            continue;
        char *full = str_printf("%s.%s", dotted, it->string);
        char *w = where(path, full);
        const char *near = perm_closest(it->string, keys, n);
        char *list = NULL;
        for (size_t i = 0; i < n; i++) {
            char *nl = str_printf("%s%s%s", list ? list : "", list ? ", " : "", keys[i]);
            free(list);
            list = nl;
        }
        if (near)
            *err = str_printf("%s: unknown key '%s' in [%s]; did you mean '%s'?", w, it->string,
                              dotted, near);
        else
            *err = str_printf("%s: unknown key '%s' in [%s] (known keys: %s)", w, it->string,
                              dotted, list ? list : "");
        free(list);
        free(w);
        free(full);
        return VT_ERR_INVALID;
    }
    return 0;
}

int perm_strict_top(const cJSON *tree, const char *path, char **err)
{
    static const char *const tables[] = {"permissions", "trust"};
    const cJSON *it;
    cJSON_ArrayForEach(it, tree)
    {
        for (size_t i = 0; i < 2; i++) {
            if (!perm_near_miss(it->string, tables[i]))
                continue;
            char *w = where(path, it->string);
            *err = str_printf("%s: unknown table [%s]; did you mean [%s]? (vthost reads its "
                              "permission settings only from [%s])",
                              w, it->string, tables[i], tables[i]);
            free(w);
            return VT_ERR_INVALID;
        }
    }
    return 0;
}
