/* The workspace index: the queries over its tree and change log
 * (ws_index_tree.c), and the life of an index (open, refresh, close). */
#include "monotime.h"
#include "ws_gitdir.h"
#include "ws_index_int.h"
#include "ws_keeper_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "log.h"

static ws_index *current;

void ws_index_set_current(ws_index *ix) { current = ix; }
ws_index *ws_index_current(void) { return current; }

/* ---- life ---------------------------------------------------------------- */

#define WHY_KEEPER                                                                                 \
    "the workspace keeper could not vouch for the changes since the last check; walked the "       \
    "whole workspace"

static double now_ms(void) { return (double)mono_now_us() / 1e3; }

static void full_build(ws_index *ix)
{
    double t0 = now_ms();
    ix->lost = 0;
    wsx_reset_tree(ix);
    wsx_build(ix);
    ix->build_ms = now_ms() - t0;
    ix->built = 1;
    ix->builds++;
    ix->dirty = 1;
    host_log(VT_LOG_DEBUG, NULL,
             "workspace index of %s: %u directories, %zu watches, %zu KiB, built in %.1f ms",
             ix->root, ix->live_dirs, ix->watches,
             ((size_t)ix->cap * sizeof *ix->d + ix->ncap + ix->wd_cap * sizeof *ix->wd_map) / 1024,
             ix->build_ms);
}

static void (*_Atomic on_change)(void);

void ws_index_on_change(void (*fn)(void)) { on_change = fn; }

static void *drain_thread(void *arg)
{
    ws_index *ix = arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = ix->ifd, .events = POLLIN},
                              {.fd = ix->stop_pipe[0], .events = POLLIN}};
        int r = poll(p, 2, -1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 || p[1].revents)
            break;
        pthread_mutex_lock(&ix->mu);
        uint64_t before = ix->seq;
        wsx_drain(ix);
        int gone = ix->ifd < 0, changed = ix->seq != before;
        pthread_mutex_unlock(&ix->mu);
        /* told without the lock: the listener may query the index */
        if (changed && on_change)
            on_change();
        if (gone) /* degraded: refreshes walk, nothing left to drain */
            break;
    }
    return NULL;
}

/* Live: the first refresh builds and starts draining (not at open: a
 * serve may still move to the client's root, and a refused workspace
 * such as the home directory must never be walked). */
static void start_live(ws_index *ix)
{
    if (wsx_watch_init(ix) == 0)
        ix->watching = 1;
    full_build(ix);
    if (ix->watching && !ix->degraded && pipe2(ix->stop_pipe, O_CLOEXEC) == 0 &&
        pthread_create(&ix->thread, NULL, drain_thread, ix) == 0)
        ix->thread_on = 1;
}

static size_t env_size(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? (size_t)strtoull(v, NULL, 10) : 0;
}

int ws_index_open(const char *root, int mode, ws_index **out)
{
    *out = NULL;
    ws_index *ix = calloc(1, sizeof *ix);
    if (!ix || !(ix->root = strdup(root))) {
        free(ix);
        return VT_ERR_NOMEM;
    }
    static _Atomic uint64_t opened;
    ix->id = ++opened;
    ix->rootlen = strlen(root);
    while (ix->rootlen > 1 && ix->root[ix->rootlen - 1] == '/')
        ix->root[--ix->rootlen] = '\0';
    ix->mode = mode;
    ix->ifd = -1;
    ix->free_head = WSX_NONE;
    ix->stop_pipe[0] = ix->stop_pipe[1] = -1;
    /* Test knobs emulating a small fs.inotify.max_user_watches and
     * max_queued_events, so the fallbacks can be forced. */
    ix->max_watches = env_size("VTHOST_TEST_WSINDEX_MAX_WATCHES");
    ix->max_queued = env_size("VTHOST_TEST_WSINDEX_MAX_QUEUED");
    pthread_mutex_init(&ix->mu, NULL);
    *out = ix;
    return VT_OK;
}

