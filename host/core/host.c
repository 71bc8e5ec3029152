/* Host lifecycle: workspace, configuration, profile, plugins. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "api.h"
#include "call_messages.h"
#include "call_ops.h"
#include "config_keys.h"
#include "config_layers.h"
#include "guard.h"
#include "handles.h"
#include "host.h"
#include "host_data.h"
#include "loader.h"
#include "paths.h"
#include "perm_trust.h"
#include "permission.h"
#include "profile.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "services.h"
#include "shell_profile.h"
#include "spool_dir.h"
#include "strbuf.h"
#include "strutil.h"
#include "toml_reader.h"
#include "ws_service.h"

static struct host_state {
    char *workspace;
    char *exe_dir;
    cJSON *config;
    char *config_path;
    char *default_agent;
    profile prof;
    char **plugin_dirs;
    size_t nplugin_dirs, cap_plugin_dirs;
    /* configuration layers (user, workspace, --config), read apart */
    cJSON *layer_tree[3];
    char *layer_path[3];
    const char *layer_name[3];
    size_t nlayers;
    size_t nunopened; /* modules left closed (profile.unopened) */
    int trusted;
    const char *trust_reason;
    int listing_open; /* list_only: open for listing despite the profile */
    char *ignored;    /* keys of an untrusted workspace left unread */
} the_host;

int host_listing_open(void) { return the_host.listing_open; }

const char *host_workspace(void) { return the_host.workspace; }
const cJSON *host_config(void) { return the_host.config; }
const vt_host_api *host_api(void) { return api_table(); }
const char *host_profile_name(void) { return the_host.prof.name ? the_host.prof.name : "default"; }
const profile *host_profile(void) { return &the_host.prof; }

static char *find_exe_dir(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return strdup(".");
    buf[n] = '\0';
    return strdup(dirname(buf));
}

/* A workspace policy file that must not be read: a link, or one a command
 * made that could not be set aside. */
