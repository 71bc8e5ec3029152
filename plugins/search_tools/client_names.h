/* How a client that prefixes a server's tools shows a tool to its model.
 * vthost lists a tool as NAME; Claude Code and Codex show it as
 * mcp__<server>__NAME, <server> being the name the user gave the server
 * when adding it (docs/clients.md adds it as "vthost"), which no client
 * tells the server.  Pure: the plugin and its tests share it. */
#ifndef SEARCH_TOOLS_CLIENT_NAMES_H
#define SEARCH_TOOLS_CLIENT_NAMES_H

#include <stddef.h>

/* The server name the documented setups use. */
#define CLIENT_NAMES_SERVER "vthost"

typedef struct client_naming client_naming;

/* The naming of the client that names itself `client` (clientInfo's
 * name, may be NULL), or NULL for a client not known to prefix. */
const client_naming *client_naming_for(const char *client);

/* The client's own name for itself, for the result's note ("Claude
 * Code"). */
const char *client_naming_label(const client_naming *cn);

/* How the client shows tool `name` of server `server`, in out (size
 * bytes).  Returns 0, or -1 when it does not fit (out is then ""). */
int client_naming_apply(const client_naming *cn, const char *server, const char *name, char *out,
                        size_t size);

#endif
