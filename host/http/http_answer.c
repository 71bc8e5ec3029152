/* The answers of `vthost serve --http`'s MCP endpoint: a POSTed
 * message routed to its engine (a session's, a new session's or a
 * stateless request's own) and its answer sent as JSON or SSE; GET
 * streams, their resumption, and DELETE (see http_server.c). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_media.h"
#include "http_server_int.h"
#include "http_stateless.h"
#include "json_exact.h"
#include "mcp_server.h"
#include "strbuf.h"
#include "strutil.h"

enum MHD_Result hv_send_text(struct MHD_Connection *c, req *r, int status, const char *type,
                             const char *body, const char *const *headers)
{
    struct MHD_Response *res =
        hv_mhd->create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!res)
        return MHD_NO;
    if (type)
        hv_mhd->add_response_header(res, "Content-Type", type);
    for (const char *const *h = headers; h && h[0]; h += 2)
        hv_mhd->add_response_header(res, h[0], h[1]);
    if (r)
        r->status = status;
    enum MHD_Result rc = hv_mhd->queue_response(c, (unsigned)status, res);
    hv_mhd->destroy_response(res);
    return rc;
}

/* A JSON-RPC error as the body of an HTTP error (the MCP SDKs show it). */
enum MHD_Result hv_send_error(struct MHD_Connection *c, req *r, int status, int code,
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
    enum MHD_Result rc =
        hv_send_text(c, r, status, "application/json", text ? text : "{}", headers);
    cJSON_free(text);
    return rc;
}

/* 401, or 403 for a valid token lacking a scope (RFC 6750 3.1). */
enum MHD_Result hv_send_unauthorized(struct MHD_Connection *c, req *r, int status,
                                     const char *error, const char *desc)
{
    if (status == 503) { /* the authorization server could not be asked */
        const char *h[] = {"Retry-After", "5", NULL};
        return hv_send_error(c, r, 503, -32001, desc, h);
    }
    char www[768];
    int n;
    if (hv_metadata_url)
        n = snprintf(www, sizeof www, "Bearer resource_metadata=\"%s\"", hv_metadata_url);
    else
        n = snprintf(www, sizeof www, "Bearer realm=\"vthost\"");
    if (hv_cfg.oauth_scope && n > 0 && (size_t)n < sizeof www)
        n += snprintf(www + n, sizeof www - (size_t)n, ", scope=\"%s\"", hv_cfg.oauth_scope);
    if (error && n > 0 && (size_t)n < sizeof www)
        snprintf(www + n, sizeof www - (size_t)n, ", error=\"%s\", error_description=\"%s\"", error,
                 desc);
    const char *h[] = {"WWW-Authenticate", www, NULL};
    return hv_send_error(c, r, status == 403 ? 403 : 401, -32001, desc, h);
}

/* ---- SSE ---------------------------------------------------------------- */

typedef struct sse {
    http_stream *st;
    int fd;
    http_session *stateless; /* a stateless request's session, else NULL */
} sse;

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    sse *x = cls;
    ssize_t n = http_stream_read(x->st, buf, max, x->fd);
    if (n == -1) {
        /* every event is out: the client reads the end of the answer
         * only after this (see stateless_over) */
        if (x->stateless)
            http_session_answered(x->stateless);
        return MHD_CONTENT_READER_END_OF_STREAM;
    }
    if (n < 0)
        return MHD_CONTENT_READER_END_WITH_ERROR;
    return n;
}

static void sse_free(void *cls)
{
    free(cls); /* the stream is the request's (closed when it completes) */
}

/* An SSE response's headers, and the request marked as answered with
 * one; queued (the response destroyed: libmicrohttpd holds its own
 * reference). */
static enum MHD_Result queue_sse(struct MHD_Connection *c, req *r, http_session *s,
                                 struct MHD_Response *res)
{
    hv_mhd->add_response_header(res, "Content-Type", "text/event-stream");
    hv_mhd->add_response_header(res, "Cache-Control", "no-cache");
    hv_mhd->add_response_header(res, "X-Accel-Buffering", "no"); /* nginx: do not buffer */
    if (r->session[0]) /* a stateless request's stream names no session */
        hv_mhd->add_response_header(res, "Mcp-Session-Id", http_session_id(s));
    r->status = 200;
    r->sse = 1;
    enum MHD_Result rc = hv_mhd->queue_response(c, 200, res);
    hv_mhd->destroy_response(res);
    return rc;
}

