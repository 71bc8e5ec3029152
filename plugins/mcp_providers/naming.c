/* Tool names every client can call: ^[A-Za-z0-9_]{1,64}$ (Codex turns
 * anything else into '_' on its side and then cannot call the name it
 * was given).  Mapping can turn two names into one and cutting can too,
 * hence the hash suffix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "naming.h"

static int allowed(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
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
    h = (h ^ 0xffu) * 16777619u; /* separator: ("ab","c") != ("a","bc") */
    for (; *b; b++)
        h = (h ^ (unsigned char)*b) * 16777619u;
    return h;
}

int naming_provider_valid(const char *provider)
{
    size_t n = strlen(provider);
    char *s = malloc(n + 1);
    if (!s)
        return 0;
    naming_sanitize(provider, s);
    /* "__" separates provider and tool: inside the provider's name, or
     * against it at either end, it would let two providers name one tool
     * (a + b__c and a__b + c) and a server rule reach the wrong one */
    int ok = n > 0 && !strstr(s, "__") && s[0] != '_' && s[n - 1] != '_';
    free(s);
    return ok;
}

/* The tool part: sanitised, runs of '_' folded to one (a tool's own "__"
 * is never read as a separator).  1 when that changed the name. */
static int tool_part(const char *tool, char *out)
{
    naming_sanitize(tool, out);
    int changed = strcmp(out, tool) != 0;
    char *w = out;
    for (const char *r = out; *r; r++) {
        if (*r == '_' && w > out && w[-1] == '_') {
            changed = 1;
            continue;
        }
        *w++ = *r;
    }
    *w = '\0';
    return changed;
}

int naming_tool(const char *provider, const char *tool, unsigned salt, int suffix, char *out)
{
    size_t lp = strlen(provider), lt = strlen(tool);
    char *full = malloc(lp + lt + 8);
    if (!full) {
        snprintf(out, MCPP_NAME_MAX + 1, "mcp__%08x", hash32(provider, tool, salt));
        return 1;
    }
    memcpy(full, "mcp__", 5);
    naming_sanitize(provider, full + 5);
    int changed = strcmp(full + 5, provider) != 0;
    memcpy(full + 5 + lp, "__", 2);
    changed |= tool_part(tool, full + 7 + lp);
    size_t len = strlen(full);
    /* The suffix is a hash of the original names: names that map to one
     * stay apart, and a cut name stays distinct from its neighbours. */
    if (len <= MCPP_NAME_MAX && salt == 0 && !suffix) {
        memcpy(out, full, len + 1);
    } else {
        size_t keep = len < MCPP_NAME_MAX - 9 ? len : MCPP_NAME_MAX - 9;
        memcpy(out, full, keep);
        snprintf(out + keep, 10, "_%08x", hash32(provider, tool, salt));
    }
    free(full);
    return changed;
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
