/* What a command leaves behind must not act later, when the user or
 * another program (git, an IDE, an agent, another vthost) works in the
 * workspace.  The read-only mounts protect what exists when a call
 * starts; this file handles what appears during it:
 * - repositories (.git directories, symlinks and gitfiles, nested ones
 *   too, and the git directories gitfiles and commondir files name) that
 *   were not there at the baseline are neutralised (by the host's
 *   workspace service, vt_wsindex_v1.neutralise, which also recognises
 *   git directories by git's own rules: vt_wsindex_v1.git_dir);
 * - IDE and agent configuration at the workspace root (.vscode/, .idea/,
 *   .claude/, .cursor/, .codex/, .devcontainer/, .mcp.json) that was not
 *   there is set aside, and so is a late vtcode.toml
 *   (sandbox_policy_check), as soon as a watch on the workspace root
 *   sees it appear while a command runs.
 * Originals go to .vtcode/set-aside/ (commands cannot write there: it is
 * mounted read-only), never deleted, and every step is reported; where
 * that directory cannot be used the host keeps them in place under
 * names nothing reads (fail closed: never left live with a warning).
 *
 * The baseline is what the plan of a call found (its read-only list:
 * the plan walks the workspace anyway) when no other sandboxed session
 * runs or starts; while one does it stays, so that what a session makes
 * after its call returned still counts as new when that session ends.
 * The checks run at the end of each call, when a session's process tree
 * ends (its last process has exited), and at the start of a call when a
 * check is still owed. */
#include "sandbox_int.h"
#include "sandbox_repos.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

#define BASE_MAX 100000

const char *const sandbox_ide_names[] = {".vscode", ".idea",         ".claude",   ".cursor",
                                         ".codex",  ".devcontainer", ".mcp.json", NULL};

typedef struct am_id {
    dev_t dev;
    ino_t ino;
} am_id;

typedef struct am_repo {
    char *path; /* the .git entry */
    char kind;  /* 'd' directory, 'l' symlink, 'f' gitfile */
} am_repo;

typedef struct aftermath {
    pthread_mutex_t mu;
    am_id *base; /* git directories and .git entries at the baseline */
    size_t nbase;
    unsigned ide_base; /* bit i: sandbox_ide_names[i] existed at the baseline */
    uint64_t mark;     /* the index's change mark at the baseline */
    int marked;        /* mark is set */
    int based;         /* a baseline was taken (before it, no sandboxed
                          command ran: nothing is new) */
    int live;          /* sandboxed sessions whose process tree runs */
    int starting;      /* sessions between sandbox_aftermath_session_begin and
                          _started: planned, maybe already running */
    int owed;          /* a session ran that no check has covered yet */
    char *pending;     /* reports no call has shown yet */
    /* the watch on the workspace root */
    int ino_fd, wake[2];
    pthread_t thread;
    int thread_running;
} aftermath;

static void append(char **acc, const char *text)
{
    if (!text || !*text)
        return;
    char *n = *acc ? sandbox_fmt("%s; %s", *acc, text) : strdup(text);
    if (n) {
        free(*acc);
        *acc = n;
    }
}

static int inside(const char *path, const char *root)
{
    size_t n = strlen(root);
    return !strncmp(path, root, n) && (path[n] == '/' || path[n] == '\0');
}

/* ---- finding repositories ---------------------------------------------------- */

typedef struct found {
    repo_walk w; /* first: the callbacks get it */
    am_repo *v;
    size_t n, cap;
    int truncated, oom;
} found;

static void found_add(found *f, const char *path, char kind)
{
    if (f->oom)
        return;
    if (f->n == f->cap) {
        size_t nc = f->cap ? f->cap * 2 : 16;
        am_repo *nv = realloc(f->v, nc * sizeof *nv);
        if (!nv) {
            f->oom = 1;
            return;
        }
        f->v = nv;
        f->cap = nc;
    }
    if (!(f->v[f->n].path = strdup(path))) {
        f->oom = 1;
        return;
    }
    f->v[f->n++].kind = kind;
}

