/* The paths the repositories' configuration makes git run or read
 * (ws_gitconf.h). */
#include "ws_gitconf.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "gitneutral.h"
#include "paths.h"
#include "strutil.h"
#include "ws_gitdir.h"
#include "ws_index.h"
#include "ws_stamp.h"

#define CONF_MAX_BYTES (1u << 20)
#define CONF_MAX_DEPTH 5

/* A config file read and its stamp as it was: the kept list is valid
 * while none of them changed. */
typedef struct conf_read {
    char *path;
    ws_stamp was;
} conf_read;

typedef struct reader {
    const char *worktree; /* relative hooks paths are taken from here */
    const char *dir;      /* the directory of the file being read */
    cJSON *out;
    int depth;
    conf_read *st;
    size_t nst, capst;
} reader;

static int conf_unchanged(const conf_read *c)
{
    ws_stamp now;
    ws_stamp_take_follow(c->path, &now);
    return ws_stamp_same(&c->was, &now);
}

/* `value` as git takes a path: "~/" from $HOME, relative from `base`;
 * canonical where it exists, else lexically tidied (malloc'd), or NULL. */
/* `~user/rest` as git expands it: that user's home directory from the
 * password database (NULL when there is no such user). */
static char *user_home(const char *value)
{
    const char *slash = strchr(value, '/');
    size_t n = slash ? (size_t)(slash - value) - 1 : 0;
    char name[256], buf[4096];
    if (!slash || !n || n >= sizeof name)
        return NULL;
    memcpy(name, value + 1, n);
    name[n] = '\0';
    struct passwd pw, *found = NULL;
    if (getpwnam_r(name, &pw, buf, sizeof buf, &found) != 0 || !found || !pw.pw_dir ||
        pw.pw_dir[0] != '/')
        return NULL;
    return str_printf("%s%s", pw.pw_dir, slash);
}

static char *resolve(const char *value, const char *base)
{
    const char *home = getenv("HOME");
    char *p = NULL;
    if (!strncmp(value, "~/", 2))
        p = home && home[0] == '/' ? str_printf("%s/%s", home, value + 2) : NULL;
    else if (value[0] == '~')
        p = user_home(value);
    else if (value[0] == '/')
        p = strdup(value);
    else if (value[0] && value[0] != '~' && value[0] != '%')
        p = str_printf("%s/%s", base, value);
    if (!p)
        return NULL;
    char *real = realpath(p, NULL);
    if (real) {
        free(p);
        return real;
    }
    char *tidy = NULL;
    if (paths_resolve("/", p, 0, &tidy) != VT_OK)
        tidy = NULL;
    free(p);
    return tidy;
}

static void add(reader *r, const char *path, const char *kind)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, r->out)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        if (p && !strcmp(p, path))
            return;
    }
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddStringToObject(o, "path", path);
    cJSON_AddStringToObject(o, "kind", kind);
    cJSON_AddItemToArray(r->out, o);
}

static void read_conf(reader *r, const char *path);

static void on_key(void *ctx, const char *section, const char *sub, const char *key,
                   const char *value)
{
    reader *r = ctx;
    if (!value)
        return;
    int hooks = !strcmp(section, "core") && !sub && !strcmp(key, "hookspath");
    int include = !strcmp(key, "path") &&
                  ((!strcmp(section, "include") && !sub) || (!strcmp(section, "includeif") && sub));
    if (!hooks && !include)
        return;
    char *p = resolve(value, hooks ? r->worktree : r->dir);
    if (!p)
        return;
    add(r, p, hooks ? "hooks" : "include");
    size_t n = strlen(p);
    if (hooks && n > 2 && !strcmp(p + n - 2, "/_")) {
        /* husky's layout: the stubs in .husky/_ run the scripts one up */
        p[n - 2] = '\0';
        add(r, p, "hooks");
        p[n - 2] = '/';
    }
    if (include && r->depth < CONF_MAX_DEPTH) {
        r->depth++;
        read_conf(r, p);
        r->depth--;
    }
    free(p);
}

/* Read one config file (never more than CONF_MAX_BYTES), stamped. */
static void read_conf(reader *r, const char *path)
{
    if (VT_GROW(&r->st, &r->capst, r->nst + 1) == 0) {
        conf_read *c = &r->st[r->nst];
        if ((c->path = strdup(path))) {
            ws_stamp_take_follow(path, &c->was);
            r->nst++;
        }
    }
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return;
    char *buf = NULL;
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (buf = malloc(CONF_MAX_BYTES)))
        n = read(fd, buf, CONF_MAX_BYTES);
    close(fd);
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
    if (n > 0 && slash) {
        slash[slash == dir ? 1 : 0] = '\0';
        const char *saved = r->dir;
        r->dir = dir;
        gitneutral_each(buf, (size_t)n, on_key, r);
        r->dir = saved;
    }
    free(dir);
    free(buf);
}

/* The user's global configuration files, read for each work tree. */
static void read_global(reader *r)
{
    const char *home = getenv("HOME");
    char *a = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "git/config");
    char *b = home && home[0] == '/' ? str_printf("%s/.gitconfig", home) : NULL;
    if (a)
        read_conf(r, a);
    if (b)
        read_conf(r, b);
    free(a);
    free(b);
}

