/* `vthost serve --http`: the MCP Streamable HTTP transport (protocol
 * revisions 2025-06-18 and 2025-11-25) on libmicrohttpd, one thread per
 * connection.
 *
 *   POST /mcp    one JSON-RPC message.  A request is answered with JSON,
 *                or for tools/call with an SSE stream carrying the
 *                call's progress, its requests to the client
 *                (elicitation, sampling) and then its response; a
 *                notification or response is accepted with 202.
 *   GET /mcp     the session's SSE stream for messages outside any call
 *                (tools/list_changed, log messages).
 *   DELETE /mcp  ends the session.
 *   GET /healthz liveness, without authentication.
 *   GET /.well-known/oauth-protected-resource[/mcp]  RFC 9728 metadata
 *                (OAuth mode).
 *
 * Every /mcp request is checked in this order: Origin (DNS rebinding),
 * bearer token, protocol version, Content-Length, session.  All but the
 * session are judged as soon as the headers are complete, before a byte
 * of the body is read or `100 Continue` is sent: a stranger's upload is
 * refused at once and never buffered. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include "host.h"
#include "http.h"
#include "http_auth.h"
#include "http_banner.h"
#include "http_config.h"
#include "http_guard.h"
#include "http_jwt.h"
#include "http_log.h"
#include "http_media.h"
#include "http_origin.h"
#include "http_own_data.h"
#include "http_peer.h"
#include "http_session.h"
#include "http_stateless.h"
#include "json_exact.h"
#include "mcp.h"
#include "mcp_roots.h"
#include "mcp_server.h"
#include "mhd_lib.h"
#include "monotime.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "serve_signals.h"
#include "strutil.h"
#include "text_escape.h"

static const mhd_lib *M;
static http_config cfg;
static char *endpoint_url; /* what clients are told */
static char *metadata_url; /* RFC 9728 document, OAuth mode */
static int wake_pipe[2] = {-1, -1};

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", NULL};

/* One HTTP request. */
typedef struct req {
    struct timespec t0;
    char *body;
    size_t len, cap;
    int too_big, timed_out, started, sse;
    http_stream *st;            /* the answer's stream, owned */
    char owner[HTTP_OWNER_MAX]; /* the authenticated client */
    char session[HTTP_SESSION_ID_LEN + 1];
    char rpc[48];
    char tool[64];
    char method[8];
    char path[64];
    int status;
} req;

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    mono_now(&t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static const char *header(struct MHD_Connection *c, const char *name)
{
    return M->lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static int conn_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        M->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return i ? i->connect_fd : -1;
}

/* ---- responses ---------------------------------------------------------- */

static enum MHD_Result send_text(struct MHD_Connection *c, req *r, int status, const char *type,
                                 const char *body, const char *const *headers)
{
    struct MHD_Response *res =
        M->create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!res)
        return MHD_NO;
    if (type)
        M->add_response_header(res, "Content-Type", type);
    for (const char *const *h = headers; h && h[0]; h += 2)
        M->add_response_header(res, h[0], h[1]);
    if (r)
        r->status = status;
    enum MHD_Result rc = M->queue_response(c, (unsigned)status, res);
    M->destroy_response(res);
    return rc;
}

/* A JSON-RPC error as the body of an HTTP error (the MCP SDKs show it). */
static enum MHD_Result send_error(struct MHD_Connection *c, req *r, int status, int code,
                                  const char *message, const char *const *headers)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddNullToObject(m, "id");
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    enum MHD_Result rc = send_text(c, r, status, "application/json", text ? text : "{}", headers);
    cJSON_free(text);
    return rc;
}

/* 401, or 403 for a valid token lacking a scope (RFC 6750 3.1). */
static enum MHD_Result send_unauthorized(struct MHD_Connection *c, req *r, int status,
                                         const char *error, const char *desc)
{
    if (status == 503) { /* the authorization server could not be asked */
        const char *h[] = {"Retry-After", "5", NULL};
        return send_error(c, r, 503, -32001, desc, h);
    }
    char www[768];
    int n;
    if (metadata_url)
        n = snprintf(www, sizeof www, "Bearer resource_metadata=\"%s\"", metadata_url);
    else
        n = snprintf(www, sizeof www, "Bearer realm=\"vthost\"");
    if (cfg.oauth_scope && n > 0 && (size_t)n < sizeof www)
        n += snprintf(www + n, sizeof www - (size_t)n, ", scope=\"%s\"", cfg.oauth_scope);
    if (error && n > 0 && (size_t)n < sizeof www)
        snprintf(www + n, sizeof www - (size_t)n, ", error=\"%s\", error_description=\"%s\"", error,
                 desc);
    const char *h[] = {"WWW-Authenticate", www, NULL};
    return send_error(c, r, status == 403 ? 403 : 401, -32001, desc, h);
}

