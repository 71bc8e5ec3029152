/* `vthost serve --http` configuration: see http_config.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "http_config.h"
#include "http_fetch.h"
#include "json_exact.h"
#include "paths.h"
#include "strutil.h"
#include "toml_reader.h"

static char *config_dir(void)
{
    char *d = paths_xdg_vthost("XDG_CONFIG_HOME", ".config");
    return d ? d : str_printf("./.config/vthost");
}

static int parse_port(const char *s, int *port)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > 65535)
        return -1;
    *port = (int)v;
    return 0;
}

/* ADDR:PORT, [V6]:PORT, ADDR, :PORT or PORT. */
static int parse_listen(http_config *c, const char *listen, char **err)
{
    char host[64] = "127.0.0.1";
    int port = HTTP_DEFAULT_PORT;
    const char *colon = NULL;
    if (!listen || !*listen)
        listen = "127.0.0.1";
    snprintf(c->listen, sizeof c->listen, "%s", listen);
    if (listen[0] == '[') {
        const char *close = strchr(listen, ']');
        if (!close || (size_t)(close - listen - 1) >= sizeof host)
            goto bad;
        memcpy(host, listen + 1, (size_t)(close - listen - 1));
        host[close - listen - 1] = 0;
        if (close[1] == ':')
            colon = close + 1;
        else if (close[1])
            goto bad;
    } else if (strspn(listen, "0123456789") == strlen(listen)) {
        colon = listen - 1; /* PORT alone */
    } else {
        colon = strrchr(listen, ':');
        size_t n = colon ? (size_t)(colon - listen) : strlen(listen);
        if (n >= sizeof host)
            goto bad;
        if (n > 0) {
            memcpy(host, listen, n);
            host[n] = 0;
        }
    }
    if (colon && parse_port(colon + 1, &port) < 0)
        goto bad;
    if (strcmp(host, "localhost") == 0)
        strcpy(host, "127.0.0.1");
    memset(&c->addr, 0, sizeof c->addr);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&c->addr;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&c->addr;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        c->addr_len = sizeof *v4;
        c->loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        c->addr_len = sizeof *v6;
        c->loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
    } else {
        goto bad;
    }
    return 0;
bad:
    *err = str_printf("--http '%s' is not an address to listen on: give ADDR:PORT with a "
                      "numeric IPv4 address or [IPv6] (e.g. 127.0.0.1:%d), or a port alone",
                      listen, HTTP_DEFAULT_PORT);
    return -1;
}

typedef struct reader {
    const cJSON *t;
    const char *file;
    char **err;
    mode_t mode; /* the file's */
} reader;

static int get_str(reader *r, const cJSON *t, const char *key, char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v)
        return 0;
    if (!cJSON_IsString(v) || !v->valuestring[0]) {
        *r->err = str_printf("%s: %s must be a non-empty string", r->file, key);
        return -1;
    }
    free(*out);
    *out = strdup(v->valuestring);
    return 0;
}

static int get_int(reader *r, const cJSON *t, const char *key, long lo, long hi, long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v)
        return 0;
    if (!json_integer_within(v, (double)lo, (double)hi)) {
        *r->err = str_printf("%s: %s must be an integer from %ld to %ld", r->file, key, lo, hi);
        return -1;
    }
    *out = (long)v->valuedouble;
    return 0;
}

static int get_strs(reader *r, const cJSON *t, const char *key, char ***out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!v)
        return 0;
    int n = cJSON_GetArraySize(v);
    if (!cJSON_IsArray(v)) {
        *r->err = str_printf("%s: %s must be an array of strings", r->file, key);
        return -1;
    }
    char **list = calloc((size_t)n + 1, sizeof *list);
    int i = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, v)
    {
        if (!cJSON_IsString(it) || !it->valuestring[0]) {
            for (int k = 0; k < i; k++)
                free(list[k]);
            free(list);
            *r->err = str_printf("%s: %s must be an array of non-empty strings", r->file, key);
            return -1;
        }
        list[i++] = strdup(it->valuestring);
    }
    *out = list;
    return 0;
}

