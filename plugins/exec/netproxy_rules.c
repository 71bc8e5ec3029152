/* [sandbox.network] allowed_domains / denied_domains: parsing and
 * matching (netproxy_rules.h). */
#include "netproxy_rules.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

int netproxy_host_normalize(const char *host, char *out, size_t size, int *literal)
{
    char buf[256];
    size_t n = strlen(host);
    *literal = 0;
    if (n == 0 || n >= sizeof buf)
        return -1;
    if (host[0] == '[') { /* [v6] as URLs write it */
        if (host[n - 1] != ']')
            return -1;
        memcpy(buf, host + 1, n - 2);
        buf[n - 2] = 0;
    } else {
        memcpy(buf, host, n + 1);
    }
    unsigned char a[16];
    if (inet_pton(AF_INET, buf, a) == 1 || inet_pton(AF_INET6, buf, a) == 1) {
        int fam = strchr(buf, ':') ? AF_INET6 : AF_INET;
        *literal = 1;
        return inet_ntop(fam, a, out, (socklen_t)size) ? 0 : -1;
    }
    if (host[0] == '[')
        return -1;
    n = strlen(buf);
    if (buf[n - 1] == '.')
        buf[--n] = 0;
    if (n == 0 || n >= size)
        return -1;
    /* Letters, digits, '-', '_' and dots between labels: nothing a URL or
     * a header could be bent with. */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (!(isalnum(c) || c == '-' || c == '_' || (c == '.' && i && buf[i - 1] != '.')))
            return -1;
        out[i] = (char)tolower(c);
    }
    out[n] = 0;
    return 0;
}

/* "host", "host:port", "*.host[:port]", "[v6]:port", "v6": one rule. */
static int parse_entry(const char *text, netproxy_rule *r)
{
    char buf[300];
    if (strlen(text) >= sizeof buf)
        return -1;
    snprintf(buf, sizeof buf, "%s", text);
    memset(r, 0, sizeof *r);
    char *host = buf;
    if (!strncmp(host, "*.", 2)) {
        r->wildcard = 1;
        host += 2;
    }
    char *colon = strrchr(host, ':');
    int bare_v6 = colon && host[0] != '[' && strchr(host, ':') != colon;
    if (colon && !bare_v6 && (host[0] != '[' || colon[-1] == ']')) {
        char *end = NULL;
        long p = strtol(colon + 1, &end, 10);
        if (!colon[1] || *end || p < 1 || p > 65535)
            return -1;
        r->port = (unsigned)p;
        *colon = 0;
    }
    char norm[256];
    if (netproxy_host_normalize(host, norm, sizeof norm, &r->literal) != 0)
        return -1;
    if (r->wildcard && (r->literal || !strchr(norm, '.')))
        return -1; /* "*.com" would open a whole top-level domain */
    r->host = strdup(norm);
    return r->host ? 0 : -2;
}

static int parse_list(const cJSON *t, const char *key, netproxy_rule **v, size_t *n, size_t *cap,
                      char **err)
{
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!list)
        return VT_OK;
    if (!cJSON_IsArray(list)) {
        if (asprintf(err,
                     "vtcode.toml: key 'sandbox.network.%s' must be an array of host "
                     "names (\"registry.npmjs.org\", \"*.example.com\", \"host:443\")",
                     key) < 0)
            *err = NULL;
        return VT_ERR_INVALID;
    }
    const cJSON *it;
    cJSON_ArrayForEach(it, list)
    {
        netproxy_rule r;
        int rc = cJSON_IsString(it) ? parse_entry(it->valuestring, &r) : -1;
        if (rc == -1) {
            if (asprintf(err,
                         "vtcode.toml: key 'sandbox.network.%s' must hold host names, "
                         "\"*.domain\" wildcards or address literals, each with an optional "
                         ":port (1-65535); got %s",
                         key,
                         cJSON_IsString(it) ? it->valuestring : "a value that is not a string") < 0)
                *err = NULL;
            return VT_ERR_INVALID;
        }
        if (rc < 0 || VT_GROW(v, cap, *n + 1) != 0) {
            free(rc == 0 ? r.host : NULL);
            return VT_ERR_NOMEM;
        }
        (*v)[(*n)++] = r;
    }
    return VT_OK;
}

