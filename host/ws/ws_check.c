/* The one after-call check of what commands left behind (ws_check.h). */
#include "ws_check.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "beneath.h"
#include "strutil.h"
#include "ws_after.h"
#include "ws_bare.h"
#include "ws_changes.h"
#include "ws_conftab.h"
#include "ws_gitdir.h"
#include "ws_index.h"
#include "ws_inert.h"
#include "ws_layout.h"
#include "ws_repos.h"
#include "ws_tabview.h"

#define BASE_MAX 100000

typedef struct check_id {
    dev_t dev;
    ino_t ino;
} check_id;

/* The check's state: the roots it judges and the baseline. */
typedef struct check_state {
    pthread_mutex_t mu;
    char *root;      /* the workspace */
    int toml_absent; /* no vtcode.toml when the host started */
    char **roots;    /* the writable roots, roots[0] the workspace */
    size_t nroots;
    int sandboxed;  /* a sandbox armed the check: its sessions are followed */
    check_id *base; /* git directories and .git entries at the baseline */
    size_t nbase, capbase;
    unsigned char *cfg_base; /* [i]: ws_conftab[i] existed then */
    size_t ncfg;
    int cfg_lost;  /* the last baseline of the table could not be taken */
    uint64_t mark; /* the index's change mark then */
    int marked, based;
    int live;         /* sandboxed sessions whose process tree runs */
    int inflight;     /* writing calls under way */
    int owed;         /* a session ran that no check has covered yet */
    char *pending;    /* reports no call has shown yet */
    ws_changes *sess; /* what sessions change after their call returned */
} check_state;

static check_state cs = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void append(char **acc, const char *text)
{
    if (!text || !*text)
        return;
    char *n = *acc ? str_printf("%s; %s", *acc, text) : strdup(text);
    if (n) {
        free(*acc);
        *acc = n;
    }
}

static void append_once(char **acc, const char *text)
{
    if (!*acc || !strstr(*acc, text))
        append(acc, text);
}

static int inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

static const char *root_of(const char *path)
{
    for (size_t i = 0; i < cs.nroots; i++)
        if (inside(path, cs.roots[i]))
            return cs.roots[i];
    return NULL;
}

/* `path` relative to the workspace, for the reports. */
static const char *rel_of(const char *path)
{
    if (!inside(path, cs.root))
        return path;
    const char *r = path + strlen(cs.root);
    while (*r == '/')
        r++;
    return *r ? r : ".";
}

/* ---- identities ---------------------------------------------------------- */

static int id_of(const char *path, check_id *id)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 0;
}

static int in_base(const check_id *id)
{
    for (size_t i = 0; i < cs.nbase; i++)
        if (cs.base[i].dev == id->dev && cs.base[i].ino == id->ino)
            return 1;
    return 0;
}

static void base_add(const char *path)
{
    check_id id;
    if (!path || id_of(path, &id) != 0 || in_base(&id) || cs.nbase >= BASE_MAX ||
        VT_GROW(&cs.base, &cs.capbase, cs.nbase + 1) != 0)
        return;
    cs.base[cs.nbase++] = id;
}

/* The directory a pointer file ("gitdir: X", or a commondir's "X")
 * names, canonical (malloc'd), or NULL.  Relative to `dir`. */
static char *pointer_target(const char *file, const char *dir, const char *tag)
{
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    char b[PATH_MAX];
    ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;
    if (fd >= 0)
        close(fd);
    size_t tl = strlen(tag);
    if (n <= (ssize_t)tl)
        return NULL;
    b[n] = '\0';
    b[strcspn(b, "\r\n")] = '\0';
    if (strncmp(b, tag, tl))
        return NULL;
    const char *t = b + tl;
    char *target = t[0] == '/' ? strdup(t) : str_printf("%s/%s", dir, t);
    char *real = target ? realpath(target, NULL) : NULL;
    free(target);
    struct stat st;
    if (real && (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))) {
        free(real);
        real = NULL;
    }
    return real;
}

