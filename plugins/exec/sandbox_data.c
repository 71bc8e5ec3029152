/* vthost's own data out of every command's reach: its configuration,
 * state and cache directories, the trust list's directory, the HTTP
 * server's token and key files (the host lists them: vt_host_data_v1).
 * Read-only is not enough: a command that reads the HTTP token can speak
 * to the server as its client.  So each is masked in the session's mount
 * namespace, judged by what it resolves to when the call is planned: a
 * directory by an empty read-only tmpfs, a file by /dev/null, mounted
 * over the canonical path, so that every spelling (a symlinked parent,
 * /proc/self/root, "..") lands on the mask.  A directory that does not
 * exist yet is made first (0700, as the host makes it), so that what the
 * host writes there during the call is behind the mask too.  Without
 * namespaces Landlock grants reading everywhere but there; where a
 * command may write around the data (Landlock cannot take reading away
 * beneath a grant) the command is refused. */
#include "sandbox_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

#define MAX_DATA 128

static int within(const char *path, const char *top)
{
    size_t n = strlen(top);
    if (n == 1 && top[0] == '/')
        return 1;
    return !strncmp(path, top, n) && (path[n] == '/' || path[n] == '\0');
}

int sandbox_data_add(sandbox_plan *p, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        return VT_OK; /* nothing there to read */
    for (size_t i = 0; i < p->ndata; i++)
        if (!strcmp(p->data[i], path))
            return VT_OK;
    if (p->ndata == MAX_DATA)
        return VT_ERR_INVALID;
    if (VT_GROW(&p->data, &p->cap_data, p->ndata + 1) != 0 ||
        VT_GROW(&p->data_dir, &p->cap_data_dir, p->ndata + 1) != 0)
        return VT_ERR_NOMEM;
    if (!(p->data[p->ndata] = strdup(path)))
        return VT_ERR_NOMEM;
    p->data_dir[p->ndata++] = S_ISDIR(st.st_mode);
    return VT_OK;
}

static void refuse(sandbox_plan *p, char *why)
{
    free(p->truncated);
    p->truncated = why;
}

/* mkdir -p of `path` (0700) through symbolic links: a component that is
 * a link leading nowhere (~/.cache -> /tmp/u-cache, a tmpfs layout, after
 * a reboot emptied /tmp) has its target made too.  Else the directory
 * would not resolve, go unmasked, and a command could make it in /tmp
 * and plant what the host later reads as its own (the workspace index,
 * the guard's count).  The text of the path is not what is protected:
 * the place it leads to is. */
static void make_through(const char *path, int depth)
{
    char buf[PATH_MAX];
    if (depth > 8 || snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return;
    for (char *s = buf + 1;; s++) {
        if (*s && *s != '/')
            continue;
        char c = *s;
        *s = '\0';
        struct stat st;
        char t[PATH_MAX], target[PATH_MAX * 2];
        ssize_t n;
        if (lstat(buf, &st) != 0) {
            if (errno == ENOENT)
                (void)mkdir(buf, 0700);
        } else if (S_ISLNK(st.st_mode) && stat(buf, &st) != 0 && errno == ENOENT &&
                   (n = readlink(buf, t, sizeof t - 1)) > 0) {
            t[n] = '\0';
            const char *slash = strrchr(buf, '/');
            if (t[0] == '/')
                snprintf(target, sizeof target, "%s", t);
            else
                snprintf(target, sizeof target, "%.*s/%s", (int)(slash - buf), buf, t);
            make_through(target, depth + 1);
        }
        if (!c)
            break;
        *s = c;
    }
}

/* One listed path: made when it is a directory not there yet, resolved,
 * kept unless it holds a place commands work in (masking it would hide
 * the workspace; it is reported instead). */
static int plan_one(const sandbox *sb, sandbox_plan *p, const char *path, int is_dir)
{
    struct stat st;
    if (is_dir && stat(path, &st) != 0 && errno == ENOENT)
        make_through(path, 0);
    char real[PATH_MAX];
    if (!sandbox_realpath(path, real))
        return VT_OK; /* not there, and not to be made: nothing to read */
    for (size_t r = 0; r < sb->nroots; r++)
        if (within(sb->roots[r], real)) {
            char *w = sandbox_fmt("vthost's own data directory %s holds the workspace or a "
                                  "writable root (%s): it is not masked",
                                  real, sb->roots[r]);
            if (w && !p->truncated)
                p->truncated = w;
            else
                free(w);
            return VT_OK;
        }
    /* Landlock alone cannot take reading away beneath a place a command
     * may write: refuse rather than let the data be read. */
    if (!sb->namespaces && sandbox_writable(sb, p->extra, real)) {
        refuse(p, sandbox_fmt("cannot run the command: vthost's own data (%s) is inside a "
                              "place commands may write, and this machine offers no mount "
                              "namespace to hide it; keep vthost's files out of /tmp, $TMPDIR, "
                              "the workspace and the writable roots (for its directories, set "
                              "XDG_CONFIG_HOME, XDG_STATE_HOME and XDG_CACHE_HOME, or HOME, "
                              "elsewhere)",
                              real));
        return VT_ERR_DENIED;
    }
    int rc = sandbox_data_add(p, real);
    if (rc == VT_ERR_INVALID)
        refuse(p, strdup("cannot run the command: vthost lists more of its own files than "
                         "the sandbox masks"));
    return rc;
}

int sandbox_data_plan(const sandbox *sb, sandbox_plan *p)
{
    const vt_host_data_v1 *hd = sb->host_data;
    if (!hd || hd->struct_size < sizeof *hd || !hd->paths)
        return VT_OK;
    cJSON *list = NULL;
    int rc = hd->paths(&list);
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (rc != VT_OK)
            break;
        const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
        const cJSON *kind = cJSON_GetObjectItemCaseSensitive(it, "kind");
        if (cJSON_IsString(path) && path->valuestring[0] == '/')
            rc = plan_one(sb, p, path->valuestring,
                          cJSON_IsString(kind) && !strcmp(kind->valuestring, "dir"));
    }
    cJSON_Delete(list);
    if (rc != VT_OK && rc != VT_ERR_DENIED && rc != VT_ERR_INVALID)
        refuse(p, strdup("cannot run the command: vthost's own data cannot be listed (out of "
                         "memory)"));
    return rc;
}