/* ---- SSE ---------------------------------------------------------------- */

typedef struct sse {
    http_stream *st;
    int fd;
} sse;

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse *x = cls;
    ssize_t n = http_stream_read(x->st, buf, max, x->fd);
    if (n == -1)
        return MHD_CONTENT_READER_END_OF_STREAM;
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void sse_free(void *cls)
{
    free(cls); /* the stream is the request's (closed when it completes) */
}

static enum MHD_Result send_sse(struct MHD_Connection *c, req *r, http_session *s)
{
    sse *x = malloc(sizeof *x);
    if (!x)
        return MHD_NO;
    x->st = r->st;
    x->fd = conn_fd(c);
    struct MHD_Response *res =
        M->create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, x, sse_free);
    if (!res) {
        free(x);
        return MHD_NO;
    }
    M->add_response_header(res, "Content-Type", "text/event-stream");
    M->add_response_header(res, "Cache-Control", "no-cache");
    M->add_response_header(res, "X-Accel-Buffering", "no"); /* nginx: do not buffer */
    if (r->session[0]) /* a stateless request's stream names no session */
        M->add_response_header(res, "Mcp-Session-Id", http_session_id(s));
    r->status = 200;
    r->sse = 1;
    enum MHD_Result rc = M->queue_response(c, 200, res);
    M->destroy_response(res);
    return rc;
}

/* ---- the MCP endpoint --------------------------------------------------- */

static int accepts(struct MHD_Connection *c, const char *type)
{
    return http_media_accepts(header(c, "Accept"), type);
}

static int version_known(const char *v)
{
    for (const char *const *p = versions; *p; p++)
        if (strcmp(*p, v) == 0)
            return 1;
    return 0;
}

/* The message of a POST, parsed: one JSON-RPC object.  Else an error
 * answer is queued into *rc and NULL returned. */
static cJSON *post_message(struct MHD_Connection *c, req *r, enum MHD_Result *rc)
{
    const char *ctype = header(c, "Content-Type");
    if (!http_media_is(ctype, "application/json")) {
        *rc = send_error(c, r, 415, -32600,
                         "POST a JSON-RPC message with Content-Type: application/json", NULL);
        return NULL;
    }
    /* The engine's reader: a body it would refuse is refused here, with
     * an answer, rather than handed on and never answered. */
    cJSON *msg = json_parse_document(r->body ? r->body : "", r->len);
    if (!msg) {
        *rc = send_error(c, r, 400, -32700,
                         "Parse error: the body is not one valid JSON text (nothing may follow "
                         "it; numbers as JSON writes them)",
                         NULL);
        return NULL;
    }
    if (!cJSON_IsObject(msg)) {
        *rc = send_error(c, r, 400, -32600,
                         cJSON_IsArray(msg) ? "Invalid Request: batches are not supported; "
                                              "POST one message per request"
                                            : "Invalid Request: a message is a JSON-RPC object",
                         NULL);
        cJSON_Delete(msg);
        return NULL;
    }
    return msg;
}

/* initialize: a new session for `owner`, or an error answer queued into
 * *rc and NULL. */
static http_session *post_new_session(struct MHD_Connection *c, req *r, const char *owner,
                                      enum MHD_Result *rc)
{
    if (header(c, "Mcp-Session-Id")) {
        *rc = send_error(c, r, 400, -32600,
                         "initialize starts a new session: send it without Mcp-Session-Id", NULL);
        return NULL;
    }
    http_session *s = NULL;
    int st = http_session_create(owner, &s);
    const char *h[] = {"Retry-After", "60", NULL};
    if (st == 429)
        *rc = send_error(c, r, 429, -32000,
                         "Too many sessions for this client, every one of them busy (a call "
                         "running or a stream open): end one (HTTP DELETE with its "
                         "Mcp-Session-Id) or close its streams; an idle one makes room",
                         h);
    else if (st == 503)
        *rc = send_error(c, r, 503, -32000,
                         "The server holds as many sessions as it serves (max_sessions in "
                         "http.toml): try again later",
                         h);
    else if (st)
        *rc = send_error(c, r, 500, -32603, "cannot start a session: out of memory", NULL);
    return s;
}

/* Any other message: the session it names, or an error answer queued
 * into *rc and NULL. */
static http_session *post_session(struct MHD_Connection *c, req *r, const char *owner,
                                  enum MHD_Result *rc)
{
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid) {
        *rc = send_error(c, r, 400, -32600,
                         "Bad Request: Mcp-Session-Id header is required (initialize first)", NULL);
        return NULL;
    }
    http_session *s = http_session_find(sid, owner);
    if (!s)
        *rc = send_error(c, r, 404, -32001,
                         "Session not found: it ended or expired; initialize a new one", NULL);
    return s;
}