void ws_index_close(ws_index *ix)
{
    if (!ix)
        return;
    if (current == ix)
        current = NULL;
    if (ix->thread_on) {
        if (write(ix->stop_pipe[1], "x", 1) < 0) { /* the thread sees the pipe close too */
        }
        pthread_join(ix->thread, NULL);
    }
    if (ix->stop_pipe[0] >= 0) {
        close(ix->stop_pipe[0]);
        close(ix->stop_pipe[1]);
    }
    if (ix->built && !ix->degraded) {
        if (ix->watching)
            wsx_drain(ix);
        if (ix->dirty)
            wsx_cache_save(ix);
    }
    wsx_watch_close(ix);
    wsx_keeper_hangup(ix);
    for (size_t i = 0; ix->log && i < ix->log_cap; i++)
        free(ix->log[i].path);
    free(ix->log);
    free(ix->d);
    free(ix->names);
    free(ix->wd_map);
    free(ix->evbuf);
    free(ix->root);
    pthread_mutex_destroy(&ix->mu);
    free(ix);
}

int ws_index_refresh(ws_index *ix, int watch, const char **fell_back)
{
    if (fell_back)
        *fell_back = NULL;
    if (!ix)
        return VT_ERR_INVALID;
    pthread_mutex_lock(&ix->mu);
    const char *why = NULL;
    if (ix->mode == WS_INDEX_LIVE && !ix->built) {
        start_live(ix);
        if (ix->degraded)
            why = ix->degraded_why;
    } else if (ix->mode == WS_INDEX_ONE_SHOT && !ix->built && wsx_keeper_sync(ix) == 0) {
        /* the workspace's keeper vouched for its file: nothing to check */
        ix->built = ix->loaded = 1;
        host_log(VT_LOG_DEBUG, NULL,
                 "workspace index of %s: %u directories vouched for by the workspace keeper",
                 ix->root, ix->live_dirs);
    } else if (ix->mode == WS_INDEX_ONE_SHOT && ix->remote) {
        if (wsx_keeper_sync(ix) != 0) {
            /* its word is gone: every mark so far sees a gap, and the
             * tree (perhaps half read) is walked again, watched */
            ix->remote = 0;
            why = WHY_KEEPER;
            wsx_mark_lost(ix);
            if (!ix->degraded && wsx_watch_init(ix) == 0)
                ix->watching = 1;
            full_build(ix);
        }
    } else if (ix->mode == WS_INDEX_ONE_SHOT && !ix->built) {
        /* Watched from the first use on, whatever it is for: a later
         * refresh in this process (the end of the call) is then a drain;
         * a watch costs less than a second stat of every directory. */
        (void)watch;
        if (!ix->degraded && wsx_watch_init(ix) == 0)
            ix->watching = 1;
        double t0 = now_ms();
        if (wsx_cache_load(ix, ix->watching) != 0)
            full_build(ix);
        else
            host_log(VT_LOG_DEBUG, NULL,
                     "workspace index of %s: %u directories from the cache, validated in "
                     "%.1f ms",
                     ix->root, ix->live_dirs, now_ms() - t0);
        ix->built = ix->loaded = 1;
        if (ix->degraded)
            why = ix->degraded_why;
        else
            wsx_keeper_start(ix); /* the next call need not do this */
    } else if (ix->mode == WS_INDEX_ONE_SHOT && !ix->watching && !ix->degraded) {
        /* loaded without watches: checked again by mtimes (watched from
         * now on when asked) */
        if (watch && wsx_watch_init(ix) == 0)
            ix->watching = 1;
        if (wsx_validate(ix, ix->watching) != 0)
            full_build(ix);
    } else {
        if (ix->watching)
            wsx_drain(ix);
        if (ix->degraded || ix->lost || !ix->built || !ix->watching) {
            why = ix->degraded ? ix->degraded_why : ix->lost ? ix->lost_why : NULL;
            full_build(ix);
            if (!why && ix->degraded)
                why = ix->degraded_why;
        }
    }
    if (why) {
        wsx_note_fallback(ix, why);
        if (fell_back)
            *fell_back = why;
    }
    pthread_mutex_unlock(&ix->mu);
    return VT_OK;
}

int ws_index_event_driven(ws_index *ix)
{
    if (!ix)
        return 0;
    pthread_mutex_lock(&ix->mu);
    int r = (ix->watching || ix->remote) && ix->built && !ix->degraded && !ix->lost;
    pthread_mutex_unlock(&ix->mu);
    return r;
}

