/* The environment that points a command's tools at the proxy
 * (netproxy_env in netproxy.h): the usual proxy variables and the
 * settings npm, pip, cargo and git read. */
#include "netproxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define HTTP_URL "http://127.0.0.1:" STR(NETPROXY_PORT)
#define SOCKS_URL "socks5h://127.0.0.1:" STR(NETPROXY_PORT)

static const char *const set[] = {
    "HTTP_PROXY=" HTTP_URL, "http_proxy=" HTTP_URL, "HTTPS_PROXY=" HTTP_URL,
    "https_proxy=" HTTP_URL,
    /* socks5h: the proxy resolves names (there is no DNS in the sandbox) */
    "ALL_PROXY=" SOCKS_URL, "all_proxy=" SOCKS_URL,
    /* nothing bypasses the proxy: there is no other way out */
    "NO_PROXY=", "no_proxy=", "npm_config_proxy=" HTTP_URL, "npm_config_https_proxy=" HTTP_URL,
    "PIP_PROXY=" HTTP_URL, "CARGO_HTTP_PROXY=" HTTP_URL,
    /* git's http.proxy through its environment configuration */
    "GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=http.proxy", "GIT_CONFIG_VALUE_0=" HTTP_URL};

#define NSET (sizeof set / sizeof *set)

/* A variable the list sets, or one of git's numbered pairs it replaces. */
static int replaced(const char *e)
{
    if (!strncmp(e, "GIT_CONFIG_KEY_", 15) || !strncmp(e, "GIT_CONFIG_VALUE_", 17))
        return 1;
    size_t n = strcspn(e, "=");
    for (size_t i = 0; i < NSET; i++)
        if (!strncmp(set[i], e, n) && set[i][n] == '=')
            return 1;
    return 0;
}

char **netproxy_env(char **env)
{
    size_t n = 0;
    while (env && env[n])
        n++;
    char **out = calloc(n + NSET + 1, sizeof *out);
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!replaced(env[i]))
            out[k++] = env[i];
    size_t first_new = k;
    for (size_t i = 0; i < NSET; i++)
        if (!(out[k++] = strdup(set[i]))) {
            for (size_t j = first_new; j < k; j++)
                free(out[j]);
            free(out);
            return NULL;
        }
    for (size_t i = 0; i < n; i++)
        if (replaced(env[i]))
            free(env[i]);
    free(env);
    return out;
}
