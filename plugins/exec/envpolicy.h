/* Which of vthost's environment variables a command gets: credentials
 * stay with vthost ([sandbox.env], docs/tools.md "Environment"). */
#ifndef VTHOST_EXEC_ENVPOLICY_H
#define VTHOST_EXEC_ENVPOLICY_H

#include <cjson/cJSON.h>

typedef struct env_policy {
    char **drop;    /* names the providers' configuration names (exact) */
    char **include; /* patterns kept although the default drops them */
    char **exclude; /* patterns always dropped */
    char **set;     /* NAME=value entries set last */
    size_t ndrop, ninclude, nexclude, nset;
    size_t cap_drop, cap_include, cap_exclude, cap_set; /* allocated (VT_GROW) */
} env_policy;

/* Reads [sandbox.env] (include, exclude: arrays of names or shell
 * patterns; set: a table of strings) and the variable names of
 * [[mcp.providers]] (api_key_env, env_http_headers values, env keys).
 * A wrong type is VT_ERR_INVALID with a malloc'd *err naming the key. */
int env_policy_parse(const cJSON *config, env_policy *out, char **err);
void env_policy_free(env_policy *p);

/* 1 when the entry "NAME=value" of vthost's environment reaches the
 * command: not a default credential name (the providers' variables,
 * *_TOKEN, *_KEY, *SECRET*, *PASSWORD*, *CREDENTIAL*, compared without
 * case) unless `include` names it, and never when `exclude` does. */
int env_policy_keeps(const env_policy *p, const char *entry);

#endif
