/* Configuration of the MCP providers, in the shape VT Code's vtcode.toml
 * uses:
 *   [mcp] enabled, max_concurrent_connections, request_timeout_seconds,
 *         retry_attempts, startup_timeout_seconds, tool_timeout_seconds,
 *         eager_start, max_message_bytes, max_relayed_requests_per_call,
 *         max_relayed_requests_per_minute
 *   [[mcp.providers]] name, command, args, working_directory, env,
 *         enabled, eager_start (stdio); endpoint, headers, api_key_env,
 *         protocol_version (Streamable HTTP)
 *   [mcp.requirements] enforce, allowed_stdio_commands,
 *         allowed_http_endpoints */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "config.h"
#include "naming.h"

static char *errf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* An error message (malloc'd), cut at 512 bytes. */
static char *errf(const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return strdup(buf);
}

/* A number of seconds or a count: absent -> def; wrong type -> error. */
static int get_int(const cJSON *t, const char *key, int lo, int hi, int def, int *out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v) {
        *out = def;
        return 0;
    }
    /* The range first (NaN fails it): only then is the cast defined. */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= lo && v->valuedouble <= hi) ||
        v->valuedouble != (double)(long)v->valuedouble) {
        char range[64];
        snprintf(range, sizeof range, "an integer from %d to %d", lo, hi);
        *err = errf("vtcode.toml: [mcp] %s must be %s", key, range);
        return -1;
    }
    *out = (int)v->valuedouble;
    return 0;
}

static int get_bool(const cJSON *t, const char *where, const char *key, int def, int *out,
                    char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (!cJSON_IsBool(v)) {
        *err = errf("vtcode.toml: %s %s must be true or false", where, key);
        return -1;
    }
    *out = cJSON_IsTrue(v);
    return 0;
}

/* An array of strings (absent: empty).  *out NULL-terminated, malloc'd. */
static int get_strings(const cJSON *t, const char *where, const char *key, char ***out, size_t *n,
                       char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    *out = NULL;
    *n = 0;
    if (!v)
        return 0;
    const cJSON *it;
    if (!cJSON_IsArray(v))
        goto bad;
    cJSON_ArrayForEach(it, v) if (!cJSON_IsString(it)) goto bad;
    *out = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof **out);
    if (!*out)
        return -1;
    cJSON_ArrayForEach(it, v)(*out)[(*n)++] = strdup(it->valuestring);
    return 0;
bad:
    *err = errf("vtcode.toml: %s %s must be an array of strings", where, key);
    return -1;
}

static void free_strings(char **v)
{
    for (char **a = v; a && *a; a++)
        free(*a);
    free(v);
}

/* Append "k=v" to the NULL-terminated *envp (*n entries, room for *cap). */
static int push_env(char ***envp, size_t *n, size_t *cap, const char *k, const char *v)
{
    if (VT_GROW(envp, cap, *n + 2) != 0)
        return -1;
    char **g = *envp;
    size_t len = strlen(k) + strlen(v) + 2;
    g[*n] = malloc(len);
    if (!g[*n])
        return -1;
    snprintf(g[*n], len, "%s=%s", k, v);
    g[++*n] = NULL;
    return 0;
}

/* Only what is configured, plus PATH and HOME unless configured: the
 * host's own environment (tokens, credentials) does not leak into
 * every server. */
static int build_env(provider *p, const cJSON *env, char **err)
{
    size_t n = 0;
    char **envp = calloc(1, sizeof *envp);
    size_t cap = envp ? 1 : 0;
    int has_path = 0, has_home = 0;
    const cJSON *it;
    if (env && !cJSON_IsObject(env)) {
        free(envp);
        *err = errf("vtcode.toml: [[mcp.providers]] '%s': env must be a table of strings", p->name);
        return -1;
    }
    cJSON_ArrayForEach(it, env)
    {
        if (!cJSON_IsString(it) || !it->string[0] || strchr(it->string, '=')) {
            free_strings(envp);
            *err = errf("vtcode.toml: [[mcp.providers]] '%s': env.%s must be a string", p->name,
                        it->string);
            return -1;
        }
        has_path |= strcmp(it->string, "PATH") == 0;
        has_home |= strcmp(it->string, "HOME") == 0;
        push_env(&envp, &n, &cap, it->string, it->valuestring);
    }
    p->env_configured = n;
    const char *path = getenv("PATH"), *home = getenv("HOME");
    if (!has_path)
        push_env(&envp, &n, &cap, "PATH", path ? path : "/usr/local/bin:/usr/bin:/bin");
    if (!has_home && home)
        push_env(&envp, &n, &cap, "HOME", home);
    p->envp = envp;
    return 0;
}

static int allowed_by(const cJSON *list, const char *value)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, list) if (cJSON_IsString(it) &&
                                     strcmp(it->valuestring, value) == 0) return 1;
    return 0;
}

