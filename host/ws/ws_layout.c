/* The workspace's layout as vthost keeps it (ws_layout.h). */
#include "ws_layout.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "beneath.h"
#include "log.h"
#include "paths.h"
#include "strutil.h"
#include "ws_conftab.h"
#include "ws_index.h"

int ws_layout_names_of(const ws_conf_row *tab, const char ***out)
{
    *out = NULL;
    const char **v = NULL;
    size_t n = 0, cap = 0;
    if (VT_GROW(&v, &cap, 3) != 0)
        return VT_ERR_NOMEM;
    v[n++] = ".vtcode";
    v[n++] = "vtcode.toml";
    for (size_t i = 0; tab[i].path; i++) {
        if (strchr(tab[i].path, '/'))
            continue;
        if (VT_GROW(&v, &cap, n + 2) != 0) {
            free(v);
            return VT_ERR_NOMEM;
        }
        v[n++] = tab[i].path;
    }
    v[n] = NULL;
    *out = v;
    return VT_OK;
}

/* Built once from the one table and kept for the life of the process
 * (the service hands it out borrowed). */
static const char **names;
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void names_build(void)
{
    if (ws_layout_names_of(ws_conftab, &names) != VT_OK)
        host_log(VT_LOG_ERROR, NULL,
                 "out of memory listing the workspace's protected names: the workspace "
                 "cannot be served");
}

const char *const *ws_layout_names(void)
{
    pthread_once(&names_once, names_build);
    return names;
}

int ws_layout_prepare(const char *root, char **dir, char **err)
{
    *err = NULL;
    if (!(*dir = str_printf("%s/.vtcode", root)))
        return VT_ERR_NOMEM;
    int ws = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int made = ws >= 0 && mkdirat(ws, ".vtcode", 0755) == 0;
    if (!made) {
        int there = ws >= 0 && errno == EEXIST;
        if (ws >= 0)
            close(ws);
        if (there)
            return VT_OK;
        *err = strdup("cannot create the workspace's .vtcode/: a command could create it (and "
                      "agent definitions in it)");
        return VT_ERR_IO;
    }
    /* made by vthost, so kept out of the repository's status */
    int fd = beneath_open(ws, ".vtcode/.gitignore", O_WRONLY | O_CREAT | O_EXCL, 0644);
    int rc = fd >= 0 && write(fd, "*\n", 2) == 2 ? VT_OK : VT_ERR_IO;
    if (fd >= 0)
        close(fd);
    close(ws);
    if (rc != VT_OK)
        *err = strdup("cannot write .vtcode/.gitignore");
    return rc;
}

int ws_layout_spool_view(const char *root, uint64_t client, char **all, char **own)
{
    *all = *own = NULL;
    char view[32];
    snprintf(view, sizeof view, WS_LAYOUT_SPOOL_VIEW_FMT, (unsigned long long)client);
    char *rel = str_printf("%s/%s", WS_LAYOUT_SPOOL_DIR, view);
    int ws = rel ? open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    int rc = ws >= 0 && beneath_mkdirs(ws, rel, 0755) == 0 ? VT_OK : VT_ERR_IO;
    if (ws >= 0)
        close(ws);
    if (rc == VT_OK && (!(*all = str_printf("%s/%s", root, WS_LAYOUT_SPOOL_DIR)) ||
                        !(*own = str_printf("%s/%s", *all, view)))) {
        free(*all);
        *all = NULL;
        rc = VT_ERR_NOMEM;
    }
    free(rel);
    return rc;
}

int ws_layout_toml_absent(const char *root)
{
    char *path = str_printf("%s/vtcode.toml", root);
    struct stat st;
    int absent = path && lstat(path, &st) != 0 && errno == ENOENT;
    free(path);
    return absent;
}

/* A vtcode.toml that could not be moved aside is recorded under the
 * host's state directory, $XDG_STATE_HOME/vthost/refused/<dev>-<inode>
 * (its size, mtime and path inside), so that no later start in the
 * workspace applies it (host/perm/perm_trust.c reads the same record;
 * `vthost trust` removes it).  Outside the workspace: commands cannot
 * reach it.  The record's path, or NULL when none was written. */
char *ws_layout_refused_path(const struct stat *st)
{
    char *base = ws_index_state_dir();
    char *rec = base ? str_printf("%s/refused/%llu-%llu", base, (unsigned long long)st->st_dev,
                                  (unsigned long long)st->st_ino)
                     : NULL;
    free(base);
    return rec;
}

static char *refused_record(const char *path, const struct stat *st)
{
    char *rec = ws_layout_refused_path(st);
    char *dir = rec ? strdup(rec) : NULL;
    if (dir)
        *strrchr(dir, '/') = '\0';
    if (dir && paths_mkdirs(dir, 0700) != VT_OK) {
        free(rec);
        rec = NULL;
    }
    int fd = rec ? open(rec, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    char *text = fd >= 0 ? str_printf("%lld %lld %s\n", (long long)st->st_size,
                                      (long long)st->st_mtime, path)
                         : NULL;
    int ok = text && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0 && close(fd) != 0)
        ok = 0;
    free(text);
    free(dir);
    if (!ok) {
        free(rec);
        rec = NULL;
    }
    return rec;
}

void ws_layout_late_toml(const char *root, char **report)
{
    static atomic_uint seq;
    struct stat st;
    *report = NULL;
    char *path = str_printf("%s/vtcode.toml", root);
    if (!path || lstat(path, &st) != 0) {
        free(path);
        return;
    }
    /* made while commands ran, by a command or by hand: set aside, not
     * deleted, and said */
    char *aside = str_printf(".vtcode/refused-vtcode.toml.%ld.%u", (long)time(NULL),
                             atomic_fetch_add(&seq, 1));
    int dirfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int moved = aside && dirfd >= 0 && renameat(dirfd, "vtcode.toml", dirfd, aside) == 0;
    if (dirfd >= 0)
        close(dirfd);
    /* fail closed: a file that stays in place is recorded, and no later
     * start in this workspace applies it until it is reviewed */
    char *rec = moved ? NULL : refused_record(path, &st);
    if (moved)
        *report = str_printf("vtcode.toml appeared in the workspace during this run (commands "
                             "may not create policy files); it was moved to %s/%s, not applied",
                             root, aside);
    else if (rec)
        *report = str_printf("vtcode.toml appeared in the workspace during this run (commands "
                             "may not create policy files) and could not be moved aside (is "
                             ".vtcode a plain directory?): it is recorded in %s and no later "
                             "vthost start applies it; review and remove it, or run `vthost "
                             "trust` after review",
                             rec);
    else
        *report = str_printf("vtcode.toml appeared in the workspace during this run (commands "
                             "may not create policy files), could not be moved aside and could "
                             "not be recorded as refused: remove it before the next start");
    free(rec);
    free(aside);
    free(path);
}
