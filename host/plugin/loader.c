/* Plugin discovery and loading.  A module is read before any of its code
 * runs beyond the entry function: descriptor and ABI checks, tool checks,
 * dependencies; only then init. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/grow.h>
#include "cjson_lazy.h"
#include "loader.h"
#include "log.h"
#include "paths.h"
#include "registry.h"
#include "services.h"
#include "strutil.h"

static plugin_module **mods;
static size_t nmods, mods_cap;
static size_t next_order;
/* The table plugins' init receives (host_open passes it in). */
static const vt_host_api *host_table;

size_t loader_count(void) { return nmods; }
plugin_module *loader_at(size_t i) { return i < nmods ? mods[i] : NULL; }

plugin_module *loader_find(const char *stem)
{
    for (size_t i = 0; i < nmods; i++)
        if (strcmp(mods[i]->stem, stem) == 0)
            return mods[i];
    return NULL;
}

static void refuse(plugin_module *m, char *why)
{
    m->state = PLUGIN_REFUSED;
    free(m->refusal);
    m->refusal = why ? why : strdup("refused");
}

/* Only files nobody else can write may be loaded: a group- or
 * world-writable module or directory could be swapped under us. */
static char *unsafe_mode(const char *path, const struct stat *st)
{
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return str_printf("%s is group- or world-writable; refusing to load it "
                          "(chmod go-w %s)",
                          path, path);
    return NULL;
}

static int add_module(const char *dir, const char *name)
{
    size_t n = strlen(name);
    if (n <= 3 || strcmp(name + n - 3, ".so") != 0)
        return VT_OK;
    char *stem = strndup(name, n - 3);
    if (!stem)
        return VT_ERR_NOMEM;
    if (loader_find(stem)) { /* an earlier directory wins */
        free(stem);
        return VT_OK;
    }
    plugin_module *m = calloc(1, sizeof *m);
    if (!m || VT_GROW(&mods, &mods_cap, nmods + 1) != 0) {
        free(m);
        free(stem);
        return VT_ERR_NOMEM;
    }
    m->stem = stem;
    m->path = paths_join(dir, name);
    mods[nmods++] = m;
    struct stat st;
    if (!m->path || stat(m->path, &st) != 0)
        refuse(m, str_printf("cannot stat %s: %s", name, strerror(errno)));
    else if (!S_ISREG(st.st_mode))
        refuse(m, str_printf("%s is not a regular file", m->path));
    else {
        char *bad = unsafe_mode(m->path, &st);
        if (bad)
            refuse(m, bad);
    }
    return VT_OK;
}

int loader_scan(const char *const *dirs, size_t ndirs)
{
    for (size_t i = 0; i < ndirs; i++) {
        struct stat st;
        if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        char *bad = unsafe_mode(dirs[i], &st);
        if (bad) {
            host_log(VT_LOG_WARNING, NULL, "skipping plugin directory: %s", bad);
            free(bad);
            continue;
        }
        struct dirent **names;
        int n = scandir(dirs[i], &names, NULL, alphasort);
        for (int k = 0; k < n; k++) {
            int rc = add_module(dirs[i], names[k]->d_name);
            free(names[k]);
            if (rc != VT_OK) {
                for (int j = k + 1; j < n; j++)
                    free(names[j]);
                free(names);
                return rc;
            }
        }
        if (n >= 0)
            free(names);
    }
    return VT_OK;
}

/* The smallest descriptor and tool a v1 plugin may have been built with. */
#define MIN_PLUGIN_SIZE (offsetof(vt_plugin, fini) + sizeof(void (*)(void)))
#define MIN_TOOL_SIZE (offsetof(vt_tool, run) + sizeof(void (*)(void)))