/* The git directory of a repository entry (canonical, malloc'd), or NULL. */
static char *gitdir_of(const ws_repo *r)
{
    if (r->kind != 'f') {
        char *real = realpath(r->path, NULL);
        struct stat st;
        if (real && (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))) {
            free(real);
            real = NULL;
        }
        return real;
    }
    char *dir = strdup(r->path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (slash)
        *slash = '\0';
    char *g = dir ? pointer_target(r->path, dir, "gitdir: ") : NULL;
    free(dir);
    return g;
}

/* The directory `path` (inside `root`) opened beneath it without
 * following a link, or -1. */
static int open_dir_in(const char *root, const char *path)
{
    int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rfd < 0 || !path[strlen(root)])
        return rfd;
    const char *rel = path + strlen(root);
    while (*rel == '/')
        rel++;
    int fd = beneath_open(rfd, rel, O_RDONLY | O_DIRECTORY, 0);
    close(rfd);
    return fd;
}

/* ---- making inert ---------------------------------------------------------- */

/* Set the entry `path` (inside a root) aside because it `why`. */
static void entry_aside(const char *path, const char *why, char **report)
{
    const char *root = root_of(path);
    char *parent = strdup(path);
    char *slash = parent ? strrchr(parent, '/') : NULL;
    char *r = NULL;
    if (!root || !slash || slash - parent < (ptrdiff_t)strlen(root)) {
        r = str_printf("%s %s and could not be set aside (it is not below a writable root): "
                       "remove it before using it",
                       rel_of(path), why);
    } else {
        *slash = '\0';
        int fd = open_dir_in(root, parent);
        if (fd < 0)
            r = str_printf("%s %s and could not be set aside (its directory cannot be opened): "
                           "remove it before using it",
                           rel_of(path), why);
        else
            ws_inert_entry(fd, slash + 1, cs.root, rel_of(path), why, &r);
        if (fd >= 0)
            close(fd);
    }
    append(report, r);
    free(r);
    free(parent);
}

static void neutralise_gitdir(const char *gitdir, const char *pointer, int depth, char **report)
{
    check_id id;
    if (id_of(gitdir, &id) != 0 || in_base(&id))
        return; /* there before: it was read-only for every command since */
    const char *root = root_of(gitdir);
    if (!root) {
        /* a new pointer to a git directory outside the writable roots
         * (in /tmp, where commands write): the pointer goes */
        if (pointer)
            entry_aside(pointer,
                        "points to a git directory outside the workspace that a command may "
                        "have written",
                        report);
        return;
    }
    int fd = open_dir_in(root, gitdir);
    char *r = NULL;
    if (fd < 0)
        r = str_printf("the new repository %s could not be opened to neutralise it: do not "
                       "run git there before checking its hooks and config",
                       rel_of(gitdir));
    else
        ws_inert_gitdir(fd, cs.root, rel_of(gitdir), &r);
    append(report, r);
    free(r);
    if (fd >= 0)
        close(fd);
    /* a worktree's git directory reads its common directory's hooks and
     * config too */
    char *cd = depth == 0 ? str_printf("%s/commondir", gitdir) : NULL;
    char *common = cd ? pointer_target(cd, gitdir, "") : NULL;
    if (common)
        neutralise_gitdir(common, cd, depth + 1, report);
    free(common);
    free(cd);
}

/* ---- the judgement (cs.mu held) -------------------------------------------- */

/* The configuration table's rows (ws_conftab.h) that appeared since the
 * baseline are set aside; a directory row's entries go with it.  With no
 * baseline (cs.cfg_lost) every row that exists is taken for new: what a
 * command made cannot be told from what was there. */
static void config_check(char **report)
{
    /* on the stack: this step must not fail for lack of memory */
    ws_stamp now[WS_TABVIEW_MAX];
    ws_tabview_take(cs.root, now);
    for (size_t i = 0; ws_conftab[i].path; i++) {
        if (!cs.cfg_lost && i < cs.ncfg && cs.cfg_base[i])
            continue;
        char path[PATH_MAX], why[512];
        if (!now[i].exists ||
            snprintf(path, sizeof path, "%s/%s", cs.root, ws_conftab[i].path) >= (int)sizeof path)
            continue;
        snprintf(why, sizeof why,
                 cs.cfg_lost ? "may have appeared while a command ran (%s runs what it names; "
                               "vthost ran out of memory noting what was there before, so it "
                               "is set aside as if new)"
                             : "appeared in the workspace while a command ran (%s runs what it "
                               "names; commands may not create IDE or agent configuration)",
                 ws_conftab[i].who);
        entry_aside(path, why, report);
    }
}

