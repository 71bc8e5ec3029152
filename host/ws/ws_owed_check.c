/* The check owed after a crash (ws_owed.h): what git or an agent would
 * run from and that changed since a time, found by a walk of the
 * workspace and made inert by the after-call check's actor
 * (ws_after_act).  Status-change times (ctime) say what changed: a
 * program can set a file's modification time back, not its ctime. */
#include "ws_owed.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "paths.h"
#include "strutil.h"
#include "ws_after.h"
#include "ws_changes.h"
#include "ws_conftab.h"
#include "ws_gitdir.h"

/* Entries read at most: a workspace past it is judged in part, and the
 * report says so. */
#define OWED_MAX_ENTRIES 4000000u
#define OWED_MAX_DEPTH 64

typedef struct owed {
    const char *root;
    struct timespec since;
    ws_found_fn fn;
    void *ctx;
    size_t left;
    int cut;
} owed;

static const char WHY_SINCE[] = "changed while vthost was stopped with a command session running";

static int newer(const struct stat *st, const struct timespec *t)
{
    return st->st_ctim.tv_sec > t->tv_sec ||
           (st->st_ctim.tv_sec == t->tv_sec && st->st_ctim.tv_nsec >= t->tv_nsec);
}

static int newer_at(int dfd, const char *name, const owed *o)
{
    struct stat st;
    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && newer(&st, &o->since);
}

/* 1 when what git runs things from in the git directory open at `fd`
 * changed since the record's time. */
static int gitdir_armed(int fd, const owed *o)
{
    if (newer_at(fd, "config", o) || newer_at(fd, "config.worktree", o) ||
        newer_at(fd, "commondir", o) || newer_at(fd, "hooks", o))
        return 1;
    int h = openat(fd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = h >= 0 ? fdopendir(h) : NULL;
    if (!d && h >= 0)
        close(h);
    int armed = 0;
    for (struct dirent *e; d && !armed && (e = readdir(d));)
        armed = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && newer_at(h, e->d_name, o);
    if (d)
        closedir(d);
    return armed;
}

static void found(owed *o, int kind, const char *abs, const char *why)
{
    o->fn(o->ctx, kind, abs, why);
}

/* A .git entry that is a file or a link, changed since: one naming a git
 * directory outside the workspace is set aside. */
static void dotgit_other(owed *o, const char *abs)
{
    char *target = NULL;
    if (ws_gitdir_gitfile(abs, &target) && target && !paths_is_within(o->root, target))
        found(o, WS_FOUND_ASIDE, abs, "points to a git directory outside the workspace");
    else if (!target) {
        char *real = realpath(abs, NULL);
        if (real && !paths_is_within(o->root, real) && ws_gitdir_judge(real, NULL))
            found(o, WS_FOUND_ASIDE, abs, "is a link to a git directory outside the workspace");
        free(real);
    }
    free(target);
}

static void walk(owed *o, int dfd, const char *abs, int depth);

/* One entry `name` of the directory `dfd` (at `abs`). */
static void entry(owed *o, int dfd, const char *abs, const char *name, unsigned char type,
                  int depth)
{
    if (type == DT_UNKNOWN) {
        struct stat st;
        if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return;
        type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
    }
    int dotgit = !strcmp(name, ".git");
    if (type != DT_DIR && type != DT_LNK && !dotgit)
        return;
    char *child = str_printf("%s/%s", abs, name);
    if (!child)
        return;
    if (type == DT_DIR) {
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            int git = (dotgit || faccessat(fd, "HEAD", F_OK, AT_SYMLINK_NOFOLLOW) == 0) &&
                      ws_gitdir_judge(child, NULL);
            if (git && gitdir_armed(fd, o))
                found(o, WS_FOUND_GITDIR, child, NULL);
            if (!git && !dotgit && depth < OWED_MAX_DEPTH)
                walk(o, fd, child, depth + 1);
            close(fd);
        }
    } else if (newer_at(dfd, name, o)) {
        if (dotgit)
            dotgit_other(o, child);
        else {
            const char *why = ws_changes_link_outside(o->root, child);
            if (why)
                found(o, WS_FOUND_ASIDE, child, why);
        }
    }
    free(child);
}

static void walk(owed *o, int dfd, const char *abs, int depth)
{
    int fd = dup(dfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return;
    }
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (depth == 0 && !strcmp(e->d_name, ".vtcode"))
            continue;
        if (!o->left) {
            o->cut = 1;
            break;
        }
        o->left--;
        entry(o, dirfd(d), abs, e->d_name, e->d_type, depth);
    }
    closedir(d);
}

/* 1 when the directory open at `fd` and everything in it changed since:
 * made while vthost was stopped. */
static int all_new(int fd, const owed *o)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !newer(&st, &o->since))
        return 0;
    int dup_fd = dup(fd);
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d && dup_fd >= 0)
        close(dup_fd);
    int all = d != NULL;
    for (struct dirent *e; d && all && (e = readdir(d));)
        all = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || newer_at(fd, e->d_name, o);
    if (d)
        closedir(d);
    return all;
}

/* The configuration table: a directory row made since is set aside
 * whole, an entry row changed since on its own. */
static void table(owed *o, int rootfd)
{
    const char *gone = NULL;
    for (size_t i = 0; ws_conftab[i].path; i++) {
        const ws_conf_row *r = &ws_conftab[i];
        size_t gl = gone ? strlen(gone) : 0;
        if (gone && !strncmp(r->path, gone, gl) && r->path[gl] == '/')
            continue;
        int made = 0;
        if (r->kind == WS_CONF_DIR) {
            int fd = openat(rootfd, r->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            made = fd >= 0 && all_new(fd, o);
            if (fd >= 0)
                close(fd);
        } else {
            made = newer_at(rootfd, r->path, o);
        }
        if (!made)
            continue;
        char *abs = str_printf("%s/%s", o->root, r->path);
        char *why =
            str_printf("%s (%s reads it and may start programs from it)", WHY_SINCE, r->who);
        if (abs && why)
            found(o, WS_FOUND_ASIDE, abs, why);
        free(abs);
        free(why);
        if (r->kind == WS_CONF_DIR)
            gone = r->path;
    }
}

static void find(void *fctx, ws_found_fn fn, void *ctx)
{
    owed *o = fctx;
    o->fn = fn;
    o->ctx = ctx;
    int rootfd = open(o->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return;
    if (ws_gitdir_judge(o->root, NULL) && gitdir_armed(rootfd, o))
        found(o, WS_FOUND_GITDIR, o->root, NULL);
    table(o, rootfd);
    walk(o, rootfd, o->root, 0);
    close(rootfd);
}

int ws_owed_check(const char *root, const struct timespec *since, char **report)
{
    owed o = {.root = root, .since = *since, .left = OWED_MAX_ENTRIES};
    int rc = ws_after_act(root, find, &o, report);
    if (o.cut) {
        char *n = str_printf("%s%sthe workspace was too large to check whole after vthost "
                             "stopped: what a command left in the rest was not judged",
                             *report ? *report : "", *report ? "; " : "");
        if (n) {
            free(*report);
            *report = n;
        }
    }
    return rc;
}
