/* The spool directory: see spool_dir.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "beneath.h"
#include "json_exact.h"
#include "log.h"
#include "monotime.h"
#include "paths.h"
#include "spool_dir.h"
#include "strutil.h"
#include "text_escape.h"

#define MIB ((uint64_t)1024 * 1024)

static uint64_t call_cap = 256 * MIB;
static uint64_t dir_cap = 1024 * MIB;
static double max_age_s = 7 * 86400.0;

uint64_t spool_call_cap(void) { return call_cap; }

static char *refusal(const char *what, int err)
{
    if (err == ELOOP || err == ENOTDIR || err == EXDEV)
        return str_printf("%s is a symbolic link (or not a directory); the host never "
                          "follows links there, so the complete output was not kept",
                          what);
    return str_printf("%s cannot be used: %s", what, strerror(err));
}

/* A .vtcode/ vthost made itself stays out of the repository's status:
 * its .gitignore ignores everything (itself included). */
static void ignore_all(int root)
{
    int fd =
        beneath_open(root, ".vtcode/.gitignore", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, "*\n", 2) != 2)
        host_log(VT_LOG_WARNING, NULL, "cannot write .vtcode/.gitignore: %s", strerror(errno));
    close(fd);
}

/* Make and enter SPOOL_DIR without following links: a descriptor of it. */
static int enter_dir(int root, char **why)
{
    int fd = beneath_open(root, ".vtcode", O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    int fresh = fd < 0 && errno == ENOENT; /* .vtcode/ is ours to make */
    if (fd >= 0)
        close(fd);
    if (beneath_mkdirs(root, SPOOL_DIR, 0755) != 0) {
        *why = refusal(SPOOL_DIR " (or a directory above it)", errno);
        return -1;
    }
    if (fresh)
        ignore_all(root);
    fd = beneath_open(root, SPOOL_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0)
        *why = refusal(SPOOL_DIR, errno);
    return fd;
}

int spool_dir_create(const char *workspace, const char *name, char **why)
{
    *why = NULL;
    const char *refused = paths_vtcode_refusal(workspace);
    if (refused) { /* nothing is written through it */
        *why = str_printf(".vtcode is %s, not a plain directory of the workspace: the host "
                          "writes nothing through it, so the complete output was not kept",
                          refused);
        return VT_ERR_DENIED;
    }
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) {
        *why = refusal("the workspace", errno);
        return VT_ERR_IO;
    }
    int dir = enter_dir(root, why);
    if (dir < 0) {
        close(root);
        return VT_ERR_DENIED;
    }
    const char *slash = strchr(name, '/');
    if (slash) { /* a spool view: its directory first */
        char *view = strndup(name, (size_t)(slash - name));
        if (!view || (mkdirat(dir, view, 0755) != 0 && errno != EEXIST)) {
            *why = refusal(view ? view : "the spool view", view ? errno : ENOMEM);
            free(view);
            close(dir);
            close(root);
            return VT_ERR_IO;
        }
        free(view);
    }
    close(dir);
    char *rel = str_printf("%s/%s", SPOOL_DIR, name);
    int fd = -1;
    for (int attempt = 0; rel && attempt < 2; attempt++) {
        fd = beneath_open(root, rel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0) {
            *why = refusal(rel, errno);
            break;
        }
        flock(fd, LOCK_SH);
        /* A cleaner may have deleted it between create and lock. */
        struct stat st;
        if (fstat(fd, &st) == 0 && st.st_nlink > 0)
            break;
        close(fd);
        fd = -1;
    }
    free(rel);
    close(root);
    if (fd < 0 && !*why)
        *why = strdup("the spool file could not be created");
    return fd >= 0 ? fd : VT_ERR_IO;
}

/* ---- listing and deleting ---------------------------------------------- */

typedef struct entry {
    char *name;
    uint64_t size;
    double mtime;
    int in_use;
} entry;