/* 1 when `path` is one of the data or inside one, 2 when it is above
 * one, else 0. */
static int relation(const sandbox_plan *p, const char *path)
{
    int above = 0;
    for (size_t i = 0; i < p->ndata; i++) {
        if (within(path, p->data[i]))
            return 1;
        above |= within(p->data[i], path);
    }
    return above ? 2 : 0;
}

/* Reading granted to each entry of `dir` but the data: the directories
 * above a listed path are walked into instead (a Landlock rule holds for
 * everything beneath it).  A symbolic link is judged by where it leads. */
static int allow_except(int rs, const sandbox_plan *p, const char *dir, uint64_t rights,
                        uint64_t handled, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return VT_OK;
    int rc = VT_OK;
    struct dirent *e;
    while (rc == VT_OK && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char child[PATH_MAX], real[PATH_MAX];
        if (snprintf(child, sizeof child, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name) >=
                (int)sizeof child ||
            !realpath(child, real))
            continue;
        int rel = relation(p, real);
        struct stat st;
        if (rel == 2 && depth < 64 && lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            rc = allow_except(rs, p, child, rights, handled, depth + 1);
        else if (rel == 0)
            rc = sandbox_allow_path(rs, child, rights, handled);
    }
    closedir(d);
    return rc;
}

int sandbox_data_allow_read(int rs, const sandbox_plan *p, uint64_t rights, uint64_t handled)
{
    if (!p || !p->ndata)
        return sandbox_allow_path(rs, "/", rights, handled);
    /* Listing stays possible everywhere (a rule on "/" is the only way to
     * let `ls /` work); what the files hold is not readable. */
    int rc = sandbox_allow_path(rs, "/", rights & LANDLOCK_ACCESS_FS_READ_DIR, handled);
    return rc == VT_OK ? allow_except(rs, p, "/", rights, handled, 0) : rc;
}

int sandbox_data_hides(const sandbox_plan *p, const char *path)
{
    for (size_t i = 0; i < p->ndata; i++)
        if (p->data_dir[i] ? within(path, p->data[i]) : !strcmp(path, p->data[i]))
            return 1;
    return 0;
}

/* An empty read-only tmpfs at `path`. */
static int new_mask(const char *path)
{
    return mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
                 "size=4k,mode=0500");
}

/* A copy of the mask `src` (a descriptor of its root) at `path`: -1 with
 * errno, as mount(2).  By descriptor: the path it was mounted at may be
 * covered by a later mask of a directory above it. */
static int copy_mask(int src, const char *path)
{
    int t =
        (int)syscall(SYS_open_tree, src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
    if (t < 0)
        return -1;
    int r = (int)syscall(SYS_move_mount, t, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
    int e = errno;
    close(t);
    errno = e;
    return r;
}

int sandbox_data_enter(const sandbox_plan *p, const char **what)
{
    *what = "masking vthost's own data";
    /* One empty read-only tmpfs for every directory: the first is
     * mounted, the others are copies of that mount (which keep its
     * read-only, nosuid, nodev and noexec flags).  A new superblock per
     * directory was most of what the masks cost a call. */
    int src = -1, rc = 0;
    for (size_t i = 0; rc == 0 && i < p->ndata; i++) {
        const char *at = p->data[i];
        int r;
        if (!p->data_dir[i]) {
            r = mount("/dev/null", at, NULL, MS_BIND, NULL);
        } else if (src < 0) {
            if ((r = new_mask(at)) == 0)
                src = open(at, O_PATH | O_DIRECTORY | O_CLOEXEC);
        } else {
            r = copy_mask(src, at);
            if (r != 0 && errno != ENOENT)
                r = new_mask(at); /* the mount API that takes descriptors is refused */
        }
        /* gone since the plan, or already behind its directory's mask */
        if (r != 0 && errno != ENOENT)
            rc = -errno;
    }
    if (src >= 0)
        close(src);
    return rc;
}

void sandbox_data_free(sandbox_plan *p)
{
    for (size_t i = 0; i < p->ndata; i++)
        free(p->data[i]);
    free(p->data);
    free(p->data_dir);
    p->data = NULL;
    p->data_dir = NULL;
    p->ndata = p->cap_data = p->cap_data_dir = 0;
}