/* A request's answer: an SSE stream for a call when the client takes
 * one, else the JSON response once it is there. */
static enum MHD_Result post_answer(struct MHD_Connection *c, req *r, http_session *s, int call,
                                   int is_init)
{
    if (call && accepts(c, "text/event-stream"))
        return send_sse(c, r, s);
    char *text = http_stream_wait_answer(r->st, conn_fd(c));
    if (is_init && (!text || !http_stream_answer_ok(r->st))) {
        http_session_end(s); /* a failed initialize leaves no session */
        r->session[0] = 0;
    }
    const char *h[] = {"Mcp-Session-Id", http_session_id(s), NULL};
    enum MHD_Result rc;
    if (text)
        rc = send_text(c, r, 200, "application/json", text, r->session[0] ? h : NULL);
    else
        rc = send_error(c, r, 404, -32001, "Session not found: it ended", NULL);
    free(text);
    return rc;
}

/* A request in session s: its stream opened, the message handed to the
 * session's engine, the answer sent. */
static enum MHD_Result post_request(struct MHD_Connection *c, req *r, http_session *s, cJSON *msg,
                                    const char *name, int is_init)
{
    int is_call = strcmp(name, "tools/call") == 0;
    if (is_call && cfg.max_calls_per_session > 0 &&
        http_session_calls(s) >= cfg.max_calls_per_session) {
        const char *h[] = {"Retry-After", "1", NULL};
        cJSON_Delete(msg);
        return send_error(c, r, 429, -32000,
                          "Too many tool calls running in this session: wait for one to finish", h);
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (is_call && cJSON_IsString(tool))
        snprintf(r->tool, sizeof r->tool, "%s", tool->valuestring);
    r->st = http_stream_open(s, cJSON_GetObjectItemCaseSensitive(msg, "id"),
                             cJSON_GetObjectItemCaseSensitive(meta, "progressToken"));
    if (!r->st) {
        cJSON_Delete(msg);
        return send_error(c, r, 503, -32603, "out of memory", NULL);
    }
    if (!accepts(c, "text/event-stream"))
        http_stream_json_only(r->st);
    /* A subscriptions/listen answer is a stream of notices that lasts
     * until the client closes it. */
    int streamed = is_call || strcmp(name, "subscriptions/listen") == 0;
    int call = http_session_submit(s, r->st, msg, header(c, "MCP-Protocol-Version"));
    return post_answer(c, r, s, call || streamed, is_init);
}

/* A request that belongs to no session: one naming 2026-07-28 in its
 * _meta, or a server/discover probe sent without a session.  Its engine
 * is its own, running as its principal; or an error answer is queued
 * into *rc and NULL returned. */
static http_session *post_stateless(struct MHD_Connection *c, req *r, const char *owner,
                                    enum MHD_Result *rc)
{
    uint64_t client = http_stateless_client(owner);
    http_session *s = NULL;
    int st = client ? http_session_stateless(owner, client, &s) : 500;
    const char *h[] = {"Retry-After", "1", NULL};
    if (st == 429)
        *rc =
            send_error(c, r, 429, -32000,
                       "Too many requests of this client are open at once (max_sessions_per_client "
                       "times max_calls_per_session): wait for one to finish",
                       h);
    else if (st)
        *rc = send_error(c, r, 500, -32603, "cannot serve the request: out of memory", NULL);
    return s;
}

/* A 2025-era message whose MCP-Protocol-Version header this server does
 * not speak (or names the stateless revision without the body's _meta):
 * the specification's 400 with a JSON-RPC error naming what is spoken. */
static enum MHD_Result send_bad_version(struct MHD_Connection *c, req *r, const cJSON *id,
                                        const char *pv)
{
    int modern = strcmp(pv, MCP_MODERN_VERSION) == 0;
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", modern ? -32020 : -32022);
    cJSON_AddStringToObject(
        e, "message",
        modern ? "Header mismatch: MCP-Protocol-Version names " MCP_MODERN_VERSION
                 " but the message's params._meta names no protocol version; send the same in "
                 "both"
               : "Unsupported protocol version in the MCP-Protocol-Version header (this server "
                 "speaks " MCP_MODERN_VERSION " per request, and 2025-11-25, 2025-06-18 and "
                 "2025-03-26 through initialize)");
    cJSON *data = cJSON_AddObjectToObject(e, "data");
    cJSON *sup = cJSON_AddArrayToObject(data, "supported");
    cJSON_AddItemToArray(sup, cJSON_CreateString(MCP_MODERN_VERSION));
    for (const char *const *p = versions; *p; p++)
        cJSON_AddItemToArray(sup, cJSON_CreateString(*p));
    cJSON_AddStringToObject(data, "requested", pv);
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    enum MHD_Result rc = send_text(c, r, 400, "application/json", text ? text : "{}", NULL);
    cJSON_free(text);
    return rc;
}

/* Which engine a POSTed message goes to: a stateless request's own, a
 * new session's (initialize) or the session it names.  NULL with an
 * answer queued into *rc when none. */
static http_session *post_route(struct MHD_Connection *c, req *r, const cJSON *msg,
                                const char *name, int is_request, enum MHD_Result *rc)
{
    const char *pv = header(c, "MCP-Protocol-Version");
    int modern = mcp_message_is_modern(msg);
    int probe = is_request && strcmp(name, "server/discover") == 0 && !header(c, "Mcp-Session-Id");
    if (!modern && pv && (!version_known(pv) || strcmp(pv, MCP_MODERN_VERSION) == 0)) {
        *rc = send_bad_version(c, r, cJSON_GetObjectItemCaseSensitive(msg, "id"), pv);
        return NULL;
    }
    if (modern || probe)
        return post_stateless(c, r, r->owner, rc);
    int is_init = is_request && strcmp(name, "initialize") == 0;
    http_session *s =
        is_init ? post_new_session(c, r, r->owner, rc) : post_session(c, r, r->owner, rc);
    if (s)
        snprintf(r->session, sizeof r->session, "%s", http_session_id(s));
    return s;
}

static enum MHD_Result mcp_post(struct MHD_Connection *c, req *r)
{
    enum MHD_Result rc = MHD_NO;
    cJSON *msg = post_message(c, r, &rc);
    if (!msg)
        return rc;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    char name[48];
    snprintf(name, sizeof name, "%s", cJSON_IsString(method) ? method->valuestring : "");
    snprintf(r->rpc, sizeof r->rpc, "%s", name);
    int is_request = method && id && (cJSON_IsString(id) || cJSON_IsNumber(id) || cJSON_IsRaw(id));
    if (id && !is_request && method) {
        cJSON_Delete(msg);
        return send_error(c, r, 400, -32600,
                          "Invalid Request: \"id\" must be a string or a number (leave it out "
                          "for a notification)",
                          NULL);
    }
    int is_init = is_request && strcmp(name, "initialize") == 0;
    http_session *s = post_route(c, r, msg, name, is_request, &rc);
    if (!s) {
        cJSON_Delete(msg);
        return rc;
    }
    /* The message is the engine's from here on. */
    if (is_request) {
        rc = post_request(c, r, s, msg, name, is_init);
    } else {
        /* A notification, or the answer to one of our requests. */
        http_session_submit(s, NULL, msg, header(c, "MCP-Protocol-Version"));
        rc = send_text(c, r, 202, NULL, "", NULL);
    }
    /* A stateless engine ends with its request's stream, or at once when
     * nothing follows (a notification, a refusal before the stream). */
    if (!r->session[0] && !r->st)
        http_session_end(s);
    http_session_put(s);
    return rc;
}

/* GET with Last-Event-ID: the stream that event belongs to, replayed
 * from the event after it, then live. */
static enum MHD_Result mcp_resume(struct MHD_Connection *c, req *r, http_session *s)
{
    int st = http_stream_resume(s, header(c, "Last-Event-ID"), &r->st);
    if (st == 0)
        return send_sse(c, r, s);
    if (st == VT_ERR_BUSY) {
        const char *h[] = {"Retry-After", "1", NULL};
        return send_error(c, r, 409, -32600,
                          "Conflict: that stream's connection is still open; retry in a moment", h);
    }
    return send_error(c, r, 404, -32600,
                      st == VT_ERR_INVALID
                          ? "Last-Event-ID is not an event id of this server"
                          : "Nothing to resume: that stream finished, or waited too long for "
                            "its client; open GET without Last-Event-ID",
                      NULL);
}

static enum MHD_Result mcp_get_or_delete(struct MHD_Connection *c, req *r, const char *owner,
                                         int del)
{
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid)
        return send_error(c, r, 400, -32600, "Bad Request: Mcp-Session-Id header is required",
                          NULL);
    http_session *s = http_session_find(sid, owner);
    if (!s)
        return send_error(c, r, 404, -32001,
                          "Session not found: it ended or expired; initialize a new one", NULL);
    snprintf(r->session, sizeof r->session, "%s", http_session_id(s));
    enum MHD_Result rc;
    if (del) {
        http_session_end(s);
        rc = send_text(c, r, 200, NULL, "", NULL);
    } else if (!accepts(c, "text/event-stream")) {
        rc = send_error(c, r, 406, -32600, "GET opens an SSE stream: Accept: text/event-stream",
                        NULL);
    } else if (header(c, "Last-Event-ID")) {
        rc = mcp_resume(c, r, s);
    } else if (!(r->st = http_stream_open(s, NULL, NULL))) {
        rc = send_error(c, r, 409, -32600, "Conflict: this session already has a GET stream", NULL);
    } else {
        rc = send_sse(c, r, s);
    }
    http_session_put(s);
    return rc;
}