static int by_mtime(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static int file_in_use(int dir, const char *name)
{
    int fd = beneath_open(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0)
        return 1;
    int busy = flock(fd, LOCK_EX | LOCK_NB) < 0;
    close(fd);
    return busy;
}

static int add_entry(entry **v, size_t *n, size_t *cap, const char *view, const char *name,
                     const struct stat *st)
{
    if (VT_GROW(v, cap, *n + 1) != 0)
        return -1;
    char *full = view ? str_printf("%s/%s", view, name) : strdup(name);
    if (!full)
        return -1;
    (*v)[(*n)++] = (entry){full, (uint64_t)st->st_size,
                           (double)st->st_mtim.tv_sec + st->st_mtim.tv_nsec / 1e9, 0};
    return 0;
}

/* A stream over the directory `dfd` from its start, `dfd` left open:
 * a dup shares the offset, so it is rewound.  NULL when it cannot. */
static DIR *dir_reopen(int dfd)
{
    int iter = dup(dfd);
    DIR *d = iter >= 0 ? fdopendir(iter) : NULL;
    if (!d) {
        if (iter >= 0)
            close(iter);
        return NULL;
    }
    rewinddir(d);
    return d;
}

/* Append the regular files of `dfd` (a spool view's when `view`); the
 * directories of spool views are entered from the top level only, and
 * never through a link. */
static void list_into(int dfd, const char *view, entry **v, size_t *n, size_t *cap)
{
    DIR *d = dir_reopen(dfd);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (de->d_name[0] == '.' || fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            if (add_entry(v, n, cap, view, de->d_name, &st) < 0)
                break;
        } else if (S_ISDIR(st.st_mode) && !view && strncmp(de->d_name, "c-", 2) == 0) {
            int sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (sub >= 0) {
                list_into(sub, de->d_name, v, n, cap);
                close(sub);
            }
        }
    }
    closedir(d);
}

/* Regular files of the spool directory and its spool views (names
 * VIEW/FILE), oldest first.  Returns the directory fd (or -1) and the
 * entries in *v / *n. */
static int list_dir(const char *workspace, entry **v, size_t *n)
{
    *v = NULL;
    *n = 0;
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return -1;
    int dfd = beneath_open(root, SPOOL_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    close(root);
    if (dfd < 0)
        return -1;
    size_t cap = 0;
    list_into(dfd, NULL, v, n, &cap);
    if (*n)
        qsort(*v, *n, sizeof **v, by_mtime);
    return dfd;
}

static void free_list(entry *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].name);
    free(v);
}

/* Delete a finished file: 1 when deleted. */
static int delete_finished(int dir, const char *name)
{
    int fd = beneath_open(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0)
        return 0;
    int ok = flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dir, name, 0) == 0;
    close(fd);
    return ok;
}

static double now_wall(void) { return (double)wall_now_ns() / 1e9; }

void spool_dir_enforce(const char *workspace)
{
    entry *v;
    size_t n;
    int dfd = list_dir(workspace, &v, &n);
    if (dfd < 0)
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].size;
    for (size_t i = 0; i < n && total > dir_cap; i++)
        if (delete_finished(dfd, v[i].name))
            total -= v[i].size;
    free_list(v, n);
    close(dfd);
}

/* Spool views (c-ID/) of sessions long gone: the empty ones unchanged
 * for max_age_days are removed (rmdir leaves a non-empty one alone; a
 * view still in use is made again by its session's next command or
 * spooled call). */
static void remove_old_views(int dfd, double now)
{
    DIR *d = dir_reopen(dfd);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        struct stat st;
        if (strncmp(de->d_name, "c-", 2) == 0 &&
            fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
            now - ((double)st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9) > max_age_s)
            (void)unlinkat(dfd, de->d_name, AT_REMOVEDIR);
    }
    closedir(d);
}

void spool_view_remove(const char *workspace, uint64_t client)
{
    if (!workspace || !client)
        return;
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return;
    int dfd = beneath_open(root, SPOOL_DIR, O_PATH | O_DIRECTORY | O_CLOEXEC, 0);
    close(root);
    if (dfd < 0)
        return;
    char view[32];
    snprintf(view, sizeof view, SPOOL_VIEW_FMT, (unsigned long long)client);
    (void)unlinkat(dfd, view, AT_REMOVEDIR); /* ENOTEMPTY: files the user may want */
    close(dfd);
}