/* Which of the table's rows exist now (cs.mu held).  Without memory for
 * that, cs.cfg_lost: the next judgement fails closed (config_check). */
static void config_base(void)
{
    size_t n = ws_tabview_rows();
    if (cs.ncfg != n) {
        free(cs.cfg_base);
        cs.ncfg = 0;
        if (!(cs.cfg_base = calloc(n ? n : 1, 1))) {
            cs.cfg_lost = 1;
            return;
        }
    }
    cs.cfg_lost = 0;
    unsigned char *b = cs.cfg_base;
    cs.ncfg = n;
    /* On the stack: this step must not fail for lack of memory. */
    ws_stamp now[WS_TABVIEW_MAX];
    ws_tabview_take(cs.root, now);
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)now[i].exists;
}

static void late_toml(char **report)
{
    if (!cs.toml_absent || !cs.sandboxed)
        return;
    char *w = NULL;
    ws_layout_late_toml(cs.root, &w);
    append(report, w);
    free(w);
}

static void bare_found(void *ctx, const char *abs) { neutralise_gitdir(abs, NULL, 0, ctx); }

/* Bare repositories in subdirectories: git finds one from every
 * directory below it that has no .git, and no .git entry names it.  The
 * index's change log since the baseline says which HEAD, config or
 * hooks/ entries were written. */
static void bare_check(char **report)
{
    ws_index *ix = ws_index_current();
    if (!cs.marked || !ix || ws_index_refresh(ix, 1, NULL) != VT_OK)
        return;
    int complete = 1;
    cJSON *arr = ws_index_changes_json(ix, cs.mark, &complete);
    ws_bare_find(cs.root, arr, bare_found, report);
    if (arr && !complete)
        append_once(report, "changes in the workspace were too many to follow: a bare "
                            "repository made in a subdirectory may not be neutralised");
    cJSON_Delete(arr);
}

/* `sessions`: what sandboxed sessions may have made is judged, the
 * configuration the protected names cover included; else only
 * repositories (a tool that writes by itself asks before it writes
 * those names: host/perm/perm_engine.c). */
static void check_locked(const ws_repos *f, int sessions, char **report)
{
    if (sessions)
        late_toml(report);
    if (!cs.based)
        return;
    if (sessions)
        config_check(report);
    for (size_t i = 0; i < f->n; i++) {
        const ws_repo *r = &f->v[i];
        char *g = gitdir_of(r);
        check_id id;
        if (g && id_of(g, &id) == 0 && !in_base(&id))
            neutralise_gitdir(g, r->kind == 'd' ? NULL : r->path, 0, report);
        free(g);
    }
    /* `git init --bare .`: the workspace itself becomes the repository
     * of every directory in it without a .git */
    bare_check(report);
    if (ws_gitdir_judge(cs.root, NULL) == 1)
        neutralise_gitdir(cs.root, NULL, 0, report);
    if (f->truncated)
        append_once(report, "the workspace is too large to look for every new repository: "
                            "deep ones were not neutralised");
}

static void base_set_locked(const ws_repos *f)
{
    cs.nbase = 0;
    for (size_t i = 0; i < f->n; i++) {
        char *g = gitdir_of(&f->v[i]);
        base_add(g);
        char *cd = g ? str_printf("%s/commondir", g) : NULL;
        char *common = cd ? pointer_target(cd, g, "") : NULL;
        base_add(common);
        free(common);
        free(cd);
        free(g);
    }
    if (ws_gitdir_judge(cs.root, NULL) == 1)
        base_add(cs.root);
    ws_index *ix = ws_index_current();
    cs.marked = ix && ws_index_refresh(ix, 1, NULL) == VT_OK;
    if (cs.marked)
        cs.mark = ws_index_mark(ix).seq;
    config_base();
    cs.based = 1;
}

