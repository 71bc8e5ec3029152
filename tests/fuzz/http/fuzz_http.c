/* libFuzzer target for what `vthost serve --http` itself reads of a
 * request (libmicrohttpd parses the HTTP): the input's first line is a
 * header value, judged as an Authorization header (bearer token, and as
 * a JWT's header) and looked up as an Mcp-Session-Id; the rest is a POST
 * body parsed and handed, as the server does, to a fresh session's
 * engine, or a stateless request's when it names 2026-07-28 (scripted
 * tool backend), with the stream routing of http_session.c.  The
 * sanitizers judge. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "http_auth.h"
#include "http_jwt.h"
#include "http_session.h"
#include "json_exact.h"

static int fake_call(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    out->response = cJSON_CreateObject();
    if (strcmp(req->tool, "progress") == 0 && req->fe && req->fe->progress)
        req->fe->progress(req->fe->ctx, 1, 2, "half");
    else if (strcmp(req->tool, "cancelled") == 0)
        out->status = CALL_CANCELLED;
    else if (strcmp(req->tool, "echo") != 0) {
        out->status = CALL_UNKNOWN;
        out->message = strdup("Unknown tool");
        return -2;
    }
    return 0;
}

static cJSON *fake_list(void) { return cJSON_CreateArray(); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int ready;
    if (!ready) {
        mcp_ops ops = {.call = fake_call, .list_tools = fake_list};
        http_limits lim = {.max_per_owner = 1000000, .max_calls = 4, .idle_s = 0};
        http_sessions_init(&ops, &lim);
        ready = 1;
    }
    const uint8_t *nl = memchr(data, '\n', size);
    size_t hl = nl ? (size_t)(nl - data) : size;
    char *header = malloc(hl + 1);
    memcpy(header, data, hl);
    header[hl] = 0;
    char owner[HTTP_OWNER_MAX];
    const char *error, *desc;
    http_auth_check(header, owner, &error, &desc);
    http_jwt_check(header, owner, &error, &desc);
    http_session_put(http_session_find(header, "token"));
    free(header);

    const char *body = nl ? (const char *)nl + 1 : "";
    size_t len = nl ? size - hl - 1 : 0;
    cJSON *msg = json_parse_exact(body, len, NULL);
    if (!msg)
        return 0; /* the front answers -32700 itself */
    http_session *s = NULL;
    if ((mcp_message_is_modern(msg) ? http_session_stateless("token", 42, &s)
                                    : http_session_create("token", &s)) != 0) {
        cJSON_Delete(msg);
        return 0;
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    http_stream *st = NULL;
    if (cJSON_IsObject(msg) && method && (cJSON_IsString(id) || cJSON_IsNumber(id))) {
        const cJSON *meta = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(msg, "params"), "_meta");
        st = http_stream_open(s, id, cJSON_GetObjectItemCaseSensitive(meta, "progressToken"));
    }
    http_session_submit(s, st, msg, NULL);
    /* The session ends: an unanswered request gets its error answer. */
    http_session_end(s);
    if (st) {
        char buf[256];
        while (http_stream_read(st, buf, sizeof buf, -1) > 0)
            ;
        http_stream_close(st);
    }
    http_session_put(s);
    return 0;
}