/* 413: announced in Content-Length (judged before the body) or found
 * while reading a chunked body. */
static enum MHD_Result send_too_big(struct MHD_Connection *c, req *r)
{
    char text[160];
    snprintf(text, sizeof text,
             "Payload Too Large: a message is at most %zu bytes (max_body_bytes in http.toml)",
             cfg.max_body_bytes);
    return send_error(c, r, 413, -32600, text, NULL);
}

/* A /mcp request whose headers are complete, judged before its body is
 * read: Origin, credentials, protocol version, announced size.  MHD_YES
 * without an answer when it may go on (r->owner set), else the refusal
 * is queued: libmicrohttpd then sends it at once, without `100
 * Continue`, and closes the connection instead of reading the body. */
static enum MHD_Result mcp_gate(struct MHD_Connection *c, req *r, const char *method)
{
    r->started = 1; /* unless it passes, the answer below is the request's */
    if (!http_origin_allowed(&cfg, header(c, "Origin")))
        return send_error(c, r, 403, -32600,
                          "Forbidden: this Origin is not in allowed_origins (http.toml); on a "
                          "loopback address http://localhost, 127.0.0.1 and [::1] on any port "
                          "need no entry",
                          NULL);
    const char *error, *desc;
    int denied = http_auth_check(header(c, "Authorization"), r->owner, &error, &desc);
    if (denied)
        return send_unauthorized(c, r, denied, error, desc);
    http_guard_authenticated(c);
    /* A POST's version header is judged with its message (post_route):
     * the answer is then a JSON-RPC error to that request. */
    const char *pv = header(c, "MCP-Protocol-Version");
    if (pv && !version_known(pv) && strcmp(method, "POST") != 0)
        return send_error(c, r, 400, -32600,
                          "Bad Request: unsupported MCP-Protocol-Version (this server speaks "
                          "2025-11-25, 2025-06-18 and 2025-03-26)",
                          NULL);
    const char *len = header(c, "Content-Length");
    if (strcmp(method, "POST") == 0 && len && strtoull(len, NULL, 10) > cfg.max_body_bytes)
        r->too_big = 1;
    if (r->too_big)
        return send_too_big(c, r);
    if (strcmp(method, "POST") && strcmp(method, "GET") && strcmp(method, "DELETE")) {
        const char *h[] = {"Allow", "GET, POST, DELETE", NULL};
        return send_error(c, r, 405, -32600, "Method Not Allowed", h);
    }
    r->started = 0;
    return MHD_YES;
}