/* One repository of the index: its git directory's configuration. */
static void read_repo(reader *r, const char *entry, const char *kind)
{
    char *gitdir = NULL, *common = NULL;
    if (!strcmp(kind, "gitfile"))
        ws_gitdir_gitfile(entry, &gitdir);
    else
        gitdir = realpath(entry, NULL);
    char *worktree = strdup(entry), *slash = worktree ? strrchr(worktree, '/') : NULL;
    if (gitdir && slash && ws_gitdir_judge(gitdir, &common)) {
        *slash = '\0';
        r->worktree = worktree;
        char *c = str_printf("%s/config", common ? common : gitdir);
        char *w = str_printf("%s/config.worktree", gitdir);
        if (c)
            read_conf(r, c);
        if (w)
            read_conf(r, w);
        read_global(r);
        free(c);
        free(w);
    }
    free(worktree);
    free(gitdir);
    free(common);
}

static cJSON *paths_of(const cJSON *repos, reader *r)
{
    r->out = cJSON_CreateArray();
    const cJSON *it;
    cJSON_ArrayForEach(it, repos)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        const char *k = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "kind"));
        if (p && k && r->out)
            read_repo(r, p, k);
    }
    return r->out;
}

static void stamps_free(conf_read *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(st[i].path);
    free(st);
}

cJSON *ws_gitconf_paths(const char *root, const cJSON *repos)
{
    (void)root;
    reader r = {0};
    cJSON *out = paths_of(repos, &r);
    stamps_free(r.st, r.nst);
    return out;
}

/* ---- the kept list ---------------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static cJSON *kept;
static conf_read *kept_st;
static size_t kept_nst;
static uint64_t kept_seq;
/* Every path the kept list has named since the host started: a hook
 * directory stays judged after its repository's config stops naming it
 * (a neutralised config loses core.hooksPath, and restoring the original
 * from .vtcode/set-aside/ would make a hook written meanwhile live). */
static cJSON *once;
#define ONCE_MAX 256

static void once_note(const cJSON *list)
{
    if (!once && !(once = cJSON_CreateArray()))
        return;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        int seen = !p;
        const cJSON *o;
        cJSON_ArrayForEach(o, once) seen = seen || !strcmp(cJSON_GetStringValue(o), p);
        if (!seen && cJSON_GetArraySize(once) < ONCE_MAX)
            cJSON_AddItemToArray(once, cJSON_CreateString(p));
    }
}

static int kept_valid(ws_index *ix)
{
    if (!kept || ws_index_mark(ix).seq != kept_seq)
        return 0;
    for (size_t i = 0; i < kept_nst; i++)
        if (!conf_unchanged(&kept_st[i]))
            return 0;
    return 1;
}

/* The kept list, made again when stale; with mu held. */
static const cJSON *kept_list(void)
{
    ws_index *ix = ws_index_current();
    if (!ix || ws_index_refresh(ix, 0, NULL) != VT_OK)
        return NULL;
    if (kept_valid(ix))
        return kept;
    cJSON_Delete(kept);
    stamps_free(kept_st, kept_nst);
    kept = NULL;
    kept_st = NULL;
    kept_nst = 0;
    kept_seq = ws_index_mark(ix).seq;
    cJSON *repos = ws_index_repositories(ix, &(int){0});
    reader r = {0};
    kept = paths_of(repos, &r);
    kept_st = r.st;
    kept_nst = r.nst;
    cJSON_Delete(repos);
    once_note(kept);
    return kept;
}

int ws_gitconf_protected(const char *abs)
{
    pthread_mutex_lock(&mu);
    const cJSON *list = kept_list(), *it;
    int hit = 0;
    cJSON_ArrayForEach(it, list)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        if (p && paths_is_within(p, abs)) {
            hit = 1;
            break;
        }
    }
    cJSON_ArrayForEach(it, once) hit = hit || paths_is_within(cJSON_GetStringValue(it), abs);
    pthread_mutex_unlock(&mu);
    return hit;
}

static int add_string(cJSON *arr, const char *p)
{
    cJSON *s = p ? cJSON_CreateString(p) : NULL;
    if (s && cJSON_AddItemToArray(arr, s))
        return 0;
    cJSON_Delete(s);
    return -1;
}

cJSON *ws_gitconf_protected_paths(void)
{
    pthread_mutex_lock(&mu);
    const cJSON *list = kept_list(), *it;
    cJSON *out = cJSON_CreateArray();
    int ok = out != NULL;
    cJSON_ArrayForEach(it, list)
    {
        const char *p = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(it, "path"));
        ok = ok && (!p || add_string(out, p) == 0);
    }
    cJSON_ArrayForEach(it, once) ok = ok && add_string(out, cJSON_GetStringValue(it)) == 0;
    pthread_mutex_unlock(&mu);
    if (!ok) {
        cJSON_Delete(out);
        out = NULL;
    }
    return out;
}

int ws_gitconf_protected_in(const cJSON *paths, const char *abs)
{
    if (!paths)
        return ws_gitconf_protected(abs);
    const cJSON *it;
    cJSON_ArrayForEach(it, paths)
    {
        const char *p = cJSON_GetStringValue(it);
        if (p && paths_is_within(p, abs))
            return 1;
    }
    return 0;
}

cJSON *ws_gitconf_current(void)
{
    pthread_mutex_lock(&mu);
    const cJSON *list = kept_list();
    cJSON *copy = list ? cJSON_Duplicate(list, 1) : cJSON_CreateArray();
    pthread_mutex_unlock(&mu);
    return copy;
}

void ws_gitconf_reset(void)
{
    pthread_mutex_lock(&mu);
    cJSON_Delete(once);
    once = NULL;
    cJSON_Delete(kept);
    stamps_free(kept_st, kept_nst);
    kept = NULL;
    kept_st = NULL;
    kept_nst = 0;
    pthread_mutex_unlock(&mu);
}
