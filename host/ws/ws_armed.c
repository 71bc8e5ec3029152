/* Stamps of what git runs programs from (ws_armed.h). */
#include "ws_armed.h"

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "gitneutral.h"
#include "strutil.h"
#include "ws_stamp.h"

/* Hooks beyond this many in one directory are covered by the directory's
 * own stamp only (a new or removed hook), not each one's. */
#define HOOKS_MAX 64

typedef struct armed_entry {
    char *path;    /* absolute */
    size_t gitdir; /* index into dirs */
    ws_stamp was;
    int config;      /* a config file: judged by what it runs, not its bytes */
    int digest_rc;   /* gitneutral_run_digest's result then */
    uint64_t digest; /* and its digest */
} armed_entry;

struct ws_armed {
    char **dirs;
    size_t ndirs, capdirs;
    armed_entry *v;
    size_t n, cap;
};

static int entry_add(ws_armed *a, size_t gitdir, char *path, int config)
{
    if (!path || VT_GROW(&a->v, &a->cap, a->n + 1) != 0) {
        free(path);
        return VT_ERR_NOMEM;
    }
    armed_entry *e = &a->v[a->n++];
    e->path = path;
    e->gitdir = gitdir;
    ws_stamp_take(path, &e->was);
    e->config = config;
    if (config)
        e->digest_rc = gitneutral_run_digest(path, &e->digest);
    return VT_OK;
}

/* The hooks git would run: every entry of hooks/ but the samples. */
static int hooks_add(ws_armed *a, size_t gitdir)
{
    char *hooks = str_printf("%s/hooks", a->dirs[gitdir]);
    DIR *d = hooks ? opendir(hooks) : NULL;
    int rc = hooks ? VT_OK : VT_ERR_NOMEM, n = 0;
    struct dirent *de;
    while (d && rc == VT_OK && n < HOOKS_MAX && (de = readdir(d))) {
        size_t len = strlen(de->d_name);
        if (de->d_name[0] == '.' || (len > 7 && !strcmp(de->d_name + len - 7, ".sample")))
            continue;
        rc = entry_add(a, gitdir, str_printf("%s/%s", hooks, de->d_name), 0);
        n++;
    }
    if (d)
        closedir(d);
    free(hooks);
    return rc;
}

static int gitdir_add(ws_armed *a, const char *gitdir)
{
    static const char *const names[] = {"config", "config.worktree", "commondir", "hooks", NULL};
    if (VT_GROW(&a->dirs, &a->capdirs, a->ndirs + 1) != 0 || !(a->dirs[a->ndirs] = strdup(gitdir)))
        return VT_ERR_NOMEM;
    size_t k = a->ndirs++;
    int rc = VT_OK;
    for (size_t i = 0; names[i] && rc == VT_OK; i++)
        rc = entry_add(a, k, str_printf("%s/%s", gitdir, names[i]), i < 2);
    return rc == VT_OK ? hooks_add(a, k) : rc;
}

static void armed_free(ws_armed *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i].path);
    for (size_t i = 0; i < a->ndirs; i++)
        free(a->dirs[i]);
    free(a->v);
    free(a->dirs);
    free(a);
}

int ws_armed_begin(const cJSON *repos, ws_armed **out)
{
    *out = NULL;
    ws_armed *a = calloc(1, sizeof *a);
    if (!a)
        return VT_ERR_NOMEM;
    int rc = VT_OK;
    const cJSON *it;
    cJSON_ArrayForEach(it, repos)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (p && k && !strcmp(k, "dir") && (rc = gitdir_add(a, p)) != VT_OK)
            break;
    }
    if (rc != VT_OK || !a->ndirs) {
        armed_free(a);
        return rc;
    }
    *out = a;
    return VT_OK;
}

/* A config file rewritten with the same keys that name programs (a
 * branch's upstream set, a remote added) is not armed; one that cannot
 * be read as before is. */
static int changed(const armed_entry *e)
{
    ws_stamp now;
    ws_stamp_take(e->path, &now);
    if (ws_stamp_same(&e->was, &now))
        return 0;
    if (!e->config)
        return 1;
    uint64_t d = 0;
    int rc = gitneutral_run_digest(e->path, &d);
    return rc != VT_OK || e->digest_rc != VT_OK || d != e->digest;
}

void ws_armed_end(ws_armed *a, void (*fn)(void *ctx, const char *gitdir), void *ctx)
{
    if (!a)
        return;
    size_t last = (size_t)-1;
    for (size_t i = 0; i < a->n; i++) {
        armed_entry *e = &a->v[i];
        if (e->gitdir == last)
            continue;
        if (fn && changed(e)) {
            last = e->gitdir;
            fn(ctx, a->dirs[e->gitdir]);
        }
    }
    armed_free(a);
}