/* Find the repositories below the roots (cs.mu held: the roots stay). */
static void find(ws_repos *f) { ws_repos_find((const char *const *)cs.roots, cs.nroots, f); }

static void rebase_locked(void)
{
    ws_repos f;
    find(&f);
    base_set_locked(&f);
    ws_repos_free(&f);
}

/* The full check, its report kept in cs.pending (cs.mu held). */
static void full_locked(int sessions)
{
    ws_repos f;
    find(&f);
    char *report = NULL;
    check_locked(&f, sessions, &report);
    ws_repos_free(&f);
    /* every session that ran has ended and been looked at */
    if (!cs.live)
        cs.owed = 0;
    append(&cs.pending, report);
    free(report);
}

static void take_pending(char **report)
{
    if (report) {
        *report = cs.pending;
        cs.pending = NULL;
    }
}

/* ---- what a session changes after its call returned ----------------------- */

/* The table's entries, links, hook files and the repositories that were
 * there are judged as a call's after-check judges them (ws_changes.h),
 * over the time no call's check covers: from the end of the last writing
 * call while a session still runs, to the start of the next writing call
 * or a session's end (cs.mu held throughout). */
static void sess_find(void *fctx, ws_found_fn fn, void *ctx)
{
    const char *note = NULL;
    ws_changes_end(fctx, fn, ctx, &note);
    if (note)
        append_once(&cs.pending, note);
}

static void sess_judge_locked(void)
{
    ws_changes *c = cs.sess;
    if (!c)
        return;
    cs.sess = NULL;
    char *report = NULL;
    if (ws_after_act(cs.root, sess_find, c, &report) < 0)
        ws_changes_end(c, NULL, NULL, &(const char *){NULL}); /* never given to sess_find */
    append(&cs.pending, report);
    free(report);
}

static void sess_begin_locked(void)
{
    if (cs.sess || !cs.root || !cs.sandboxed || !cs.live || cs.inflight)
        return;
    int what = WS_CH_TABLE | WS_CH_LINKS | WS_CH_HOOKS | WS_CH_ARMED;
    if (ws_changes_begin(cs.root, what, NULL, &cs.sess) != VT_OK)
        append_once(&cs.pending, "out of memory: what a command session changes after its call "
                                 "returned is judged only when it ends");
    ws_changes_set_writer(cs.sess, "a command session after its call returned");
}

/* The baseline for what the sessions that still run change from now on,
 * taken before the current one is judged: a change made while the
 * judgement runs (the same script writing its next file) is then judged
 * by the next round instead of slipping unjudged into its baseline. */
static ws_changes *sess_next_locked(void)
{
    ws_changes *cur = cs.sess;
    cs.sess = NULL;
    sess_begin_locked();
    ws_changes *next = cs.sess;
    cs.sess = cur;
    return next;
}

static void sess_drop_locked(void)
{
    ws_changes_end(cs.sess, NULL, NULL, &(const char *){NULL});
    cs.sess = NULL;
}

/* ---- the interface ---------------------------------------------------------- */

static void roots_free_locked(void)
{
    for (size_t i = 0; i < cs.nroots; i++)
        free(cs.roots[i]);
    free(cs.roots);
    cs.roots = NULL;
    cs.nroots = 0;
}

/* The roots with the workspace first (it is judged by name and by the
 * index). */
static int roots_set_locked(const char *const *roots);

void ws_check_open(const char *root)
{
    pthread_mutex_lock(&cs.mu);
    free(cs.root);
    cs.root = root ? strdup(root) : NULL;
    cs.toml_absent = cs.root && ws_layout_toml_absent(cs.root);
    cs.sandboxed = 0;
    if (cs.root) /* the workspace, for the tools that write by themselves */
        roots_set_locked(NULL);
    pthread_mutex_unlock(&cs.mu);
}

void ws_check_close(char **report)
{
    *report = NULL;
    pthread_mutex_lock(&cs.mu);
    late_toml(&cs.pending);
    sess_drop_locked();
    take_pending(report);
    roots_free_locked();
    free(cs.base);
    free(cs.root);
    free(cs.cfg_base);
    cs.cfg_base = NULL;
    ws_tabview_reset();
    cs.ncfg = 0;
    cs.cfg_lost = 0;
    cs.base = NULL;
    cs.root = NULL;
    cs.nbase = cs.capbase = 0;
    cs.based = cs.marked = cs.live = cs.inflight = cs.owed = cs.toml_absent = cs.sandboxed = 0;
    pthread_mutex_unlock(&cs.mu);
}