/* A stateless request whose answer is in hand no longer holds one of its
 * client's slots (http_session_answered); its engine still ends when the
 * connection completes. */
static void stateless_over(const req *r, http_session *s)
{
    if (!r->session[0])
        http_session_answered(s);
}

/* A stream sent as it comes: each event written as it is queued. */
static enum MHD_Result send_sse(struct MHD_Connection *c, req *r, http_session *s)
{
    sse *x = malloc(sizeof *x);
    if (!x)
        return MHD_NO;
    x->st = r->st;
    x->fd = conn_fd(c);
    x->stateless = r->session[0] ? NULL : s; /* the stream holds a reference */
    struct MHD_Response *res =
        hv_mhd->create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, sse_read, x, sse_free);
    if (!res) {
        free(x);
        return MHD_NO;
    }
    return queue_sse(c, r, s, res);
}

/* How long a call's SSE answer waits for the call to be over before its
 * headers go out.  A call over by then is sent whole, headers and every
 * event in one write with a Content-Length: streamed, a cheap call's
 * answer was four writes on the socket (headers, priming event, the
 * response, the last chunk), each a wake-up of the client.  A message
 * that must reach the client while the call runs (progress, approvals,
 * elicitations) ends the wait at once, so nothing waits on it; a long
 * call's headers come this much later, and its events as before. */
#define SETTLE_MS 20

/* A stream whose call is over, sent whole. */
static enum MHD_Result send_sse_whole(struct MHD_Connection *c, req *r, http_session *s)
{
    vt_strbuf body = VT_STRBUF_INIT;
    if (http_stream_take_all(r->st, &body) != 0) {
        strbuf_reset(&body);
        return MHD_NO;
    }
    size_t len = body.len;
    char *data = strbuf_take(&body);
    if (len && !data) /* the stream's bytes are taken: no empty 200 instead */
        return MHD_NO;
    stateless_over(r, s);
    struct MHD_Response *res = hv_mhd->create_response_from_buffer(
        len, data ? data : (void *)"", data ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!res) {
        free(data);
        return MHD_NO;
    }
    return queue_sse(c, r, s, res);
}

/* ---- the MCP endpoint --------------------------------------------------- */

static int accepts(struct MHD_Connection *c, const char *type)
{
    return http_media_accepts(header(c, "Accept"), type);
}

int hv_version_known(const char *v)
{
    for (const char *const *p = hv_versions; *p; p++)
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
        *rc = hv_send_error(c, r, 415, -32600,
                            "POST a JSON-RPC message with Content-Type: application/json", NULL);
        return NULL;
    }
    /* The engine's reader: a body it would refuse is refused here, with
     * an answer, rather than handed on and never answered. */
    cJSON *msg = json_parse_document(r->body.data ? r->body.data : "", r->body.len);
    if (!msg) {
        *rc = hv_send_error(c, r, 400, -32700,
                            "Parse error: the body is not one valid JSON text (nothing may follow "
                            "it; numbers as JSON writes them)",
                            NULL);
        return NULL;
    }
    if (!cJSON_IsObject(msg)) {
        *rc = hv_send_error(c, r, 400, -32600,
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
        *rc =
            hv_send_error(c, r, 400, -32600,
                          "initialize starts a new session: send it without Mcp-Session-Id", NULL);
        return NULL;
    }
    http_session *s = NULL;
    int st = http_session_create(owner, &s);
    const char *h[] = {"Retry-After", "60", NULL};
    if (st == 429)
        *rc = hv_send_error(c, r, 429, -32000,
                            "Too many sessions for this client, every one of them busy (a call "
                            "running or a stream open): end one (HTTP DELETE with its "
                            "Mcp-Session-Id) or close its streams; an idle one makes room",
                            h);
    else if (st == 503)
        *rc = hv_send_error(c, r, 503, -32000,
                            "The server holds as many sessions as it serves (max_sessions in "
                            "http.toml): try again later",
                            h);
    else if (st)
        *rc = hv_send_error(c, r, 500, -32603, "cannot start a session: out of memory", NULL);
    return s;
}

