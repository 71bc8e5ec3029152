/* The workspace index as the service "host.workspace_index"
 * (vt_wsindex_v1 in <vthost/services.h>): the host's index, opened with
 * the host, offered to plugins. */
#include "ws_service.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/services.h>
#include "call.h"
#include "events_service.h"
#include "host_events.h"
#include "json_exact.h"
#include "log.h"
#include "services.h"
#include "strutil.h"
#include "ws_after.h"
#include "ws_check.h"
#include "ws_datadir.h"
#include "ws_gitconf.h"
#include "ws_gitdir.h"
#include "ws_index.h"
#include "ws_inert.h"
#include "ws_keeper.h"
#include "ws_layout.h"
#include "ws_owed.h"
#include "ws_repos.h"

static char *data_paths[3];

static void warn(vt_call *call, const char *why)
{
    if (!call || !why)
        return;
    if (!call->warnings)
        call->warnings = cJSON_CreateArray();
    /* one warning per call, however many refreshes fell back */
    const cJSON *w;
    cJSON_ArrayForEach(w, call->warnings)
    {
        if (cJSON_IsString(w) && strstr(w->valuestring, why))
            return;
    }
    char *m = str_printf("workspace index: %s", why);
    if (m)
        cJSON_AddItemToArray(call->warnings, cJSON_CreateString(m));
    free(m);
}

int ws_service_refresh(vt_call *call, int watch)
{
    ws_index *ix = ws_index_current();
    if (!ix)
        return VT_ERR_UNSUPPORTED;
    const char *why = NULL;
    int rc = ws_index_refresh(ix, watch, &why);
    warn(call, why);
    return rc;
}

static int svc_repositories(vt_call *call, cJSON **out)
{
    *out = NULL;
    int rc = ws_service_refresh(call, 0);
    if (rc)
        return rc;
    int complete = 1;
    cJSON *arr = ws_index_repositories(ws_index_current(), &complete);
    cJSON *o = cJSON_CreateObject();
    if (!o || !arr) {
        cJSON_Delete(o);
        cJSON_Delete(arr);
        return VT_ERR_NOMEM;
    }
    cJSON_AddItemToObject(o, "repositories", arr);
    cJSON_AddBoolToObject(o, "complete", complete);
    *out = o;
    return VT_OK;
}

static int svc_policy_files(vt_call *call, cJSON **out)
{
    *out = NULL;
    int rc = ws_service_refresh(call, 0);
    if (rc)
        return rc;
    *out = ws_index_policy_files(ws_index_current());
    return *out ? VT_OK : VT_ERR_NOMEM;
}

static uint64_t svc_mark(vt_call *call)
{
    ws_service_refresh(call, 1);
    return ws_index_mark(ws_index_current()).seq;
}

static int svc_changes_since(vt_call *call, uint64_t mark, cJSON **out)
{
    *out = NULL;
    int rc = ws_service_refresh(call, 1);
    if (rc)
        return rc;
    ws_index *ix = ws_index_current();
    int complete = 1;
    cJSON *arr = ws_index_changes_json(ix, mark, &complete);
    cJSON *o = cJSON_CreateObject();
    if (!o || !arr) {
        cJSON_Delete(o);
        cJSON_Delete(arr);
        return VT_ERR_NOMEM;
    }
    cJSON_AddItemToObject(o, "changes", arr);
    cJSON_AddBoolToObject(o, "complete", complete);
    cJSON_AddNumberToObject(o, "mark", (double)ws_index_mark(ix).seq);
    *out = o;
    return VT_OK;
}

static const char *const *svc_host_data_paths(void) { return (const char *const *)data_paths; }

static int svc_neutralise(int gitfd, const char *label, char **report)
{
    *report = NULL;
    const char *root = ws_after_root();
    return root ? ws_inert_gitdir(gitfd, root, label, report) : VT_ERR_UNSUPPORTED;
}

static int svc_set_aside(int dirfd, const char *name, const char *label, const char *why,
                         char **report)
{
    *report = NULL;
    const char *root = ws_after_root();
    return root ? ws_inert_entry(dirfd, name, root, label, why, report) : VT_ERR_UNSUPPORTED;
}

static int svc_git_config_paths(vt_call *call, cJSON **out)
{
    *out = NULL;
    int rc = ws_service_refresh(call, 0);
    if (rc)
        return rc;
    *out = ws_gitconf_current();
    return *out ? VT_OK : VT_ERR_NOMEM;
}

static const char *const *svc_protected_names(void) { return ws_layout_names(); }

static int svc_prepare(char **dir, char **err)
{
    *dir = NULL;
    *err = NULL;
    const char *root = ws_after_root();
    return root ? ws_layout_prepare(root, dir, err) : VT_ERR_UNSUPPORTED;
}

static int svc_spool_view(uint64_t client, char **all, char **own)
{
    *all = *own = NULL;
    const char *root = ws_after_root();
    if (!client)
        return VT_ERR_INVALID;
    return root ? ws_layout_spool_view(root, client, all, own) : VT_ERR_UNSUPPORTED;
}

static int svc_repositories_below(const char *dir, cJSON **out)
{
    *out = NULL;
    ws_repos r;
    int rc = ws_repos_below(dir, &r);
    if (rc == VT_OK)
        rc = ws_repos_json(&r, out);
    ws_repos_free(&r);
    return rc;
}