static void found_free(found *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i].path);
    free(f->v);
    memset(f, 0, sizeof *f);
}

static int on_found(repo_walk *w, const char *path, char kind)
{
    found *f = (found *)w;
    found_add(f, path, kind);
    return f->oom ? VT_ERR_NOMEM : VT_OK;
}

static void on_cut(repo_walk *w, int in_index)
{
    (void)in_index;
    ((found *)w)->truncated = 1;
}

/* Every repository entry below the sandbox's writable roots: the
 * workspace's from the host's index when there is one, the other roots
 * (and the workspace without an index) walked. */
static int repos_find(const sandbox *sb, found *f)
{
    memset(f, 0, sizeof *f);
    f->w.found = on_found;
    f->w.cut = on_cut;
    for (size_t i = 0; i < sb->nroots && !f->oom; i++) {
        if (i == 0 && repos_from_index(sb->index, &f->w) != 1)
            continue;
        repos_walk(sb->roots[i], &f->w);
    }
    return f->oom ? VT_ERR_NOMEM : VT_OK;
}

/* ---- resolving ---------------------------------------------------------------- */

static int id_of(const char *path, am_id *id)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 0;
}

static int in_base(const aftermath *am, const am_id *id)
{
    for (size_t i = 0; i < am->nbase; i++)
        if (am->base[i].dev == id->dev && am->base[i].ino == id->ino)
            return 1;
    return 0;
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
    char target[2 * PATH_MAX + 2];
    snprintf(target, sizeof target, t[0] == '/' ? "%s" : "%s/%s", t[0] == '/' ? t : dir, t);
    char *real = realpath(target, NULL);
    struct stat st;
    if (real && (stat(real, &st) != 0 || !S_ISDIR(st.st_mode))) {
        free(real);
        real = NULL;
    }
    return real;
}

/* The git directory of a repository entry (canonical, malloc'd), or NULL. */
static char *gitdir_of(const am_repo *r)
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
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", r->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    return pointer_target(r->path, dir, "gitdir: ");
}

/* The directory `path` (inside `root`, no symlink on the way) opened
 * component by component without following links, or -1. */
static int open_beneath(const char *root, const char *path)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *p = path + strlen(root);
    char comp[NAME_MAX + 1];
    while (fd >= 0 && *p) {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (!n)
            break;
        if (n > NAME_MAX || (n == 2 && !memcmp(p, "..", 2))) {
            close(fd);
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = '\0';
        int sub = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = sub;
        p += n;
    }
    return fd;
}

static const char *root_of(const sandbox *sb, const char *path)
{
    for (size_t i = 0; i < sb->nroots; i++)
        if (inside(path, sb->roots[i]))
            return sb->roots[i];
    return NULL;
}

/* ---- setting aside (by the host's workspace service) ---------------------------- */

/* The host's service, when it offers what a check needs. */
static const struct vt_wsindex_v1 *svc(const sandbox *sb)
{
    const struct vt_wsindex_v1 *x = sb->index;
    return x && x->struct_size >= offsetof(struct vt_wsindex_v1, set_aside) + sizeof x->set_aside
               ? x
               : NULL;
}

static const char *rel_of(const sandbox *sb, const char *path)
{
    if (!inside(path, sb->roots[0]))
        return path;
    const char *r = path + strlen(sb->roots[0]);
    while (*r == '/')
        r++;
    return *r ? r : ".";
}

