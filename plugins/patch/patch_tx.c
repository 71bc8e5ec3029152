/* Planning and committing a patch (see patch_tx.h). */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "patch_buf.h"
#include "patch_fs.h"
#include "patch_release.h"
#include "patch_sync.h"
#include "patch_text.h"
#include "patch_tx.h"

typedef struct path_ref {
    const char *path;
    size_t line;
} path_ref;

static int ref_cmp(const void *a, const void *b)
{
    return strcmp(((const path_ref *)a)->path, ((const path_ref *)b)->path);
}

/* Two operations on one path (either end of a move) would make the
 * outcome depend on their order: refuse.  Sorting keeps large patches
 * cheap. */
static int check_unique(tx *t, char **err)
{
    size_t m = 0;
    path_ref *r = malloc((2 * t->n + 1) * sizeof *r);
    if (!r)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < t->n; i++) {
        r[m++] = (path_ref){t->e[i].path, t->e[i].op->line_no};
        if (t->e[i].dest)
            r[m++] = (path_ref){t->e[i].dest, t->e[i].op->move_line_no};
    }
    qsort(r, m, sizeof *r, ref_cmp);
    int rc = 0;
    for (size_t i = 1; i < m && !rc; i++)
        if (strcmp(r[i - 1].path, r[i].path) == 0) {
            size_t a = r[i - 1].line < r[i].line ? r[i - 1].line : r[i].line;
            size_t b = r[i - 1].line < r[i].line ? r[i].line : r[i - 1].line;
            rc = patch_fail(err, VT_ERR_INVALID,
                            "Invalid patch: '%s' is named by two operations (patch lines %zu and "
                            "%zu); put all changes to one file in one operation",
                            r[i].path, a, b);
        }
    free(r);
    return rc;
}

int tx_parse(tx *t, const char *text, size_t len, char **err)
{
    memset(t, 0, sizeof *t);
    t->root = -1;
    *err = NULL;
    int rc = patch_parse(text, len, &t->p, err);
    if (rc)
        return rc;
    t->e = calloc(t->p.nops, sizeof *t->e);
    if (!t->e)
        return VT_ERR_NOMEM;
    t->n = t->p.nops;
    for (size_t i = 0; i < t->n; i++) {
        tx_entry *e = &t->e[i];
        e->op = &t->p.ops[i];
        char *why = NULL;
        rc = fs_path_check(e->op->path, &e->path, &why);
        if (rc == 0 && e->op->move_to)
            rc = fs_path_check(e->op->move_to, &e->dest, &why);
        if (rc) {
            patch_fail(err, rc, "%s (patch line %zu)", why ? why : "Invalid path", e->op->line_no);
            free(why);
            return rc;
        }
        if (e->dest && strcmp(e->dest, e->path) == 0) {
            free(e->dest); /* a move onto itself is no move */
            e->dest = NULL;
        }
    }
    return check_unique(t, err);
}