ws_index_epoch ws_index_epoch_now(ws_index *ix, const char *root)
{
    ws_index_epoch e = {0, 0, 0, 0};
    if (!ix || !root || strcmp(root, ix->root))
        return e;
    pthread_mutex_lock(&ix->mu);
    /* what the kernel queued up to now is applied first: a change made
     * before this call then always moves the epoch */
    if (ix->watching && ix->built && !ix->degraded)
        wsx_drain(ix);
    e.exact = ix->watching && ix->built && !ix->degraded && !ix->lost;
    e.seq = ix->seq;
    e.builds = ix->builds;
    e.id = ix->id;
    pthread_mutex_unlock(&ix->mu);
    return e;
}

int ws_index_watched(ws_index *ix, const char *name)
{
    if (!ix || !name || strchr(name, '/'))
        return 0;
    pthread_mutex_lock(&ix->mu);
    uint32_t slot = !ix->built || !ix->n ? WSX_NONE : !*name ? 0 : wsx_find_child(ix, 0, name);
    int w = slot != WSX_NONE && ix->d[slot].wd >= 0;
    pthread_mutex_unlock(&ix->mu);
    return w;
}

int ws_index_epoch_same(ws_index_epoch a, ws_index_epoch b)
{
    return a.exact && b.exact && a.id == b.id && a.seq == b.seq && a.builds == b.builds;
}

ws_mark ws_index_mark(ws_index *ix)
{
    ws_mark m = {0, 0};
    if (!ix)
        return m;
    pthread_mutex_lock(&ix->mu);
    m.seq = ix->seq;
    m.project = ix->project;
    pthread_mutex_unlock(&ix->mu);
    return m;
}

/* Whether path `p` was already counted among the changes after `c`. */
static int seen_later(ws_index *ix, uint64_t from, uint64_t upto, const char *p)
{
    for (uint64_t s = from; s <= upto; s++)
        if (wsx_log_at(ix, s)->path && !strcmp(wsx_log_at(ix, s)->path, p))
            return 1;
    return 0;
}

size_t ws_index_changes(ws_index *ix, ws_mark m, int project_only, char **names, size_t max_names,
                        int *complete)
{
    *complete = 1;
    if (!ix)
        return 0;
    pthread_mutex_lock(&ix->mu);
    uint64_t first = m.seq + 1;
    if (ix->dropped_seq >= first) {
        *complete = 0;
        first = ix->dropped_seq + 1;
    }
    size_t n = 0;
    /* distinct paths, newest occurrence wins; O(k^2) for small k, a
     * cheap count for big ones */
    uint64_t k = ix->seq >= first ? ix->seq - first + 1 : 0;
    for (uint64_t s = first; s <= ix->seq; s++) {
        const wsx_change *c = wsx_log_at(ix, s);
        if (!c->path || (project_only && c->noise))
            continue;
        if (k <= 4096 && seen_later(ix, s + 1, ix->seq, c->path))
            continue;
        if (n < max_names && names)
            names[n] = strdup(c->path);
        n++;
    }
    if (!*complete && project_only) {
        size_t lower = (size_t)(ix->project - m.project);
        if (lower > n)
            n = lower;
    }
    pthread_mutex_unlock(&ix->mu);
    return n;
}

static const char *const kind_names[] = {"create", "write", "delete", "rename", "attrib"};

cJSON *ws_index_changes_json(ws_index *ix, uint64_t since, int *complete)
{
    *complete = 1;
    cJSON *arr = cJSON_CreateArray();
    if (!ix || !arr)
        return arr;
    pthread_mutex_lock(&ix->mu);
    uint64_t first = since + 1;
    if (ix->dropped_seq >= first) {
        *complete = 0;
        first = ix->dropped_seq + 1;
    }
    if ((!ix->watching && !ix->remote) || ix->degraded || ix->lost)
        *complete = 0;
    uint64_t k = ix->seq >= first ? ix->seq - first + 1 : 0;
    for (uint64_t s = first; s <= ix->seq; s++) {
        const wsx_change *c = wsx_log_at(ix, s);
        if (!c->path)
            continue;
        if (k <= 4096 && seen_later(ix, s + 1, ix->seq, c->path))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "path", c->path);
        cJSON_AddStringToObject(o, "kind", kind_names[c->kind]);
        cJSON_AddBoolToObject(o, "dir", c->dir);
        cJSON_AddBoolToObject(o, "repo", c->repo);
        cJSON_AddBoolToObject(o, "policy", c->policy);
        cJSON_AddItemToArray(arr, o);
    }
    pthread_mutex_unlock(&ix->mu);
    return arr;
}