/* Move the entry `path` (a file or directory inside a root) aside. */
static char *entry_aside(const sandbox *sb, const char *path, const char *why)
{
    const char *root = root_of(sb, path);
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    const struct vt_wsindex_v1 *x = svc(sb);
    if (!root || !slash || !x)
        return sandbox_fmt("%s %s and could not be set aside (no workspace service): remove it "
                           "before using it",
                           rel_of(sb, path), why);
    *slash = '\0';
    int fd = strlen(parent) < strlen(root) ? -1 : open_beneath(root, parent);
    if (fd < 0)
        return sandbox_fmt("%s %s and could not be set aside (its directory cannot be opened): "
                           "remove it before using it",
                           rel_of(sb, path), why);
    char *r = NULL;
    x->set_aside(fd, slash + 1, rel_of(sb, path), why, &r);
    close(fd);
    return r;
}

/* Whether `dir` is a git directory as git's discovery sees one: a bare
 * repository, which git finds from every directory below it that has no
 * .git of its own.  Judged by the host, by git's own rules. */
static int is_git_dir(const sandbox *sb, const char *dir)
{
    const struct vt_wsindex_v1 *x = svc(sb);
    return x && x->git_dir(dir, NULL) == 1;
}

/* ---- the check -------------------------------------------------------------------- */

static void neutralise_gitdir(aftermath *am, const sandbox *sb, const char *gitdir,
                              const char *pointer, int depth, char **report)
{
    am_id id;
    if (id_of(gitdir, &id) != 0 || in_base(am, &id))
        return; /* there before: it was read-only for every command since */
    const char *root = root_of(sb, gitdir);
    if (!root) {
        /* a new pointer to a git directory outside the workspace (in
         * /tmp, where commands write): the pointer goes */
        if (pointer) {
            char *w = entry_aside(sb, pointer,
                                  "points to a git directory outside the workspace that a "
                                  "command may have written");
            append(report, w);
            free(w);
        }
        return;
    }
    int fd = open_beneath(root, gitdir);
    if (fd < 0) {
        char *w = sandbox_fmt("the new repository %s could not be opened to neutralise it: do not "
                              "run git there before checking its hooks and config",
                              rel_of(sb, gitdir));
        append(report, w);
        free(w);
        return;
    }
    char *r = NULL;
    const struct vt_wsindex_v1 *x = svc(sb);
    if (x)
        x->neutralise(fd, rel_of(sb, gitdir), &r);
    else
        r = sandbox_fmt("the new repository %s could not be neutralised (no workspace service): "
                        "do not run git there before checking its hooks and config",
                        rel_of(sb, gitdir));
    append(report, r);
    free(r);
    close(fd);
    /* a worktree's git directory reads its common directory's hooks and
     * config too */
    char cd[PATH_MAX + 16];
    snprintf(cd, sizeof cd, "%s/commondir", gitdir);
    char *common = depth == 0 ? pointer_target(cd, gitdir, "") : NULL;
    if (common)
        neutralise_gitdir(am, sb, common, cd, depth + 1, report);
    free(common);
}

static void ide_check(aftermath *am, const sandbox *sb, char **report)
{
    for (size_t i = 0; sandbox_ide_names[i]; i++) {
        if (am->ide_base & (1u << i))
            continue;
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", sb->roots[0], sandbox_ide_names[i]);
        if (lstat(path, &st) != 0)
            continue;
        char *w = entry_aside(sb, path,
                              "appeared in the workspace while a command ran (commands may "
                              "not create IDE or agent configuration)");
        append(report, w);
        free(w);
    }
}

static void late_policy(aftermath *am, const sandbox *sb, char **report)
{
    (void)am;
    char *w = NULL;
    if (sandbox_policy_check(sb, &w) == VT_OK)
        append(report, w);
    free(w);
}

/* With am->mu held. */
/* Bare repositories in subdirectories: git finds one from every
 * directory below it that has no .git, and no .git entry names it.  The
 * index's change log since the baseline says which HEAD, config or
 * hooks/ entries were written; a directory holding one that is a git
 * directory is neutralised (a user's bare repository only when a command
 * changed exactly those). */
