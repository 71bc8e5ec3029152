/* Tool names as the permission grammar's mcp__server__tool rules expect
 * them.  Sanitising can map two names to one and cutting can too, hence
 * the hash suffix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "naming.h"

static int allowed(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

void naming_sanitize(const char *in, char *out)
{
    for (; *in; in++)
        *out++ = allowed(*in) ? *in : '_';
    *out = '\0';
}

static unsigned hash32(const char *a, const char *b, unsigned salt)
{
    unsigned h = 2166136261u ^ salt;
    for (; *a; a++)
        h = (h ^ (unsigned char)*a) * 16777619u;
    h = (h ^ 0xffu) * 16777619u;  /* separator: ("ab","c") != ("a","bc") */
    for (; *b; b++)
        h = (h ^ (unsigned char)*b) * 16777619u;
    return h;
}

void naming_tool(const char *provider, const char *tool, unsigned salt, char *out)
{
    size_t lp = strlen(provider), lt = strlen(tool);
    char *full = malloc(lp + lt + 8);
    if (!full) {
        snprintf(out, MCPP_NAME_MAX + 1, "mcp__%08x", hash32(provider, tool, salt));
        return;
    }
    memcpy(full, "mcp__", 5);
    naming_sanitize(provider, full + 5);
    memcpy(full + 5 + lp, "__", 2);
    naming_sanitize(tool, full + 7 + lp);
    size_t len = lp + lt + 7;
    if (len <= MCPP_NAME_MAX && salt == 0) {
        memcpy(out, full, len + 1);
    } else {
        size_t keep = len < MCPP_NAME_MAX - 9 ? len : MCPP_NAME_MAX - 9;
        memcpy(out, full, keep);
        snprintf(out + keep, 10, "_%08x", hash32(provider, tool, salt));
    }
    free(full);
}

char *naming_prefix(const char *provider)
{
    size_t lp = strlen(provider);
    char *s = malloc(lp + 8);
    if (!s)
        return NULL;
    memcpy(s, "mcp__", 5);
    naming_sanitize(provider, s + 5);
    memcpy(s + 5 + lp, "__", 3);
    return s;
}