/* Any other message: the session it names, or an error answer queued
 * into *rc and NULL. */
static http_session *post_session(struct MHD_Connection *c, req *r, const char *owner,
                                  enum MHD_Result *rc)
{
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid) {
        *rc = hv_send_error(c, r, 400, -32600,
                            "Bad Request: Mcp-Session-Id header is required (initialize first)",
                            NULL);
        return NULL;
    }
    http_session *s = http_session_find(sid, owner);
    if (!s)
        *rc = hv_send_error(c, r, 404, -32001,
                            "Session not found: it ended or expired; initialize a new one", NULL);
    return s;
}

/* A request's answer: an SSE stream for a tools/call or a
 * subscriptions/listen (`name`) when the client takes one, else the JSON
 * response once it is there. */
static enum MHD_Result post_answer(struct MHD_Connection *c, req *r, http_session *s,
                                   const char *name, int is_init)
{
    int is_call = strcmp(name, "tools/call") == 0;
    int listen = strcmp(name, "subscriptions/listen") == 0;
    if ((is_call || listen) && accepts(c, "text/event-stream")) {
        /* A call's stream ends with its call, so a call over soon is
         * sent whole; a subscriptions/listen stream lasts until its
         * client closes it, and waiting would only hold back its
         * headers. */
        if (is_call && http_stream_settle(r->st, SETTLE_MS))
            return send_sse_whole(c, r, s);
        return send_sse(c, r, s);
    }
    struct msg *answer = http_stream_wait_answer(r->st, conn_fd(c));
    const char *text = answer ? http_answer_text(answer) : NULL;
    if (text)
        stateless_over(r, s);
    if (is_init && (!text || !http_stream_answer_ok(r->st))) {
        http_session_end(s); /* a failed initialize leaves no session */
        r->session[0] = 0;
    }
    const char *h[] = {"Mcp-Session-Id", http_session_id(s), NULL};
    enum MHD_Result rc;
    if (text)
        rc = hv_send_text(c, r, 200, "application/json", text, r->session[0] ? h : NULL);
    else
        rc = hv_send_error(c, r, 404, -32001, "Session not found: it ended", NULL);
    free(answer);
    return rc;
}

/* A request in session s: its stream opened, the message handed to the
 * session's engine, the answer sent. */
static enum MHD_Result post_request(struct MHD_Connection *c, req *r, http_session *s, cJSON *msg,
                                    const char *name, int is_init)
{
    int is_call = strcmp(name, "tools/call") == 0;
    if (is_call && hv_cfg.max_calls_per_session > 0 &&
        http_session_calls(s) >= hv_cfg.max_calls_per_session) {
        const char *h[] = {"Retry-After", "1", NULL};
        cJSON_Delete(msg);
        return hv_send_error(c, r, 429, -32000,
                             "Too many tool calls running in this session: wait for one to finish",
                             h);
    }
    const cJSON *params = cJSON_GetObjectItemCaseSensitive(msg, "params");
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(params, "_meta");
    const cJSON *tool = cJSON_GetObjectItemCaseSensitive(params, "name");
    if (is_call && cJSON_IsString(tool))
        str_copy(r->tool, sizeof r->tool, tool->valuestring);
    r->st = http_stream_open(s, cJSON_GetObjectItemCaseSensitive(msg, "id"),
                             cJSON_GetObjectItemCaseSensitive(meta, "progressToken"));
    if (!r->st) {
        cJSON_Delete(msg);
        return hv_send_error(c, r, 503, -32603, "out of memory", NULL);
    }
    if (!accepts(c, "text/event-stream"))
        http_stream_json_only(r->st);
    http_session_submit(s, r->st, msg, header(c, "MCP-Protocol-Version"));
    return post_answer(c, r, s, name, is_init);
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
        *rc = hv_send_error(
            c, r, 429, -32000,
            "Too many requests of this client are open at once (max_sessions_per_client "
            "times max_calls_per_session): wait for one to finish",
            h);
    else if (st)
        *rc = hv_send_error(c, r, 500, -32603, "cannot serve the request: out of memory", NULL);
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
    for (const char *const *p = hv_versions; *p; p++)
        cJSON_AddItemToArray(sup, cJSON_CreateString(*p));
    cJSON_AddStringToObject(data, "requested", pv);
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    enum MHD_Result rc = hv_send_text(c, r, 400, "application/json", text ? text : "{}", NULL);
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
    if (!modern && pv && (!hv_version_known(pv) || strcmp(pv, MCP_MODERN_VERSION) == 0)) {
        *rc = send_bad_version(c, r, cJSON_GetObjectItemCaseSensitive(msg, "id"), pv);
        return NULL;
    }
    if (modern || probe)
        return post_stateless(c, r, r->owner, rc);
    int is_init = is_request && strcmp(name, "initialize") == 0;
    http_session *s =
        is_init ? post_new_session(c, r, r->owner, rc) : post_session(c, r, r->owner, rc);
    if (s)
        str_copy(r->session, sizeof r->session, http_session_id(s));
    return s;
}