static void bare_check(aftermath *am, const sandbox *sb, char **report)
{
    cJSON *o = NULL;
    if (!am->marked || !sb->index || sb->index->changes_since(NULL, am->mark, &o) != VT_OK || !o)
        return;
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(o, "changes"))
    {
        const char *rel = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        if (!rel || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(it, "repo")))
            continue;
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s/%s", sb->roots[0], rel);
        /* HEAD or config: its directory; hooks/NAME: two levels up */
        for (int up = 0; up < 2; up++) {
            char *slash = strrchr(dir, '/');
            if (!slash || slash == dir)
                break;
            *slash = '\0';
            if (strlen(dir) > strlen(sb->roots[0]) && is_git_dir(sb, dir)) {
                neutralise_gitdir(am, sb, dir, NULL, 0, report);
                break;
            }
        }
    }
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(o, "complete"))) {
        static const char msg[] = "changes in the workspace were too many to follow: a bare "
                                  "repository made in a subdirectory may not be neutralised";
        if (!*report || !strstr(*report, msg))
            append(report, msg);
    }
    cJSON_Delete(o);
}

static void check_locked(aftermath *am, const sandbox *sb, const found *f, char **report)
{
    late_policy(am, sb, report);
    if (!am->based)
        return;
    if (!svc(sb)) {
        static const char msg[] = "the host offers no workspace service: what commands made "
                                  "(repositories, IDE configuration) is neither neutralised nor "
                                  "set aside; check it before running git or opening the "
                                  "workspace in another tool";
        if (!*report || !strstr(*report, msg))
            append(report, msg);
    }
    ide_check(am, sb, report);
    for (size_t i = 0; i < f->n; i++) {
        const am_repo *r = &f->v[i];
        char *g = gitdir_of(r);
        if (!g)
            continue;
        am_id id;
        if (id_of(g, &id) == 0 && !in_base(am, &id))
            neutralise_gitdir(am, sb, g, r->kind == 'd' ? NULL : r->path, 0, report);
        free(g);
    }
    /* `git init --bare .`: the workspace itself becomes the repository
     * of every directory in it without a .git */
    bare_check(am, sb, report);
    if (is_git_dir(sb, sb->roots[0]))
        neutralise_gitdir(am, sb, sb->roots[0], NULL, 0, report);
    if (f->truncated) {
        static const char msg[] = "the workspace is too large to look for every new "
                                  "repository: deep ones were not neutralised";
        if (!*report || !strstr(*report, msg))
            append(report, msg);
    }
}

static void base_add(aftermath *am, const char *path)
{
    am_id id;
    if (!path || id_of(path, &id) != 0 || in_base(am, &id) || am->nbase >= BASE_MAX)
        return;
    if (am->nbase % 64 == 0) {
        am_id *nb = realloc(am->base, (am->nbase + 64) * sizeof *nb);
        if (!nb)
            return;
        am->base = nb;
    }
    am->base[am->nbase++] = id;
}

static void ide_base_set(aftermath *am, const sandbox *sb)
{
    if (is_git_dir(sb, sb->roots[0]))
        base_add(am, sb->roots[0]);
    am->based = 1;
    if (sb->index) {
        am->mark = sb->index->mark(NULL);
        am->marked = 1;
    }
    am->ide_base = 0;
    for (size_t i = 0; sandbox_ide_names[i]; i++) {
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", sb->roots[0], sandbox_ide_names[i]);
        if (lstat(path, &st) == 0)
            am->ide_base |= 1u << i;
    }
}

static void base_set_locked(aftermath *am, const sandbox *sb, const found *f)
{
    am->nbase = 0;
    for (size_t i = 0; i < f->n; i++) {
        char *g = gitdir_of(&f->v[i]);
        base_add(am, g);
        if (g) {
            char cd[PATH_MAX + 16];
            snprintf(cd, sizeof cd, "%s/commondir", g);
            char *common = pointer_target(cd, g, "");
            base_add(am, common);
            free(common);
        }
        free(g);
    }
    ide_base_set(am, sb);
}