static int check_workspace_policy(const layer_files *f, char **err)
{
    if (f->ws && f->ws_link) {
        /* a link lets a command (or the repository) make the policy any
         * file at all, and change it behind the sandbox's read-only mount */
        *err = str_printf("%s is a symbolic link: a workspace's policy file is never read "
                          "through a link. Replace it with a regular file, or name it with "
                          "--config if you mean to use its target",
                          f->ws);
        return VT_ERR_INVALID;
    }
    const char *vt_refused = paths_vtcode_refusal(the_host.workspace);
    if (vt_refused) /* said once, at start; each reader and writer refuses on its own */
        host_log(VT_LOG_WARNING, "config",
                 "%s/.vtcode is %s, not a plain directory of the workspace: it is refused as a "
                 "policy source and never followed (its agents are not read) and vthost writes "
                 "nothing through it (spool, audit log, set-aside files). Make it a plain "
                 "directory",
                 the_host.workspace, vt_refused);
    char *refused = f->ws ? perm_trust_refused(f->ws) : NULL;
    if (refused) {
        /* fail closed: a command made it and it could not be set aside */
        *err = str_printf("%s was made by a command and could not be set aside (recorded in "
                          "%s): it is not applied. Review it and remove it, or run `vthost "
                          "trust` in this workspace after review",
                          f->ws, refused);
        free(refused);
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

static int read_layers(const layer_files *f, char **err)
{
    static const char *const names[] = {"user", "workspace", "config"};
    const char *paths[] = {f->user, f->ws, f->named};
    if (f->named && config_same_file(f->named, f->user))
        paths[0] = NULL;
    int rc = VT_OK;
    for (int i = 0; i < 3 && rc == VT_OK; i++) {
        if (!paths[i])
            continue;
        cJSON *t = NULL;
        rc = toml_read_file(paths[i], &t, err);
        if (rc == VT_ERR_NOT_FOUND && paths[i] == f->named) {
            free(*err);
            *err = str_printf("--config %s: no such file. Name an existing vtcode.toml, or "
                              "leave --config out to use the user's and the workspace's",
                              f->named);
        }
        if (rc == VT_OK && !(the_host.layer_path[the_host.nlayers] = strdup(paths[i]))) {
            cJSON_Delete(t);
            rc = VT_ERR_NOMEM;
        }
        if (rc == VT_OK) {
            the_host.layer_tree[the_host.nlayers] = t;
            the_host.layer_name[the_host.nlayers] = names[i];
            the_host.nlayers++;
        }
    }
    return rc;
}

/* Trust: the user's own list, or an explicit --config. */
static int decide_trust(int named_ws, char **err)
{
    the_host.trusted = 0;
    the_host.trust_reason = "not trusted: not in the user's [trust] workspaces (vthost trust)";
    int rc = VT_OK;
    for (size_t i = 0; rc == VT_OK && i < the_host.nlayers; i++)
        rc = perm_trust_check(the_host.layer_tree[i], the_host.layer_path[i], err);
    if (rc == VT_OK && named_ws) {
        the_host.trusted = 1;
        the_host.trust_reason = "trusted: its vtcode.toml is named by --config";
    }
    for (size_t i = 0; rc == VT_OK && i < the_host.nlayers && !the_host.trusted; i++)
        if (strcmp(the_host.layer_name[i], "user") == 0 &&
            perm_trust_listed(the_host.layer_tree[i], the_host.workspace)) {
            the_host.trusted = 1;
            the_host.trust_reason = "trusted: listed in the user's [trust] workspaces";
        }
    return rc;
}

/* What the host and the plugins see: the layers merged, an untrusted
 * workspace's through its allow-list, permissions left to the engine. */
static int merge_layers(void)
{
    cJSON_Delete(the_host.config); /* built again once plugins declared keys */
    free(the_host.ignored);
    the_host.ignored = NULL;
    the_host.config = cJSON_CreateObject();
    if (!the_host.config)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < the_host.nlayers; i++) {
        int untrusted = strcmp(the_host.layer_name[i], "workspace") == 0 && !the_host.trusted;
        cJSON *view = untrusted ? config_untrusted_view(the_host.layer_tree[i], the_host.config,
                                                        &the_host.ignored)
                                : cJSON_Duplicate(the_host.layer_tree[i], 1);
        if (!view)
            return VT_ERR_NOMEM;
        /* each layer's permissions are the engine's, never merged */
        cJSON_DeleteItemFromObjectCaseSensitive(view, "permissions");
        the_host.config = config_merge(the_host.config, view);
        cJSON_Delete(view);
        free(the_host.config_path); /* messages name the strongest file */
        the_host.config_path = strdup(the_host.layer_path[i]);
    }
    config_layer layers[3];
    for (size_t i = 0; i < the_host.nlayers; i++)
        layers[i] =
            (config_layer){the_host.layer_tree[i],
                           strcmp(the_host.layer_name[i], "workspace") != 0 || the_host.trusted};
    return config_merge_requirements(the_host.config, layers, the_host.nlayers);
}

/* The layers, lowest precedence first: the user's vtcode.toml, the
 * workspace's, --config.  Each is read on its own (for the permission
 * engine, which keeps their rules apart); the host and the plugins see
 * them merged. */
static int load_config(const char *explicit_path, char **err)
{
    layer_files f = {0};
    config_find_layer_files(the_host.workspace, explicit_path, &f);
    int rc = check_workspace_policy(&f, err);
    if (rc == VT_OK)
        rc = read_layers(&f, err);
    if (rc == VT_OK)
        rc = decide_trust(f.named_ws, err);
    if (rc == VT_OK)
        rc = merge_layers();
    if (!the_host.config) /* `vthost plugins` goes on after a failure: plugins see {} */
        the_host.config = cJSON_CreateObject();
    free(f.user);
    free(f.ws);
    return rc;
}

static int check_host_keys(char **err)
{
    int rc = VT_OK;
    for (size_t i = 0; rc == VT_OK && i < the_host.nlayers; i++)
        rc = config_check_keys(the_host.layer_tree[i], the_host.layer_path[i], err);
    return rc;
}

static int add_dir(const char *d)
{
    if (!d || !*d)
        return VT_OK;
    if (VT_GROW(&the_host.plugin_dirs, &the_host.cap_plugin_dirs, the_host.nplugin_dirs + 1) != 0)
        return VT_ERR_NOMEM;
    char *abs = realpath(d, NULL);
    for (size_t i = 0; abs && i < the_host.nplugin_dirs; i++)
        if (strcmp(the_host.plugin_dirs[i], abs) == 0) {
            free(abs);
            return VT_OK;
        }
    char *dir = abs ? abs : strdup(d);
    if (!dir)
        return VT_ERR_NOMEM;
    the_host.plugin_dirs[the_host.nplugin_dirs++] = dir;
    return VT_OK;
}

static int plugin_dirs_init(const host_options *o, char **err)
{
    char *own = str_printf("%s/../%s", the_host.exe_dir, VTHOST_PLUGIN_SUBDIR);
    int rc = add_dir(own);
    free(own);
    for (size_t i = 0; rc == VT_OK && i < o->plugin_dir_count; i++) {
        /* named on the command line: a typo must not pass unnoticed (the
         * directories of VTHOST_PLUGIN_PATH may come and go) */
        struct stat st;
        const char *d = o->plugin_dirs[i];
        int e = stat(d, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
        if (e) {
            *err = str_printf("--plugin-dir '%s' is not a directory: %s. Name the directory "
                              "that holds the plugin modules (NAME.so)",
                              d, strerror(e));
            return VT_ERR_NOT_FOUND;
        }
        rc = add_dir(d);
    }
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
    vt_strbuf sb = VT_STRBUF_INIT;
    for (size_t i = 0; i < the_host.nplugin_dirs; i++)
        strbuf_printf(&sb, "%s%s", i ? ", " : "", the_host.plugin_dirs[i]);
    return strbuf_take(&sb);
}

/* Every module the profile names must be present before anything loads. */
static int check_profile_modules(char **err)
{
    char *missing = NULL;
    char *packages = NULL;
    for (size_t i = 0; i < the_host.prof.nmodules; i++) {
        plugin_module *m = loader_find(the_host.prof.modules[i]);
        if (m) {
            m->in_profile = 1;
            continue;
        }
        const char *pkg =
            the_host.prof.packages[i] ? the_host.prof.packages[i] : "(unknown package)";
        char *a = str_printf("%s%s%s.so", missing ? missing : "", missing ? ", " : "",
                             the_host.prof.modules[i]);
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
                      the_host.prof.name, missing, dirs && *dirs ? dirs : "(no plugin directories)",
                      packages);
    free(dirs);
    free(missing);
    free(packages);
    return VT_ERR_NOT_FOUND;
}

static int check_profile_loaded(char **err, int *input)
{
    for (size_t i = 0; i < the_host.prof.nmodules; i++) {
        plugin_module *m = loader_find(the_host.prof.modules[i]);
        if (m && m->state != PLUGIN_LOADED) {
            /* VT_ERR_INVALID from init: the plugin refused its settings */
            *input = m->init_status == VT_ERR_INVALID;
            *err =
                str_printf("profile '%s' needs plugin module %s, which was refused: %s",
                           the_host.prof.name, m->path, m->refusal ? m->refusal : "unknown reason");
            return VT_ERR_INVALID;
        }
    }
    return VT_OK;
}

/* ---- host_open as a list of steps ---------------------------------------- */

/* One start on its way through the steps. */
typedef struct host_start {
    const host_options *o;
    char **err;
    int input;  /* the failing step's cause is what the user wrote */
    char *held; /* list_only: the profile's failure, kept for the end */
    int held_input;
} host_start;

/* Set when host_open failed on what the user wrote (CLI exit 2). */
static int config_failed;

int host_config_failed(void) { return config_failed; }

static int step_workspace(host_start *s)
{
    const char *ws = s->o->workspace ? s->o->workspace : ".";
    the_host.workspace = realpath(ws, NULL);
    int e = the_host.workspace ? 0 : errno ? errno : ENOENT;
    struct stat st;
    if (the_host.workspace && (stat(the_host.workspace, &st) != 0 || !S_ISDIR(st.st_mode)))
        e = ENOTDIR;
    if (e) {
        *s->err = str_printf("workspace '%s' is not a directory: %s. Name the project directory "
                             "with --workspace DIR, or start vthost in it",
                             ws, strerror(e));
        return VT_ERR_NOT_FOUND;
    }
    /* one it cannot list or enter would fail every call, one by one */
    if (access(the_host.workspace, R_OK | X_OK) != 0) {
        *s->err = str_printf("workspace '%s' cannot be read: %s. Name a directory this user may "
                             "read and enter with --workspace DIR, or change its permissions",
                             ws, strerror(errno));
        return VT_ERR_DENIED;
    }
    if (s->o->agent && !(the_host.default_agent = strdup(s->o->agent)))
        return VT_ERR_NOMEM;
    return VT_OK;
}

static int step_config(host_start *s)
{
    int rc = load_config(s->o->config_path, s->err);
    if (rc == VT_OK)
        rc = check_host_keys(s->err);
    if (rc == VT_OK) /* [tools.spool]; old spool files go at start */
        rc = spool_configure(the_host.workspace, the_host.config, the_host.config_path, s->err);
    call_set_workspace(the_host.workspace);
    api_bind(the_host.workspace, the_host.config);
    return rc;
}

static int step_profile(host_start *s)
{
    const char *pname = s->o->profile;
    if (!pname) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(the_host.config, "tools"), "profile");
        pname = cJSON_IsString(p) ? p->valuestring : "default";
    }
    char *profile_dir = str_printf("%s/../%s", the_host.exe_dir, VTHOST_PROFILE_SUBDIR);
    const char *pdirs[] = {profile_dir};
    int rc = profile_load(pname, pdirs, 1, &the_host.prof, s->err);
    free(profile_dir);
    if (rc != VT_OK)
        return rc;
    msg_set_profile_hints(the_host.prof.deferred_hint, profile_listing);
    const char *const *allow[3]; /* the embedded agent's policy is profile data */
    for (int i = 0; i < 3; i++)
        allow[i] = (const char *const *)the_host.prof.approval[i];
    permission_set_embedded_policy(allow);
    return VT_OK;
}

