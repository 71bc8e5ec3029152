/* The phases of one request of `vthost serve --http`: judged when its
 * headers are complete (own process, Origin, credentials, version,
 * announced size), its body read, answered, logged (see http_server.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "http_guard.h"
#include "http_log.h"
#include "http_origin.h"
#include "http_peer.h"
#include "http_server_int.h"
#include "strbuf.h"
#include "strutil.h"

static enum MHD_Result send_too_big(struct MHD_Connection *c, req *r)
{
    char text[160];
    snprintf(text, sizeof text,
             "Payload Too Large: a message is at most %zu bytes (max_body_bytes in http.toml)",
             hv_cfg.max_body_bytes);
    return hv_send_error(c, r, 413, -32600, text, NULL);
}

/* A /mcp request whose headers are complete, judged before its body is
 * read: Origin, credentials, protocol version, announced size.  MHD_YES
 * without an answer when it may go on (r->owner set), else the refusal
 * is queued: libmicrohttpd then sends it at once, without `100
 * Continue`, and closes the connection instead of reading the body. */
static enum MHD_Result mcp_gate(struct MHD_Connection *c, req *r, const char *method)
{
    r->started = 1; /* unless it passes, the answer below is the request's */
    if (!http_origin_allowed(&hv_cfg, header(c, "Origin")))
        return hv_send_error(c, r, 403, -32600,
                             "Forbidden: this Origin is not in allowed_origins (http.toml); on a "
                             "loopback address http://localhost, 127.0.0.1 and [::1] on any port "
                             "need no entry",
                             NULL);
    const char *error, *desc;
    int denied = http_auth_check(header(c, "Authorization"), r->owner, &error, &desc);
    if (denied)
        return hv_send_unauthorized(c, r, denied, error, desc);
    http_guard_authenticated(c);
    /* A POST's version header is judged with its message (post_route):
     * the answer is then a JSON-RPC error to that request. */
    const char *pv = header(c, "MCP-Protocol-Version");
    if (pv && !hv_version_known(pv) && strcmp(method, "POST") != 0)
        return hv_send_error(c, r, 400, -32600,
                             "Bad Request: unsupported MCP-Protocol-Version (this server speaks "
                             "2025-11-25, 2025-06-18 and 2025-03-26)",
                             NULL);
    const char *len = header(c, "Content-Length");
    if (strcmp(method, "POST") == 0 && len && strtoull(len, NULL, 10) > hv_cfg.max_body_bytes)
        r->too_big = 1;
    if (r->too_big)
        return send_too_big(c, r);
    if (strcmp(method, "POST") && strcmp(method, "GET") && strcmp(method, "DELETE")) {
        const char *h[] = {"Allow", "GET, POST, DELETE", NULL};
        return hv_send_error(c, r, 405, -32600, "Method Not Allowed", h);
    }
    r->started = 0;
    return MHD_YES;
}

/* A /mcp request that passed mcp_gate, its body (if any) read. */
static enum MHD_Result mcp_endpoint(struct MHD_Connection *c, req *r, const char *method)
{
    if (strcmp(method, "POST") == 0)
        return r->too_big ? send_too_big(c, r) : hv_mcp_post(c, r);
    return hv_mcp_get_or_delete(c, r, r->owner, method[0] == 'D');
}

/* RFC 9728 protected-resource metadata. */
static enum MHD_Result resource_metadata(struct MHD_Connection *c, req *r)
{
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "resource", hv_endpoint_url);
    cJSON *as = cJSON_AddArrayToObject(m, "authorization_servers");
    if (hv_cfg.oauth_servers)
        for (char **p = hv_cfg.oauth_servers; *p; p++)
            cJSON_AddItemToArray(as, cJSON_CreateString(*p));
    else
        cJSON_AddItemToArray(as, cJSON_CreateString(hv_cfg.oauth_issuer));
    cJSON *bm = cJSON_AddArrayToObject(m, "bearer_methods_supported");
    cJSON_AddItemToArray(bm, cJSON_CreateString("header"));
    if (hv_cfg.oauth_scope) {
        cJSON *sc = cJSON_AddArrayToObject(m, "scopes_supported");
        char *copy = strdup(hv_cfg.oauth_scope), *save = NULL;
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
            cJSON_AddItemToArray(sc, cJSON_CreateString(t));
        free(copy);
    }
    cJSON_AddStringToObject(m, "resource_name", "vthost");
    char *text = cJSON_PrintUnformatted(m);
    cJSON_Delete(m);
    enum MHD_Result rc = hv_send_text(c, r, 200, "application/json", text ? text : "{}", NULL);
    cJSON_free(text);
    return rc;
}

/* A request from this vthost or a process it started (one of its
 * commands) is refused before anything of it is looked at, whatever
 * token it carries: a command must not answer its own approval prompts
 * (http_peer.h).  1 with the refusal queued into *rc, else 0. */
static int refuse_own_process(struct MHD_Connection *c, req *r, enum MHD_Result *rc)
{
    char why[HTTP_PEER_WHY_MAX];
    if (http_peer_check(conn_fd(c), http_guard_peer(c), why, sizeof why) == 0)
        return 0;
    r->started = 1;
    *rc = hv_send_error(c, r, 403, -32600, why, NULL);
    return 1;
}

/* Anything but /mcp: answered from the headers alone, whatever body
 * was announced. */
static enum MHD_Result other_route(struct MHD_Connection *c, req *r, const char *url,
                                   const char *method)
{
    r->started = 1;
    if (strcmp(url, "/healthz") == 0 && strcmp(method, "GET") == 0)
        return hv_send_text(c, r, 200, "application/json", "{\"status\":\"ok\"}", NULL);
    if (hv_metadata_url && strcmp(method, "GET") == 0 &&
        (strcmp(url, "/.well-known/oauth-protected-resource") == 0 ||
         strcmp(url, "/.well-known/oauth-protected-resource/mcp") == 0))
        return resource_metadata(c, r);
    return hv_send_error(c, r, 404, -32600, "Not Found: the MCP endpoint is /mcp", NULL);
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
    str_copy(r->method, sizeof r->method, method);
    str_copy(r->path, sizeof r->path, url);
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
    if (ms_since(&r->t0) > hv_cfg.request_timeout_s * 1000.0) {
        /* A body trickling in: close the connection (logged as 408;
         * libmicrohttpd sends no response before the whole body). */
        r->timed_out = 1;
        *upload_size = 0;
        return MHD_NO;
    }
    if (!r->too_big && r->body.len + *upload_size <= hv_cfg.max_body_bytes) {
        if (strbuf_append(&r->body, upload, *upload_size) != 0)
            return MHD_NO;
    } else {
        r->too_big = 1; /* the rest is read and dropped */
    }
    *upload_size = 0;
    return MHD_YES;
}

enum MHD_Result hv_on_request(void *cls, struct MHD_Connection *c, const char *url,
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

void hv_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
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
            str_copy(tool, sizeof tool, r->tool);
    }
    char remote[64] = "";
    const char *peer = http_guard_peer_text(c);
    const union MHD_ConnectionInfo *ci =
        peer ? NULL : hv_mhd->get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (ci && ci->client_addr)
        http_guard_address_text(ci->client_addr, remote, sizeof remote);
    int status = r->status;
    if (r->timed_out)
        status = 408;
    else if (!status || toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
        status = toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? 408 : status ? status : 499;
    http_log_entry e = {.remote = peer ? peer : remote,
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
    strbuf_reset(&r->body);
    free(r);
    *con_cls = NULL;
}
