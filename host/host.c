/* Host lifecycle: workspace, configuration, profile, plugins. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "guard.h"
#include "host.h"
#include "loader.h"
#include "paths.h"
#include "permission.h"
#include "profile.h"
#include "registry.h"
#include "services.h"
#include "toml_reader.h"
#include "strutil.h"

static struct {
    char *workspace;
    char *exe_dir;
    cJSON *config;
    char *config_path;
    char *default_agent;
    profile prof;
    char **plugin_dirs;
    size_t nplugin_dirs;
    int listing_open;   /* list_only: open for listing despite the profile */
} H;

int host_listing_open(void) { return H.listing_open; }

const char *host_workspace(void) { return H.workspace; }
const cJSON *host_config(void) { return H.config; }
const char *host_config_path(void) { return H.config_path; }
const char *host_profile_name(void) { return H.prof.name ? H.prof.name : "default"; }
const char *host_default_agent(void) { return H.default_agent; }
const char *host_exe_dir(void) { return H.exe_dir; }

static char *find_exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return strdup(".");
    buf[n] = '\0';
    return strdup(dirname(buf));
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* --config, else the workspace's vtcode.toml, else the user's. */
static int load_config(const char *explicit_path, char **err)
{
    char *path = NULL;
    if (explicit_path) {
        path = strdup(explicit_path);
    } else {
        char *ws = paths_join(H.workspace, "vtcode.toml");
        if (ws && file_exists(ws)) {
            path = ws;
        } else {
            free(ws);
            const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
            char *user = xdg && *xdg ? str_printf("%s/vtcode/vtcode.toml", xdg)
                         : home     ? str_printf("%s/.config/vtcode/vtcode.toml", home)
                                    : NULL;
            if (user && file_exists(user))
                path = user;
            else
                free(user);
        }
    }
    if (!path) {
        H.config = cJSON_CreateObject();
        return H.config ? VT_OK : VT_ERR_NOMEM;
    }
    int rc = toml_read_file(path, &H.config, err);
    if (rc != VT_OK) {
        free(path);
        return rc;
    }
    H.config_path = path;
    return VT_OK;
}