static int plan_entry(tx *t, tx_entry *e, char **err)
{
    char *why = NULL;
    int rc;
    switch (e->op->kind) {
    case PATCH_ADD:
        rc = fs_absent(t->root, e->path, &why);
        if (rc == VT_ERR_EXISTS)
            return patch_fail(err, rc,
                              "Cannot add '%s' (patch line %zu): it already exists; use "
                              "'*** Update File:' to change it, or delete it first",
                              e->path, e->op->line_no);
        if (rc)
            break;
        e->changed = 1;
        return apply_add(&t->p, e->op, &e->res);
    case PATCH_DELETE:
    case PATCH_UPDATE:
        rc = fs_read(t->root, e->path, &e->old, &e->old_len, &e->mode, &why);
        if (rc == VT_ERR_NOT_FOUND && !why)
            return patch_fail(err, rc, "Cannot %s '%s' (patch line %zu): the file does not exist",
                              e->op->kind == PATCH_DELETE ? "delete" : "update", e->path,
                              e->op->line_no);
        if (rc)
            break;
        if (e->op->kind == PATCH_DELETE) {
            e->changed = 1;
            return apply_delete(e->old, e->old_len, &e->res);
        }
        if (e->dest) {
            rc = fs_absent(t->root, e->dest, &why);
            if (rc == VT_ERR_EXISTS)
                return patch_fail(err, rc,
                                  "Cannot move '%s' to '%s' (patch line %zu): the "
                                  "destination already exists",
                                  e->path, e->dest, e->op->move_line_no);
            if (rc)
                break;
        }
        rc = apply_update(&t->p, e->op, e->path, e->old, e->old_len, &e->res, &why);
        /* A move reports its destination's whole content as created. */
        if (rc == 0 && e->dest)
            rc = file_result_flatten(&e->res);
        if (rc)
            break;
        e->changed = e->dest != NULL || !file_result_same(&e->res, e->old, e->old_len);
        return 0;
    default: return VT_ERR_INTERNAL;
    }
    if (why) {
        *err = why;
        return rc;
    }
    return patch_fail(err, rc, "Cannot apply the patch to '%s' (patch line %zu)", e->path,
                      e->op->line_no);
}

int tx_plan(tx *t, int root, const char *text, size_t len, char **err)
{
    int rc = tx_parse(t, text, len, err);
    t->root = root;
    for (size_t i = 0; i < t->n && rc == 0; i++)
        rc = plan_entry(t, &t->e[i], err);
    return rc;
}

/* ---- commit and rollback ---- */

typedef struct undo {
    int restore; /* 1: write data back; 0: remove the file */
    const char *path;
    const char *data;
    size_t len;
    mode_t mode;
} undo;

typedef struct journal {
    undo *u;
    size_t n;
    char **tmp; /* per entry: its staged temporary file, or NULL */
    int *fd;    /* per entry: the staged file kept open, or -1 */
    int *hold;  /* per entry: the file it replaces or removes, or -1 */
    fs_dircache cache;
    fs_created_dirs dirs;
    long fail_at; /* test hook: fail the step with this number */
    long step;
} journal;

static int step(journal *j, char **err, const char *path)
{
    if (++j->step == j->fail_at)
        return patch_fail(err, VT_ERR_IO, "Cannot write '%s': injected failure at step %ld", path,
                          j->step);
    return 0;
}

/* Staged files kept open (to sync without reopening) up to this many. */
#define KEEP_OPEN_MAX 256
/* Replaced files held open across their renames (see hold_old) up to
 * this many, and only from this size: a small file's blocks are freed
 * in microseconds, a descriptor per file of a patch of thousands would
 * exhaust the long-running host's. */
#define HOLD_MAX 64
#define HOLD_MIN_BYTES (256u * 1024u)

/* How many descriptors one commit may keep open at once: a quarter of
 * RLIMIT_NOFILE (the rest is the host's, the directories' and the
 * walk's), at most `cap`. */
static size_t fd_budget(size_t cap)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return cap;
    size_t quarter = (size_t)(rl.rlim_cur / 4);
    return quarter < cap ? quarter : cap;
}

static void close_staged(tx *t, journal *j)
{
    for (size_t i = 0; i < t->n; i++)
        if (j->fd[i] >= 0) {
            close(j->fd[i]);
            j->fd[i] = -1;
        }
}

/* Where an entry's new content goes, or NULL when it writes none. */
static const char *target(const tx_entry *e)
{
    if (!e->changed || e->op->kind == PATCH_DELETE)
        return NULL;
    return e->dest ? e->dest : e->path;
}

/* An update that goes over its own file; else a new name, with nothing
 * older to fall back on. */
static int replaces(const tx_entry *e) { return e->op->kind == PATCH_UPDATE && !e->dest; }

/* Whether entry i's staged file must reach the disk before its rename
 * so that a crash leaves the old content or the new, never a file
 * without its data: not on a filesystem that a crash empties anyway,
 * nor when it replaces an existing file on one that orders such a
 * rename after the data (patch_sync.h). */