/* A /mcp request that passed mcp_gate, its body (if any) read. */
static enum MHD_Result mcp_endpoint(struct MHD_Connection *c, req *r, const char *method)
{
    if (strcmp(method, "POST") == 0)
        return r->too_big ? send_too_big(c, r) : mcp_post(c, r);
    return mcp_get_or_delete(c, r, r->owner, method[0] == 'D');
}

/* RFC 9728 protected-resource metadata. */
static enum MHD_Result resource_metadata(struct MHD_Connection *c, req *r)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "resource", endpoint_url);
    cJSON *as = cJSON_AddArrayToObject(m, "authorization_servers");
    if (cfg.oauth_servers)
        for (char **p = cfg.oauth_servers; *p; p++)
            cJSON_AddItemToArray(as, cJSON_CreateString(*p));
    else
        cJSON_AddItemToArray(as, cJSON_CreateString(cfg.oauth_issuer));
    cJSON *bm = cJSON_AddArrayToObject(m, "bearer_methods_supported");
    cJSON_AddItemToArray(bm, cJSON_CreateString("header"));
    if (cfg.oauth_scope) {
        cJSON *sc = cJSON_AddArrayToObject(m, "scopes_supported");
        char *copy = strdup(cfg.oauth_scope), *save = NULL;
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
            cJSON_AddItemToArray(sc, cJSON_CreateString(t));
        free(copy);
    }
    cJSON_AddStringToObject(m, "resource_name", "vthost");
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    enum MHD_Result rc = send_text(c, r, 200, "application/json", text ? text : "{}", NULL);
    cJSON_free(text);
    return rc;
}

