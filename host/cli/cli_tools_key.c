/* The key of `vthost tools`'s cached listing.
 *
 * Every input file's device, inode, mode, owner, size, mtime and ctime
 * (ctime cannot be set back by a user: a file rewritten with its old
 * mtime still changes it), after the options, the executable's path, the
 * working directory and the environment that place those files.
 *
 * It is built on every `vthost tools`, so it costs what a start costs:
 * no printf or scanf machinery (their code pages are faulted in only for
 * this), directories read into a buffer on the stack rather than through
 * opendir's 32 KB heap buffer, entries stat'ed relative to their
 * directory's descriptor, and no second look at what the first showed
 * missing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli_tools_key.h"
#include "paths.h"
#include "perm_trust.h"

/* A file's state as the key holds it. */
typedef struct key_rec {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    uint32_t mode, uid;
} key_rec;

static int64_t ns_of(struct timespec t) { return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* `name` under `what` and its state `st`, or its absence (NULL): a
 * NUL-ended name and a fixed record, appended as bytes. */
static void key_add(tools_key *k, const char *what, const char *name, const struct stat *st)
{
    key_rec r;
    memset(&r, 0, sizeof r);
    if (st) {
        r = (key_rec){.dev = st->st_dev,
                      .ino = st->st_ino,
                      .size = (uint64_t)st->st_size,
                      .mtime_ns = ns_of(st->st_mtim),
                      .ctime_ns = ns_of(st->st_ctim),
                      .mode = st->st_mode,
                      .uid = st->st_uid};
        if (r.mtime_ns > k->newest_ns)
            k->newest_ns = r.mtime_ns;
        if (r.ctime_ns > k->newest_ns)
            k->newest_ns = r.ctime_ns;
    }
    strbuf_append(&k->text, what, strlen(what) + 1);
    strbuf_append(&k->text, name ? name : "", name ? strlen(name) + 1 : 1);
    strbuf_append(&k->text, (const char *)&r, sizeof r);
}

/* `path` (stat, or lstat when !follow) and its state, or its absence. */
static void key_stat(tools_key *k, const char *what, const char *path, int follow)
{
    struct stat st;
    int ok = path && (follow ? stat(path, &st) : lstat(path, &st)) == 0;
    key_add(k, what, path, ok ? &st : NULL);
}

static void key_text(tools_key *k, const char *what, const char *value)
{
    strbuf_append(&k->text, what, strlen(what) + 1);
    if (value)
        strbuf_append(&k->text, value, strlen(value) + 1);
    else
        strbuf_append(&k->text, "\n(none)", 8); /* no value: not the string "(none)" */
}

/* The names in directory `fd` but . and .., NUL-ended one after another
 * in `names`, *n of them; -1 when it cannot be read to its end. */
static int read_names(int fd, vt_strbuf *names, size_t *n)
{
    /* a page of the stack: the directories read here hold a few entries */
    char buf[2048] __attribute__((aligned(8)));
    for (;;) {
        ssize_t got = getdents64(fd, buf, sizeof buf);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return got == 0 && !names->failed ? 0 : -1;
        for (ssize_t at = 0; at < got;) {
            const struct dirent64 *d = (const struct dirent64 *)(buf + at);
            at += d->d_reclen;
            if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
                strbuf_append(names, d->d_name, strlen(d->d_name) + 1);
                (*n)++;
            }
        }
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each entry of the open directory `fd`, in byte order of their names;
 * -1 when they cannot all be read. */
static int key_entries(tools_key *k, const char *what, int fd)
{
    vt_strbuf names = VT_STRBUF_INIT;
    size_t n = 0;
    int rc = read_names(fd, &names, &n);
    const char **v = rc == 0 && n ? malloc(n * sizeof *v) : NULL;
    if (n && !v)
        rc = -1;
    for (size_t i = 0, at = 0; v && i < n; i++) {
        v[i] = names.data + at;
        at += strlen(v[i]) + 1;
    }
    if (v)
        qsort(v, n, sizeof *v, by_name);
    for (size_t i = 0; v && i < n; i++) {
        struct stat st;
        key_add(k, what, v[i], fstatat(fd, v[i], &st, 0) == 0 ? &st : NULL);
    }
    free(v);
    strbuf_reset(&names);
    return rc;
}

/* A directory and everything in it (an entry added, removed, replaced or
 * rewritten changes the key). */
static void key_dir(tools_key *k, const char *what, const char *dir)
{
    int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC) : -1;
    if (fd < 0) {
        /* missing: nothing in it; not a directory or not readable: its
         * state as stat sees it */
        if (!dir || errno == ENOENT)
            key_add(k, what, dir, NULL);
        else
            key_stat(k, what, dir, 1);
        return;
    }
    struct stat st;
    key_add(k, what, dir, fstat(fd, &st) == 0 ? &st : NULL);
    if (key_entries(k, what, fd) != 0)
        key_text(k, what, "\n(unreadable)");
    close(fd);
}

/* The executable's own path, as the host finds its install from it. */
static char *exe_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strrchr(buf, '/') ? strdup(buf) : NULL;
}

