/* The environment policy for commands (envpolicy.h): like Codex's
 * shell_environment_policy, credentials in vthost's own environment
 * (the API keys its providers use, tokens the user exported) are not
 * handed to every command the model runs. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "envpolicy.h"

static const char *const default_drop[] = {"*_TOKEN", "*_KEY", "*SECRET*", "*PASSWORD*",
                                           "*CREDENTIAL*"};

/* A copy of `s` after the *n items of *v (*cap allocated), NULL-ended. */
static int push(char ***v, size_t *n, size_t *cap, const char *s)
{
    if (VT_GROW(v, cap, *n + 2) != 0)
        return VT_ERR_NOMEM;
    char **g = *v;
    if (!(g[*n] = strdup(s)))
        return VT_ERR_NOMEM;
    g[++*n] = NULL;
    return VT_OK;
}

static int fail(char **err, const char *what)
{
    *err = strdup(what);
    return VT_ERR_INVALID;
}

static int read_list(const cJSON *t, const char *key, char ***v, size_t *n, size_t *cap, char **err)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, key), *it;
    if (!a)
        return VT_OK;
    char msg[160];
    snprintf(msg, sizeof msg,
             "vtcode.toml: key 'sandbox.env.%s' must be an array of variable "
             "names or patterns (\"GITHUB_TOKEN\", \"AWS_*\")",
             key);
    if (!cJSON_IsArray(a))
        return fail(err, msg);
    cJSON_ArrayForEach(it, a)
    {
        if (!cJSON_IsString(it) || !*it->valuestring || strchr(it->valuestring, '='))
            return fail(err, msg);
        if (push(v, n, cap, it->valuestring) != VT_OK)
            return VT_ERR_NOMEM;
    }
    return VT_OK;
}

/* The variables a provider's entry names: its api_key_env, the values of
 * env_http_headers (variable names) and the keys of env. */
static int provider_names(const cJSON *config, env_policy *out)
{
    const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(config, "mcp");
    const cJSON *provs = cJSON_GetObjectItemCaseSensitive(mcp, "providers"), *p, *it;
    cJSON_ArrayForEach(p, provs)
    {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(p, "api_key_env");
        if (cJSON_IsString(k) && *k->valuestring &&
            push(&out->drop, &out->ndrop, &out->cap_drop, k->valuestring))
            return VT_ERR_NOMEM;
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "env_http_headers"))
        {
            if (cJSON_IsString(it) && *it->valuestring &&
                push(&out->drop, &out->ndrop, &out->cap_drop, it->valuestring))
                return VT_ERR_NOMEM;
        }
        cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(p, "env"))
        {
            if (it->string && *it->string &&
                push(&out->drop, &out->ndrop, &out->cap_drop, it->string))
                return VT_ERR_NOMEM;
        }
    }
    return VT_OK;
}

int env_policy_parse(const cJSON *config, env_policy *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    int rc = provider_names(config, out);
    const cJSON *sb = cJSON_GetObjectItemCaseSensitive(config, "sandbox");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(sb, "env");
    if (rc == VT_OK && t && !cJSON_IsObject(t))
        rc = fail(err, "vtcode.toml: key 'sandbox.env' must be a table (include, exclude, set)");
    if (rc == VT_OK)
        rc = read_list(t, "include", &out->include, &out->ninclude, &out->cap_include, err);
    if (rc == VT_OK)
        rc = read_list(t, "exclude", &out->exclude, &out->nexclude, &out->cap_exclude, err);
    const cJSON *set = cJSON_GetObjectItemCaseSensitive(t, "set"), *it;
    if (rc != VT_OK)
        set = NULL;
    else if (set && !cJSON_IsObject(set)) {
        rc = fail(err, "vtcode.toml: key 'sandbox.env.set' must be a table of strings "
                       "({ NAME = \"value\" })");
        set = NULL;
    }
    cJSON_ArrayForEach(it, set)
    {
        if (!cJSON_IsString(it) || !*it->string || strchr(it->string, '=')) {
            rc = fail(err, "vtcode.toml: key 'sandbox.env.set' must be a table of strings "
                           "({ NAME = \"value\" })");
            break;
        }
        size_t n = strlen(it->string) + strlen(it->valuestring) + 2;
        char *e = malloc(n);
        if (!e) {
            rc = VT_ERR_NOMEM;
            break;
        }
        snprintf(e, n, "%s=%s", it->string, it->valuestring);
        rc = push(&out->set, &out->nset, &out->cap_set, e);
        free(e);
        if (rc != VT_OK)
            break;
    }
    if (rc != VT_OK)
        env_policy_free(out);
    return rc;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

void env_policy_free(env_policy *p)
{
    free_list(p->drop, p->ndrop);
    free_list(p->include, p->ninclude);
    free_list(p->exclude, p->nexclude);
    free_list(p->set, p->nset);
    memset(p, 0, sizeof *p);
}

static int matches_any(const char *name, char *const *pat, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (fnmatch(pat[i], name, FNM_CASEFOLD) == 0)
            return 1;
    return 0;
}

static int keeps(const env_policy *p, const char *name)
{
    if (matches_any(name, p->exclude, p->nexclude))
        return 0;
    int dropped = 0;
    for (size_t i = 0; i < p->ndrop && !dropped; i++)
        dropped = strcmp(p->drop[i], name) == 0;
    if (!dropped)
        dropped = matches_any(name, (char *const *)default_drop,
                              sizeof default_drop / sizeof *default_drop);
    return !dropped || matches_any(name, p->include, p->ninclude);
}

int env_policy_keeps(const env_policy *p, const char *entry)
{
    const char *eq = strchr(entry, '=');
    char *name = strndup(entry, eq ? (size_t)(eq - entry) : strlen(entry));
    if (!name)
        return 0;
    int keep = keeps(p, name);
    free(name);
    return keep;
}
