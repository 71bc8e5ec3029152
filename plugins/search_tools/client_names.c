/* The clients known to prefix a server's tools, by the name they give in
 * clientInfo, and each one's character rule (what it turns into '_').
 * Both agree for the names vthost lists, which are [A-Za-z0-9_] only:
 * the rule matters for a server name the user chose. */
#include <string.h>
#include "client_names.h"

struct client_naming {
    const char *client; /* clientInfo name, exact */
    const char *label;
    int keeps_hyphen; /* Claude Code keeps '-', Codex maps it to '_' */
};

static const client_naming known[] = {
    {"claude-code", "Claude Code", 1},
    {"codex-mcp-client", "Codex", 0},
};

const client_naming *client_naming_for(const char *client)
{
    for (size_t i = 0; client && i < sizeof known / sizeof known[0]; i++)
        if (strcmp(client, known[i].client) == 0)
            return &known[i];
    return NULL;
}

const char *client_naming_label(const client_naming *cn) { return cn ? cn->label : NULL; }

static int kept(const client_naming *cn, char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           (c == '-' && cn->keeps_hyphen);
}

/* Appends `s` with the client's rule at out[*n].  Returns 0 or -1. */
static int append(const client_naming *cn, const char *s, char *out, size_t size, size_t *n)
{
    for (; *s; s++) {
        if (*n + 1 >= size)
            return -1;
        out[(*n)++] = kept(cn, *s) ? *s : '_';
    }
    out[*n] = '\0';
    return 0;
}

int client_naming_apply(const client_naming *cn, const char *server, const char *name, char *out,
                        size_t size)
{
    if (!cn || !server || !name || size == 0)
        return -1;
    size_t n = 0; /* "mcp__" is kept as it is by every client's rule */
    if (append(cn, "mcp__", out, size, &n) < 0 || append(cn, server, out, size, &n) < 0 ||
        append(cn, "__", out, size, &n) < 0 || append(cn, name, out, size, &n) < 0) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}