static int only_keys(reader *r, const cJSON *t, const char *const *keys, const char *where)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, t)
    {
        int known = 0;
        for (const char *const *k = keys; *k && !known; k++)
            known = strcmp(*k, it->string) == 0;
        if (!known) {
            *r->err = str_printf("%s: unknown key '%s'%s%s (see man vthost, HTTP SERVER)", r->file,
                                 it->string, where ? " in " : "", where ? where : "");
            return -1;
        }
    }
    return 0;
}

static const char *const top_keys[] = {"public_url",
                                       "allowed_origins",
                                       "max_sessions_per_client",
                                       "max_sessions",
                                       "max_calls_per_session",
                                       "max_body_bytes",
                                       "idle_timeout_seconds",
                                       "idle_timeout_with_commands_seconds",
                                       "request_timeout_seconds",
                                       "connection_timeout_seconds",
                                       "max_connections",
                                       "header_timeout_seconds",
                                       "max_unauthenticated_connections",
                                       "max_connections_per_address",
                                       "shutdown_grace_seconds",
                                       "resume_window_seconds",
                                       "tls_cert",
                                       "tls_key",
                                       "access_log",
                                       "oauth",
                                       NULL};

/* The integer settings (limits and timeouts). */
static int read_limits(reader *r, http_config *c)
{
    long n;
    int rc = 0;
#define INT_KEY(key, lo, hi, field)                                                                \
    if (rc == 0 && (n = -1, rc = get_int(r, r->t, key, lo, hi, &n)) == 0 && n >= 0)                \
        field = n;
    INT_KEY("max_sessions_per_client", 1, 4096, c->max_sessions_per_client)
    INT_KEY("max_sessions", 1, 65536, c->max_sessions)
    INT_KEY("max_calls_per_session", 1, 4096, c->max_calls_per_session)
    INT_KEY("max_body_bytes", 1024, 64L * 1024 * 1024, c->max_body_bytes)
    INT_KEY("idle_timeout_seconds", 1, 7 * 86400, c->idle_timeout_s)
    INT_KEY("idle_timeout_with_commands_seconds", 1, 7 * 86400, c->idle_commands_s)
    INT_KEY("request_timeout_seconds", 1, 3600, c->request_timeout_s)
    INT_KEY("connection_timeout_seconds", 1, 3600, c->connection_timeout_s)
    INT_KEY("max_connections", 4, 65536, c->max_connections)
    INT_KEY("header_timeout_seconds", 1, 3600, c->header_timeout_s)
    INT_KEY("max_unauthenticated_connections", 1, 65536, c->max_unauthenticated)
    INT_KEY("max_connections_per_address", 0, 65536, c->max_per_address)
    INT_KEY("shutdown_grace_seconds", 0, 3600, c->shutdown_grace_s)
    INT_KEY("resume_window_seconds", 0, 3600, c->resume_window_s)
#undef INT_KEY
    return rc;
}

/* A host that names this machine: localhost, 127.0.0.0/8 or [::1],
 * written as libcurl hands the host back (numeric, IPv6 in brackets). */