/* The index's thread saw changes: the check looks at once while a
 * session runs, then subscribers hear of it. */
static void on_index_change(void)
{
    ws_check_changed();
    vt_event ev = {.struct_size = sizeof ev, .kind = VT_EVENT_WORKSPACE_CHANGED};
    host_events_raise(&ev);
}

static const vt_wsindex_v1 service = {
    .struct_size = sizeof(vt_wsindex_v1),
    .repositories = svc_repositories,
    .policy_files = svc_policy_files,
    .mark = svc_mark,
    .changes_since = svc_changes_since,
    .host_data_paths = svc_host_data_paths,
    .git_dir = ws_gitdir_judge,
    .neutralise = svc_neutralise,
    .set_aside = svc_set_aside,
    .git_config_paths = svc_git_config_paths,
    .protected_names = svc_protected_names,
    .prepare = svc_prepare,
    .arm = ws_check_arm,
    .spool_view = svc_spool_view,
    .repositories_below = svc_repositories_below,
};

/* [workspace] keeper, keeper_min_dirs, keeper_idle_seconds. */
static int keeper_key(const cJSON *t, const char *key, double lo, double hi, double *v, char **err)
{
    const cJSON *j = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!j)
        return VT_OK;
    if (!json_integer_within(j, lo, hi)) {
        *err = str_printf("key 'workspace.%s' must be an integer from %.0f to %.0f", key, lo, hi);
        return VT_ERR_INVALID;
    }
    *v = j->valuedouble;
    return VT_OK;
}

/* [workspace] of `config` (a layer, or the merged configuration):
 * whether keepers are on and their two numbers, defaults kept for keys
 * that are absent. */
static int keeper_read(const cJSON *config, int *on, double *dirs, double *idle, char **err)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(config, "workspace");
    if (t && !cJSON_IsObject(t)) {
        *err = str_printf("key 'workspace' must be a table: write [workspace] on a line of its "
                          "own, then its keys (keeper, keeper_min_dirs, keeper_idle_seconds)");
        return VT_ERR_INVALID;
    }
    const cJSON *k = cJSON_GetObjectItemCaseSensitive(t, "keeper");
    if (k && !cJSON_IsBool(k)) {
        *err = str_printf("key 'workspace.keeper' must be true or false");
        return VT_ERR_INVALID;
    }
    *on = !k || cJSON_IsTrue(k);
    int rc = keeper_key(t, "keeper_min_dirs", 0, 4e9, dirs, err);
    if (rc == VT_OK)
        rc = keeper_key(t, "keeper_idle_seconds", 1, 86400 * 7, idle, err);
    return rc;
}

static int keeper_configure(const cJSON *config, char **err)
{
    int on = 1;
    double dirs = 2000, idle = 600;
    int rc = keeper_read(config, &on, &dirs, &idle, err);
    if (rc == VT_OK)
        ws_keeper_configure(on, (uint32_t)dirs, (uint32_t)idle);
    return rc;
}

int ws_service_check_keys(const cJSON *layer, const char *file, char **err)
{
    int on = 1;
    double dirs = 0, idle = 0;
    int rc = keeper_read(layer, &on, &dirs, &idle, err);
    if (rc != VT_OK && *err && file) {
        char *e = *err;
        *err = str_printf("%s: %s", file, e);
        free(e);
    }
    return rc;
}

int ws_service_open(const char *workspace, int live, const cJSON *config, char **err)
{
    ws_service_close();
    /* before anything is read from or written to them */
    int rc = ws_datadir_check(workspace, err);
    if (rc)
        return rc;
    /* the names a sandbox keeps read-only: none missing, or no service */
    if (!ws_layout_names()) {
        *err = strdup("out of memory listing the workspace's protected names");
        return VT_ERR_NOMEM;
    }
    rc = keeper_configure(config, err);
    if (rc)
        return rc;
    ws_index *ix = NULL;
    rc = ws_index_open(workspace, live ? WS_INDEX_LIVE : WS_INDEX_ONE_SHOT, &ix);
    if (rc)
        return rc;
    ws_index_set_current(ix);
    ws_after_set_root(workspace);
    ws_check_open(workspace);
    ws_index_on_change(on_index_change);
    ws_owed_open(workspace);
    char *owed = NULL;
    ws_owed_recover(&owed); /* before serving: named in the log and the next call */
    free(owed);
    data_paths[0] = ws_index_cache_dir();
    data_paths[1] = ws_index_state_dir();
    if (!data_paths[0]) { /* no home: keep the array NULL-ended */
        data_paths[0] = data_paths[1];
        data_paths[1] = NULL;
    }
    rc = services_publish(VT_WSINDEX_SERVICE, (void *)&service);
    return rc ? rc : events_service_publish();
}

void ws_service_close(void)
{
    char *report = NULL;
    ws_index_on_change(NULL);
    ws_check_close(&report);
    if (report)
        host_log(VT_LOG_WARNING, NULL, "%s", report);
    free(report);
    events_service_close();
    ws_index *ix = ws_index_current();
    ws_index_set_current(NULL);
    ws_owed_close();
    ws_gitconf_reset();
    ws_index_close(ix);
    ws_after_set_root(NULL);
    for (size_t i = 0; i < 2; i++) {
        free(data_paths[i]);
        data_paths[i] = NULL;
    }
}
