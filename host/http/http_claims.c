/* Access-token claims: see http_claims.h. */
#include <stdlib.h>
#include <string.h>
#include "crypto_lib.h"
#include "http_claims.h"
#include "strutil.h"

static int accepted(const http_config *c, const char *aud)
{
    for (char **p = c->oauth_audiences; p && *p; p++)
        if (strcmp(*p, aud) == 0)
            return 1;
    return 0;
}

int http_claims_audience_ok(const http_config *c, const cJSON *aud)
{
    if (cJSON_IsString(aud))
        return accepted(c, aud->valuestring);
    const cJSON *list = cJSON_IsArray(aud) ? aud : NULL, *it;
    cJSON_ArrayForEach(it, list)
    {
        if (cJSON_IsString(it) && accepted(c, it->valuestring))
            return 1;
    }
    return 0;
}

/* Whether `want` is one of the space-separated words of `list`. */
static int has_word(const char *list, const char *want, size_t n)
{
    for (const char *p = list; p && *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        if (len == n && strncmp(p, want, n) == 0)
            return 1;
        p += len;
    }
    return 0;
}

/* The scopes a token grants: its "scope" (RFC 9068: space-separated) or
 * "scp" (a string or an array of strings), as one space-separated
 * string (malloc'd, or NULL). */
static char *granted_scopes(const cJSON *claims)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(claims, "scope");
    if (!v)
        v = cJSON_GetObjectItemCaseSensitive(claims, "scp");
    if (cJSON_IsString(v))
        return strdup(v->valuestring);
    char *granted = NULL;
    const cJSON *list = cJSON_IsArray(v) ? v : NULL, *it;
    cJSON_ArrayForEach(it, list)
    {
        if (!cJSON_IsString(it) || strchr(it->valuestring, ' '))
            continue;
        char *more = str_printf("%s %s", granted ? granted : "", it->valuestring);
        free(granted);
        granted = more;
    }
    return granted;
}

int http_claims_scopes_ok(const http_config *c, const cJSON *claims)
{
    if (!c->oauth_scope)
        return 1;
    char *granted = granted_scopes(claims);
    int ok = 1;
    for (const char *p = c->oauth_scope; *p && ok;) {
        p += strspn(p, " ");
        size_t n = strcspn(p, " ");
        if (n && !has_word(granted, p, n))
            ok = 0;
        p += n;
    }
    free(granted);
    return ok;
}

int http_claims_principal(const char *iss, const char *sub, char owner[HTTP_OWNER_MAX])
{
    size_t li = strlen(iss), ls = strlen(sub);
    char *both = malloc(li + 1 + ls);
    if (both) {
        memcpy(both, iss, li + 1);
        memcpy(both + li + 1, sub, ls);
    }
    unsigned char h[32];
    int rc = both ? crypto_sha256(both, li + 1 + ls, h) : -1;
    free(both);
    if (rc < 0)
        return -1;
    static const char hex[] = "0123456789abcdef";
    char *w = owner + snprintf(owner, HTTP_OWNER_MAX, "oauth:");
    for (size_t i = 0; i < sizeof h; i++) {
        *w++ = hex[h[i] >> 4];
        *w++ = hex[h[i] & 15];
    }
    *w = 0;
    return 0;
}