static void add_entry(cJSON *arr, const char *root, const char *rel, const char *leaf,
                      const char *kind)
{
    char *p = NULL;
    if (asprintf(&p, "%s%s%s%s%s", root, rel[0] ? "/" : "", rel, leaf ? "/" : "",
                 leaf ? leaf : "") < 0)
        return;
    if (!strcmp(root, "/") && p[1] == '/')
        memmove(p, p + 1, strlen(p));
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", p);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddItemToArray(arr, o);
    free(p);
}

static void add_bare(cJSON *arr, const char *root, const char *rel)
{
    char *p = NULL;
    if (asprintf(&p, "%s%s%s", strcmp(root, "/") ? root : "", "/", rel) < 0)
        return;
    if (ws_gitdir_judge(p, NULL) == 1)
        add_entry(arr, root, rel, NULL, "dir");
    free(p);
}

static cJSON *list_flags(ws_index *ix, uint8_t mask, int *complete)
{
    cJSON *arr = cJSON_CreateArray();
    if (!ix || !arr)
        return arr;
    uint8_t want = mask | ((mask & WSX_GITDIR) ? WSX_HEAD : 0);
    pthread_mutex_lock(&ix->mu);
    if (complete)
        *complete = !ix->cut;
    char rel[4096];
    for (uint32_t s = 0; s < ix->n; s++) {
        uint8_t f = ix->d[s].flags;
        if ((f & WSX_FREE) || !(f & want))
            continue;
        if (s && !wsx_path(ix, s, rel, sizeof rel))
            continue;
        if (s == 0)
            rel[0] = '\0';
        if (f & mask & WSX_GITDIR)
            add_entry(arr, ix->root, rel, ".git", "dir");
        if (f & mask & WSX_GITFILE)
            add_entry(arr, ix->root, rel, ".git", "gitfile");
        if (f & mask & WSX_GITLINK)
            add_entry(arr, ix->root, rel, ".git", "link");
        if (f & mask & WSX_TOML)
            add_entry(arr, ix->root, rel, "vtcode.toml", "toml");
        if (f & mask & WSX_VTCODE)
            add_entry(arr, ix->root, rel, ".vtcode", "dir");
        /* a bare repository (not the workspace itself): git takes it for
         * a git directory from every directory below it without a .git */
        if ((mask & WSX_GITDIR) && (f & WSX_HEAD) && s)
            add_bare(arr, ix->root, rel);
    }
    pthread_mutex_unlock(&ix->mu);
    return arr;
}

cJSON *ws_index_repositories(ws_index *ix, int *complete)
{
    return list_flags(ix, WSX_GITDIR | WSX_GITFILE | WSX_GITLINK, complete);
}

cJSON *ws_index_policy_files(ws_index *ix) { return list_flags(ix, WSX_TOML | WSX_VTCODE, NULL); }

void ws_index_get_stats(ws_index *ix, ws_index_stats *out)
{
    memset(out, 0, sizeof *out);
    if (!ix)
        return;
    pthread_mutex_lock(&ix->mu);
    out->dirs = ix->live_dirs;
    out->bytes = sizeof *ix + (size_t)ix->cap * sizeof *ix->d + ix->ncap +
                 ix->wd_cap * sizeof *ix->wd_map + ix->log_cap * sizeof *ix->log;
    out->watches = ix->watches;
    out->build_ms = ix->build_ms;
    out->live = ix->mode == WS_INDEX_LIVE;
    out->degraded = ix->degraded;
    pthread_mutex_unlock(&ix->mu);
}
