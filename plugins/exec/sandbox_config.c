/* The [sandbox] table of vtcode.toml read into a sandbox_config: the
 * mode, the switches, the resource limits, the writable roots and the
 * network rules; each bad value refused with what to write instead. */
#include "sandbox_int.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* ---- configuration ------------------------------------------------------ */

static int parse_mode(const cJSON *t, sandbox_config *out, char **err)
{
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(t, "mode");
    if (!mode)
        return VT_OK;
    const char *m = cJSON_IsString(mode) ? mode->valuestring : "";
    if (!strcmp(m, "workspace-write"))
        out->mode = SANDBOX_WORKSPACE_WRITE;
    else if (!strcmp(m, "read-only"))
        out->mode = SANDBOX_READ_ONLY;
    else if (!strcmp(m, "danger-full-access"))
        out->mode = SANDBOX_FULL_ACCESS;
    else {
        *err = strdup("vtcode.toml: key 'sandbox.mode' must be \"workspace-write\", "
                      "\"read-only\" or \"danger-full-access\"");
        return VT_ERR_INVALID;
    }
    return VT_OK;
}

/* network_access and fallback: the two switches. */
static int parse_switches(const cJSON *t, sandbox_config *out, char **err)
{
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(t, "network_access");
    if (net && !cJSON_IsBool(net)) {
        *err = strdup("vtcode.toml: key 'sandbox.network_access' must be true or false");
        return VT_ERR_INVALID;
    }
    out->network_access = cJSON_IsTrue(net);
    const cJSON *fb = cJSON_GetObjectItemCaseSensitive(t, "fallback");
    if (fb) {
        if (!cJSON_IsString(fb) ||
            (strcmp(fb->valuestring, "unsandboxed") && strcmp(fb->valuestring, "refuse"))) {
            *err = strdup("vtcode.toml: key 'sandbox.fallback' must be \"refuse\" or "
                          "\"unsandboxed\"");
            return VT_ERR_INVALID;
        }
        out->fallback_unsandboxed = !strcmp(fb->valuestring, "unsandboxed");
    }
    return VT_OK;
}

static int is_whole_in(const cJSON *v, double lo, double hi)
{
    return cJSON_IsNumber(v) && v->valuedouble >= lo && v->valuedouble <= hi &&
           v->valuedouble == (double)(long)v->valuedouble;
}

/* The resource limits: processes, CPU seconds, and the sizes in MiB. */
static int parse_limits(const cJSON *t, sandbox_config *out, char **err)
{
    const cJSON *mp = cJSON_GetObjectItemCaseSensitive(t, "max_processes");
    if (mp) {
        if (!is_whole_in(mp, 16, 1000000)) {
            *err = strdup("vtcode.toml: key 'sandbox.max_processes' must be an integer "
                          "from 16 to 1000000 (processes and threads per command session)");
            return VT_ERR_INVALID;
        }
        out->max_processes = (unsigned)mp->valuedouble;
    }
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(t, "cpu_time_seconds");
    if (cpu) {
        if (!is_whole_in(cpu, 0, 31536000)) {
            *err = strdup("vtcode.toml: key 'sandbox.cpu_time_seconds' must be an integer "
                          "number of seconds, 0 for no limit");
            return VT_ERR_INVALID;
        }
        out->cpu_time_seconds = (unsigned)cpu->valuedouble;
    }
    static const struct {
        const char *key, *what;
        size_t at;
    } mib[] = {
        {"max_memory_mb", "of data memory (RLIMIT_DATA) per process",
         offsetof(sandbox_config, max_memory_mb)},
        {"max_file_size_mb", "of the largest file a process writes (RLIMIT_FSIZE)",
         offsetof(sandbox_config, max_file_size_mb)},
    };
    for (size_t i = 0; i < sizeof mib / sizeof *mib; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, mib[i].key);
        if (!v)
            continue;
        if (!is_whole_in(v, 0, 16777216)) {
            if (asprintf(err,
                         "vtcode.toml: key 'sandbox.%s' must be an integer number of MiB "
                         "%s, from 1 to 16777216, or 0 for no limit",
                         mib[i].key, mib[i].what) < 0)
                *err = NULL;
            return VT_ERR_INVALID;
        }
        *(unsigned *)((char *)out + mib[i].at) = (unsigned)v->valuedouble;
    }
    return VT_OK;
}

/* The writable roots, canonical; on an error *out is freed whole. */
static int parse_writable_roots(const cJSON *t, sandbox_config *out, char **err)
{
    const cJSON *roots = cJSON_GetObjectItemCaseSensitive(t, "writable_roots");
    if (roots && !cJSON_IsArray(roots)) {
        *err = strdup("vtcode.toml: key 'sandbox.writable_roots' must be an array of "
                      "directory paths");
        return VT_ERR_INVALID;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, roots)
    {
        if (!cJSON_IsString(r) || r->valuestring[0] != '/') {
            *err = strdup("vtcode.toml: key 'sandbox.writable_roots' must hold absolute "
                          "directory paths");
            sandbox_config_free(out);
            return VT_ERR_INVALID;
        }
        /* As written, not resolved: a link on the way is refused when a
         * call is planned (sandbox_fd.c), never followed, since a command
         * may have planted it (a root under /tmp swapped for a link to
         * $HOME); a root that does not exist then grants nothing. */
        char norm[PATH_MAX];
        char *canon =
            sandbox_path_normalize(r->valuestring, norm, sizeof norm) == 0 ? strdup(norm) : NULL;
        if (!canon) {
            *err = strdup("vtcode.toml: key 'sandbox.writable_roots' holds a path that is too "
                          "long");
            sandbox_config_free(out);
            return VT_ERR_INVALID;
        }
        if (VT_GROW(&out->writable_roots, &out->cap_writable, out->nwritable + 1) != 0) {
            free(canon);
            sandbox_config_free(out);
            return VT_ERR_NOMEM;
        }
        out->writable_roots[out->nwritable++] = canon;
    }
    return VT_OK;
}

int sandbox_config_parse(const cJSON *config, sandbox_config *out, char **err)
{
    memset(out, 0, sizeof *out);
    out->max_processes = SANDBOX_DEFAULT_PROCESSES;
    out->cpu_time_seconds = SANDBOX_DEFAULT_CPU_SECONDS;
    out->max_memory_mb = SANDBOX_DEFAULT_MEMORY_MB;
    out->max_file_size_mb = SANDBOX_DEFAULT_FILE_SIZE_MB;
    *err = NULL;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(config, "sandbox");
    if (!t)
        return VT_OK;
    if (!cJSON_IsObject(t)) {
        *err = strdup("vtcode.toml: key 'sandbox' must be a table");
        return VT_ERR_INVALID;
    }
    int rc = parse_mode(t, out, err);
    if (rc == VT_OK)
        rc = parse_switches(t, out, err);
    if (rc == VT_OK)
        rc = parse_limits(t, out, err);
    if (rc == VT_OK)
        rc = parse_writable_roots(t, out, err);
    if (rc == VT_OK && (rc = netproxy_rules_parse(config, &out->network, err)) != VT_OK)
        sandbox_config_free(out);
    return rc;
}

void sandbox_config_free(sandbox_config *c)
{
    for (size_t i = 0; i < c->nwritable; i++)
        free(c->writable_roots[i]);
    free(c->writable_roots);
    netproxy_rules_free(&c->network);
    memset(c, 0, sizeof *c);
}