int netproxy_rules_parse(const cJSON *config, netproxy_rules *out, char **err)
{
    memset(out, 0, sizeof *out);
    out->max_connections = NETPROXY_DEFAULT_CONNECTIONS;
    *err = NULL;
    const cJSON *sb = cJSON_GetObjectItemCaseSensitive(config, "sandbox");
    const cJSON *t = cJSON_IsObject(sb) ? cJSON_GetObjectItemCaseSensitive(sb, "network") : NULL;
    if (!t)
        return VT_OK;
    if (!cJSON_IsObject(t)) {
        *err = strdup("vtcode.toml: key 'sandbox.network' must be a table ([sandbox.network])");
        return VT_ERR_INVALID;
    }
    int rc = parse_list(t, "allowed_domains", &out->allow, &out->nallow, &out->allow_cap, err);
    if (rc == VT_OK)
        rc = parse_list(t, "denied_domains", &out->deny, &out->ndeny, &out->deny_cap, err);
    const cJSON *mc = cJSON_GetObjectItemCaseSensitive(t, "max_connections");
    if (rc == VT_OK && mc) {
        if (!cJSON_IsNumber(mc) || mc->valuedouble < 1 || mc->valuedouble > 4096 ||
            mc->valuedouble != (double)(long)mc->valuedouble) {
            *err = strdup("vtcode.toml: key 'sandbox.network.max_connections' must be an "
                          "integer from 1 to 4096 (connections open at once per command "
                          "session)");
            rc = VT_ERR_INVALID;
        } else {
            out->max_connections = (unsigned)mc->valuedouble;
        }
    }
    if (rc != VT_OK)
        netproxy_rules_free(out);
    return rc;
}

void netproxy_rules_free(netproxy_rules *r)
{
    for (size_t i = 0; i < r->nallow; i++)
        free(r->allow[i].host);
    for (size_t i = 0; i < r->ndeny; i++)
        free(r->deny[i].host);
    free(r->allow);
    free(r->deny);
    memset(r, 0, sizeof *r);
}

static int rule_matches(const netproxy_rule *r, const char *host, int literal, unsigned port)
{
    if (r->port && r->port != port)
        return 0;
    if (!r->wildcard)
        return !strcmp(r->host, host);
    if (literal)
        return 0;
    size_t hl = strlen(host), rl = strlen(r->host);
    return hl > rl + 1 && host[hl - rl - 1] == '.' && !strcmp(host + hl - rl, r->host);
}

static int any_matches(const netproxy_rule *v, size_t n, const char *host, int literal,
                       unsigned port)
{
    for (size_t i = 0; i < n; i++)
        if (rule_matches(&v[i], host, literal, port))
            return 1;
    return 0;
}

netproxy_verdict netproxy_rules_judge(const netproxy_rules *r, const char *host, unsigned port)
{
    char norm[256];
    int literal = 0;
    if (netproxy_host_normalize(host, norm, sizeof norm, &literal) != 0)
        return NETPROXY_UNLISTED;
    if (any_matches(r->deny, r->ndeny, norm, literal, port))
        return NETPROXY_DENIED;
    return any_matches(r->allow, r->nallow, norm, literal, port) ? NETPROXY_ALLOWED
                                                                 : NETPROXY_UNLISTED;
}

int netproxy_rules_lists(const netproxy_rules *r, const char *host, unsigned port)
{
    char norm[256];
    int literal = 0;
    if (netproxy_host_normalize(host, norm, sizeof norm, &literal) != 0)
        return 0;
    for (size_t i = 0; i < r->nallow; i++)
        if (!r->allow[i].wildcard && (!r->allow[i].port || r->allow[i].port == port) &&
            !strcmp(r->allow[i].host, norm))
            return 1;
    return 0;
}
