/* Client set-up texts: see http_banner.h. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "http_banner.h"
#include "strutil.h"

#define MISSING_SHORT                                                                              \
    "the Authorization header is missing: this server needs Authorization: Bearer TOKEN"

/* Set once the port is known, after the daemon started: request threads
 * may already read it (the short text until then). */
static char *_Atomic missing;

/* Token mode: the header and where the token is, as the two clients'
 * entries (one line each: the text goes into a JSON-RPC error message).
 * Only a local server names its token file: to a client across the
 * network the path would say nothing it can use (the file is on the
 * server) and something about the server's accounts. */
static char *token_missing(const http_config *c, const char *url)
{
    if (c->public_url || !c->loopback)
        return str_printf("the Authorization header is missing: this server needs "
                          "'Authorization: Bearer TOKEN' with the token from the server's token "
                          "file. Claude Code: claude mcp add -s user --transport http vthost %s "
                          "--header \"Authorization: Bearer $VTHOST_TOKEN\". Codex "
                          "(~/.codex/config.toml): [mcp_servers.vthost] url = \"%s\" "
                          "bearer_token_env_var = \"VTHOST_TOKEN\". Both with VTHOST_TOKEN set "
                          "to the token",
                          url, url);
    return str_printf("the Authorization header is missing: this server needs "
                      "'Authorization: Bearer TOKEN' with the token in %s. Claude Code: claude "
                      "mcp add -s user --transport http vthost %s --header \"Authorization: "
                      "Bearer $(cat %s)\". Codex (~/.codex/config.toml): [mcp_servers.vthost] "
                      "url = \"%s\" bearer_token_env_var = \"VTHOST_TOKEN\", and export "
                      "VTHOST_TOKEN=$(cat %s) before starting Codex",
                      c->token_file, url, c->token_file, url, c->token_file);
}

/* OAuth mode: where the access token comes from. */
static char *oauth_missing(const http_config *c, const char *url)
{
    if (c->oauth_client_id)
        return str_printf(
            "the Authorization header is missing: this server needs an OAuth access token "
            "from %s. Sign in with the pre-registered client %s: Claude Code: claude mcp add "
            "-s user --transport http --client-id %s --callback-port PORT vthost %s, then /mcp; "
            "Codex: [mcp_servers.vthost.oauth] client_id = \"%s\", then codex mcp login vthost",
            c->oauth_issuer, c->oauth_client_id, c->oauth_client_id, url, c->oauth_client_id);
    return str_printf("the Authorization header is missing: this server needs an OAuth access "
                      "token from %s (Authorization: Bearer TOKEN). Claude Code signs in with "
                      "/mcp, Codex with codex mcp login vthost",
                      c->oauth_issuer);
}

int http_banner_init(const http_config *c, const char *endpoint_url)
{
    char *text = c->oauth ? oauth_missing(c, endpoint_url) : token_missing(c, endpoint_url);
    free(atomic_exchange(&missing, text)); /* once per start: nobody holds the old one */
    return text ? 0 : -1;
}

/* After the daemon stopped: no request reads it any more. */
void http_banner_free(void) { free(atomic_exchange(&missing, NULL)); }

const char *http_banner_missing_header(void)
{
    const char *text = atomic_load(&missing);
    return text ? text : MISSING_SHORT;
}

void http_banner_first_start(const http_config *c, const char *endpoint_url, const char *token)
{
    const char *file = c->token_file;
    if (isatty(STDERR_FILENO) && token)
        fprintf(stderr,
                "vthost: created a bearer token for the HTTP server in %s (0600); it is shown "
                "this once:\n\n    %s\n\n",
                file, token);
    else
        fprintf(stderr,
                "vthost: created a bearer token for the HTTP server in %s (0600; not shown: "
                "stderr is not a terminal)\n\n",
                file);
    fprintf(stderr,
            "Claude Code (every project of this user):\n"
            "    claude mcp add -s user --transport http vthost %s --header \"Authorization: "
            "Bearer $(cat %s)\"\n"
            "Codex (~/.codex/config.toml; export VTHOST_TOKEN=$(cat %s) where Codex starts):\n"
            "    [mcp_servers.vthost]\n    url = \"%s\"\n    bearer_token_env_var = "
            "\"VTHOST_TOKEN\"\n    default_tools_approval_mode = \"approve\"\n\n",
            endpoint_url, file, file, endpoint_url);
}