static int step_plugin_dirs(host_start *s) { return plugin_dirs_init(s->o, s->err); }

static int step_scan(host_start *s)
{
    (void)s;
    return loader_scan((const char *const *)the_host.plugin_dirs, the_host.nplugin_dirs);
}

static int step_profile_modules(host_start *s) { return check_profile_modules(s->err); }

/* Modules the profile leaves closed (their tools are gated to other
 * profiles); `vthost plugins` opens everything it lists. */
static int step_unopened(host_start *s)
{
    for (size_t i = 0; !s->o->list_only && i < the_host.prof.nunopened; i++) {
        plugin_module *m = loader_find(the_host.prof.unopened[i]);
        if (m && !m->in_profile) {
            loader_leave_unopened(m);
            the_host.nunopened++;
        }
    }
    return VT_OK;
}

/* descriptors first: the permission rules depend on what tools declare */
static int step_descriptors(host_start *s)
{
    (void)s;
    return loader_read_all();
}

/* An untrusted workspace's view again, with the keys the plugins declare
 * (before: the host's only); no plugin has seen the configuration yet. */
static int step_declared_keys(host_start *s)
{
    (void)s;
    int rc = config_keys_collect();
    if (rc == VT_OK && !the_host.trusted)
        rc = merge_layers();
    api_bind(the_host.workspace, the_host.config);
    return rc;
}

