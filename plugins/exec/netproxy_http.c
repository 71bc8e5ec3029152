/* Request heads through nodejs's http-parser (netproxy_http.h): the
 * only file that uses the library. */
#include "netproxy_http.h"

#include <http_parser.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_HEADERS 128

typedef struct span {
    const char *p;
    size_t n;
} span;

typedef struct head_state {
    span url;
    span field[MAX_HEADERS], value[MAX_HEADERS];
    size_t nheaders;
    int too_many;
    int complete;
} head_state;

/* http-parser hands each piece once per execute over contiguous input,
 * which is how it is called here: a span grows only when a piece
 * continues the last one. */
static void span_add(span *s, const char *at, size_t n)
{
    if (!s->p)
        s->p = at;
    s->n = (size_t)(at + n - s->p);
}

static int on_url(http_parser *p, const char *at, size_t n)
{
    span_add(&((head_state *)p->data)->url, at, n);
    return 0;
}

static int on_field(http_parser *p, const char *at, size_t n)
{
    head_state *h = p->data;
    /* a new field starts once the previous one has a value */
    if (h->nheaders && h->value[h->nheaders - 1].p == NULL) {
        span_add(&h->field[h->nheaders - 1], at, n);
        return 0;
    }
    if (h->nheaders == MAX_HEADERS) {
        h->too_many = 1;
        return 1;
    }
    h->field[h->nheaders++] = (span){at, n};
    return 0;
}

static int on_value(http_parser *p, const char *at, size_t n)
{
    head_state *h = p->data;
    if (h->nheaders)
        span_add(&h->value[h->nheaders - 1], at, n);
    return 0;
}

static int on_headers_complete(http_parser *p)
{
    ((head_state *)p->data)->complete = 1;
    http_parser_pause(p, 1); /* the body is the origin server's to read */
    return 0;
}

static int is_named(span f, const char *name)
{
    return f.n == strlen(name) && !strncasecmp(f.p, name, f.n);
}

/* The URL's host (no brackets) and port into req. */
static int url_target(const head_state *h, int connect, netproxy_request *req, const char **why)
{
    struct http_parser_url u;
    http_parser_url_init(&u);
    if (http_parser_parse_url(h->url.p, h->url.n, connect, &u) != 0 ||
        !(u.field_set & (1 << UF_HOST))) {
        *why = connect ? "CONNECT needs host:port"
                       : "a proxy request needs an absolute http:// URL (set HTTP_PROXY only "
                         "for http:// URLs; https goes through CONNECT)";
        return -1;
    }
    if (!connect) {
        const char *s = h->url.p + u.field_data[UF_SCHEMA].off;
        if (!(u.field_set & (1 << UF_SCHEMA)) || u.field_data[UF_SCHEMA].len != 4 ||
            strncasecmp(s, "http", 4)) {
            *why = "only http:// URLs are forwarded as plain requests (https goes through CONNECT)";
            return -1;
        }
    }
    size_t hl = u.field_data[UF_HOST].len;
    if (hl == 0 || hl >= sizeof req->host) {
        *why = "the host name is empty or too long";
        return -1;
    }
    memcpy(req->host, h->url.p + u.field_data[UF_HOST].off, hl);
    req->host[hl] = 0;
    req->port = (u.field_set & (1 << UF_PORT)) ? u.port : 80;
    if (connect && !(u.field_set & (1 << UF_PORT))) {
        *why = "CONNECT needs host:port";
        return -1;
    }
    return 0;
}

static int put(char **out, size_t *len, size_t cap, const char *p, size_t n)
{
    if (*len + n >= cap)
        return -1;
    memcpy(*out + *len, p, n);
    *len += n;
    return 0;
}

/* The head for the origin server: the origin-form target, the client's
 * headers but the proxy's own and Host/Connection, then Host from the URL
 * (the server reached is the one the decision was about) and
 * Connection: close (one request per forwarded connection). */
