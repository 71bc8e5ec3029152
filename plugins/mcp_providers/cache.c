/* The tool-list cache.  A file is trusted only when it is a regular
 * file owned by this user in a directory owned by this user: anything
 * else (a link, a FIFO, another user's file) is refused, never followed
 * or read.  The key covers everything that can change what a provider
 * offers (command, arguments, environment, directory, endpoint,
 * headers), so a changed entry starts from nothing. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/own_file.h>
#include <vthost/services.h>
#include "cache.h"
#include "tools.h"

#define CACHE_SUBDIR "mcp-tools"
#define CACHE_VERSION 1
#define CACHE_MAX_BYTES (8u << 20)
/* A list no start has read or written for this long belongs to a
 * configuration that is gone (a test's scratch directory, an edited
 * entry): removed when another list is written. */
#define CACHE_KEEP_SECONDS (30L * 24 * 3600)

static char *g_dir; /* <cache>/mcp-tools, or NULL */

void cache_set_dir(char *dir)
{
    free(g_dir);
    g_dir = NULL;
    if (!dir)
        return;
    g_dir = mcpp_api->format("%s/" CACHE_SUBDIR, dir);
    free(dir); /* the host's cache_dir hands out malloc'd memory */
    if (g_dir && mkdir(g_dir, 0700) != 0 && errno != EEXIST) {
        free(g_dir);
        g_dir = NULL;
    }
    struct stat st;
    if (g_dir && (lstat(g_dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())) {
        mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN,
                      "%s is not a directory of this user: MCP provider tool lists are not "
                      "cached (remove it to get the cache back)",
                      g_dir);
        free(g_dir);
        g_dir = NULL;
    }
}

void cache_clear(void) { cache_set_dir(NULL); }

/* Two FNV-1a 64-bit hashes from different bases: 128 bits of key. */
typedef struct key_hash {
    uint64_t a, b;
} key_hash;

static void feed(key_hash *h, const char *s)
{
    const unsigned char *c = (const unsigned char *)(s ? s : "\x01");
    do {
        h->a = (h->a ^ *c) * 1099511628211ull;
        h->b = (h->b ^ *c) * 1099511628211ull;
    } while (*c++);
}

static void feed_list(key_hash *h, char **v)
{
    for (; v && *v; v++)
        feed(h, *v);
    feed(h, "\x02");
}

/* The configured environment only: the PATH and HOME a provider inherits
 * differ between the clients that start vthost (Codex passes its own
 * short PATH), and a key that took them in would miss the cache that
 * `vthost mcp tools NAME` filled from a shell. */
static void feed_env(key_hash *h, const provider *p)
{
    for (size_t i = 0; p->envp && i < p->env_configured && p->envp[i]; i++)
        feed(h, p->envp[i]);
    feed(h, "\x02");
}

static char *file_of(const provider *p)
{
    if (!g_dir)
        return NULL;
    key_hash h = {14695981039346656037ull, 0x84222325cbf29ce4ull};
    feed(&h, p->name);
    feed(&h, p->tp ? p->tp->name : "");
    feed_list(&h, p->argv);
    feed_env(&h, p);
    feed(&h, p->cwd);
    feed(&h, p->endpoint);
    feed_list(&h, p->headers);
    feed_list(&h, p->env_headers);
    feed(&h, p->api_key_env);
    feed(&h, p->protocol_version);
    return mcpp_api->format("%s/%016llx%016llx.json", g_dir, (unsigned long long)h.a,
                            (unsigned long long)h.b);
}

/* The file's text, or NULL when it is missing or not to be trusted. */
static char *read_trusted(const char *path)
{
    char *text = NULL;
    int rc = vt_own_file_read(path, 022, 0, CACHE_MAX_BYTES, &text, NULL);
    if (rc == VT_ERR_DENIED)
        mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN,
                      "%s is not a regular file of this user: ignored (remove it)", path);
    else if (rc == VT_OK)
        utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW); /* in use: not pruned */
    return text;
}

cJSON *cache_load(const provider *p)
{
    char *path = file_of(p);
    char *text = path ? read_trusted(path) : NULL;
    cJSON *doc = text ? cJSON_Parse(text) : NULL;
    free(text);
    free(path);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, "version");
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "provider"));
    cJSON *tools = cJSON_GetObjectItemCaseSensitive(doc, "tools");
    if (!cJSON_IsNumber(v) || v->valueint != CACHE_VERSION || !name || strcmp(name, p->name) != 0 ||
        !cJSON_IsArray(tools)) {
        cJSON_Delete(doc);
        return NULL;
    }
    tools = cJSON_DetachItemViaPointer(doc, tools);
    cJSON_Delete(doc);
    return tools;
}

static int write_all(int fd, const char *s, size_t len)
{
    while (len) {
        ssize_t n = write(fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

/* A new file beside `path`, renamed over it. */
static int replace_file(const char *path, const char *text)
{
    struct stat st;
    if (lstat(path, &st) == 0 && (!S_ISREG(st.st_mode) || st.st_uid != geteuid()))
        return -1; /* someone else's, or not a file: left alone */
    char *tmp = mcpp_api->format("%s.XXXXXX", path);
    int fd = tmp ? mkstemp(tmp) : -1; /* 0600 */
    int rc = fd < 0 ? -1 : 0;
    if (rc == 0)
        rc = fchmod(fd, 0600) == 0 && write_all(fd, text, strlen(text)) == 0 ? 0 : -1;
    if (fd >= 0 && close(fd) != 0)
        rc = -1;
    if (rc == 0 && rename(tmp, path) != 0)
        rc = -1;
    if (rc != 0 && fd >= 0)
        unlink(tmp);
    free(tmp);
    return rc;
}

/* Remove the lists of configurations not used for CACHE_KEEP_SECONDS. */
static void prune(void)
{
    DIR *d = opendir(g_dir);
    if (!d)
        return;
    time_t now = time(NULL);
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t n = strlen(e->d_name);
        struct stat st;
        if (n == 37 && strcmp(e->d_name + 32, ".json") == 0 &&
            fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
            st.st_uid == geteuid() && now - st.st_mtime > CACHE_KEEP_SECONDS)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

void cache_store(const provider *p, const cJSON *tools)
{
    cJSON *old = cache_load(p);
    int same = old && cJSON_Compare(old, tools, 1);
    cJSON_Delete(old);
    char *path = same ? NULL : file_of(p);
    if (!path)
        return;
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddNumberToObject(doc, "version", CACHE_VERSION);
    cJSON_AddStringToObject(doc, "provider", p->name);
    cJSON_AddItemToObject(doc, "tools", cJSON_Duplicate(tools, 1));
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    prune();
    if (!text || replace_file(path, text) != 0)
        mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN,
                      "cannot keep the tool list of MCP provider '%s' in %s: the next start "
                      "lists its tools only once it has started",
                      p->name, path);
    free(text);
    free(path);
}

void cache_prime(const vt_host_api *api, provider **providers, size_t count)
{
    const vt_host_data_v1 *hd = api->service_lookup(VT_HOST_DATA_SERVICE);
    char *dir = NULL;
    if (!hd || hd->struct_size < offsetof(vt_host_data_v1, cache_dir) + sizeof hd->cache_dir ||
        !hd->cache_dir || hd->cache_dir(&dir) != VT_OK)
        return;
    cache_set_dir(dir);
    for (size_t i = 0; i < count; i++) {
        provider *p = providers[i];
        cJSON *tools = p->state == PROV_DISABLED ? NULL : cache_load(p);
        if (tools)
            tools_sync(p, tools);
    }
}
