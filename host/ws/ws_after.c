/* The check after a call that writes the workspace (ws_after.h). */
#include "ws_after.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "beneath.h"
#include "paths.h"
#include "strutil.h"
#include "subjects.h"
#include "ws_changes.h"
#include "ws_gitdir.h"
#include "ws_inert.h"

/* A directory (or .git entry) to judge after the call. */
typedef struct cand {
    char *path; /* absolute, canonical, inside the root */
    int was_git;
    dev_t dev;
    ino_t ino;
    int armed;   /* the call wrote what git runs things from in it */
    int gitfile; /* a .git entry the call wrote */
} cand;

/* The candidates, with an open-addressing index on their paths: a patch
 * of tens of thousands of files stays linear. */
struct ws_after {
    cand *v;
    size_t n, cap;
    size_t *slot; /* index + 1 into v, 0 free; nslot a power of two */
    size_t nslot;
    ws_changes *ch; /* what is found from the workspace, not the subjects */
};

typedef struct judge {
    int rootfd;
    char *report;
    int live; /* something could not be made inert */
} judge;

static char *root_dir;

void ws_after_set_root(const char *root)
{
    free(root_dir);
    root_dir = root ? strdup(root) : NULL;
}

const char *ws_after_root(void) { return root_dir; }

/* What git runs programs from, directly in a git directory. */
static int arming(const char *name, size_t n)
{
    static const char *const names[] = {"config", "config.worktree", "commondir", "hooks", NULL};
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == n && !memcmp(names[i], name, n))
            return 1;
    return 0;
}

static size_t hash_of(const char *p, size_t len)
{
    size_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211u;
    return h;
}

/* The slot of `path` (len bytes): its candidate's or the free one where
 * it goes. */
static size_t *slot_of(const ws_after *a, const char *path, size_t len)
{
    size_t i = hash_of(path, len) & (a->nslot - 1);
    for (;; i = (i + 1) & (a->nslot - 1)) {
        size_t k = a->slot[i];
        if (!k || (strlen(a->v[k - 1].path) == len && !memcmp(a->v[k - 1].path, path, len)))
            return &a->slot[i];
    }
}

static int rehash(ws_after *a)
{
    size_t n = a->nslot ? a->nslot * 2 : 64;
    size_t *s = calloc(n, sizeof *s);
    if (!s)
        return VT_ERR_NOMEM;
    free(a->slot);
    a->slot = s;
    a->nslot = n;
    for (size_t i = 0; i < a->n; i++)
        *slot_of(a, a->v[i].path, strlen(a->v[i].path)) = i + 1;
    return VT_OK;
}

/* 1 when `path` was a candidate already (its flags merged), 0 when added,
 * or VT_ERR_NOMEM. */
static int cand_add(ws_after *a, const char *path, size_t len, int armed, int gitfile)
{
    if ((a->n + 1) * 2 > a->nslot && rehash(a) != VT_OK)
        return VT_ERR_NOMEM;
    size_t *slot = slot_of(a, path, len);
    if (*slot) {
        a->v[*slot - 1].armed |= armed;
        a->v[*slot - 1].gitfile |= gitfile;
        return 1;
    }
    if (VT_GROW(&a->v, &a->cap, a->n + 1) != 0)
        return VT_ERR_NOMEM;
    cand *c = &a->v[a->n];
    memset(c, 0, sizeof *c);
    if (!(c->path = strndup(path, len)))
        return VT_ERR_NOMEM;
    c->armed = armed;
    c->gitfile = gitfile;
    *slot = ++a->n;
    return 0;
}

/* The path itself (a directory a tool made, a .git entry) and every
 * directory above it up to the root; the walk up stops at a directory
 * already listed (so are all above it). */