static void disable(provider *p, const char *why)
{
    p->state = PROV_DISABLED;
    free(p->reason);
    p->reason = strdup(why);
}

/* An HTTP header name: an RFC 9110 token. */
static int header_name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr("!#$%&'*+-.^_`|~", *s)))
            return 0;
    return 1;
}

/* A table of strings as "Name: value" lines (NULL-terminated, malloc'd).
 * Names must be header names and values single lines: a value cannot
 * smuggle another header into the request. */
static int get_headers(const cJSON *t, const provider *p, const char *key, char ***out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key), *it;
    *out = NULL;
    if (!v)
        return 0;
    char buf[600];
    if (!cJSON_IsObject(v)) {
        snprintf(buf, sizeof buf,
                 "vtcode.toml: [[mcp.providers]] '%s': %s must be a table "
                 "of strings",
                 p->name, key);
        *err = strdup(buf);
        return -1;
    }
    size_t n = 0;
    *out = calloc((size_t)cJSON_GetArraySize(v) + 1, sizeof **out);
    if (!*out)
        return -1;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it) || !header_name_ok(it->string) ||
            strpbrk(it->valuestring, "\r\n")) {
            snprintf(buf, sizeof buf,
                     "vtcode.toml: [[mcp.providers]] '%s': %s.%.100s must be "
                     "a header name with a one-line string value",
                     p->name, key, it->string);
            *err = strdup(buf);
            return -1;
        }
        size_t len = strlen(it->string) + strlen(it->valuestring) + 3;
        (*out)[n] = malloc(len);
        if (!(*out)[n])
            return -1;
        snprintf((*out)[n++], len, "%s: %s", it->string, it->valuestring);
    }
    return 0;
}

static int get_string(const cJSON *t, const provider *p, const char *key, char **out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    *out = NULL;
    if (!v)
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        char buf[300];
        snprintf(buf, sizeof buf,
                 "vtcode.toml: [[mcp.providers]] '%s': %s must be a "
                 "non-empty string",
                 p->name, key);
        *err = strdup(buf);
        return -1;
    }
    *out = strdup(v->valuestring);
    return *out ? 0 : -1;
}

/* An endpoint allowed by [mcp.requirements]: the same URL, a trailing
 * slash aside. */
static int endpoint_allowed(const cJSON *list, const char *url)
{
    size_t n = strlen(url);
    if (n && url[n - 1] == '/')
        n--;
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        if (!cJSON_IsString(it))
            continue;
        size_t m = strlen(it->valuestring);
        if (m && it->valuestring[m - 1] == '/')
            m--;
        if (m == n && strncmp(it->valuestring, url, n) == 0)
            return 1;
    }
    return 0;
}

static int load_stdio(const cJSON *t, const char *workspace, provider *p, char **err)
{
    const char *W = "[[mcp.providers]]";
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(t, "command");
    char **args = NULL;
    size_t nargs = 0;
    if (get_strings(t, W, "args", &args, &nargs, err) < 0)
        return -1;
    p->argv = calloc(nargs + 2, sizeof *p->argv);
    if (!p->argv) {
        free_strings(args);
        return -1;
    }
    p->argv[0] = strdup(cmd->valuestring);
    for (size_t i = 0; i < nargs; i++)
        p->argv[i + 1] = args[i];
    free(args);
    if (build_env(p, cJSON_GetObjectItemCaseSensitive(t, "env"), err) < 0)
        return -1;
    const cJSON *wd = cJSON_GetObjectItemCaseSensitive(t, "working_directory");
    if (wd && !cJSON_IsString(wd)) {
        *err = errf("vtcode.toml: %s '%s': working_directory must be a string", W, p->name);
        return -1;
    }
    const char *dir = wd ? wd->valuestring : NULL;
    char joined[PATH_MAX];
    if (dir && dir[0] != '/') {
        snprintf(joined, sizeof joined, "%s/%s", workspace, dir);
        dir = joined;
    }
    p->cwd = strdup(dir ? dir : workspace);
    return 0;
}

static int load_http(const cJSON *t, provider *p, char **err)
{
    p->tp = &http_transport;
    if (get_string(t, p, "endpoint", &p->endpoint, err) < 0 ||
        get_string(t, p, "api_key_env", &p->api_key_env, err) < 0 ||
        get_string(t, p, "protocol_version", &p->protocol_version, err) < 0)
        return -1;
    if (strncmp(p->endpoint, "http://", 7) != 0 && strncmp(p->endpoint, "https://", 8) != 0) {
        *err = errf("vtcode.toml: [[mcp.providers]] '%s': endpoint must be an http:// or "
                    "https:// URL",
                    p->name);
        return -1;
    }
    /* `headers` as the issue names it, `http_headers` as newer VT Code does */
    const char *hkey =
        cJSON_GetObjectItemCaseSensitive(t, "http_headers") ? "http_headers" : "headers";
    if (get_headers(t, p, hkey, &p->headers, err) < 0 ||
        get_headers(t, p, "env_http_headers", &p->env_headers, err) < 0)
        return -1;
    return 0;
}