/* ---- the watch on the workspace root -------------------------------------------- */

static int watched_name(const char *n)
{
    if (!strcmp(n, "vtcode.toml"))
        return 1;
    for (size_t i = 0; sandbox_ide_names[i]; i++)
        if (!strcmp(n, sandbox_ide_names[i]))
            return 1;
    return 0;
}

typedef struct watch_arg {
    aftermath *am;
    const sandbox *sb;
} watch_arg;

static void *watch_main(void *arg)
{
    watch_arg wa = *(watch_arg *)arg;
    free(arg);
    aftermath *am = wa.am;
    char b[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        struct pollfd p[2] = {{.fd = am->ino_fd, .events = POLLIN},
                              {.fd = am->wake[0], .events = POLLIN}};
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[1].revents)
            break;
        if (!p[0].revents)
            continue;
        ssize_t n = read(am->ino_fd, b, sizeof b);
        int hit = 0;
        for (ssize_t off = 0; n > 0 && off < n;) {
            const struct inotify_event *e = (const struct inotify_event *)(b + off);
            if (e->len && watched_name(e->name))
                hit = 1;
            off += (ssize_t)(sizeof *e + e->len);
        }
        if (!hit)
            continue;
        /* Only while a command runs: the user's own new files (or an
         * approved apply_patch) between calls are theirs. */
        pthread_mutex_lock(&am->mu);
        char *report = NULL;
        if (am->live + am->starting > 0) {
            late_policy(am, wa.sb, &report);
            if (am->based)
                ide_check(am, wa.sb, &report);
        }
        append(&am->pending, report);
        pthread_mutex_unlock(&am->mu);
        free(report);
    }
    return NULL;
}

static void watch_start_locked(aftermath *am, const sandbox *sb)
{
    if (am->thread_running || am->ino_fd == -2)
        return;
    am->ino_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    watch_arg *wa = malloc(sizeof *wa);
    if (am->ino_fd < 0 || !wa ||
        inotify_add_watch(am->ino_fd, sb->roots[0], IN_CREATE | IN_MOVED_TO | IN_ONLYDIR) < 0 ||
        pipe2(am->wake, O_CLOEXEC) != 0) {
        free(wa);
        if (am->ino_fd >= 0)
            close(am->ino_fd);
        am->ino_fd = -2; /* not again: the checks at the session's end remain */
        return;
    }
    *wa = (watch_arg){am, sb};
    if (pthread_create(&am->thread, NULL, watch_main, wa) != 0) {
        free(wa);
        close(am->ino_fd);
        close(am->wake[0]);
        close(am->wake[1]);
        am->ino_fd = -2;
        return;
    }
    am->thread_running = 1;
}

/* ---- the interface (sandbox.h) ------------------------------------------------------ */

int sandbox_aftermath_init(sandbox *sb)
{
    aftermath *am = calloc(1, sizeof *am);
    if (!am)
        return VT_ERR_NOMEM;
    pthread_mutex_init(&am->mu, NULL);
    am->ino_fd = -1;
    am->wake[0] = am->wake[1] = -1;
    sb->aftermath = am;
    return VT_OK;
}

void sandbox_aftermath_free(sandbox *sb)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return;
    if (am->thread_running) {
        ssize_t w = write(am->wake[1], "x", 1);
        (void)w;
        pthread_join(am->thread, NULL);
        close(am->wake[0]);
        close(am->wake[1]);
        close(am->ino_fd);
    }
    if (am->pending)
        free(am->pending);
    free(am->base);
    pthread_mutex_destroy(&am->mu);
    free(am);
    sb->aftermath = NULL;
}