static int loopback_host(const char *host)
{
    struct in_addr a4;
    struct in6_addr a6;
    char v6[INET6_ADDRSTRLEN + 1];
    size_t n = strlen(host);
    if (strcasecmp(host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, host, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    if (n < 3 || n - 2 >= sizeof v6 || host[0] != '[' || host[n - 1] != ']')
        return 0;
    memcpy(v6, host + 1, n - 2);
    v6[n - 2] = 0;
    return inet_pton(AF_INET6, v6, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

int http_config_url_secure(const char *url, char **err)
{
    char *scheme, *host;
    if (http_url_parts(url, &scheme, &host, err) < 0)
        return -1;
    int ok = strcasecmp(scheme, "https") == 0 ||
             (strcasecmp(scheme, "http") == 0 && loopback_host(host));
    free(scheme);
    free(host);
    return ok;
}

/* A string or an array of non-empty strings, as a NULL-terminated list. */
static int get_str_or_strs(reader *r, const cJSON *t, const char *key, char ***out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(t, key);
    if (!cJSON_IsString(v))
        return get_strs(r, t, key, out);
    char *one = NULL;
    if (get_str(r, t, key, &one) < 0)
        return -1;
    char **list = calloc(2, sizeof *list);
    if (!list) {
        free(one);
        *r->err = strdup("out of memory");
        return -1;
    }
    list[0] = one;
    *out = list;
    return 0;
}

/* A URL that decides who gets in: https://, or http:// on loopback. */
static int secure_url(reader *r, const char *key, const char *url)
{
    char *why = NULL;
    int secure = http_config_url_secure(url, &why);
    if (secure > 0)
        return 0;
    *r->err = str_printf("%s: [oauth] %s must be an https:// URL (or http:// on 127.0.0.1, "
                         "localhost or [::1]), got %s%s%s",
                         r->file, key, url, why ? ": " : "", why ? why : "");
    free(why);
    return -1;
}

/* [oauth] introspection_*: opaque access tokens checked by the
 * authorization server (RFC 7662).  The client secret makes http.toml a
 * secret: it must be readable by its owner only. */
static int read_introspection(reader *r, http_config *c, const cJSON *o)
{
    int rc = get_str(r, o, "introspection_url", &c->oauth_introspection_url);
    if (rc == 0)
        rc = get_str(r, o, "introspection_client_id", &c->oauth_introspection_client_id);
    if (rc == 0)
        rc = get_str(r, o, "introspection_client_secret", &c->oauth_introspection_secret);
    long n = -1;
    if (rc == 0 && (rc = get_int(r, o, "introspection_cache_seconds", 0, 3600, &n)) == 0 && n >= 0)
        c->oauth_introspection_cache_s = (int)n;
    if (rc < 0)
        return -1;
    if (!c->oauth_introspection_url)
        return 0;
    if (!c->oauth_introspection_client_id || !c->oauth_introspection_secret) {
        *r->err = str_printf("%s: [oauth] introspection_url needs introspection_client_id and "
                             "introspection_client_secret (this server's own client at the "
                             "authorization server)",
                             r->file);
        return -1;
    }
    if (r->mode & 077) {
        *r->err = str_printf("%s holds introspection_client_secret and is readable by others "
                             "(mode %03o): chmod 600 %s",
                             r->file, (unsigned)(r->mode & 0777), r->file);
        return -1;
    }
    return secure_url(r, "introspection_url", c->oauth_introspection_url);
}

/* [oauth]: the OAuth 2.1 resource-server mode. */
static int read_oauth(reader *r, http_config *c, const cJSON *o)
{
    static const char *const keys[] = {"issuer",
                                       "audience",
                                       "jwks_file",
                                       "jwks_url",
                                       "jwks_refresh_seconds",
                                       "public_key_file",
                                       "algorithm",
                                       "authorization_servers",
                                       "scopes",
                                       "client_id",
                                       "introspection_url",
                                       "introspection_client_id",
                                       "introspection_client_secret",
                                       "introspection_cache_seconds",
                                       NULL};
    if (!cJSON_IsObject(o)) {
        *r->err = str_printf("%s: oauth must be a table ([oauth])", r->file);
        return -1;
    }
    c->oauth = 1;
    int rc = only_keys(r, o, keys, "[oauth]");
    if (rc == 0)
        rc = get_str(r, o, "issuer", &c->oauth_issuer);
    if (rc == 0)
        rc = get_str_or_strs(r, o, "audience", &c->oauth_audiences);
    if (rc == 0)
        rc = get_str(r, o, "jwks_file", &c->oauth_jwks_file);
    if (rc == 0)
        rc = get_str(r, o, "jwks_url", &c->oauth_jwks_url);
    long n = -1;
    if (rc == 0 && (rc = get_int(r, o, "jwks_refresh_seconds", 60, 7 * 86400, &n)) == 0 && n > 0)
        c->oauth_jwks_refresh_s = (int)n;
    if (rc == 0)
        rc = get_str(r, o, "public_key_file", &c->oauth_key_file);
    if (rc == 0)
        rc = get_str(r, o, "algorithm", &c->oauth_alg);
    if (rc == 0)
        rc = get_strs(r, o, "authorization_servers", &c->oauth_servers);
    if (rc == 0)
        rc = get_str(r, o, "scopes", &c->oauth_scope);
    if (rc == 0)
        rc = get_str(r, o, "client_id", &c->oauth_client_id);
    if (rc == 0)
        rc = read_introspection(r, c, o);
    int sources = !!c->oauth_jwks_file + !!c->oauth_jwks_url + !!c->oauth_key_file;
    if (rc == 0 &&
        (!c->oauth_issuer || sources > 1 || (sources == 0 && !c->oauth_introspection_url))) {
        *r->err = str_printf("%s: [oauth] needs issuer and one of jwks_url, jwks_file, or "
                             "public_key_file with algorithm (JWT access tokens), and/or "
                             "introspection_url (opaque access tokens)",
                             r->file);
        rc = -1;
    }
    if (rc == 0 && c->oauth_jwks_url)
        rc = secure_url(r, "jwks_url", c->oauth_jwks_url);
    return rc;
}

static int read_file(http_config *c, const char *path, char **err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* no file: the defaults */
    cJSON *t = NULL;
    char *terr = NULL;
    if (toml_read_file(path, &t, &terr) != 0) {
        *err = str_printf("%s: %s", path, terr ? terr : "cannot read");
        free(terr);
        return -1;
    }
    reader r = {t, path, err, st.st_mode};
    int rc = only_keys(&r, t, top_keys, NULL);
    if (rc == 0)
        rc = get_str(&r, t, "public_url", &c->public_url);
    if (rc == 0)
        rc = get_strs(&r, t, "allowed_origins", &c->origins);
    if (rc == 0)
        rc = read_limits(&r, c);
    if (rc == 0)
        rc = get_str(&r, t, "tls_cert", &c->tls_cert);
    if (rc == 0)
        rc = get_str(&r, t, "tls_key", &c->tls_key);
    if (rc == 0)
        rc = get_str(&r, t, "access_log", &c->access_log);
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "oauth");
    if (rc == 0 && o)
        rc = read_oauth(&r, c, o);
    cJSON_Delete(t);
    return rc;
}

/* The defaults of the connection caps, and their agreement with
 * max_connections: strangers must always leave room for the user's
 * clients.  On a loopback listener every local client (and a local TLS
 * proxy) shares one address, so there is no per-address cap unless one
 * is configured. */
static int connection_caps(http_config *c, char **err)
{
    if (c->max_unauthenticated < 0) {
        c->max_unauthenticated = c->max_connections / 4;
        if (c->max_unauthenticated > 64)
            c->max_unauthenticated = 64;
    } else if (c->max_unauthenticated >= c->max_connections) {
        *err = str_printf("%s/http.toml: max_unauthenticated_connections (%d) must be less than "
                          "max_connections (%d), or clients that authenticate find no room",
                          c->config_dir, c->max_unauthenticated, c->max_connections);
        return -1;
    }
    if (c->max_per_address < 0)
        c->max_per_address = c->loopback ? 0 : 64;
    return 0;
}

int http_config_load(http_config *c, const char *listen, const char *token_file, char **err)
{
    memset(c, 0, sizeof *c);
    *err = NULL;
    c->max_sessions_per_client = 16;
    c->max_sessions = 128;
    c->oauth_jwks_refresh_s = 3600;
    c->oauth_introspection_cache_s = 60;
    c->max_calls_per_session = 16;
    c->max_body_bytes = 4 * 1024 * 1024;
    c->idle_timeout_s = 600;
    c->idle_commands_s = 3600;
    c->request_timeout_s = 30;
    c->connection_timeout_s = 60;
    c->max_connections = 256;
    c->header_timeout_s = 10;
    c->max_unauthenticated = -1; /* below: from max_connections */
    c->max_per_address = -1;     /* below: from the listening address */
    c->shutdown_grace_s = 10;
    c->resume_window_s = 60;
    if (parse_listen(c, listen, err) < 0)
        return -1;
    c->config_dir = config_dir();
    char *file = str_printf("%s/http.toml", c->config_dir);
    int rc = read_file(c, file, err);
    free(file);
    if (rc < 0)
        return -1;
    c->token_file = token_file ? strdup(token_file) : str_printf("%s/http-token", c->config_dir);
    /* judged on the parsed host, as jwks_url: http://localhost.evil/ is
     * no loopback URL (https needs no parsing, so none is done) */
    char *why = NULL;
    if (c->public_url && strncmp(c->public_url, "https://", 8) != 0 &&
        http_config_url_secure(c->public_url, &why) <= 0) {
        *err = str_printf("public_url %s must be an https:// URL (the TLS proxy in front of "
                          "vthost) or an http:// URL on 127.0.0.1, localhost or [::1]%s%s",
                          c->public_url, why ? ": " : "", why ? why : "");
        free(why);
        return -1;
    }
    if (connection_caps(c, err) < 0)
        return -1;
    if (!!c->tls_cert != !!c->tls_key) {
        *err = strdup("http.toml: tls_cert and tls_key go together (PEM certificate and key)");
        return -1;
    }
    if (!c->loopback && !c->tls_cert &&
        !(c->public_url && strncmp(c->public_url, "https://", 8) == 0)) {
        *err = str_printf(
            "refusing to listen on %s without TLS: bearer tokens would cross the network in "
            "clear. Listen on 127.0.0.1 behind a TLS-terminating proxy and set public_url = "
            "\"https://...\" in %s/http.toml, or set tls_cert and tls_key there",
            c->listen, c->config_dir);
        return -1;
    }
    if (c->oauth && !c->oauth_audiences && !c->public_url) {
        *err = str_printf("%s/http.toml: [oauth] needs public_url (the audience access tokens "
                          "are issued for) or [oauth] audience",
                          c->config_dir);
        return -1;
    }
    if (c->oauth && !c->oauth_audiences) {
        c->oauth_audiences = calloc(2, sizeof *c->oauth_audiences);
        if (!c->oauth_audiences || !(c->oauth_audiences[0] = strdup(c->public_url))) {
            *err = strdup("out of memory");
            return -1;
        }
    }
    return 0;
}

static void free_list(char **l)
{
    for (char **p = l; p && *p; p++)
        free(*p);
    free(l);
}

void http_config_free(http_config *c)
{
    free(c->config_dir);
    free(c->public_url);
    free(c->token_file);
    free_list(c->origins);
    free(c->tls_cert);
    free(c->tls_key);
    free(c->access_log);
    free(c->oauth_issuer);
    free_list(c->oauth_audiences);
    free(c->oauth_jwks_file);
    free(c->oauth_jwks_url);
    free(c->oauth_key_file);
    free(c->oauth_alg);
    free_list(c->oauth_servers);
    free(c->oauth_scope);
    free(c->oauth_client_id);
    free(c->oauth_introspection_url);
    free(c->oauth_introspection_client_id);
    if (c->oauth_introspection_secret)
        memset(c->oauth_introspection_secret, 0, strlen(c->oauth_introspection_secret));
    free(c->oauth_introspection_secret);
    memset(c, 0, sizeof *c);
}

char *http_config_url(const http_config *c, int port)
{
    if (c->public_url)
        return strdup(c->public_url);
    char host[INET6_ADDRSTRLEN] = "127.0.0.1";
    const char *scheme = c->tls_cert ? "https" : "http";
    if (c->addr.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)&c->addr)->sin6_addr, host, sizeof host);
        return str_printf("%s://[%s]:%d/mcp", scheme, host, port);
    }
    inet_ntop(AF_INET, &((const struct sockaddr_in *)&c->addr)->sin_addr, host, sizeof host);
    return str_printf("%s://%s:%d/mcp", scheme, host, port);
}
