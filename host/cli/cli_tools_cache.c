/* `vthost tools` from a cache validated by the state of its inputs.
 *
 * The key is text: every input file's device, inode, mode, owner, size,
 * mtime and ctime (ctime cannot be set back by a user: a file rewritten
 * with its old mtime still changes it), the options, the working
 * directory and the environment that place those files.  The cache file
 * holds the whole key, compared byte for byte, then the listing: a
 * different key, a missing file or one that is not the user's own
 * private regular file is a miss, and the start runs as always. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/own_file.h>
#include <vthost/plugin.h>
#include "cli_tools_cache.h"
#include "host_data.h"
#include "log.h"
#include "monotime.h"
#include "paths.h"
#include "perm_trust.h"
#include "strbuf.h"
#include "strutil.h"

#define MAGIC "vthost-tools 2"
#define MAX_CACHE_FILE (1u << 20)
/* A change within one timestamp tick of the last one leaves the same
 * times behind: a listing made from files this fresh is not kept. */
#define UNSTABLE_NS (2 * 1000000000LL)

static struct {
    char *file; /* where the listing goes, or NULL: nothing to store */
    char *key;  /* bytes, NULs among them */
    size_t klen;
    int64_t newest_ns;      /* the latest mtime or ctime among the inputs */
    unsigned long warnings; /* said before the lookup */
    unsigned long allowed;  /* said since, between said_begin and _end */
    unsigned long before;
    vt_strbuf said; /* what those warnings wrote to stderr */
} C;

static void forget(void)
{
    free(C.file);
    free(C.key);
    strbuf_reset(&C.said);
    memset(&C, 0, sizeof C);
}

static int64_t ns_of(struct timespec t) { return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec; }

/* A file's state as the key holds it. */
typedef struct key_rec {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
    uint32_t mode, uid;
} key_rec;

/* `path` (stat, or lstat when !follow) and its state, or its absence: a
 * NUL-ended name and a fixed record, appended as bytes (printf would
 * cost more than the rest of the lookup). */
static void key_stat(vt_strbuf *k, const char *what, const char *path, int follow)
{
    struct stat st;
    key_rec r;
    memset(&r, 0, sizeof r);
    if (path && (follow ? stat(path, &st) : lstat(path, &st)) == 0) {
        r = (key_rec){.dev = st.st_dev,
                      .ino = st.st_ino,
                      .size = (uint64_t)st.st_size,
                      .mtime_ns = ns_of(st.st_mtim),
                      .ctime_ns = ns_of(st.st_ctim),
                      .mode = st.st_mode,
                      .uid = st.st_uid};
        if (r.mtime_ns > C.newest_ns)
            C.newest_ns = r.mtime_ns;
        if (r.ctime_ns > C.newest_ns)
            C.newest_ns = r.ctime_ns;
    }
    strbuf_append(k, what, strlen(what) + 1);
    strbuf_append(k, path ? path : "", path ? strlen(path) + 1 : 1);
    strbuf_append(k, (const char *)&r, sizeof r);
}

/* A directory and everything in it (an entry added, removed, replaced or
 * rewritten changes the key). */
static void key_dir(vt_strbuf *k, const char *what, const char *dir)
{
    key_stat(k, what, dir, 1);
    struct dirent **names;
    int n = dir ? scandir(dir, &names, NULL, alphasort) : -1;
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        if (strcmp(nm, ".") && strcmp(nm, "..")) {
            char *p = paths_join(dir, nm);
            key_stat(k, what, p, 1);
            free(p);
        }
        free(names[i]);
    }
    if (n >= 0)
        free(names);
}

