/* The configuration's layers: which files there are, merged key by key,
 * requirement lists that only tighten, the host's own keys checked, and
 * the approval preset's sandbox settings. */
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "config_layers.h"
#include "paths.h"
#include "perm_trust.h"
#include "permission.h"
#include "shell_profile.h"
#include "strutil.h"
#include "ws_service.h"

/* A copy of `b` merged over `a` (tables merged key by key, anything else
 * replaced); `a` is consumed. */
cJSON *config_merge(cJSON *a, const cJSON *b)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, b)
    {
        cJSON *have = cJSON_GetObjectItemCaseSensitive(a, it->string);
        if (have && cJSON_IsObject(have) && cJSON_IsObject(it)) {
            cJSON *m = config_merge(cJSON_Duplicate(have, 1), it);
            cJSON_ReplaceItemInObjectCaseSensitive(a, it->string, m);
        } else {
            cJSON *d = cJSON_Duplicate(it, 1);
            if (have)
                cJSON_ReplaceItemInObjectCaseSensitive(a, it->string, d);
            else
                cJSON_AddItemToObject(a, it->string, d);
        }
    }
    return a;
}

/* The approval presets other than ask run commands without asking, so
 * the sandbox must exist and bound them: never danger-full-access, never
 * the unsandboxed fallback; read-only forces a read-only sandbox. */
int config_apply_approval(cJSON *config, char **err)
{
    const char *preset = permission_approval();
    if (strcmp(preset, "ask") == 0)
        return VT_OK;
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U /* _VERSION */);
    if (abi < 1) {
        *err = str_printf("the approval preset '%s' runs commands without asking inside the "
                          "sandbox, and this kernel offers none (Landlock is unavailable: "
                          "Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK and landlock in "
                          "the lsm= list). Use --approval ask.",
                          preset);
        return VT_ERR_UNSUPPORTED;
    }
    cJSON *sb = cJSON_GetObjectItemCaseSensitive(config, "sandbox");
    if (!cJSON_IsObject(sb)) {
        cJSON_DeleteItemFromObjectCaseSensitive(config, "sandbox");
        sb = cJSON_AddObjectToObject(config, "sandbox");
        if (!sb)
            return VT_ERR_NOMEM;
    }
    cJSON_DeleteItemFromObjectCaseSensitive(sb, "fallback");
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(sb, "mode");
    int ro = cJSON_IsString(mode) && strcmp(mode->valuestring, "read-only") == 0;
    cJSON_DeleteItemFromObjectCaseSensitive(sb, "mode");
    cJSON_AddStringToObject(
        sb, "mode", ro || strcmp(preset, "read-only") == 0 ? "read-only" : "workspace-write");
    return VT_OK;
}

/* [mcp.requirements] of the trusted layers, combined so that a later
 * layer only tightens: enforce if any layer enforces, and an allow-list
 * holds what every layer's list holds (a layer that enforces without a
 * list allows nothing; one that neither enforces nor lists, everything). */
static int combine_list(cJSON **acc, const cJSON *req, const char *key)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(req, key);
    int enforce = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "enforce"));
    if (!cJSON_IsArray(list) && !enforce)
        return VT_OK;
    if (!*acc) {
        *acc = cJSON_IsArray(list) ? cJSON_Duplicate(list, 1) : cJSON_CreateArray();
        return *acc ? VT_OK : VT_ERR_NOMEM;
    }
    for (int i = cJSON_GetArraySize(*acc) - 1; i >= 0; i--) {
        const cJSON *have = cJSON_GetArrayItem(*acc, i), *it;
        int found = 0;
        cJSON_ArrayForEach(it, list) found |= cJSON_Compare(have, it, 1);
        if (!found)
            cJSON_DeleteItemFromArray(*acc, i);
    }
    return VT_OK;
}