static int needs_sync(const tx *t, size_t i, const journal *j, fs_order_cache *fsc)
{
    int need = j->fd[i] < 0 ? FS_SYNC_ALWAYS : fs_sync_need(j->fd[i], fsc);
    return fs_sync_wanted(need, replaces(&t->e[i]));
}

/* fs_stage's `kick` for entry e: the workspace root's filesystem stands
 * for the target's (a wrong guess only costs the early start). */
static size_t kick_for(const tx *t, const tx_entry *e, fs_order_cache *fsc)
{
    if (e->res.size < FS_KICK_MIN)
        return 0;
    return fs_sync_wanted(fs_sync_need(t->root, fsc), replaces(e)) ? FS_KICK_SLICE : 0;
}

/* Phase 1: every new content into a temporary file beside its target,
 * then the ones that need it synced at once.  Nothing visible has
 * changed yet. */
static int stage_all(tx *t, journal *j, char **err)
{
    size_t n = 0, keep = fd_budget(KEEP_OPEN_MAX);
    fs_order_cache root_fs = {0};
    for (size_t i = 0; i < t->n; i++) {
        const tx_entry *e = &t->e[i];
        const char *to = target(e);
        if (!to)
            continue;
        int mode = e->op->kind == PATCH_ADD ? -1 : (int)e->mode;
        int rc = step(j, err, to);
        if (rc == 0)
            rc = fs_stage(t->root, to, e->res.seg, e->res.nseg, mode, kick_for(t, e, &root_fs),
                          &j->dirs, &j->cache, &j->tmp[i], n < keep ? &j->fd[i] : NULL, err);
        if (rc)
            return rc;
        n++;
    }
    char **list = malloc((n ? n : 1) * sizeof *list);
    int *fds = malloc((n ? n : 1) * sizeof *fds);
    int rc = VT_ERR_NOMEM;
    if (list && fds) {
        n = 0;
        fs_order_cache fsc = {0};
        for (size_t i = 0; i < t->n; i++)
            if (j->tmp[i] && needs_sync(t, i, j, &fsc)) {
                list[n] = j->tmp[i];
                fds[n++] = j->fd[i];
            }
        rc = fs_sync_paths(t->root, list, fds, n, err);
    }
    free(list);
    free(fds);
    close_staged(t, j);
    return rc;
}

/* Phase 2: rename the staged files into place and delete, in patch
 * order, journaling how to undo each step. */
static int publish_entry(tx *t, size_t i, journal *j, char **err)
{
    tx_entry *e = &t->e[i];
    int rc;
    if (!e->changed)
        return 0;
    switch (e->op->kind) {
    case PATCH_ADD:
        if ((rc = step(j, err, e->path)) ||
            (rc = fs_publish(t->root, j->tmp[i], e->path, 1, &j->cache, err)))
            return rc;
        j->u[j->n++] = (undo){0, e->path, NULL, 0, 0};
        break;
    case PATCH_DELETE:
        if ((rc = step(j, err, e->path)) || (rc = fs_unlink(t->root, e->path, err)))
            return rc;
        j->u[j->n++] = (undo){1, e->path, e->old, e->old_len, e->mode};
        break;
    default:
        if (!e->dest) {
            if ((rc = step(j, err, e->path)) ||
                (rc = fs_publish(t->root, j->tmp[i], e->path, 0, &j->cache, err)))
                return rc;
            j->u[j->n++] = (undo){1, e->path, e->old, e->old_len, e->mode};
            break;
        }
        if ((rc = step(j, err, e->dest)) ||
            (rc = fs_publish(t->root, j->tmp[i], e->dest, 1, &j->cache, err)))
            return rc;
        j->u[j->n++] = (undo){0, e->dest, NULL, 0, 0};
        free(j->tmp[i]);
        j->tmp[i] = NULL;
        if ((rc = step(j, err, e->path)) || (rc = fs_unlink(t->root, e->path, err)))
            return rc;
        j->u[j->n++] = (undo){1, e->path, e->old, e->old_len, e->mode};
        break;
    }
    free(j->tmp[i]);
    j->tmp[i] = NULL;
    return 0;
}