static void key_text(vt_strbuf *k, const char *what, const char *value)
{
    strbuf_append(k, what, strlen(what) + 1);
    if (value)
        strbuf_append(k, value, strlen(value) + 1);
    else
        strbuf_append(k, "\n(none)", 8); /* no value: not the string "(none)" */
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
 * name of the cache file (one per workspace and option set). */
static void key_identity(vt_strbuf *k, const host_options *ho, const char *format, const char *ws)
{
    char cwd[PATH_MAX];
    key_text(k, "cwd", getcwd(cwd, sizeof cwd) ? cwd : NULL);
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

/* The state of every file a listing is made from. */
static void key_files(vt_strbuf *k, const host_options *ho, const char *ws, char *exe)
{
    char *p;
    key_stat(k, "exe", exe, 1);
    *strrchr(exe, '/') = '\0'; /* from here on, its directory */
    p = str_printf("%s/../%s", exe, VTHOST_PROFILE_SUBDIR);
    key_dir(k, "profiles", p);
    free(p);
    if (ho->profile && strchr(ho->profile, '/'))
        key_stat(k, "profile-file", ho->profile, 1);
    p = str_printf("%s/../lib/vthost/private/toml-reader.mod", exe);
    key_stat(k, "toml", p, 1);
    free(p);
    p = str_printf("%s/../%s", exe, VTHOST_PLUGIN_SUBDIR);
    key_dir(k, "plugins", p);
    free(p);
    for (size_t i = 0; i < ho->plugin_dir_count; i++)
        key_dir(k, "plugins", ho->plugin_dirs[i]);
    char *env = getenv("VTHOST_PLUGIN_PATH") ? strdup(getenv("VTHOST_PLUGIN_PATH")) : NULL;
    char *save = NULL;
    for (char *t = env ? strtok_r(env, ":", &save) : NULL; t; t = strtok_r(NULL, ":", &save))
        key_dir(k, "plugins", t);
    free(env);
    p = perm_trust_user_config();
    key_stat(k, "user-config", p, 1);
    free(p);
    char *cfg = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
    p = cfg ? str_printf("%s/agents", cfg) : NULL;
    key_dir(k, "user-agents", p);
    free(p);
    free(cfg);
    key_stat(k, "config", ho->config_path, 1);
    p = paths_join(ws, "vtcode.toml");
    key_stat(k, "ws-config", p, 0);
    key_stat(k, "ws-config", p, 1);
    char *refused = perm_trust_refused(p);
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

static uint64_t fnv(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Prints the listing of `text` when its key is `key`; 1 when printed. */
static int replay(const char *text, size_t len, const char *key, size_t key_len)
{
    size_t klen, olen, slen;
    int at = 0;
    if (sscanf(text, MAGIC " %zu %zu %zu\n%n", &klen, &olen, &slen, &at) != 3 || at <= 0)
        return 0;
    size_t off = (size_t)at;
    if (off > len || klen > len - off || olen > len - off - klen ||
        slen != len - off - klen - olen || key_len != klen || memcmp(text + off, key, klen) != 0)
        return 0;
    const char *out = text + off + klen, *said = out + olen;
    if (slen && fwrite(said, 1, slen, stderr) != slen)
        return 0;
    return fwrite(out, 1, olen, stdout) == olen && fflush(stdout) == 0;
}

int tools_cache_lookup(const host_options *ho, const char *format)
{
    forget();
    /* an agent's file or a verbose log are more than this key follows */
    if (ho->agent || ho->log_level < VT_LOG_WARNING)
        return 0;
    char *ws = realpath(ho->workspace ? ho->workspace : ".", NULL);
    char *exe = exe_path(), *dir = NULL;
    vt_strbuf k = VT_STRBUF_INIT;
    /* where host_data_cache_dir keeps it; made only when a listing is
     * stored (a lookup makes nothing) */
    dir = paths_xdg_vthost("XDG_CACHE_HOME", ".cache");
    if (!ws || !exe || !dir)
        goto out;
    key_identity(&k, ho, format ? format : "names", ws);
    if (k.failed || !k.data)
        goto out;
    C.file = str_printf("%s/tools/%016llx", dir, (unsigned long long)fnv(k.data, k.len));
    key_files(&k, ho, ws, exe);
    C.klen = k.len;
    C.key = k.failed ? NULL : strbuf_take(&k);
    strbuf_reset(&k);
    C.warnings = host_log_warnings();
    size_t len = 0;
    char *text = NULL;
    if (C.file && C.key)
        vt_own_file_read(C.file, 077, 1, MAX_CACHE_FILE, &text, &len);
    int hit = text && replay(text, len, C.key, C.klen);
    free(text);
    if (hit) /* nothing to store */
        forget();
    free(ws);
    free(exe);
    free(dir);
    return hit;
out:
    strbuf_reset(&k);
    free(ws);
    free(exe);
    free(dir);
    return 0;
}

void tools_cache_said_begin(void)
{
    if (!C.file)
        return;
    C.before = host_log_warnings();
    host_log_copy_to(&C.said);
}

void tools_cache_said_end(void)
{
    if (!C.file)
        return;
    host_log_copy_to(NULL);
    C.allowed += host_log_warnings() - C.before;
}

void tools_cache_store(const char *text)
{
    char *tmp = NULL;
    if (!C.file || !C.key || !text || C.said.failed ||
        host_log_warnings() - C.warnings != C.allowed || wall_now_ns() - C.newest_ns < UNSTABLE_NS)
        goto out;
    char *dir = NULL;
    int ok = host_data_cache_dir(&dir) == VT_OK; /* made 0700 when missing */
    char *slash = strrchr(C.file, '/');
    *slash = '\0';
    ok = ok && paths_mkdirs(C.file, 0700) == VT_OK;
    *slash = '/';
    free(dir);
    tmp = ok ? str_printf("%s.%d", C.file, (int)getpid()) : NULL;
    int fd = tmp ? open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        goto out;
    }
    size_t klen = C.klen, olen = strlen(text), slen = C.said.len;
    int w = fprintf(f, MAGIC " %zu %zu %zu\n", klen, olen, slen) > 0 &&
            fwrite(C.key, 1, klen, f) == klen && fwrite(text, 1, olen, f) == olen &&
            (!slen || fwrite(C.said.data, 1, slen, f) == slen);
    if (fclose(f) != 0 || !w || rename(tmp, C.file) != 0)
        unlink(tmp);
out:
    free(tmp);
    forget();
}