/* Where the options and the environment place the inputs: also the
 * name of the cache file (one per executable, workspace and option set). */
static void key_identity(tools_key *k, const host_options *ho, const char *format, const char *exe,
                         const char *cwd, const char *ws)
{
    key_text(k, "exe", exe);
    key_text(k, "cwd", cwd);
    key_text(k, "workspace", ws);
    key_text(k, "format", format);
    key_text(k, "profile", ho->profile);
    key_text(k, "config", ho->config_path);
    key_text(k, "approval", ho->approval);
    for (size_t i = 0; i < ho->plugin_dir_count; i++)
        key_text(k, "plugin-dir", ho->plugin_dirs[i]);
    key_text(k, "VTHOST_PLUGIN_PATH", getenv("VTHOST_PLUGIN_PATH"));
    key_text(k, "HOME", getenv("HOME"));
    char *cfg = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
    char *state = paths_xdg_vthost("XDG_STATE_HOME", ".local/state");
    key_text(k, "config-dir", cfg);
    key_text(k, "state-dir", state);
    free(cfg);
    free(state);
}

/* The install's files: the executable, its profiles, the TOML reader
 * module and every plugin directory. */
static void key_install(tools_key *k, const host_options *ho, char *exe)
{
    key_stat(k, "exe", exe, 1);
    *strrchr(exe, '/') = '\0'; /* from here on, its directory */
    char *p = paths_join(exe, "../" VTHOST_PROFILE_SUBDIR);
    key_dir(k, "profiles", p);
    free(p);
    if (ho->profile && strchr(ho->profile, '/'))
        key_stat(k, "profile-file", ho->profile, 1);
    p = paths_join(exe, "../lib/vthost/private/toml-reader.mod");
    key_stat(k, "toml", p, 1);
    free(p);
    p = paths_join(exe, "../" VTHOST_PLUGIN_SUBDIR);
    key_dir(k, "plugins", p);
    free(p);
    for (size_t i = 0; i < ho->plugin_dir_count; i++)
        key_dir(k, "plugins", ho->plugin_dirs[i]);
    char *env = getenv("VTHOST_PLUGIN_PATH") ? strdup(getenv("VTHOST_PLUGIN_PATH")) : NULL;
    char *save = NULL;
    for (char *t = env ? strtok_r(env, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
        key_dir(k, "plugins", t);
    free(env);
}

/* The configuration layers and agent files, the user's and the
 * workspace's. */
static void key_config(tools_key *k, const host_options *ho, const char *ws)
{
    char *p = perm_trust_user_config();
    key_stat(k, "user-config", p, 1);
    free(p);
    char *cfg = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
    p = cfg ? paths_join(cfg, "agents") : NULL;
    key_dir(k, "user-agents", p);
    free(p);
    free(cfg);
    key_stat(k, "config", ho->config_path, 1);
    p = paths_join(ws, "vtcode.toml");
    struct stat st;
    int there = p && lstat(p, &st) == 0;
    key_add(k, "ws-config", p, there ? &st : NULL);
    if (there && S_ISLNK(st.st_mode)) /* and what it leads to */
        key_stat(k, "ws-config-target", p, 1);
    char *refused = there ? perm_trust_refused(p) : NULL;
    key_text(k, "refused", refused);
    free(refused);
    free(p);
    p = paths_join(ws, ".vtcode");
    key_stat(k, "ws-vtcode", p, 0);
    free(p);
    p = paths_join(ws, ".vtcode/agents");
    key_dir(k, "ws-agents", p);
    free(p);
}

int tools_key_build(tools_key *k, const host_options *ho, const char *format)
{
    char cwd[PATH_MAX];
    const char *here = getcwd(cwd, sizeof cwd) ? cwd : NULL;
    /* getcwd's answer is already the real path of "." */
    char *ws = ho->workspace ? realpath(ho->workspace, NULL) : here ? strdup(here) : NULL;
    char *exe = exe_path();
    int rc = -1;
    if (ws && exe) {
        key_identity(k, ho, format, exe, here, ws);
        k->ident_len = k->text.len;
        key_install(k, ho, exe);
        key_config(k, ho, ws);
        rc = k->text.failed || !k->text.data ? -1 : 0;
    }
    free(ws);
    free(exe);
    return rc;
}
