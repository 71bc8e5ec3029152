/* What a call changed, found from the workspace (ws_changes.h). */
#include "ws_changes.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"
#include "strutil.h"
#include "subjects.h"
#include "ws_armed.h"
#include "ws_conftab.h"
#include "ws_gitconf.h"
#include "ws_gitdir.h"
#include "ws_index.h"
#include "ws_stamp.h"
#include "ws_tabview.h"

typedef struct stamp {
    ws_stamp s;
    int exempt;
} stamp;

struct ws_changes {
    const char *root;
    int what;
    stamp *rows;        /* one per ws_conftab row */
    ws_stamp *now;      /* as many: the rows as they are now (table_now) */
    uint64_t mark;      /* the index's change sequence before the call */
    int marked;         /* the index was there to mark */
    cJSON *repos;       /* the repositories the index knew before the call */
    char **exempt;      /* the call's path subjects resolved at its start */
    ws_armed *armed;    /* WS_CH_ARMED's stamps */
    const char *writer; /* who made the changes, for the reasons */
};

/* Every row as it is now, in c->now (ws_tabview.h: rows the workspace
 * index vouches absent are not stat'ed again). */
static const ws_stamp *table_now(ws_changes *c)
{
    ws_tabview_take(c->root, c->now);
    return c->now;
}

/* The call's path subjects resolved below `root`, once for the call
 * (resolving per row and subject cost ~100,000 readlink calls for a
 * patch of 200 files).  NULL-terminated; NULL when there are none. */
static char **exempt_resolve(const char *root, const vt_subjects *s)
{
    if (!s || !s->count)
        return NULL;
    char **abs = calloc(s->count + 1, sizeof *abs);
    size_t n = 0;
    for (size_t i = 0; abs && i < s->count; i++) {
        vt_subject_kind k = s->items[i].kind;
        if (k != VT_SUBJECT_PATH_EDIT && k != VT_SUBJECT_PATH_CREATE && k != VT_SUBJECT_PATH_DELETE)
            continue;
        if (paths_resolve(root, s->items[i].value, 0, &abs[n]) == VT_OK && abs[n])
            n++;
    }
    return abs;
}

static void exempt_free(char **abs)
{
    for (size_t i = 0; abs && abs[i]; i++)
        free(abs[i]);
    free(abs);
}

/* 1 when a resolved subject is the row or lies inside it. */
static int exempted_by(const char *root, const char *rel, char *const *abs)
{
    if (!abs || !abs[0])
        return 0;
    char *row = str_printf("%s/%s", root, rel);
    int hit = 0;
    for (size_t i = 0; row && abs[i] && !hit; i++)
        hit = paths_is_within(row, abs[i]);
    free(row);
    return hit;
}

int ws_changes_begin(const char *root, int what, const vt_subjects *exempt, ws_changes **out)
{
    /* Resolved now, not after the call: a link the call makes later must
     * not carry a subject onto a table row or a hook path.  Without
     * memory for them nothing is exempted (fail closed). */
    char **abs = root && what ? exempt_resolve(root, exempt) : NULL;
    return ws_changes_begin_resolved(root, what, abs, out);
}

int ws_changes_begin_resolved(const char *root, int what, char **exempt, ws_changes **out)
{
    *out = NULL;
    ws_changes *c = root && what ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        exempt_free(exempt);
        return root && what ? VT_ERR_NOMEM : VT_OK;
    }
    c->root = root;
    c->what = what;
    c->writer = "the call";
    c->exempt = exempt;
    if (what & WS_CH_TABLE) {
        size_t n = ws_tabview_rows();
        c->rows = calloc(n, sizeof *c->rows);
        c->now = calloc(n, sizeof *c->now);
        if (!c->rows || !c->now) {
            free(c->rows);
            free(c->now);
            exempt_free(c->exempt);
            free(c);
            return VT_ERR_NOMEM;
        }
        const ws_stamp *now = table_now(c);
        for (size_t i = 0; i < n; i++) {
            c->rows[i].s = now[i];
            c->rows[i].exempt = exempted_by(root, ws_conftab[i].path, c->exempt);
        }
    }
    ws_index *ix = ws_index_current();
    if (ix && (what & (WS_CH_LINKS | WS_CH_GITDIRS | WS_CH_HOOKS | WS_CH_ARMED)) &&
        ws_index_refresh(ix, 1, NULL) == VT_OK) {
        c->mark = ws_index_mark(ix).seq;
        c->marked = 1;
        if (what & WS_CH_GITDIRS)
            c->repos = ws_index_repositories(ix, &(int){0});
    }
    if (ix && (what & WS_CH_ARMED)) {
        cJSON *repos = c->repos ? NULL : ws_index_repositories(ix, &(int){0});
        int rc = ws_armed_begin(c->repos ? c->repos : repos, &c->armed);
        cJSON_Delete(repos);
        if (rc != VT_OK) {
            ws_changes_end(c, NULL, NULL, &(const char *){NULL});
            return rc;
        }
    }
    *out = c;
    return VT_OK;
}