static int tail_is_zero(const void *base, size_t known, size_t actual)
{
    const unsigned char *p = base;
    for (size_t i = known; i < actual; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Whether the descriptor is large enough to hold `member` (added after 1.0). */
#define DESC_HAS(d, member) ((d)->struct_size >= offsetof(vt_plugin, member) + sizeof((d)->member))

/* Plugin and host exchange cJSON trees, so both must agree on cJSON's
 * layout: a plugin built against another cJSON major is refused.  A
 * plugin older than ABI 1.2 records nothing and is not checked. */
static char *check_cjson(const vt_plugin *d)
{
    if (!DESC_HAS(d, cjson_version) || d->cjson_version == 0)
        return NULL;
    unsigned maj = d->cjson_version >> 16, min = (d->cjson_version >> 8) & 0xff,
             pat = d->cjson_version & 0xff;
    if (maj == CJSON_VERSION_MAJOR)
        return NULL;
    return str_printf("built against cJSON %u.%u.%u, but this host uses cJSON %d.%d.%d: "
                      "the JSON trees they share would be misread; rebuild the plugin "
                      "against cJSON %d.x",
                      maj, min, pat, CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH,
                      CJSON_VERSION_MAJOR);
}

char *loader_check_descriptor(const vt_plugin *d)
{
    if (!d)
        return strdup("vt_plugin_v1() returned NULL");
    if (d->struct_size < MIN_PLUGIN_SIZE)
        return str_printf("descriptor too small (%u bytes, at least %zu expected)", d->struct_size,
                          (size_t)MIN_PLUGIN_SIZE);
    if (d->abi_major != VT_ABI_MAJOR)
        return str_printf("ABI major version %u, this host speaks %u: rebuild the plugin "
                          "against this host's SDK",
                          d->abi_major, VT_ABI_MAJOR);
    if (d->abi_minor > VT_ABI_MINOR)
        return str_printf("built for ABI %u.%u, newer than this host's %u.%u: upgrade vthost",
                          d->abi_major, d->abi_minor, VT_ABI_MAJOR, VT_ABI_MINOR);
    if (d->struct_size > sizeof(vt_plugin) && !tail_is_zero(d, sizeof(vt_plugin), d->struct_size))
        return str_printf("descriptor is %u bytes with non-zero fields beyond the %zu this "
                          "host knows: it needs a newer host",
                          d->struct_size, sizeof(vt_plugin));
    char *cj = check_cjson(d);
    if (cj)
        return cj;
    if (d->sizeof_tool < MIN_TOOL_SIZE)
        return str_printf("tool entry size %u is smaller than the minimum %zu", d->sizeof_tool,
                          (size_t)MIN_TOOL_SIZE);
    if (!d->name || !*d->name)
        return strdup("descriptor has no name");
    if (!d->tools)
        return strdup("descriptor has no tools array");
    const unsigned char *p = (const unsigned char *)d->tools;
    for (size_t i = 0;; i++, p += d->sizeof_tool) {
        const vt_tool *t = (const vt_tool *)p;
        if (tail_is_zero(p, 0, d->sizeof_tool < sizeof(vt_tool) ? d->sizeof_tool : sizeof(vt_tool)))
            break;
        if (d->sizeof_tool > sizeof(vt_tool) && !tail_is_zero(p, sizeof(vt_tool), d->sizeof_tool))
            return str_printf("tool #%zu has non-zero fields beyond the %zu bytes this host "
                              "knows: it needs a newer host",
                              i, sizeof(vt_tool));
        if (i >= 65536)
            return strdup("more than 65536 tools, or a tools array without its "
                          "all-zero end entry");
        (void)t;
    }
    return loader_check_config_keys(d);
}

static void load_descriptor(plugin_module *m)
{
    if (m->desc) /* read already (loader_read_all) */
        return;
    cjson_lazy_open(); /* the plugin's cJSON references find the host's copy */
    dlerror();
    m->handle = dlopen(m->path, RTLD_NOW | RTLD_LOCAL);
    if (!m->handle) {
        const char *e = dlerror();
        refuse(m, str_printf("cannot load: %s", e ? e : "dlopen failed"));
        return;
    }
    vt_plugin_entry_fn entry;
    *(void **)&entry = dlsym(m->handle, VT_PLUGIN_ENTRY_SYMBOL);
    if (!entry) {
        refuse(m, str_printf("not a vthost plugin: no %s symbol (ABI major %d)",
                             VT_PLUGIN_ENTRY_SYMBOL, VT_ABI_MAJOR));
        return;
    }
    m->desc = entry();
    char *why = loader_check_descriptor(m->desc);
    if (why) {
        refuse(m, why);
        return;
    }
    char *err = NULL;
    if (registry_add_module(m, &err) != VT_OK) {
        refuse(m, err);
        return;
    }
}

/* A requirement is met once the plugin is initialised, or the service
 * published.  Returns 1 met, 0 not yet, -1 never (refused or absent). */
static int requirement_met(const char *req)
{
    if (strncmp(req, "service:", 8) == 0)
        return services_lookup(req + 8) ? 1 : 0;
    plugin_module *dep = loader_find(req);
    if (!dep || dep->state == PLUGIN_REFUSED)
        return -1;
    return dep->initialized ? 1 : 0;
}

static int try_init(plugin_module *m)
{
    const char *const *req = m->desc->requires;
    for (; req && *req; req++)
        if (requirement_met(*req) != 1)
            return 0;
    /* The plugin's API pointer is set before any of its hooks can run. */
    if (DESC_HAS(m->desc, api_slot) && m->desc->api_slot)
        *m->desc->api_slot = host_table;
    if (m->desc->init) {
        char *err = NULL;
        int rc = m->desc->init(host_table, &err);
        if (rc != VT_OK) {
            m->init_status = rc;
            registry_remove_module(m);
            refuse(m, str_printf("init failed (%d): %s", rc, err ? err : "no message"));
            free(err);
            return 1;
        }
        free(err);
    }
    m->initialized = 1;
    m->state = PLUGIN_LOADED;
    m->load_order = next_order++;
    registry_refresh_descriptions(m);
    return 1;
}

void loader_leave_unopened(plugin_module *m)
{
    if (m->state == PLUGIN_FOUND && !m->desc)
        m->state = PLUGIN_UNOPENED;
}

int loader_read_all(void)
{
    /* Profile modules first, so that a stray module can never take a
     * profile tool's name away from it. */
    for (int pass = 1; pass >= 0; pass--)
        for (size_t i = 0; i < nmods; i++)
            if (mods[i]->state == PLUGIN_FOUND && mods[i]->in_profile == pass)
                load_descriptor(mods[i]);
    return VT_OK;
}

int loader_load_all(const vt_host_api *api)
{
    host_table = api;
    loader_read_all();
    /* Initialise in dependency order: repeat until nothing moves. */
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t i = 0; i < nmods; i++)
            if (mods[i]->state == PLUGIN_FOUND && try_init(mods[i]))
                progress = 1;
    }
    for (size_t i = 0; i < nmods; i++) {
        plugin_module *m = mods[i];
        if (m->state != PLUGIN_FOUND)
            continue;
        const char *missing = NULL;
        for (const char *const *req = m->desc->requires; req && *req; req++)
            if (requirement_met(*req) != 1) {
                missing = *req;
                break;
            }
        registry_remove_module(m);
        if (missing && strncmp(missing, "service:", 8) == 0)
            refuse(m, str_printf("missing required service '%s' (no loaded plugin publishes it)",
                                 missing + 8));
        else
            refuse(m, str_printf("missing required plugin '%s' (install it or remove %s)",
                                 missing ? missing : "?", m->path));
    }
    return VT_OK;
}

void loader_fini_all(void)
{
    for (size_t k = next_order; k-- > 0;)
        for (size_t i = 0; i < nmods; i++)
            if (mods[i]->initialized && mods[i]->load_order == k && mods[i]->desc->fini)
                mods[i]->desc->fini();
}

void loader_unmap_all(int keep_mapped)
{
    for (size_t i = 0; i < nmods; i++) {
        plugin_module *m = mods[i];
        /* Keep modules mapped when running under a leak checker would
         * lose their symbols; dlclose is safe here: fini has run. */
        if (m->handle && !keep_mapped && !getenv("VTHOST_NO_DLCLOSE"))
            dlclose(m->handle);
        free(m->stem);
        free(m->path);
        free(m->refusal);
        free(m);
    }
    free(mods);
    mods = NULL;
    nmods = mods_cap = 0;
    next_order = 0;
}