/* A request from this vthost or a process it started (one of its
 * commands) is refused before anything of it is looked at, whatever
 * token it carries: a command must not answer its own approval prompts
 * (http_peer.h).  1 with the refusal queued into *rc, else 0. */
static int refuse_own_process(struct MHD_Connection *c, req *r, enum MHD_Result *rc)
{
    char why[320];
    if (http_peer_check(conn_fd(c), why, sizeof why) == 0)
        return 0;
    r->started = 1;
    *rc = send_error(c, r, 403, -32600, why, NULL);
    return 1;
}

/* Anything but /mcp: answered from the headers alone, whatever body
 * was announced. */
static enum MHD_Result other_route(struct MHD_Connection *c, req *r, const char *url,
                                   const char *method)
{
    r->started = 1;
    if (strcmp(url, "/healthz") == 0 && strcmp(method, "GET") == 0)
        return send_text(c, r, 200, "application/json", "{\"status\":\"ok\"}", NULL);
    if (metadata_url && strcmp(method, "GET") == 0 &&
        (strcmp(url, "/.well-known/oauth-protected-resource") == 0 ||
         strcmp(url, "/.well-known/oauth-protected-resource/mcp") == 0))
        return resource_metadata(c, r);
    return send_error(c, r, 404, -32600, "Not Found: the MCP endpoint is /mcp", NULL);
}

/* The first call of a request: its headers are complete, no body byte
 * has been read. */
static enum MHD_Result request_begin(struct MHD_Connection *c, const char *url, const char *method,
                                     void **con_cls)
{
    req *r = calloc(1, sizeof *r);
    if (!r)
        return MHD_NO;
    mono_now(&r->t0);
    snprintf(r->method, sizeof r->method, "%s", method);
    snprintf(r->path, sizeof r->path, "%s", url);
    *con_cls = r;
    http_guard_request(c);
    enum MHD_Result refused;
    if (refuse_own_process(c, r, &refused))
        return refused;
    if (strcmp(url, "/mcp") != 0)
        return other_route(c, r, url, method);
    return mcp_gate(c, r, method);
}

/* A piece of an authenticated request's body. */
static enum MHD_Result request_body(req *r, const char *upload, size_t *upload_size)
{
    if (ms_since(&r->t0) > cfg.request_timeout_s * 1000.0) {
        /* A body trickling in: close the connection (logged as 408;
         * libmicrohttpd sends no response before the whole body). */
        r->timed_out = 1;
        *upload_size = 0;
        return MHD_NO;
    }
    if (!r->too_big && r->len + *upload_size <= cfg.max_body_bytes) {
        if (r->len + *upload_size + 1 > r->cap) {
            size_t cap = (r->len + *upload_size + 1) * 2;
            if (cap > cfg.max_body_bytes + 1)
                cap = cfg.max_body_bytes + 1;
            char *b = realloc(r->body, cap);
            if (!b)
                return MHD_NO;
            r->body = b;
            r->cap = cap;
        }
        memcpy(r->body + r->len, upload, *upload_size);
        r->len += *upload_size;
        r->body[r->len] = 0;
    } else {
        r->too_big = 1; /* the rest is read and dropped */
    }
    *upload_size = 0;
    return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)version;
    req *r = *con_cls;
    if (!r)
        return request_begin(c, url, method, con_cls);
    if (r->started) {
        *upload_size = 0; /* answered already: nothing more is kept */
        return MHD_YES;
    }
    if (*upload_size > 0)
        return request_body(r, upload, upload_size);
    r->started = 1;
    return mcp_endpoint(c, r, method);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    req *r = *con_cls;
    if (!r)
        return;
    char tool[64] = "";
    const char *decision = "";
    if (r->st) {
        if (r->sse && toe != MHD_REQUEST_TERMINATED_COMPLETED_OK)
            http_stream_detach(r->st); /* the client may resume it */
        http_stream_outcome(r->st, tool, sizeof tool, &decision);
        http_stream_close(r->st);
        if (!tool[0])
            snprintf(tool, sizeof tool, "%s", r->tool);
    }
    char remote[64] = "";
    const union MHD_ConnectionInfo *ci =
        M->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr) {
        const struct sockaddr *sa = ci->client_addr;
        if (sa->sa_family == AF_INET)
            inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, remote, sizeof remote);
        else if (sa->sa_family == AF_INET6)
            inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, remote,
                      sizeof remote);
    }
    int status = r->status;
    if (r->timed_out)
        status = 408;
    else if (!status || toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
        status = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? 408 : status ? status : 499;
    http_log_entry e = {.remote = remote,
                        .method = r->method,
                        .path = r->path,
                        .status = status,
                        .session = r->session,
                        .rpc = r->rpc,
                        .tool = tool,
                        .decision = decision,
                        .ms = ms_since(&r->t0)};
    http_log_write(&e);
    http_guard_request_done(c);
    free(r->body);
    free(r);
    *con_cls = NULL;
}