static int step_guard(host_start *s)
{
    return guard_init(the_host.config, the_host.workspace, s->err);
}

static int step_approval(host_start *s)
{
    if (permission_set_approval(s->o->approval) == VT_OK)
        return VT_OK;
    *s->err =
        str_printf("--approval must be ask, sandboxed or read-only, not '%s'", s->o->approval);
    return VT_ERR_INVALID;
}

static int step_permissions(host_start *s)
{
    perm_layer layers[3];
    for (size_t i = 0; i < the_host.nlayers; i++)
        layers[i] =
            (perm_layer){the_host.layer_name[i], the_host.layer_path[i], the_host.layer_tree[i],
                         strcmp(the_host.layer_name[i], "workspace") != 0 || the_host.trusted};
    return permission_init_layers(layers, the_host.nlayers, the_host.default_agent,
                                  the_host.workspace, the_host.trusted, the_host.trust_reason,
                                  s->err);
}

static int step_sandbox_preset(host_start *s)
{
    return config_apply_approval(the_host.config, s->err);
}

static int step_ws_service(host_start *s)
{
    int rc = host_data_publish();
    return rc || s->o->list_only
               ? rc
               : ws_service_open(the_host.workspace, s->o->serve, the_host.config, s->err);
}

static int step_load(host_start *s)
{
    (void)s;
    return loader_load_all(api_table());
}