/* The entry's name, checked (it becomes part of tool names). */
static int load_name(const cJSON *t, provider *p, char **err)
{
    const char *W = "[[mcp.providers]]";
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
    if (!cJSON_IsString(name) || !name->valuestring[0]) {
        *err = errf("vtcode.toml: every %s needs a name (a string)", W);
        return -1;
    }
    if (!naming_provider_valid(name->valuestring)) {
        *err = errf("vtcode.toml: %s name '%s' must not contain '__' nor start or end with "
                    "'_' (tools are named mcp__<provider>__<tool>); rename the provider",
                    W, name->valuestring);
        return -1;
    }
    p->name = strdup(name->valuestring);
    return 0;
}

/* Exactly one of command (stdio) and endpoint (HTTP), then that
 * transport's keys. */
static int load_transport(const cJSON *t, const char *workspace, provider *p, char **err)
{
    const char *W = "[[mcp.providers]]";
    const cJSON *cmd = cJSON_GetObjectItemCaseSensitive(t, "command");
    const cJSON *endpoint = cJSON_GetObjectItemCaseSensitive(t, "endpoint");
    if (cmd && !cJSON_IsString(cmd)) {
        *err = errf("vtcode.toml: %s '%s': command must be a string", W, p->name);
        return -1;
    }
    if (cmd && endpoint) {
        *err = errf("vtcode.toml: %s '%s' has both a command (stdio) and an endpoint (HTTP): "
                    "name one",
                    W, p->name);
        return -1;
    }
    if (endpoint)
        return load_http(t, p, err);
    if (!cJSON_IsString(cmd) || !cmd->valuestring[0]) {
        *err = errf("vtcode.toml: %s '%s' needs a command (stdio) or an endpoint", W, p->name);
        return -1;
    }
    return load_stdio(t, workspace, p, err);
}

/* [mcp.requirements]: enforce, and the two allow lists as arrays of
 * strings. */
static int read_requirements(const cJSON *req, int *enforce, char **err)
{
    *enforce = 0;
    if (get_bool(req, "[mcp.requirements]", "enforce", 0, enforce, err) < 0)
        return -1;
    for (int i = 0; i < 2; i++) {
        const char *k = i ? "allowed_http_endpoints" : "allowed_stdio_commands";
        const cJSON *l = cJSON_GetObjectItemCaseSensitive(req, k), *it;
        int ok = !l || cJSON_IsArray(l);
        if (ok && l)
            cJSON_ArrayForEach(it, l) ok &= cJSON_IsString(it);
        if (!ok) {
            *err = errf("vtcode.toml: [mcp.requirements] %s must be an array of strings", k);
            return -1;
        }
    }
    return 0;
}

/* An enforced requirement the provider does not meet disables it (with
 * a warning in the log). */
static void enforce_requirements(const cJSON *req, provider *p)
{
    char why[600];
    if (p->endpoint &&
        !endpoint_allowed(cJSON_GetObjectItemCaseSensitive(req, "allowed_http_endpoints"),
                          p->endpoint))
        snprintf(why, sizeof why,
                 "MCP provider '%s': endpoint '%.300s' is not in "
                 "[mcp.requirements] allowed_http_endpoints",
                 p->name, p->endpoint);
    else if (!p->endpoint &&
             !allowed_by(cJSON_GetObjectItemCaseSensitive(req, "allowed_stdio_commands"),
                         p->argv[0]))
        snprintf(why, sizeof why,
                 "MCP provider '%s': command '%.300s' is not in "
                 "[mcp.requirements] allowed_stdio_commands",
                 p->name, p->argv[0]);
    else
        return;
    disable(p, why);
    if (mcpp_api)
        mcpp_api->log(VT_LOG_WARNING, "mcp_providers", "%s: not started", why);
}

static int load_provider(const cJSON *t, const mcpp_config *c, const cJSON *req,
                         const char *workspace, provider *p, char **err)
{
    const char *W = "[[mcp.providers]]";
    if (load_name(t, p, err) < 0)
        return -1;
    p->tp = &stdio_transport;
    p->prefix = naming_prefix(p->name);
    p->lim = c->lim;
    int enabled = 1, enforce;
    if (get_bool(t, W, "enabled", 1, &enabled, err) < 0 ||
        get_bool(t, W, "eager_start", c->eager, &p->eager, err) < 0)
        return -1;
    if (load_transport(t, workspace, p, err) < 0 || read_requirements(req, &enforce, err) < 0)
        return -1;
    if (!enabled)
        disable(p, "disabled in vtcode.toml (enabled = false)");
    else if (enforce)
        enforce_requirements(req, p);
    return 0;
}