static int add_path(ws_after *a, const char *abs)
{
    size_t rl = strlen(root_dir), len = strlen(abs);
    const char *base = strrchr(abs, '/');
    int rc = cand_add(a, abs, len, 0, base && !strcmp(base, "/.git"));
    while (rc == 0 && len > rl) {
        size_t cut = len;
        while (cut > rl && abs[cut - 1] != '/')
            cut--;
        if (cut <= rl)
            break;
        const char *child = abs + cut;
        size_t parent = cut - 1 > rl ? cut - 1 : rl;
        rc = cand_add(a, abs, parent, arming(child, len - cut), 0);
        len = parent;
    }
    return rc < 0 ? rc : VT_OK;
}

static void note(cand *c)
{
    struct stat st;
    if (stat(c->path, &st) != 0)
        return;
    c->dev = st.st_dev;
    c->ino = st.st_ino;
    /* only a directory has a HEAD below it (most candidates are the
     * files a patch names) */
    c->was_git = S_ISDIR(st.st_mode) && ws_gitdir_judge(c->path, NULL);
}

/* The candidates the call's path subjects name, as they are now; the
 * subjects resolved go to *res (NULL-terminated, for ws_changes: one
 * resolution for both), or *res is NULL without memory for them. */
static int path_subjects_add(ws_after *a, const vt_subjects *s, char ***res)
{
    int rc = VT_OK;
    size_t nres = 0;
    *res = s && s->count ? calloc(s->count + 1, sizeof **res) : NULL;
    for (size_t i = 0; s && i < s->count && rc == VT_OK; i++) {
        vt_subject_kind k = s->items[i].kind;
        if (k != VT_SUBJECT_PATH_EDIT && k != VT_SUBJECT_PATH_CREATE && k != VT_SUBJECT_PATH_DELETE)
            continue;
        char *abs = NULL;
        if (paths_resolve(root_dir, s->items[i].value, 0, &abs) == VT_OK && abs)
            rc = add_path(a, abs);
        if (*res && abs)
            (*res)[nres++] = abs;
        else
            free(abs);
    }
    for (size_t i = 0; i < a->n; i++)
        note(&a->v[i]);
    return rc;
}

int ws_after_begin(const vt_subjects *s, unsigned effects, ws_after **out)
{
    *out = NULL;
    int writes = (effects & VT_EFFECT_MUTATES_WORKSPACE) != 0;
    if (!root_dir || !(writes || (effects & VT_EFFECT_EXECUTES)))
        return VT_OK;
    ws_after *a = calloc(1, sizeof *a);
    if (!a)
        return VT_ERR_NOMEM;
    char **res = NULL;
    int rc = writes ? path_subjects_add(a, s, &res) : VT_OK;
    /* a command's new repositories are judged by ws_check.h below the
     * sandbox's writable roots; the table, links and the repositories
     * that were there (writable to commands where the sandbox has no
     * mount namespaces) here */
    int what = WS_CH_TABLE | WS_CH_LINKS | WS_CH_HOOKS | WS_CH_ARMED | (writes ? WS_CH_GITDIRS : 0);
    int crc = res || !writes ? ws_changes_begin_resolved(root_dir, what, res, &a->ch)
                             : ws_changes_begin(root_dir, what, s, &a->ch);
    *out = a;
    return rc != VT_OK ? rc : crc;
}

static void judged(judge *j, int rc, char *text)
{
    if (rc != VT_OK)
        j->live = 1;
    if (!text)
        return;
    char *n = j->report ? str_printf("%s; %s", j->report, text) : strdup(text);
    if (n) {
        free(j->report);
        j->report = n;
    }
    free(text);
}

static const char *rel_of(const char *path)
{
    const char *r = path + strlen(root_dir);
    while (*r == '/')
        r++;
    return *r ? r : ".";
}

static void neutralise(judge *j, const char *dir)
{
    const char *rel = rel_of(dir);
    int fd = !strcmp(rel, ".") ? open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                               : beneath_open(j->rootfd, rel, O_RDONLY | O_DIRECTORY, 0);
    if (fd < 0) {
        judged(j, 1,
               str_printf("the new repository %s could not be opened to neutralise it: do not run "
                          "git there before removing its hooks and config",
                          rel));
        return;
    }
    char *r = NULL;
    int rc = ws_inert_gitdir(fd, root_dir, rel, &r);
    close(fd);
    judged(j, rc, r);
}