/* Keys the host itself reads; a wrong type is an error, never ignored. */
static int check_host_keys(char **err)
{
    const char *file = H.config_path ? H.config_path : "(config)";
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(H.config, "tools");
    if (tools && !cJSON_IsObject(tools)) {
        *err = str_printf("%s: key 'tools' must be a table", file);
        return VT_ERR_INVALID;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(tools, "profile");
    if (p && !cJSON_IsString(p)) {
        *err = str_printf("%s: key 'tools.profile' must be a string (\"default\" or \"advanced\")", file);
        return VT_ERR_INVALID;
    }
    const cJSON *agent = cJSON_GetObjectItemCaseSensitive(H.config, "agent");
    if (agent && !cJSON_IsObject(agent)) {
        *err = str_printf("%s: key 'agent' must be a table", file);
        return VT_ERR_INVALID;
    }
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(agent, "shell_prompt_profile");
    if (sp && (!cJSON_IsString(sp) || (strcmp(sp->valuestring, "auto") != 0 &&
                                       strcmp(sp->valuestring, "unix_like") != 0 &&
                                       strcmp(sp->valuestring, "powershell") != 0))) {
        *err = str_printf("%s: key 'agent.shell_prompt_profile' must be \"auto\", \"unix_like\" "
                   "or \"powershell\"", file);
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

static int add_dir(const char *d)
{
    if (!d || !*d)
        return VT_OK;
    char **g = realloc(H.plugin_dirs, (H.nplugin_dirs + 1) * sizeof *g);
    if (!g)
        return VT_ERR_NOMEM;
    H.plugin_dirs = g;
    char *abs = realpath(d, NULL);
    for (size_t i = 0; abs && i < H.nplugin_dirs; i++)
        if (strcmp(H.plugin_dirs[i], abs) == 0) {
            free(abs);
            return VT_OK;
        }
    g[H.nplugin_dirs] = abs ? abs : strdup(d);
    H.nplugin_dirs++;
    return VT_OK;
}

static int plugin_dirs_init(const host_options *o)
{
    char *own = str_printf("%s/../%s", H.exe_dir, VTHOST_PLUGIN_SUBDIR);
    int rc = add_dir(own);
    free(own);
    for (size_t i = 0; rc == VT_OK && i < o->plugin_dir_count; i++)
        rc = add_dir(o->plugin_dirs[i]);
    const char *env = getenv("VTHOST_PLUGIN_PATH");
    if (env && rc == VT_OK) {
        char *copy = strdup(env), *save = NULL;
        for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t && rc == VT_OK;
             t = strtok_r(NULL, ":", &save))
            rc = add_dir(t);
        free(copy);
    }
    return rc;
}

static char *searched_dirs(void)
{
    size_t len = 1;
    for (size_t i = 0; i < H.nplugin_dirs; i++)
        len += strlen(H.plugin_dirs[i]) + 2;
    char *s = calloc(1, len);
    for (size_t i = 0; s && i < H.nplugin_dirs; i++) {
        if (i)
            strcat(s, ", ");
        strcat(s, H.plugin_dirs[i]);
    }
    return s;
}

/* Every module the profile names must be present before anything loads. */
static int check_profile_modules(char **err)
{
    char *missing = NULL;
    char *packages = NULL;
    for (size_t i = 0; i < H.prof.nmodules; i++) {
        plugin_module *m = loader_find(H.prof.modules[i]);
        if (m) {
            m->in_profile = 1;
            continue;
        }
        const char *pkg = H.prof.packages[i] ? H.prof.packages[i] : "(unknown package)";
        char *a = str_printf("%s%s%s.so", missing ? missing : "", missing ? ", " : "",
                      H.prof.modules[i]);
        char *b = str_printf("%s%s%s", packages ? packages : "", packages ? " " : "", pkg);
        free(missing);
        free(packages);
        missing = a;
        packages = b;
    }
    if (!missing)
        return VT_OK;
    char *dirs = searched_dirs();
    *err = str_printf("profile '%s' needs plugin module(s) %s, not installed. Searched: %s. "
               "Install the package(s): %s",
               H.prof.name, missing, dirs && *dirs ? dirs : "(no plugin directories)",
               packages);
    free(dirs);
    free(missing);
    free(packages);
    return VT_ERR_NOT_FOUND;
}

static int check_profile_loaded(char **err)
{
    for (size_t i = 0; i < H.prof.nmodules; i++) {
        plugin_module *m = loader_find(H.prof.modules[i]);
        if (m && m->state != PLUGIN_LOADED) {
            *err = str_printf("profile '%s' needs plugin module %s, which was refused: %s",
                       H.prof.name, m->path, m->refusal ? m->refusal : "unknown reason");
            return VT_ERR_INVALID;
        }
    }
    return VT_OK;
}

int host_open(const host_options *o, char **err)
{
    *err = NULL;
    memset(&H, 0, sizeof H);
    host_set_log_level(o->log_level);
    H.exe_dir = find_exe_dir();
    const char *ws = o->workspace ? o->workspace : ".";
    H.workspace = realpath(ws, NULL);
    struct stat st;
    if (!H.workspace || stat(H.workspace, &st) != 0 || !S_ISDIR(st.st_mode)) {
        *err = str_printf("workspace '%s' is not a directory: %s", ws, strerror(errno ? errno : ENOTDIR));
        host_close();
        return VT_ERR_NOT_FOUND;
    }
    if (o->agent)
        H.default_agent = strdup(o->agent);
    int rc = load_config(o->config_path, err);
    if (rc == VT_OK)
        rc = check_host_keys(err);
    const char *pname = o->profile;
    if (!pname) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(H.config, "tools"), "profile");
        pname = cJSON_IsString(p) ? p->valuestring : "default";
    }
    char *profile_dir = str_printf("%s/../%s", H.exe_dir, VTHOST_PROFILE_SUBDIR);
    const char *pdirs[] = {profile_dir};
    if (rc == VT_OK)
        rc = profile_load(pname, pdirs, 1, &H.prof, err);
    free(profile_dir);
    if (rc == VT_OK)
        rc = plugin_dirs_init(o);
    if (rc == VT_OK)
        rc = loader_scan((const char *const *)H.plugin_dirs, H.nplugin_dirs);
    /* list_only: the profile's own failure is kept for the end, so that
     * `vthost plugins` can still show what was found and why. */
    char *profile_err = NULL;
    if (rc == VT_OK)
        rc = check_profile_modules(err);
    if (rc != VT_OK && o->list_only && *err) {
        profile_err = *err;
        *err = NULL;
        rc = VT_OK;
    }
    if (rc == VT_OK)
        rc = guard_init(H.config, err);
    if (rc == VT_OK)
        rc = permission_init(H.config, H.config_path, H.default_agent, err);
    if (rc == VT_OK)
        rc = loader_load_all();
    if (rc == VT_OK && !profile_err)
        rc = check_profile_loaded(err);
    if (rc != VT_OK && o->list_only && *err && !profile_err) {
        profile_err = *err;
        *err = NULL;
        rc = VT_OK;
    }
    if (rc == VT_OK && !profile_err)
        rc = registry_set_public((const char *const *)H.prof.tools, H.prof.ntools, err);
    if (rc == VT_OK && profile_err) {
        *err = profile_err;
        H.listing_open = 1;
        return VT_ERR_NOT_FOUND;
    }
    free(profile_err);
    if (rc != VT_OK) {
        if (!*err)
            *err = str_printf("cannot start (error %d)", rc);
        host_close();
    }
    return rc;
}

void host_close(void)
{
    loader_unload_all();
    registry_clear();
    services_clear();
    permission_fini();
    guard_fini();
    profile_free(&H.prof);
    cJSON_Delete(H.config);
    for (size_t i = 0; i < H.nplugin_dirs; i++)
        free(H.plugin_dirs[i]);
    free(H.plugin_dirs);
    free(H.workspace);
    free(H.exe_dir);
    free(H.config_path);
    free(H.default_agent);
    memset(&H, 0, sizeof H);
}

size_t host_plugin_dir_count(void) { return H.nplugin_dirs; }
const char *host_plugin_dir(size_t i) { return i < H.nplugin_dirs ? H.plugin_dirs[i] : NULL; }