/* The table: rows that appeared (directories) or appeared or changed
 * (entries); an entry inside a directory row set aside goes with it. */
static void table_end(ws_changes *c, ws_found_fn fn, void *ctx)
{
    const char *gone_dir = NULL;
    const ws_stamp *all = table_now(c);
    for (size_t i = 0; ws_conftab[i].path; i++) {
        const ws_conf_row *r = &ws_conftab[i];
        const stamp *was = &c->rows[i];
        const ws_stamp *now = &all[i];
        if (!now->exists || was->exempt)
            continue;
        size_t gl = gone_dir ? strlen(gone_dir) : 0;
        if (gone_dir && !strncmp(r->path, gone_dir, gl) && r->path[gl] == '/')
            continue;
        int made = !was->s.exists, changed = was->s.exists && !ws_stamp_same(&was->s, now);
        if (r->kind == WS_CONF_DIR ? !made : !(made || changed))
            continue;
        char *abs = str_printf("%s/%s", c->root, r->path);
        char *why = str_printf("was %s by %s (%s reads it and may start programs from it)",
                               made ? "made" : "changed", c->writer, r->who);
        if (abs && why)
            fn(ctx, WS_FOUND_ASIDE, abs, why);
        free(abs);
        free(why);
        if (r->kind == WS_CONF_DIR)
            gone_dir = r->path;
    }
}

int ws_changes_table_moved(ws_changes *c)
{
    if (!c || !(c->what & WS_CH_TABLE))
        return 0;
    const ws_stamp *all = table_now(c);
    int moved = 0;
    for (size_t i = 0; !moved && ws_conftab[i].path; i++)
        moved = !ws_stamp_same(&c->rows[i].s, &all[i]);
    return moved;
}

void ws_changes_set_writer(ws_changes *c, const char *writer)
{
    if (c && writer)
        c->writer = writer;
}

int ws_changes_git_reaches(const char *dir)
{
    char p[PATH_MAX];
    if (strlen(dir) >= sizeof p - 6)
        return 1; /* too long to judge: fail closed */
    strcpy(p, dir);
    for (;;) {
        size_t len = strlen(p);
        struct stat st;
        snprintf(p + len, sizeof p - len, "%s.git", len > 1 ? "/" : "");
        int dotgit = lstat(p, &st) == 0;
        p[len] = '\0';
        if (dotgit || ws_gitdir_judge(p, NULL))
            return 1;
        char *slash = strrchr(p, '/');
        if (!slash || len <= 1)
            return 0;
        slash[slash == p ? 1 : 0] = '\0';
    }
}

const char *ws_changes_link_outside(const char *root, const char *abs)
{
    struct stat st;
    if (lstat(abs, &st) != 0 || !S_ISLNK(st.st_mode) || stat(abs, &st) != 0 || !S_ISDIR(st.st_mode))
        return NULL;
    char *target = realpath(abs, NULL);
    int hit = target && !paths_is_within(root, target) && ws_changes_git_reaches(target);
    free(target);
    return hit ? "is a link to a directory outside the workspace where git finds a repository "
                 "(git run through it would use that repository's config and hooks)"
               : NULL;
}

/* A link the call made to a directory outside the workspace where git
 * finds a repository. */
static void link_judge(ws_changes *c, const char *abs, ws_found_fn fn, void *ctx)
{
    const char *why = ws_changes_link_outside(c->root, abs);
    if (why)
        fn(ctx, WS_FOUND_ASIDE, abs, why);
}

static int known_repo(const ws_changes *c, const char *dir)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, c->repos)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        if (p && !strcmp(p, dir))
            return 1;
    }
    return 0;
}

static int arming_name(const char *n)
{
    return !strcmp(n, "config") || !strcmp(n, "config.worktree") || !strcmp(n, "commondir") ||
           !strcmp(n, "hooks");
}

/* 1 when `dir` is a git directory the call made or armed: a new one
 * (not a repository the index knew), or one whose `armed` entry was
 * written. */
static int gitdir_found(ws_changes *c, const char *dir, int armed, ws_found_fn fn, void *ctx)
{
    if (strlen(dir) < strlen(c->root) || !ws_gitdir_judge(dir, NULL))
        return 0;
    if (armed || !known_repo(c, dir))
        fn(ctx, WS_FOUND_GITDIR, dir, NULL);
    return 1;
}

/* The directories a change may have made a git directory of: the path
 * itself (a directory made), its parent when HEAD or what git runs
 * things from was written there, and for hooks/NAME the directory that
 * holds hooks/. */