/* Set aside the entry at `path` (inside the root). */
static void entry_aside(judge *j, const char *path, const char *why)
{
    char *parent = strdup(path);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    if (!slash) {
        free(parent);
        judged(j, 1, NULL);
        return;
    }
    *slash = '\0';
    const char *prel = strlen(parent) > strlen(root_dir) ? rel_of(parent) : ".";
    int fd = !strcmp(prel, ".") ? open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                                : beneath_open(j->rootfd, prel, O_RDONLY | O_DIRECTORY, 0);
    char *r = NULL;
    int rc = fd < 0 ? 1 : ws_inert_entry(fd, slash + 1, root_dir, rel_of(path), why, &r);
    if (fd < 0)
        r = str_printf("%s %s and could not be set aside: remove it before using git there",
                       rel_of(path), why);
    else
        close(fd);
    free(parent);
    judged(j, rc, r);
}

/* A git directory the call reached: inert, with its common directory. */
static void gitdir_inert(judge *j, const char *dir, const char *common)
{
    neutralise(j, dir);
    if (!common)
        return;
    if (paths_is_within(root_dir, common)) {
        neutralise(j, common);
    } else {
        char *cd = str_printf("%s/commondir", dir);
        if (cd)
            entry_aside(j, cd, "names a common git directory outside the workspace");
        free(cd);
    }
}

static void judge_one(judge *j, const cand *c)
{
    char *target = NULL, *common = NULL;
    if (c->gitfile && ws_gitdir_gitfile(c->path, &target)) {
        /* one in the workspace is judged as a candidate when the call
         * wrote it, and is the user's when it did not */
        if (!paths_is_within(root_dir, target))
            entry_aside(j, c->path, "points to a git directory outside the workspace");
        free(target);
        return;
    }
    if (!ws_gitdir_judge(c->path, &common))
        return;
    struct stat st;
    int same = stat(c->path, &st) == 0 && st.st_dev == c->dev && st.st_ino == c->ino;
    if (!c->was_git || !same || c->armed)
        gitdir_inert(j, c->path, common);
    free(common);
}

typedef struct found_ctx {
    judge *j;
    ws_after *a;
} found_ctx;

static void on_found(void *ctx, int kind, const char *abs, const char *why)
{
    found_ctx *f = ctx;
    if (kind == WS_FOUND_ASIDE) {
        entry_aside(f->j, abs, why);
        return;
    }
    if (f->a->nslot && *slot_of(f->a, abs, strlen(abs)))
        return; /* a candidate of the subjects: judged already */
    char *common = NULL;
    if (ws_gitdir_judge(abs, &common))
        gitdir_inert(f->j, abs, common);
    free(common);
}

int ws_after_end(ws_after *a, char **report)
{
    *report = NULL;
    if (!a)
        return VT_OK;
    judge j = {.rootfd = open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    for (size_t i = 0; i < a->n; i++)
        if (j.rootfd >= 0)
            judge_one(&j, &a->v[i]);
    const char *note = NULL;
    found_ctx f = {&j, a};
    if (j.rootfd >= 0)
        ws_changes_end(a->ch, on_found, &f, &note);
    else
        ws_changes_end(a->ch, NULL, NULL, &note);
    if (note)
        judged(&j, VT_OK, strdup(note));
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i].path);
    if (j.rootfd >= 0)
        close(j.rootfd);
    free(a->v);
    free(a->slot);
    free(a);
    *report = j.report;
    return j.live;
}

int ws_after_act(const char *root, void (*find)(void *fctx, ws_found_fn fn, void *ctx), void *fctx,
                 char **report)
{
    *report = NULL;
    if (!root_dir || strcmp(root_dir, root))
        return VT_ERR_INVALID;
    ws_after a = {0};
    judge j = {.rootfd = open(root_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (j.rootfd < 0)
        return VT_ERR_IO;
    found_ctx f = {&j, &a};
    find(fctx, on_found, &f);
    close(j.rootfd);
    *report = j.report;
    return j.live;
}
