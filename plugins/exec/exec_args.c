/* exec_command's arguments read and checked: strings, the
 * sandbox_permissions level, and additional_permissions parsed,
 * resolved and put in words for the question. */
#include "exec_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "session.h"

const char *args_str(const cJSON *args, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int args_blank(const char *s)
{
    for (; s && *s; s++)
        if (!strchr(" \t\r\n", *s))
            return 0;
    return 1;
}

/* sandbox_permissions: 0 use_default, 1 with_additional_permissions,
 * 2 require_escalated (or its alias bypass_sandbox), -1 invalid. */
int args_level(const cJSON *args)
{
    const cJSON *sp = cJSON_GetObjectItemCaseSensitive(args, "sandbox_permissions");
    if (!sp)
        return 0;
    if (!cJSON_IsString(sp))
        return -1;
    if (!strcmp(sp->valuestring, "use_default"))
        return 0;
    if (!strcmp(sp->valuestring, "with_additional_permissions"))
        return 1;
    if (!strcmp(sp->valuestring, "require_escalated") || !strcmp(sp->valuestring, "bypass_sandbox"))
        return 2;
    return -1;
}

void args_extra_free(sandbox_extra *x)
{
    for (size_t i = 0; i < x->nwrite; i++)
        free(x->write[i]);
    free(x->write);
    free(x->ids);
    memset(x, 0, sizeof *x);
}

/* additional_permissions, checked and resolved: every write path exists
 * and is named by its canonical path (what the prompt shows is what the
 * sandbox opens).  On error *err says why (malloc'd). */
int args_extra_parse(const cJSON *args, sandbox_extra *x, char **err)
{
    memset(x, 0, sizeof *x);
    *err = NULL;
    const cJSON *ap = cJSON_GetObjectItemCaseSensitive(args, "additional_permissions");
    const cJSON *it;
    if (!cJSON_IsObject(ap)) {
        *err = strdup("additional_permissions: required (an object with file_system.write "
                      "and/or network.enabled) when sandbox_permissions is "
                      "\"with_additional_permissions\"");
        return VT_ERR_INVALID;
    }
    cJSON_ArrayForEach(it,
                       ap) if (strcmp(it->string, "file_system") && strcmp(it->string, "network"))
    {
        if (asprintf(err, "additional_permissions: unknown key '%s' (file_system, network)",
                     it->string) < 0)
            *err = NULL;
        return VT_ERR_INVALID;
    }
    const cJSON *fs = cJSON_GetObjectItemCaseSensitive(ap, "file_system");
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(ap, "network");
    const cJSON *wr = cJSON_GetObjectItemCaseSensitive(fs, "write");
    const cJSON *en = cJSON_GetObjectItemCaseSensitive(net, "enabled");
    if ((fs && !cJSON_IsObject(fs)) || (net && !cJSON_IsObject(net)) ||
        (wr && !cJSON_IsArray(wr)) || (en && !cJSON_IsBool(en))) {
        *err = strdup("additional_permissions: file_system must be {\"write\": [paths]} and "
                      "network {\"enabled\": true|false}");
        return VT_ERR_INVALID;
    }
    cJSON_ArrayForEach(it, fs) if (strcmp(it->string, "write"))
    {
        *err = strdup("additional_permissions.file_system: only \"write\" is accepted "
                      "(everything is readable in the sandbox already)");
        return VT_ERR_INVALID;
    }
    cJSON_ArrayForEach(it, net) if (strcmp(it->string, "enabled"))
    {
        *err = strdup("additional_permissions.network: only \"enabled\" is accepted");
        return VT_ERR_INVALID;
    }
    x->network = cJSON_IsTrue(en);
    int n = cJSON_GetArraySize(wr);
    x->write = calloc(n ? (size_t)n : 1, sizeof *x->write);
    if (!x->write)
        return VT_ERR_NOMEM;
    cJSON_ArrayForEach(it, wr)
    {
        /* Inside or outside the workspace: relative to its root. */
        char *abs = NULL;
        if (cJSON_IsString(it) && it->valuestring[0] == '/')
            abs = strdup(it->valuestring);
        else if (cJSON_IsString(it) && it->valuestring[0] &&
                 asprintf(&abs, "%s/%s", api->workspace_root(), it->valuestring) < 0)
            abs = NULL;
        char *real = abs ? realpath(abs, NULL) : NULL;
        free(abs);
        if (!real) {
            if (asprintf(err,
                         "additional_permissions.file_system.write: '%s' is not an "
                         "existing path",
                         cJSON_IsString(it) ? it->valuestring : "?") < 0)
                *err = NULL;
            args_extra_free(x);
            return VT_ERR_INVALID;
        }
        int dup = 0;
        for (size_t i = 0; i < x->nwrite && !dup; i++)
            dup = !strcmp(x->write[i], real);
        if (dup)
            free(real);
        else
            x->write[x->nwrite++] = real;
    }
    if (!x->nwrite && !x->network) {
        *err = strdup("additional_permissions: adds nothing (name file_system.write paths "
                      "or network.enabled: true)");
        args_extra_free(x);
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

/* What an approval of additional permissions grants, in words. */
char *args_extra_describe(const sandbox_extra *x, const char *why)
{
    size_t n = 128 + (why ? strlen(why) : 0);
    for (size_t i = 0; i < x->nwrite; i++)
        n += strlen(x->write[i]) + 2;
    char *s = malloc(n);
    if (!s)
        return NULL;
    size_t k = (size_t)snprintf(s, n, "in the sandbox with additional permissions:");
    if (x->nwrite) {
        k += (size_t)snprintf(s + k, n - k, " write to ");
        for (size_t i = 0; i < x->nwrite; i++)
            k += (size_t)snprintf(s + k, n - k, "%s%s", i ? ", " : "", x->write[i]);
        if (x->network)
            k += (size_t)snprintf(s + k, n - k, ";");
    }
    if (x->network)
        k += (size_t)snprintf(s + k, n - k, " network access");
    snprintf(s + k, n - k, ". Justification: %s", why ? why : "");
    return s;
}