static int build_head(const head_state *h, const http_parser *p, netproxy_request *req)
{
    struct http_parser_url u;
    http_parser_url_init(&u);
    if (http_parser_parse_url(h->url.p, h->url.n, 0, &u) != 0)
        return -1;
    size_t cap = h->url.n + 512 + strlen(req->host);
    for (size_t i = 0; i < h->nheaders; i++)
        cap += h->field[i].n + h->value[i].n + 4;
    char *out = malloc(cap);
    if (!out)
        return -1;
    size_t len = 0;
    const char *path = "/";
    size_t pl = 1;
    if (u.field_set & (1 << UF_PATH)) {
        path = h->url.p + u.field_data[UF_PATH].off;
        pl = u.field_data[UF_PATH].len;
    }
    const char *m = http_method_str((enum http_method)p->method);
    int rc = put(&out, &len, cap, m, strlen(m)) | put(&out, &len, cap, " ", 1) |
             put(&out, &len, cap, path, pl);
    if (u.field_set & (1 << UF_QUERY))
        rc |=
            put(&out, &len, cap, "?", 1) |
            put(&out, &len, cap, h->url.p + u.field_data[UF_QUERY].off, u.field_data[UF_QUERY].len);
    rc |= put(&out, &len, cap, " HTTP/1.1\r\n", 11);
    static const char *const drop[] = {"host",       "connection",          "proxy-connection",
                                       "keep-alive", "proxy-authorization", "upgrade"};
    for (size_t i = 0; i < h->nheaders; i++) {
        int skip = 0;
        for (size_t k = 0; k < sizeof drop / sizeof *drop; k++)
            skip |= is_named(h->field[i], drop[k]);
        if (skip)
            continue;
        rc |= put(&out, &len, cap, h->field[i].p, h->field[i].n) | put(&out, &len, cap, ": ", 2) |
              put(&out, &len, cap, h->value[i].p, h->value[i].n) | put(&out, &len, cap, "\r\n", 2);
    }
    char host[300];
    int v6 = strchr(req->host, ':') != NULL;
    int n = snprintf(host, sizeof host, "Host: %s%s%s", v6 ? "[" : "", req->host, v6 ? "]" : "");
    if (req->port != 80)
        n += snprintf(host + n, sizeof host - (size_t)n, ":%u", req->port);
    rc |= put(&out, &len, cap, host, (size_t)n) |
          put(&out, &len, cap, "\r\nConnection: close\r\n\r\n", 23);
    if (rc) {
        free(out);
        return -1;
    }
    req->head = out;
    req->head_len = len;
    return 0;
}

int netproxy_http_parse(const char *buf, size_t len, netproxy_request *req, const char **why)
{
    /* large: kept off the connection thread's stack */
    head_state *hs = calloc(1, sizeof *hs);
    if (!hs) {
        *why = "out of memory";
        return -1;
    }
    http_parser p;
    http_parser_init(&p, HTTP_REQUEST);
    p.data = hs;
    http_parser_settings s;
    http_parser_settings_init(&s);
    s.on_url = on_url;
    s.on_header_field = on_field;
    s.on_header_value = on_value;
    s.on_headers_complete = on_headers_complete;
    size_t used = http_parser_execute(&p, &s, buf, len);
    enum http_errno e = HTTP_PARSER_ERRNO(&p);
    int rc = 0;
    memset(req, 0, sizeof *req);
    if (hs->too_many || (e != HPE_OK && e != HPE_PAUSED)) {
        *why = hs->too_many ? "too many header fields" : http_errno_description(e);
        rc = -1;
    } else if (hs->complete || p.upgrade) {
        req->connect = p.method == HTTP_CONNECT;
        /* Paused in on_headers_complete, the parser stops on the head's
         * last LF without counting it. */
        if (e == HPE_PAUSED && used < len && buf[used] == '\n')
            used++;
        req->consumed = used;
        rc = url_target(hs, req->connect, req, why) == 0 ? 1 : -1;
        if (rc == 1 && !req->connect && build_head(hs, &p, req) != 0) {
            *why = "the request head could not be rewritten";
            rc = -1;
        }
    } else if (len >= NETPROXY_HEAD_MAX) {
        *why = "the request head is too large";
        rc = -1;
    }
    free(hs);
    return rc;
}