static int rollback(tx *t, journal *j)
{
    int bad = 0;
    for (size_t i = 0; i < t->n; i++)
        if (j->tmp[i])
            fs_discard(t->root, j->tmp[i]);
    for (size_t i = j->n; i-- > 0;) {
        char *err = NULL;
        const undo *u = &j->u[i];
        int rc = u->restore
                     ? fs_write(t->root, u->path, u->data, u->len, (int)u->mode, 0, NULL, &err)
                     : fs_unlink(t->root, u->path, &err);
        free(err);
        bad |= rc != 0;
    }
    fs_remove_dirs(t->root, &j->dirs);
    return bad;
}

/* Hold the large files the patch replaces or removes (see
 * patch_release.h): the renames and unlinks then do not wait for their
 * blocks and pages to be freed.  Bounded by fd_budget: a held
 * descriptor is an optimisation, a descriptor missing at a rename is a
 * failed patch. */
static void hold_old(tx *t, journal *j)
{
    size_t held = 0, max = fd_budget(HOLD_MAX);
    for (size_t i = 0; i < t->n && held < max; i++) {
        const tx_entry *e = &t->e[i];
        if (e->changed && e->op->kind != PATCH_ADD && e->old_len >= HOLD_MIN_BYTES) {
            j->hold[i] = fs_open_beneath(t->root, e->path, O_PATH, 0);
            held += j->hold[i] >= 0;
        }
    }
}

int tx_commit(tx *t, char **err)
{
    *err = NULL;
    journal j = {0};
    j.u = calloc(2 * t->n + 1, sizeof *j.u);
    j.tmp = calloc(t->n + 1, sizeof *j.tmp);
    j.fd = malloc((t->n + 1) * sizeof *j.fd);
    j.hold = malloc((t->n + 1) * sizeof *j.hold);
    if (!j.u || !j.tmp || !j.fd || !j.hold) {
        free(j.u);
        free(j.tmp);
        free(j.fd);
        free(j.hold);
        return VT_ERR_NOMEM;
    }
    for (size_t i = 0; i <= t->n; i++)
        j.fd[i] = j.hold[i] = -1;
    const char *fail_at = getenv("VTHOST_PATCH_FAIL_AT");
    j.fail_at = fail_at ? strtol(fail_at, NULL, 10) : 0;
    int rc = stage_all(t, &j, err);
    close_staged(t, &j);
    if (rc == 0)
        hold_old(t, &j);
    for (size_t i = 0; i < t->n && rc == 0; i++)
        rc = publish_entry(t, i, &j, err);
    /* Rollback goes by path: the cached directory descriptors are not
     * needed past the renames. */
    fs_dircache_free(&j.cache);
    if (rc) {
        int bad = rollback(t, &j);
        char *msg = NULL;
        if (asprintf(&msg, "%s; %s", *err ? *err : "Cannot apply the patch",
                     bad ? "restoring the files already changed FAILED, check the tree"
                         : "no file was changed (every change already made was undone)") >= 0) {
            free(*err);
            *err = msg;
        }
    }
    /* No directory is synced: until the filesystem commits them, a
     * crash undoes renames and unlinks, which leaves the old files. */
    for (size_t i = 0; i < t->n; i++)
        free(j.tmp[i]);
    free(j.tmp);
    free(j.fd);
    release_later(j.hold, t->n);
    fs_created_dirs_free(&j.dirs);
    free(j.u);
    return rc;
}

void tx_free(tx *t)
{
    for (size_t i = 0; i < t->n; i++) {
        free(t->e[i].path);
        free(t->e[i].dest);
        pbuf_free(t->e[i].old);
        file_result_free(&t->e[i].res);
    }
    free(t->e);
    patch_free(&t->p);
    memset(t, 0, sizeof *t);
    t->root = -1;
}