int config_merge_requirements(cJSON *config, const config_layer *layers, size_t n)
{
    cJSON *lists[2] = {NULL, NULL};
    static const char *const keys[2] = {"allowed_stdio_commands", "allowed_http_endpoints"};
    int enforce = 0, any = 0, rc = VT_OK;
    for (size_t i = 0; i < n; i++) {
        if (!layers[i].applied)
            continue;
        const cJSON *req = config_table_at(layers[i].tree, "mcp.requirements");
        if (!req)
            continue;
        any = 1;
        enforce |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(req, "enforce"));
        for (int k = 0; k < 2 && rc == VT_OK; k++)
            rc = combine_list(&lists[k], req, keys[k]);
    }
    cJSON *mcp = cJSON_GetObjectItemCaseSensitive(config, "mcp");
    if (rc == VT_OK && any && cJSON_IsObject(mcp)) {
        cJSON_DeleteItemFromObjectCaseSensitive(mcp, "requirements");
        cJSON *r = cJSON_AddObjectToObject(mcp, "requirements");
        if (!r || !cJSON_AddBoolToObject(r, "enforce", enforce))
            rc = VT_ERR_NOMEM;
        for (int k = 0; k < 2 && rc == VT_OK; k++)
            if (lists[k]) {
                cJSON_AddItemToObject(r, keys[k], lists[k]);
                lists[k] = NULL;
            }
    }
    cJSON_Delete(lists[0]);
    cJSON_Delete(lists[1]);
    return rc;
}

/* Keys the host itself reads; a wrong type is an error, never ignored,
 * in every layer (an untrusted one's too, though it is not applied). */
int config_check_keys(const cJSON *config, const char *file, char **err)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(config, "tools");
    if (tools && !cJSON_IsObject(tools)) {
        *err = str_printf("%s: key 'tools' must be a table", file);
        return VT_ERR_INVALID;
    }
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(tools, "profile");
    if (p && !cJSON_IsString(p)) {
        *err = str_printf("%s: key 'tools.profile' must be a string (\"default\" or \"advanced\")",
                          file);
        return VT_ERR_INVALID;
    }
    if (cJSON_IsString(p) && (strchr(p->valuestring, '/') || strstr(p->valuestring, ".ini"))) {
        *err = str_printf("%s: key 'tools.profile' names a file (\"%s\"): a configuration file "
                          "names a profile of the profile directories (\"default\", "
                          "\"advanced\"); a profile file is chosen with --profile FILE",
                          file, p->valuestring);
        return VT_ERR_INVALID;
    }
    const cJSON *agent = cJSON_GetObjectItemCaseSensitive(config, "agent");
    if (agent && !cJSON_IsObject(agent)) {
        *err = str_printf("%s: key 'agent' must be a table", file);
        return VT_ERR_INVALID;
    }
    const char *shell;
    if (shell_profile_read(config, &shell) != VT_OK) {
        *err = str_printf("%s: key 'agent.shell_prompt_profile' must be \"auto\", \"unix_like\" "
                          "or \"powershell\"",
                          file);
        return VT_ERR_INVALID;
    }
    return ws_service_check_keys(config, file, err);
}

static int file_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

int config_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void config_find_layer_files(const char *workspace, const char *explicit_path, layer_files *f)
{
    f->named = explicit_path;
    f->user = perm_trust_user_config();
    f->ws = paths_join(workspace, "vtcode.toml");
    if (f->user && !file_exists(f->user)) {
        free(f->user);
        f->user = NULL;
    }
    struct stat wl;
    f->ws_link = f->ws && lstat(f->ws, &wl) == 0 && S_ISLNK(wl.st_mode);
    if (f->ws && !f->ws_link && !file_exists(f->ws)) {
        free(f->ws);
        f->ws = NULL;
    }
    if (explicit_path && config_same_file(explicit_path, f->ws)) {
        free(f->ws);
        f->ws = NULL;
        f->named_ws = 1;
    }
}