enum MHD_Result hv_mcp_post(struct MHD_Connection *c, req *r)
{
    enum MHD_Result rc = MHD_NO;
    cJSON *msg = post_message(c, r, &rc);
    if (!msg)
        return rc;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    char name[48];
    str_copy(name, sizeof name, cJSON_IsString(method) ? method->valuestring : "");
    str_copy(r->rpc, sizeof r->rpc, name);
    int is_request = method && id && (cJSON_IsString(id) || cJSON_IsNumber(id) || cJSON_IsRaw(id));
    if (id && !is_request && method) {
        cJSON_Delete(msg);
        return hv_send_error(c, r, 400, -32600,
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
        rc = hv_send_text(c, r, 202, NULL, "", NULL);
    }
    /* A stateless engine ends with its request's stream, or at once when
     * nothing follows (a notification, a refusal before the stream). */
    if (!r->session[0] && !r->st)
        http_session_end(s);
    http_session_put(s);
    return rc;
}

/* GET with Last-Event-ID: the stream that event belongs to, replayed
 * from the event after it, then live; a stream that has finished replays
 * what is still kept of it and ends. */
static enum MHD_Result mcp_resume(struct MHD_Connection *c, req *r, http_session *s)
{
    int st = http_stream_resume(s, header(c, "Last-Event-ID"), &r->st);
    if (st == 0)
        return send_sse(c, r, s);
    if (st == VT_ERR_BUSY) {
        const char *h[] = {"Retry-After", "1", NULL};
        return hv_send_error(c, r, 409, -32600,
                             "Conflict: that stream's connection is still open; retry in a moment",
                             h);
    }
    if (st == VT_ERR_NOMEM)
        return hv_send_error(c, r, 503, -32603, "out of memory", NULL);
    return hv_send_error(c, r, 404, -32600,
                         st == VT_ERR_INVALID
                             ? "Last-Event-ID is not an event id of this server"
                             : "Last-Event-ID names no stream or event of this session; open "
                               "GET without Last-Event-ID",
                         NULL);
}

enum MHD_Result hv_mcp_get_or_delete(struct MHD_Connection *c, req *r, const char *owner, int del)
{
    const char *sid = header(c, "Mcp-Session-Id");
    if (!sid)
        return hv_send_error(c, r, 400, -32600, "Bad Request: Mcp-Session-Id header is required",
                             NULL);
    http_session *s = http_session_find(sid, owner);
    if (!s)
        return hv_send_error(c, r, 404, -32001,
                             "Session not found: it ended or expired; initialize a new one", NULL);
    str_copy(r->session, sizeof r->session, http_session_id(s));
    enum MHD_Result rc;
    if (del) {
        http_session_end(s);
        rc = hv_send_text(c, r, 200, NULL, "", NULL);
    } else if (!accepts(c, "text/event-stream")) {
        rc = hv_send_error(c, r, 406, -32600, "GET opens an SSE stream: Accept: text/event-stream",
                           NULL);
    } else if (header(c, "Last-Event-ID")) {
        rc = mcp_resume(c, r, s);
    } else if (!(r->st = http_stream_open(s, NULL, NULL))) {
        rc = hv_send_error(c, r, 409, -32600, "Conflict: this session already has a GET stream",
                           NULL);
    } else {
        rc = send_sse(c, r, s);
    }
    http_session_put(s);
    return rc;
}

/* 413: announced in Content-Length (judged before the body) or found
 * while reading a chunked body. */