static int step_profile_loaded(host_start *s) { return check_profile_loaded(s->err, &s->input); }

static int step_closed_tools(host_start *s)
{
    (void)s;
    permission_set_closed_tools(the_host.prof.unopened_names,
                                the_host.nunopened ? the_host.prof.nunopened_names : 0);
    return VT_OK;
}

static int step_validate_tools(host_start *s) { return permission_validate_tools(s->err); }

static int step_public(host_start *s)
{
    return registry_set_public((const char *const *)the_host.prof.tools, the_host.prof.ntools,
                               s->err);
}

enum {
    STEP_INPUT = 1,  /* a failure is a mistake in what the user wrote */
    STEP_HOLD = 2,   /* list_only: a failure up to here is kept for the end */
    STEP_UNHELD = 4, /* skipped once a failure is held */
};
static const struct open_step {
    int (*run)(host_start *s);
    unsigned flags;
} open_steps[] = {
    {step_config, STEP_INPUT},
    {step_profile, STEP_INPUT},
    {step_plugin_dirs, STEP_INPUT},
    {step_scan, 0},
    {step_profile_modules, STEP_HOLD},
    {step_unopened, 0},
    {step_descriptors, 0},
    {step_declared_keys, 0},
    {step_guard, STEP_INPUT},
    {step_approval, STEP_INPUT},
    {step_permissions, STEP_INPUT},
    {step_sandbox_preset, STEP_INPUT},
    {step_ws_service, 0},
    {step_load, 0},
    {step_profile_loaded, STEP_HOLD | STEP_UNHELD},
    {step_closed_tools, 0},
    {step_validate_tools, STEP_INPUT | STEP_UNHELD},
    {step_public, STEP_UNHELD},
};

/* Runs the steps until one fails; with list_only, a failure up to a hold
 * point is kept and the steps go on, so that `vthost plugins` can still
 * show what was found and why. */