/* A provider whose entry is wrong stays in the list, disabled with the
 * error as its reason (shown by `vthost mcp`): the host and the other
 * providers start as usual.  Takes why. */
static void reject(provider *p, int nth, char *why)
{
    if (!p->name) {
        char name[48];
        snprintf(name, sizeof name, "[[mcp.providers]] #%d", nth);
        p->name = strdup(name);
    }
    if (!p->prefix && p->name)
        p->prefix = naming_prefix(p->name);
    if (!p->tp)
        p->tp = &stdio_transport;
    p->bad_config = 1;
    disable(p, why ? why : "vtcode.toml: this [[mcp.providers]] entry is wrong");
    if (mcpp_api)
        mcpp_api->log(VT_LOG_WARNING, "mcp_providers",
                      "%s (this MCP provider is not "
                      "started; the others are)",
                      why ? why : "wrong entry");
    free(why);
}

int mcpp_config_load(const cJSON *root, const char *workspace, mcpp_config *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(root, "mcp");
    if (!mcp)
        return 0;
    if (!cJSON_IsObject(mcp)) {
        *err = strdup("vtcode.toml: mcp must be a table");
        return -1;
    }
    int s_req, s_start, s_tool, maxmsg;
    if (get_bool(mcp, "[mcp]", "enabled", 1, &out->enabled, err) < 0 ||
        get_bool(mcp, "[mcp]", "eager_start", 0, &out->eager, err) < 0 ||
        get_int(mcp, "max_concurrent_connections", 1, 1024, 5, &out->lim.max_concurrent, err) ||
        get_int(mcp, "request_timeout_seconds", 1, 3600, 30, &s_req, err) ||
        get_int(mcp, "retry_attempts", 0, 100, 3, &out->lim.retry_attempts, err) ||
        get_int(mcp, "startup_timeout_seconds", 1, 3600, 30, &s_start, err) ||
        get_int(mcp, "tool_timeout_seconds", 1, 86400, 300, &s_tool, err) ||
        get_int(mcp, "max_message_bytes", 1024, 256 << 20, 16 << 20, &maxmsg, err) ||
        get_int(mcp, "max_relayed_requests_per_call", 0, 10000, 16, &out->lim.relay_per_call,
                err) ||
        get_int(mcp, "max_relayed_requests_per_minute", 1, 100000, 60, &out->lim.relay_per_minute,
                err))
        return -1;
    out->lim.request_timeout_ms = s_req * 1000;
    out->lim.startup_timeout_ms = s_start * 1000;
    out->lim.tool_timeout_ms = s_tool * 1000;
    out->lim.max_message = (size_t)maxmsg;
    const cJSON *req = cJSON_GetObjectItemCaseSensitive(mcp, "requirements");
    if (req && !cJSON_IsObject(req)) {
        *err = strdup("vtcode.toml: mcp.requirements must be a table");
        return -1;
    }
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(mcp, "providers");
    if (!list)
        return 0;
    if (!cJSON_IsArray(list)) {
        *err = strdup("vtcode.toml: mcp.providers must be an array of tables ([[mcp.providers]])");
        return -1;
    }
    size_t n = (size_t)cJSON_GetArraySize(list);
    out->providers = calloc(n ? n : 1, sizeof *out->providers);
    if (!out->providers)
        return -1;
    const cJSON *t;
    int nth = 0;
    cJSON_ArrayForEach(t, list)
    {
        provider *p = malloc(sizeof *p);
        if (!p)
            return -1;
        provider_init(p);
        out->providers[out->count++] = p;
        nth++;
        char *perr = NULL;
        if (!cJSON_IsObject(t))
            perr = errf("vtcode.toml: [[mcp.providers]] entry %d is not a table", nth);
        else if (load_provider(t, out, req, workspace, p, &perr) < 0 && !perr)
            perr = strdup("vtcode.toml: [[mcp.providers]]: out of memory");
        for (size_t i = 0; !perr && i + 1 < out->count; i++)
            if (!out->providers[i]->bad_config && strcmp(out->providers[i]->prefix, p->prefix) == 0)
                perr = errf("vtcode.toml: two [[mcp.providers]] are named '%s' (after "
                            "replacing characters outside [a-zA-Z0-9_-]): '%s'",
                            out->providers[i]->name, p->name);
        if (perr)
            reject(p, nth, perr);
    }
    return 0;
}

void mcpp_config_free(mcpp_config *c)
{
    for (size_t i = 0; i < c->count; i++) {
        provider_free(c->providers[i]);
        free(c->providers[i]);
    }
    free(c->providers);
    memset(c, 0, sizeof *c);
}
