/* The host API table plugins receive, and the call handle behind it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "api.h"
#include "call.h"
#include "call_client.h"
#include "call_ops.h"
#include "guard.h"
#include "log.h"
#include "opened_lib.h"
#include "paths.h"
#include "perm_exec.h"
#include "permission.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "services.h"
#include "shell_profile.h"
#include "spool.h"
#include "strbuf.h"
#include "strutil.h"
#include "subjects.h"

static void *api_alloc(size_t n) { return malloc(n ? n : 1); }
static void api_free(void *p) { free(p); }
static char *api_strdup(const char *s) { return s ? strdup(s) : NULL; }

static void api_log(int level, const char *plugin, const char *f, ...) VT_PRINTF(3, 4);
static void api_log(int level, const char *plugin, const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    host_vlog(level, plugin, f, ap);
    va_end(ap);
}

static uint64_t api_call_id(const vt_call *call) { return call ? call->id : 0; }
static const char *api_call_tool(const vt_call *call)
{
    return call && call->tool ? call->tool->t.name : NULL;
}
static void api_call_progress(vt_call *call, double progress, double total, const char *msg)
{
    if (call && call->fe && call->fe->progress)
        call->fe->progress(call->fe->ctx, progress, total, msg);
}

/* What host_open bound (borrowed until the next api_bind). */
static const char *bound_workspace;
static const cJSON *bound_config;

void api_bind(const char *workspace, const cJSON *config)
{
    bound_workspace = workspace;
    bound_config = config;
}

static const char *api_workspace_root(void) { return bound_workspace; }

static int api_resolve_path(const char *path, unsigned flags, char **out)
{
    return paths_resolve(bound_workspace, path, flags, out);
}

static const cJSON *api_config(void) { return bound_config; }

static int api_spool_write(vt_spool *s, const void *buf, size_t len)
{
    return spool_append(s, buf, len);
}

static int api_subject_add(vt_subjects *out, vt_subject_kind kind, const char *value)
{
    return subjects_add(out, kind, value);
}

static void api_note(vt_call *call, vt_note_kind kind, const char *detail, long value)
{
    guard_note(call, kind, detail, value);
}

static cJSON *api_catalog_list(void)
{
    const tool_entry **v;
    size_t n;
    /* lazy tool sources (MCP providers) fill the catalog first */
    registry_dynamic_demand(NULL);
    cJSON *arr = cJSON_CreateArray();
    if (!arr || registry_all(&v, &n) != VT_OK)
        return arr;
    for (size_t i = 0; i < n; i++) {
        int listed = registry_is_listed(v[i]);
        if (!listed && !registry_is_deferred(v[i]))
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", v[i]->t.name);
        cJSON_AddBoolToObject(o, "listed", listed);
        cJSON_AddStringToObject(o, "description", v[i]->t.description ? v[i]->t.description : "");
        cJSON_AddItemToObject(
            o, "input_schema",
            cJSON_Duplicate(v[i]->shown_schema ? v[i]->shown_schema : v[i]->schema, 1));
        cJSON_AddItemToArray(arr, o);
    }
    free(v);
    return arr;
}

static int api_catalog_expand(const char *const *names, size_t count, uint64_t *epoch)
{
    return registry_expand(names, count, epoch);
}

static uint64_t api_catalog_epoch(void) { return registry_epoch(); }

static int api_path_denied(vt_call *call, vt_subject_kind kind, const char *path)
{
    if (!call || !path)
        return 0;
    return permission_path_denied(call->tool, call->agent, kind, path);
}

static int api_call_one_shot(const vt_call *call) { return call && call->fe && call->fe->one_shot; }
static uint64_t api_call_client_id(const vt_call *call)
{
    return call && call->fe ? call->fe->client_id : 0;
}

static int api_call_explaining(const vt_call *call) { return call && call->explaining; }

/* The host refused a wrong value at start, so this reads a valid one. */
static const char *api_shell_profile(void)
{
    const char *v;
    shell_profile_read(bound_config, &v);
    return v;
}

static const vt_host_api table = {
    .struct_size = sizeof(vt_host_api),
    .abi_major = VT_ABI_MAJOR,
    .abi_minor = VT_ABI_MINOR,
    .alloc = api_alloc,
    .free = api_free,
    .strdup = api_strdup,
    .log = api_log,
    .call_error = call_error,
    .call_id = api_call_id,
    .call_tool = api_call_tool,
    .call_cancelled = call_cancelled,
    .call_progress = api_call_progress,
    .call_warn = call_warn,
    .call_warn_once = call_warn_once,
    .workspace_root = api_workspace_root,
    .resolve_path = api_resolve_path,
    .config = api_config,
    .spool_open = call_spool_open,
    .spool_write = api_spool_write,
    .service_publish = services_publish,
    .service_lookup = services_lookup,
    .subject_add = api_subject_add,
    .note = api_note,
    .catalog_list = api_catalog_list,
    .catalog_expand = api_catalog_expand,
    .catalog_epoch = api_catalog_epoch,
    .path_denied = api_path_denied,
    .exec_policy = perm_exec_policy,
    .tool_add = registry_dynamic_add,
    .tool_remove = registry_dynamic_remove,
    .catalog_on_demand = registry_dynamic_on_demand,
    .call_one_shot = api_call_one_shot,
    .format = str_printf,
    .vformat = strbuf_vformat,
    .strbuf_append = strbuf_append,
    .strbuf_printf = strbuf_printf,
    .strbuf_take = strbuf_take,
    .strbuf_reset = strbuf_reset,
    .client_capabilities = call_client_capabilities,
    .client_request = call_client_request,
    .policy_paths = permission_policy_paths,
    .open_library = opened_lib_bind,
    .call_client_id = api_call_client_id,
    .call_explaining = api_call_explaining,
    .shell_profile = api_shell_profile,
    .command_ran = guard_command_ran,
    .call_client_info = call_client_info,
};

const vt_host_api *api_table(void) { return &table; }