static int run_open_steps(host_start *s)
{
    int rc = VT_OK;
    for (size_t i = 0; i < sizeof open_steps / sizeof *open_steps; i++) {
        const struct open_step *st = &open_steps[i];
        if (rc == VT_OK && !(s->held && (st->flags & STEP_UNHELD))) {
            s->input = 0;
            rc = st->run(s);
            s->input |= rc != VT_OK && (st->flags & STEP_INPUT) && rc != VT_ERR_NOMEM;
        }
        if (rc != VT_OK && (st->flags & STEP_HOLD) && s->o->list_only && *s->err && !s->held) {
            s->held = *s->err;
            s->held_input = s->input;
            *s->err = NULL;
            rc = VT_OK;
        }
    }
    return rc;
}

int host_open(const host_options *o, char **err)
{
    *err = NULL;
    memset(&the_host, 0, sizeof the_host);
    host_set_log_level(o->log_level);
    the_host.exe_dir = find_exe_dir();
    host_start s = {.o = o, .err = err};
    int rc = step_workspace(&s);
    s.input = rc != VT_OK && rc != VT_ERR_NOMEM;
    if (rc == VT_OK)
        rc = run_open_steps(&s);
    config_failed = 0;
    if (rc == VT_OK && s.held) {
        *err = s.held;
        config_failed = s.held_input;
        the_host.listing_open = 1;
        return VT_ERR_NOT_FOUND;
    }
    free(s.held);
    if (rc == VT_OK)
        return VT_OK;
    config_failed = s.input;
    if (!*err)
        *err = str_printf("cannot start (error %d)", rc);
    host_close();
    return rc;
}

static void close_host(int at_exit)
{
    registry_dynamic_reset(); /* its hooks point into the modules */
    loader_fini_all();
    config_keys_reset(); /* it points into the modules */
    /* a hook still running on a thread of its own returns at once now
     * that its plugin's fini ran; it must not find its code unmapped */
    registry_dynamic_quiesce();
    loader_unmap_all(at_exit);
    ws_service_close();
    call_set_workspace(NULL);
    api_bind(NULL, NULL);
    registry_clear();
    services_clear();
    permission_fini();
    guard_fini();
    handles_reset();
    permission_set_embedded_policy(NULL); /* it pointed into the_host.prof */
    permission_set_closed_tools(NULL, 0); /* so did this */
    msg_set_profile_hints(NULL, NULL);
    profile_free(&the_host.prof);
    cJSON_Delete(the_host.config);
    for (size_t i = 0; i < the_host.nlayers; i++) {
        cJSON_Delete(the_host.layer_tree[i]);
        free(the_host.layer_path[i]);
    }
    for (size_t i = 0; i < the_host.nplugin_dirs; i++)
        free(the_host.plugin_dirs[i]);
    free(the_host.plugin_dirs);
    free(the_host.workspace);
    free(the_host.exe_dir);
    free(the_host.config_path);
    free(the_host.ignored);
    free(the_host.default_agent);
    memset(&the_host, 0, sizeof the_host);
}

void host_close(void) { close_host(0); }

/* Sanitizer builds still dlclose at exit: LeakSanitizer then never walks
 * the thread-local storage of libraries the modules opened (GCC 12's
 * tracer can crash on it), and the unload path stays exercised. */
#if defined(__SANITIZE_ADDRESS__)
void host_close_at_exit(void) { close_host(0); }
#else
void host_close_at_exit(void) { close_host(1); }
#endif

size_t host_plugin_dir_count(void) { return the_host.nplugin_dirs; }
const char *host_plugin_dir(size_t i)
{
    return i < the_host.nplugin_dirs ? the_host.plugin_dirs[i] : NULL;
}

const char *host_ignored_config(void) { return the_host.ignored; }

void host_warn_untrusted(void)
{
    char *note = permission_untrusted_note();
    if (note)
        host_log(VT_LOG_WARNING, "permissions", "%s", note);
    free(note);
    if (the_host.ignored)
        host_log(VT_LOG_WARNING, "config",
                 "the workspace %s is not trusted: these keys of its vtcode.toml are ignored: "
                 "%s. To trust it, run: vthost trust %s",
                 the_host.workspace, the_host.ignored, the_host.workspace);
}