static void clean_by_age(const char *workspace)
{
    if (max_age_s <= 0)
        return;
    entry *v;
    size_t n;
    int dfd = list_dir(workspace, &v, &n);
    if (dfd < 0)
        return;
    double now = now_wall();
    for (size_t i = 0; i < n && now - v[i].mtime > max_age_s; i++)
        delete_finished(dfd, v[i].name);
    free_list(v, n);
    remove_old_views(dfd, now);
    close(dfd);
}

/* ---- configuration ------------------------------------------------------ */

static int read_key(const cJSON *t, const char *key, const char *file, double lo, double hi,
                    double *out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v)
        return VT_OK;
    if (!json_integer_within(v, lo, hi)) {
        *err = str_printf("%s: key 'tools.spool.%s' must be an integer from %.0f to %.0f", file,
                          key, lo, hi);
        return VT_ERR_INVALID;
    }
    *out = v->valuedouble;
    return VT_OK;
}

int spool_configure(const char *workspace, const cJSON *config, const char *file, char **err)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(config, "tools");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(tools, "spool");
    if (!file)
        file = "(config)";
    if (t && !cJSON_IsObject(t)) {
        *err = str_printf("%s: key 'tools.spool' must be a table", file);
        return VT_ERR_INVALID;
    }
    double callm = 256, dirm = 1024, days = 7;
    int rc = read_key(t, "max_call_mib", file, 1, 1048576, &callm, err);
    if (rc == VT_OK)
        rc = read_key(t, "max_dir_mib", file, 1, 16777216, &dirm, err);
    if (rc == VT_OK)
        rc = read_key(t, "max_age_days", file, 0, 36500, &days, err);
    if (rc != VT_OK)
        return rc;
    call_cap = (uint64_t)callm * MIB;
    dir_cap = (uint64_t)dirm * MIB;
    max_age_s = days * 86400.0;
    clean_by_age(workspace);
    return VT_OK;
}

/* ---- vthost spool list|clean ------------------------------------------ */

int spool_cli(const char *workspace, int argc, char **argv)
{
    const char *sub = argc > 0 ? argv[0] : "list";
    if (argc > 1 || (strcmp(sub, "list") && strcmp(sub, "clean"))) {
        fprintf(stderr, "usage: vthost spool [list|clean]\n");
        return 2;
    }
    entry *v;
    size_t n;
    int dfd = list_dir(workspace, &v, &n);
    if (dfd < 0) {
        int e = errno;
        char *ws = text_escape(workspace, 0); /* a name may hold any byte */
        if (e == ENOENT)
            printf("no spool files (%s/%s does not exist)\n", ws ? ws : "", SPOOL_DIR);
        else
            fprintf(stderr, "vthost: cannot open %s/%s: %s\n", ws ? ws : "", SPOOL_DIR,
                    e == ELOOP || e == ENOTDIR || e == EXDEV
                        ? "a symbolic link on the way (refused)"
                        : strerror(e));
        free(ws);
        return e == ENOENT ? 0 : 1;
    }
    uint64_t total = 0, freed = 0;
    size_t deleted = 0;
    double now = now_wall();
    int clean = !strcmp(sub, "clean");
    for (size_t i = 0; i < n; i++) {
        if (clean) {
            if (delete_finished(dfd, v[i].name)) {
                deleted++;
                freed += v[i].size;
            }
            continue;
        }
        int busy = file_in_use(dfd, v[i].name);
        total += v[i].size;
        char *shown = text_escape(v[i].name, 0); /* a name may hold any byte */
        printf("%12llu  %8.0fs ago  %s/%s%s\n", (unsigned long long)v[i].size, now - v[i].mtime,
               SPOOL_DIR, shown ? shown : "(a name that cannot be shown)",
               busy ? "  (in use)" : "");
        free(shown);
    }
    if (clean)
        printf("deleted %zu spool files (%.1f MiB); files in use were kept\n", deleted,
               (double)freed / MIB);
    else
        printf("%zu files, %.1f MiB (cap %llu MiB per call, %llu MiB in all)\n", n,
               (double)total / MIB, (unsigned long long)(call_cap / MIB),
               (unsigned long long)(dir_cap / MIB));
    free_list(v, n);
    close(dfd);
    return 0;
}