void sandbox_aftermath_call_start(const sandbox *sb, char **warning)
{
    *warning = NULL;
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return;
    pthread_mutex_lock(&am->mu);
    int owed = am->owed && !am->live && !am->starting;
    pthread_mutex_unlock(&am->mu);
    found f = {0};
    if (owed)
        repos_find(sb, &f);
    pthread_mutex_lock(&am->mu);
    if (owed)
        check_locked(am, sb, &f, &am->pending);
    if (owed && !am->live && !am->starting)
        am->owed = 0;
    *warning = am->pending;
    am->pending = NULL;
    pthread_mutex_unlock(&am->mu);
    found_free(&f);
}

void sandbox_aftermath_session_begin(const sandbox *sb)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return;
    pthread_mutex_lock(&am->mu);
    am->starting++;
    watch_start_locked(am, sb);
    pthread_mutex_unlock(&am->mu);
}

void sandbox_aftermath_session_started(const sandbox *sb, int started)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return;
    pthread_mutex_lock(&am->mu);
    if (am->starting > 0)
        am->starting--;
    if (started) {
        am->live++;
        am->owed = 1;
    }
    pthread_mutex_unlock(&am->mu);
}

/* Right after sandbox_paths_plan: when this call's session is the only
 * one starting and none runs, what the plan protects is the baseline
 * (the read-only list holds every .git, gitfile, git directory and
 * common dir the plan's walk found).  A plan that protects less than it
 * found (no namespaces, a walk or mount budget hit) is no baseline: then
 * the workspace is walked here. */
void sandbox_aftermath_plan(const sandbox *sb, const sandbox_plan *p)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return;
    pthread_mutex_lock(&am->mu);
    int rebase = !am->live && am->starting == 1 && !am->owed;
    if (rebase && sb->namespaces && !p->truncated) {
        am->nbase = 0;
        for (size_t i = 0; i < p->nro; i++)
            base_add(am, p->ro[i]);
        ide_base_set(am, sb);
        rebase = 0;
    }
    pthread_mutex_unlock(&am->mu);
    if (!rebase)
        return;
    found f;
    repos_find(sb, &f);
    pthread_mutex_lock(&am->mu);
    if (!am->live && am->starting == 1 && !am->owed)
        base_set_locked(am, sb, &f);
    pthread_mutex_unlock(&am->mu);
    found_free(&f);
}

static void check(const sandbox *sb, int ended, char **warning)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am) {
        if (warning)
            sandbox_policy_check(sb, warning);
        return;
    }
    found f;
    repos_find(sb, &f);
    pthread_mutex_lock(&am->mu);
    if (ended && am->live > 0)
        am->live--;
    char *report = NULL;
    check_locked(am, sb, &f, &report);
    /* every session that ran has ended and been looked at */
    if (!am->live && !am->starting)
        am->owed = 0;
    append(&am->pending, report);
    if (warning) {
        *warning = am->pending;
        am->pending = NULL;
    }
    pthread_mutex_unlock(&am->mu);
    free(report);
    found_free(&f);
}

void sandbox_aftermath_session_end(const sandbox *sb, char **warning)
{
    if (warning)
        *warning = NULL;
    check(sb, 1, warning);
}

void sandbox_aftermath_check(const sandbox *sb, char **warning)
{
    *warning = NULL;
    check(sb, 0, warning);
}

void sandbox_aftermath_policy(const sandbox *sb, char **warning)
{
    *warning = NULL;
    aftermath *am = sb ? sb->aftermath : NULL;
    if (am)
        pthread_mutex_lock(&am->mu);
    sandbox_policy_check(sb, warning);
    if (am)
        pthread_mutex_unlock(&am->mu);
}

char *sandbox_aftermath_pending(const sandbox *sb)
{
    aftermath *am = sb ? sb->aftermath : NULL;
    if (!am)
        return NULL;
    pthread_mutex_lock(&am->mu);
    char *p = am->pending;
    am->pending = NULL;
    pthread_mutex_unlock(&am->mu);
    return p;
}