static int roots_set_locked(const char *const *roots)
{
    size_t n = 0;
    while (roots && roots[n])
        n++;
    char **v = calloc(n + 2, sizeof *v);
    size_t k = 0;
    if (v && (v[k] = strdup(cs.root)))
        k++;
    for (size_t i = 0; v && k && i < n; i++)
        if (strcmp(roots[i], cs.root) && !(v[k++] = strdup(roots[i])))
            break;
    if (!v || !k || !v[k - 1]) {
        for (size_t i = 0; v && i < k; i++)
            free(v[i]);
        free(v);
        return VT_ERR_NOMEM;
    }
    roots_free_locked();
    cs.roots = v;
    cs.nroots = k;
    return VT_OK;
}

int ws_check_arm(const char *const *roots)
{
    pthread_mutex_lock(&cs.mu);
    int rc = cs.root ? roots_set_locked(roots) : VT_ERR_UNSUPPORTED;
    if (rc == VT_OK)
        cs.sandboxed = 1;
    /* armed in the middle of a call (the sandbox is made on the first
     * command): what exists now is the baseline of what it leaves */
    if (rc == VT_OK && !cs.live && !cs.owed)
        rebase_locked();
    pthread_mutex_unlock(&cs.mu);
    return rc;
}

void ws_check_call_start(int mutates, char **report)
{
    *report = NULL;
    pthread_mutex_lock(&cs.mu);
    /* what running sessions changed since the last call: not this call's */
    sess_judge_locked();
    if (cs.nroots && !cs.live && !cs.inflight && (cs.sandboxed || mutates)) {
        /* what sessions that ended unchecked left, then this call's
         * baseline */
        if (cs.owed && cs.sandboxed)
            full_locked(1);
        rebase_locked();
    }
    cs.inflight++;
    take_pending(report);
    pthread_mutex_unlock(&cs.mu);
}

void ws_check_call_end(int mutates, char **report)
{
    *report = NULL;
    pthread_mutex_lock(&cs.mu);
    if (cs.inflight > 0)
        cs.inflight--;
    if (cs.sandboxed && (cs.live || cs.owed))
        full_locked(1);
    else if (mutates && cs.nroots)
        full_locked(0);
    else
        late_toml(&cs.pending); /* an escalated command: what it made was approved */
    /* this call's own changes were judged (ws_after.h); sessions that
     * still run are followed from here */
    sess_begin_locked();
    take_pending(report);
    pthread_mutex_unlock(&cs.mu);
}

void ws_check_session_started(void)
{
    pthread_mutex_lock(&cs.mu);
    cs.live++;
    cs.owed = 1;
    pthread_mutex_unlock(&cs.mu);
}

void ws_check_session_ended(char **report)
{
    if (report)
        *report = NULL;
    pthread_mutex_lock(&cs.mu);
    if (cs.live > 0)
        cs.live--;
    ws_changes *next = sess_next_locked(); /* the others that still run */
    sess_judge_locked();
    if (cs.sandboxed)
        full_locked(1);
    cs.sess = next;
    take_pending(report);
    pthread_mutex_unlock(&cs.mu);
}

void ws_check_changed(void)
{
    pthread_mutex_lock(&cs.mu);
    /* only while a command runs: the user's own new files between calls
     * are theirs */
    if (cs.sandboxed && cs.live) {
        late_toml(&cs.pending);
        if (cs.based)
            config_check(&cs.pending);
        /* a table entry changed after its call returned: judged now, not
         * when the user may already have opened the IDE (hook files and
         * repositories, which only the full judgement reads, wait for it) */
        if (!cs.inflight && ws_changes_table_moved(cs.sess)) {
            ws_changes *next = sess_next_locked();
            sess_judge_locked();
            cs.sess = next;
        }
    }
    pthread_mutex_unlock(&cs.mu);
}
