/* What `vthost serve --http` is configured with: the command line
 * (--http ADDR:PORT, --token-file) and the server's own file,
 * $XDG_CONFIG_HOME/vthost/http.toml (the user's, never the workspace's:
 * a repository must not be able to open the server up). */
#ifndef VTHOST_HTTP_CONFIG_H
#define VTHOST_HTTP_CONFIG_H

#include <stddef.h>
#include <sys/socket.h>

#define HTTP_DEFAULT_PORT 8765

typedef struct http_config {
    struct sockaddr_storage addr; /* where to listen */
    socklen_t addr_len;
    int loopback;                /* addr is 127.0.0.0/8 or ::1 */
    char listen[80];             /* as given, for messages */
    char *config_dir;            /* $XDG_CONFIG_HOME/vthost */
    char *public_url;            /* public_url: the MCP endpoint's URL as clients
                                     reach it (through a TLS proxy), or NULL */
    char *token_file;            /* --token-file, else config_dir/http-token */
    char **origins;              /* allowed_origins (NULL-terminated) */
    int max_sessions_per_client; /* per token (or per OAuth subject) */
    int max_sessions;            /* of all clients together */
    int max_calls_per_session;
    size_t max_body_bytes;
    int idle_timeout_s;       /* a session unused this long ends */
    int idle_commands_s;      /* ... this long when it holds command sessions */
    int request_timeout_s;    /* a request body must arrive within this */
    int connection_timeout_s; /* a silent connection is closed */
    int header_timeout_s;     /* until authenticated: a request's headers
                                 must be complete within this */
    int max_connections;
    int max_unauthenticated;  /* connections not (yet) authenticated */
    int max_per_address;      /* connections from one client address; 0: no cap */
    int shutdown_grace_s;     /* SIGTERM: running calls get this long */
    int resume_window_s;      /* a dropped stream waits this long for a resume */
    char *tls_cert, *tls_key; /* PEM files: serve HTTPS directly */
    char *access_log;         /* file (appended), else stderr */
    /* OAuth 2.1 resource server: JWT access tokens instead of the token. */
    int oauth;
    char *oauth_issuer;
    char **oauth_audiences;   /* aud values accepted (NULL-terminated): [oauth]
                                 audience, a string or a list; default public_url */
    char *oauth_jwks_file;    /* keys: a JWKS file ... */
    char *oauth_jwks_url;     /* ... or URL (https://, or http:// on loopback) */
    int oauth_jwks_refresh_s; /* the URL is fetched again this often */
    char *oauth_key_file;     /* ... or one PEM public key */
    char *oauth_alg;          /* with oauth_key_file: RS256, ES256, ... */
    char **oauth_servers;     /* authorization_servers for the metadata */
    char *oauth_scope;        /* scopes_supported, space separated */
    char *oauth_client_id;    /* a pre-registered client for the snippets */
    /* RFC 7662 introspection of opaque access tokens, with the resource
     * server's own client credentials (HTTP Basic). */
    char *oauth_introspection_url;
    char *oauth_introspection_client_id;
    char *oauth_introspection_secret;
    int oauth_introspection_cache_s; /* an answer is reused at most this long */
} http_config;

/* Fill *c from `listen` (ADDR:PORT, ADDR, :PORT or PORT; NULL: the
 * default), `token_file` (may be NULL) and http.toml.  Returns 0, or -1
 * with *err (malloc'd) saying what was wrong and what to do.  Refuses a
 * non-loopback address unless TLS is configured or public_url names an
 * https:// URL (a TLS-terminating proxy in front). */
int http_config_load(http_config *c, const char *listen, const char *token_file, char **err);
void http_config_free(http_config *c);

/* The endpoint URL clients are told: public_url, else
 * http(s)://ADDR:PORT/mcp with the bound port.  malloc'd. */
char *http_config_url(const http_config *c, int port);

/* Whether `url` may carry the keys that decide who gets in: https://,
 * or plain http:// whose host, as libcurl parses the URL (the parser that
 * fetches it), is localhost, 127.0.0.0/8 or [::1].  A prefix test would
 * let http://127.evil.example/ and http://127.0.0.1@evil.example/ through.
 * Returns 1 or 0, or -1 with *err (malloc'd) when `url` cannot be parsed. */
int http_config_url_secure(const char *url, char **err);

#endif