/* ---- start and stop ----------------------------------------------------- */

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (wake_pipe[1] >= 0) {
        ssize_t n = write(wake_pipe[1], "x", 1);
        (void)n;
    }
    errno = saved;
}

static char *read_pem(const char *path, char **err)
{
    FILE *f = fopen(path, "re");
    char *text = f ? file_read_all(f) : NULL;
    if (f)
        fclose(f);
    if (!text)
        *err = str_printf("cannot read %s: %s", path, strerror(errno));
    return text;
}

/* The configuration, libmicrohttpd, the token or keys, the access log
 * and the TLS key pair (*cert, *key: malloc'd, NULL without TLS).
 * Returns 0, or the exit status after saying what was wrong. */
static int serve_open(const char *listen, const char *token_file, int *created, char **cert,
                      char **key)
{
    char *err = NULL;
    const char *lib_err = NULL;
    int rc = 0;
    if (http_config_load(&cfg, listen, token_file, &err) < 0)
        rc = 2;
    else if (!(M = mhd_lib_open(&lib_err)))
        err = str_printf("%s (install libmicrohttpd12)", lib_err), rc = 1;
    else if (http_auth_open(&cfg, created, &err) < 0)
        rc = 2;
    else if (cfg.tls_cert &&
             (!(*cert = read_pem(cfg.tls_cert, &err)) || !(*key = read_pem(cfg.tls_key, &err))))
        rc = 2;
    else if (http_own_data_register(&cfg) != 0) /* commands must not read them */
        err = strdup("out of memory listing the server's own files"), rc = 1;
    else if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        err = str_printf("cannot create a pipe: %s", strerror(errno)), rc = 1;
    if (rc) {
        fprintf(stderr, "vthost serve --http: %s\n", err ? err : "out of memory");
        free(err);
        free(*cert);
        *cert = NULL;
        http_auth_close();
        http_config_free(&cfg);
        return rc;
    }
    if (cfg.access_log && http_log_open(cfg.access_log) < 0)
        fprintf(stderr,
                "vthost serve --http: cannot open the access log %s; logging to "
                "stderr\n",
                cfg.access_log);
    else if (!cfg.access_log)
        http_log_open(NULL);
    return 0;
}

/* Every connection, as it is accepted and as it closes: the one place
 * where checks on a connection as a whole hook in (libmicrohttpd takes a
 * single such callback).  Runs on the listening thread for a new
 * connection, before the connection's own thread starts. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    http_guard_connection(c, socket_context, code);
}

/* The daemon's options beyond the basics: the guard's connection
 * notification and the per-address cap, and the TLS key pair when there
 * is one. */
static void daemon_options(struct MHD_OptionItem opts[5], char *cert, char *key)
{
    http_guard_limits lim = {.header_timeout_s = cfg.header_timeout_s,
                             .max_unauthenticated = cfg.max_unauthenticated};
    http_guard_init(M, &lim);
    int n = 0;
    opts[n++] =
        (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                        (intptr_t)cfg.max_per_address, NULL};
    if (cert) {
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, cert};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, key};
    }
    opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