static void gitdir_judge_change(ws_changes *c, const char *rel, int made_dir, ws_found_fn fn,
                                void *ctx)
{
    char *dir = str_printf("%s/%s", c->root, rel);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (!slash || (made_dir && gitdir_found(c, dir, 0, fn, ctx))) {
        free(dir);
        return;
    }
    const char *name = slash + 1;
    int head = !strcmp(name, "HEAD"), armed = arming_name(name);
    *slash = '\0';
    if ((head || armed) && gitdir_found(c, dir, armed, fn, ctx)) {
        free(dir);
        return;
    }
    char *up = strrchr(dir, '/');
    if (up && !strcmp(up + 1, "hooks")) {
        *up = '\0';
        gitdir_found(c, dir, 1, fn, ctx);
    }
    free(dir);
}

/* Repositories the index lists now and did not before (.git entries
 * and bare repositories in subdirectories): what the change log lost may
 * still be found. */
static void gitdir_relist(ws_changes *c, ws_index *ix, ws_found_fn fn, void *ctx)
{
    cJSON *now = ws_index_repositories(ix, &(int){0});
    const cJSON *it;
    cJSON_ArrayForEach(it, now)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (p && k && !strcmp(k, "dir") && !known_repo(c, p) && ws_gitdir_judge(p, NULL))
            fn(ctx, WS_FOUND_GITDIR, p, NULL);
    }
    cJSON_Delete(now);
}

/* An entry the call wrote in a hook directory or an included config
 * file of a repository (not one it named, as resolved at the call's
 * start: that was asked for).  `prot`: the protected paths, taken once
 * for all the call's changes. */
static void hooks_judge(ws_changes *c, const cJSON *prot, const char *rel, ws_found_fn fn,
                        void *ctx)
{
    char *abs = str_printf("%s/%s", c->root, rel);
    struct stat st;
    if (abs && ws_gitconf_protected_in(prot, abs) && lstat(abs, &st) == 0 &&
        !exempted_by(c->root, rel, c->exempt))
        fn(ctx, WS_FOUND_ASIDE, abs,
           "was written in a hook directory or an included config file a repository's "
           "configuration names (git runs or reads it)");
    free(abs);
}

static void log_end(ws_changes *c, ws_found_fn fn, void *ctx, const char **note)
{
    ws_index *ix = ws_index_current();
    if (!ix)
        return; /* a host without an index (unit tests): subjects only */
    if (!c->marked || ws_index_refresh(ix, 1, NULL) != VT_OK) {
        *note = "the workspace index was not there to follow the call's changes: links and "
                "repositories it made were judged only where it named paths";
        return;
    }
    int complete = 1;
    cJSON *arr = ws_index_changes_json(ix, c->mark, &complete);
    /* the protected paths once, not per change (each asking stats every
     * repository's config files) */
    cJSON *prot = (c->what & WS_CH_HOOKS) && cJSON_GetArraySize(arr) > 0
                      ? ws_gitconf_protected_paths()
                      : NULL;
    int hooks = (c->what & WS_CH_HOOKS) && (!prot || cJSON_GetArraySize(prot) > 0);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        const char *rel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *kind = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (!rel || !kind || !strcmp(kind, "delete"))
            continue;
        int dir = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "dir"));
        if ((c->what & WS_CH_LINKS) && !dir) {
            char *abs = str_printf("%s/%s", c->root, rel);
            if (abs)
                link_judge(c, abs, fn, ctx);
            free(abs);
        }
        if (c->what & WS_CH_GITDIRS)
            gitdir_judge_change(c, rel, dir && strcmp(kind, "write"), fn, ctx);
        if (hooks)
            hooks_judge(c, prot, rel, fn, ctx);
    }
    cJSON_Delete(prot);
    cJSON_Delete(arr);
    if (!complete && (c->what & WS_CH_GITDIRS))
        gitdir_relist(c, ix, fn, ctx);
    if (!complete)
        *note = "the call changed more than the workspace index could follow: a link to an "
                "outside repository or a bare repository it made may have been missed";
}

typedef struct found_to {
    ws_found_fn fn;
    void *ctx;
} found_to;

static void armed_found(void *ctx, const char *gitdir)
{
    found_to *f = ctx;
    f->fn(f->ctx, WS_FOUND_GITDIR, gitdir, NULL);
}

void ws_changes_end(ws_changes *c, ws_found_fn fn, void *ctx, const char **note)
{
    *note = NULL;
    if (!c)
        return;
    if (fn && (c->what & WS_CH_TABLE))
        table_end(c, fn, ctx);
    if (fn && (c->what & (WS_CH_LINKS | WS_CH_GITDIRS | WS_CH_HOOKS)))
        log_end(c, fn, ctx, note);
    /* last: the hook directories above were judged by the configuration
     * as it was */
    found_to f = {fn, ctx};
    ws_armed_end(c->armed, fn ? armed_found : NULL, &f);
    free(c->rows);
    free(c->now);
    exempt_free(c->exempt);
    cJSON_Delete(c->repos);
    free(c);
}