static struct MHD_Daemon *daemon_start(char *cert, char *key)
{
    /* A thread per connection: an SSE stream and a call's answer block
     * their connection's thread (http_stream_read, http_stream_wait_answer).
     * MHD_USE_POLL: those threads and the listening thread wait with
     * poll(), not select(), whose descriptors stop at FD_SETSIZE (1024) --
     * with select() libmicrohttpd refuses every new connection once the
     * process holds that many descriptors (sessions' commands do). */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ITC;
    if (cfg.addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (cert)
        flags |= MHD_USE_TLS;
    struct MHD_OptionItem opts[5];
    daemon_options(opts, cert, key);
    return M->start_daemon(flags, 0, NULL, NULL, on_request, NULL, MHD_OPTION_SOCK_ADDR,
                           (struct sockaddr *)&cfg.addr, MHD_OPTION_CONNECTION_LIMIT,
                           (unsigned)cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
                           (unsigned)cfg.connection_timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
                           on_completed, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

/* The URLs clients are told, the token's one showing, the line that says
 * where the server listens. */
static void announce(struct MHD_Daemon *d, int created)
{
    const union MHD_DaemonInfo *di = M->get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    int port = di ? di->port : 0;
    endpoint_url = http_config_url(&cfg, port);
    if (cfg.oauth) {
        /* https://host/mcp -> https://host/.well-known/oauth-protected-resource/mcp */
        const char *u = endpoint_url;
        const char *path = strchr(strstr(u, "://") ? strstr(u, "://") + 3 : u, '/');
        int origin_len = path ? (int)(path - u) : (int)strlen(u);
        metadata_url = str_printf("%.*s/.well-known/oauth-protected-resource%s", origin_len, u,
                                  path && strcmp(path, "/") ? path : "");
    }
    http_banner_init(&cfg, endpoint_url);
    if (created)
        http_banner_first_start(&cfg, endpoint_url, http_auth_token());
    char *local = NULL;
    if (cfg.public_url) {
        http_config tmp = cfg;
        tmp.public_url = NULL;
        local = http_config_url(&tmp, port);
    }
    char *ws = text_escape(host_workspace() ? host_workspace() : ".", 0);
    fprintf(stderr, "vthost: serving MCP over HTTP at %s (listening on %s, workspace %s)\n",
            endpoint_url, local ? local : endpoint_url, ws ? ws : ".");
    free(ws);
    free(local);
}

/* The catalog over HTTP (--catalog, [mcp] catalog): the registry's
 * listing is one for every session, so once a session's client gets the
 * whole catalog (full, or auto for a client that never re-lists) every
 * session lists it from then on, told by tools/list_changed.  It never
 * shrinks back: a session listing everything keeps every tool. */
static void catalog_for_client(const char *name, const char *version)
{
    if (!registry_listing_all() && mcp_catalog_full_for(name, version)) {
        registry_list_all(1);
        http_sessions_tools_changed(NULL);
    }
}

/* Serve until SIGTERM or SIGINT, expiring idle sessions; then accept
 * nothing new, let running calls finish within the grace period, cancel
 * them and end every session. */
static void serve_until_signal(struct MHD_Daemon *d)
{
    /* One workspace for every client: roots never move it. */
    mcp_roots_enable(0);
    mcp_ops ops;
    mcp_host_ops(&ops);
    ops.client_info = catalog_for_client;
    registry_list_all(0);
    /* As on stdio: a deferred tool is callable once a search found it,
     * for the client that searched (registry_view.h). */
    registry_require_search(1);
    http_limits lim = {.max_per_owner = cfg.max_sessions_per_client,
                       .max_sessions = cfg.max_sessions,
                       .max_calls = cfg.max_calls_per_session,
                       .idle_s = cfg.idle_timeout_s,
                       .resume_s = cfg.resume_window_s,
                       .idle_commands_s = cfg.idle_commands_s};
    http_sessions_init(&ops, &lim);
    registry_dynamic_on_listed_change(http_sessions_tools_changed, NULL);

    serve_signals saved;
    serve_signals_catch(on_signal, &saved);
    for (;;) {
        struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
        if (poll(&p, 1, 1000) > 0)
            break;
        http_sessions_expire();
        http_jwt_tick();
        http_guard_sweep();
    }
    fprintf(stderr, "vthost: stopping (%d session(s))\n", http_sessions_count());
    MHD_socket lfd = M->quiesce_daemon(d);
    if (lfd != MHD_INVALID_SOCKET)
        close(lfd);
    http_sessions_shutdown(cfg.shutdown_grace_s * 1000);
    http_stateless_reset();
    M->stop_daemon(d);
    registry_dynamic_on_listed_change(NULL, NULL);
    serve_signals_restore(&saved);
}

int http_serve(const char *listen, const char *token_file)
{
    char *cert = NULL, *key = NULL;
    int created = 0;
    /* Request bodies of up to max_body_bytes grow on connection threads.
     * glibc raises its mmap threshold to the size of each large block
     * freed, so from the second body on they came from the thread's arena
     * and stayed there (84 MiB kept after 30 s of 16 clients): a fixed
     * threshold keeps every large buffer mmap'd, returned when freed. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    int rc = serve_open(listen, token_file, &created, &cert, &key);
    if (rc)
        return rc;
    struct MHD_Daemon *d = daemon_start(cert, key);
    if (d) {
        announce(d, created);
        serve_until_signal(d);
    } else {
        fprintf(stderr,
                "vthost serve --http: cannot listen on %s: %s (in use, or not an "
                "address of this machine)\n",
                cfg.listen, strerror(errno));
        rc = 1;
    }
    http_log_close();
    http_auth_close();
    http_banner_free();
    for (int i = 0; i < 2; i++) {
        if (wake_pipe[i] >= 0)
            close(wake_pipe[i]);
        wake_pipe[i] = -1;
    }
    free(cert);
    free(key);
    free(endpoint_url);
    free(metadata_url);
    endpoint_url = metadata_url = NULL;
    http_config_free(&cfg);
    return rc;
}
