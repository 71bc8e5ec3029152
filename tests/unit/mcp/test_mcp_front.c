/* The engine's entry point for front ends that parse and frame messages
 * themselves (HTTP): parsed messages in with a principal, structured
 * messages out (kind, id, payload, version); and the 2026-07-28 era
 * through it: per-request versions, a header that disagrees, approvals
 * as input_required bound to the principal that was asked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mcp_server.h"

#define MAX_OUT 16
typedef struct seen {
    mcp_out_kind kind;
    char *id;        /* printed */
    cJSON *payload;  /* copy */
    char *version;   /* copy or NULL */
    char *method;
} seen;
static seen out[MAX_OUT];
static int nout;
static atomic_int runs;
static mcp_server *g_srv;

static int capture(void *ud, const mcp_out *o)
{
    (void)ud;
    assert_true(nout < MAX_OUT);
    seen *s = &out[nout++];
    s->kind = o->kind;
    s->id = o->id ? cJSON_PrintUnformatted(o->id) : NULL;
    s->payload = o->payload ? cJSON_Duplicate(o->payload, 1) : NULL;
    s->version = o->version ? strdup(o->version) : NULL;
    s->method = o->method ? strdup(o->method) : NULL;
    /* the text is the same message */
    cJSON *m = cJSON_ParseWithLength(o->text, o->len);
    assert_non_null(m);
    cJSON_Delete(m);
    return 0;
}

static void reset(void)
{
    for (int i = 0; i < nout; i++) {
        free(out[i].id);
        cJSON_Delete(out[i].payload);
        free(out[i].version);
        free(out[i].method);
    }
    nout = 0;
}

/* "ask" runs only when its prompt is approved; an unanswered prompt
 * refuses it before it runs, as the permission engine does. */
static int fake_call(const call_request *req, call_result *r)
{
    memset(r, 0, sizeof *r);
    r->response = cJSON_CreateObject();
    if (req->fe && req->fe->progress)
        req->fe->progress(req->fe->ctx, 1, 2, "half");
    if (strcmp(req->tool, "log") == 0) {
        mcp_server_log(g_srv, VT_LOG_INFO, "test", "an info line");
        mcp_server_log(g_srv, VT_LOG_DEBUG, "test", "a debug line");
    }
    if (strcmp(req->tool, "ask") == 0) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "tool", "ask");
        cJSON_AddStringToObject(q, "message", "Run it?");
        int a = req->fe->prompt ? req->fe->prompt(req->fe->ctx, q) : -1;
        cJSON_Delete(q);
        if (a != PROMPT_APPROVED) {
            r->status = CALL_DENIED;
            r->message = strdup("not approved");
            return VT_ERR_DENIED;
        }
    }
    atomic_fetch_add(&runs, 1);
    cJSON_AddBoolToObject(r->response, "ran", 1);
    if (req->fe && req->fe->client_name)
        cJSON_AddStringToObject(r->response, "client", req->fe->client_name);
    if (req->fe && req->fe->client_version)
        cJSON_AddStringToObject(r->response, "client_version", req->fe->client_version);
    return 0;
}

static mcp_server *server(void)
{
    mcp_ops ops = {.call = fake_call};
    mcp_server *s = mcp_server_new_sink(&ops, NULL, NULL);
    assert_non_null(s);
    mcp_server_set_output(s, capture, NULL);
    g_srv = s;
    return s;
}

#define META                                                                                       \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"%s\","                                 \
    "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},\"progressToken\":\"p1\"}"

/* Handle `fmt` (one %s: the _meta object) and run a call it starts. */
static void handle(mcp_server *s, const char *json, const char *principal, const char *header)
{
    struct mcp_call *call = NULL;
    cJSON *m = cJSON_Parse(json);
    assert_non_null(m);
    assert_int_equal(mcp_message_is_modern(m), strstr(json, "protocolVersion\":\"2") &&
                                                   strstr(json, "_meta") != NULL);
    mcp_server_handle_json(s, m, principal, header, &call);
    if (call)
        mcp_server_run_call(s, call);
}

/* `tmpl` with its one "%s" replaced by the _meta member for `version`. */
static char *with_meta(const char *tmpl, const char *version)
{
    char meta[400], *text = NULL;
    snprintf(meta, sizeof meta, META, version);
    const char *at = strstr(tmpl, "%s");
    assert_non_null(at);
    assert_true(asprintf(&text, "%.*s%s%s", (int)(at - tmpl), tmpl, meta, at + 2) > 0);
    return text;
}

static void test_kinds_and_versions(void **st)
{
    (void)st;
    mcp_server *s = server();
    assert_int_equal(mcp_server_client_caps(s), VT_CLIENT_PENDING); /* nothing known yet */
    char *j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{%s}}",
                        MCP_MODERN_VERSION);
    handle(s, j, NULL, NULL);
    free(j);
    assert_int_equal(nout, 1);
    assert_int_equal(out[0].kind, MCP_OUT_RESULT);
    assert_string_equal(out[0].id, "1");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(out[0].payload, "resultType")),
                        "complete");
    assert_null(out[0].version);
    reset();
    /* a 2026-07-28 client is sent no requests: plugins must not wait for it */
    assert_int_equal(mcp_server_client_caps(s), 0);

    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":\"i\",\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}",
           NULL, NULL);
    assert_int_equal(out[0].kind, MCP_OUT_RESULT);
    assert_string_equal(out[0].version, "2025-06-18"); /* the front learns the version */
    reset();

    j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{%s}}",
                  "2099-01-01");
    handle(s, j, NULL, NULL);
    free(j);
    assert_int_equal(out[0].kind, MCP_OUT_ERROR);
    assert_string_equal(out[0].id, "2");
    assert_int_equal(cJSON_GetObjectItem(out[0].payload, "code")->valueint, -32022);
    reset();

    j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\",\"params\":{%s}}",
                  MCP_MODERN_VERSION);
    handle(s, j, NULL, "2025-11-25");
    free(j);
    assert_int_equal(cJSON_GetObjectItem(out[0].payload, "code")->valueint, -32020);
    reset();

    /* a call: progress (a notification) before its result */
    j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":"
                  "{\"name\":\"plain\",%s}}",
                  MCP_MODERN_VERSION);
    handle(s, j, NULL, NULL);
    free(j);
    assert_int_equal(nout, 2);
    assert_int_equal(out[0].kind, MCP_OUT_NOTIFICATION);
    assert_string_equal(out[0].method, "notifications/progress");
    assert_null(out[0].id);
    assert_int_equal(out[1].kind, MCP_OUT_RESULT);
    assert_string_equal(out[1].id, "4");
    reset();
    mcp_server_end(s);
    mcp_server_free(s);
}

/* The state from round one, for a retry. */
static char *state_of(const cJSON *result, char **key)
{
    const cJSON *reqs = cJSON_GetObjectItem(result, "inputRequests");
    assert_non_null(reqs);
    *key = strdup(reqs->child->string);
    return strdup(cJSON_GetStringValue(cJSON_GetObjectItem(result, "requestState")));
}

static void retry(mcp_server *s, const char *id, const char *state, const char *key,
                  const char *principal)
{
    char meta[400], *j = NULL;
    snprintf(meta, sizeof meta, META, MCP_MODERN_VERSION);
    assert_true(asprintf(&j,
                         "{\"jsonrpc\":\"2.0\",\"id\":\"%s\",\"method\":\"tools/call\",\"params\":"
                         "{\"name\":\"ask\",\"requestState\":\"%s\",\"inputResponses\":{\"%s\":"
                         "{\"action\":\"accept\",\"content\":{\"decision\":\"approve\"}}},%s}}",
                         id, state, key, meta) > 0);
    handle(s, j, principal, NULL);
    free(j);
}

static void test_input_required_bound_to_principal(void **st)
{
    (void)st;
    mcp_server *s = server();
    atomic_store(&runs, 0);
    char *j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                        "{\"name\":\"ask\",%s}}",
                        MCP_MODERN_VERSION);
    handle(s, j, "alice", NULL);
    seen *last = &out[nout - 1];
    assert_int_equal(last->kind, MCP_OUT_RESULT);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(last->payload, "resultType")),
                        "input_required");
    assert_int_equal(atomic_load(&runs), 0);
    char *key, *state = state_of(last->payload, &key);
    reset();

    retry(s, "bob-1", state, key, "bob"); /* another principal: refused, and not consumed */
    last = &out[nout - 1];
    assert_int_equal(last->kind, MCP_OUT_ERROR);
    assert_non_null(strstr(cJSON_GetStringValue(cJSON_GetObjectItem(last->payload, "message")),
                           "another client"));
    assert_int_equal(atomic_load(&runs), 0);
    reset();

    retry(s, "alice-1", state, key, "alice");
    last = &out[nout - 1];
    assert_int_equal(last->kind, MCP_OUT_RESULT);
    assert_true(cJSON_IsTrue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(last->payload, "structuredContent"), "ran")));
    assert_int_equal(atomic_load(&runs), 1);
    reset();

    retry(s, "alice-2", state, key, "alice"); /* replay */
    assert_int_equal(out[nout - 1].kind, MCP_OUT_ERROR);
    assert_int_equal(atomic_load(&runs), 1);
    reset();
    free(key);
    free(state);
    free(j);
    mcp_server_end(s);
    mcp_server_free(s);
}

/* notifications/message only for a request that asked, at its level. */
static void test_log_level_per_request(void **st)
{
    (void)st;
    mcp_server *s = server();
    char *j = with_meta("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                        "{\"name\":\"log\",%s}}",
                        MCP_MODERN_VERSION);
    handle(s, j, NULL, NULL); /* no logLevel: no log lines */
    free(j);
    for (int i = 0; i < nout; i++)
        assert_true(!out[i].method || strcmp(out[i].method, "notifications/message") != 0);
    reset();
    handle(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"log\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
              "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
              "\"io.modelcontextprotocol/logLevel\":\"info\"}}}",
           NULL, NULL);
    int lines = 0;
    for (int i = 0; i < nout; i++) {
        if (out[i].method && strcmp(out[i].method, "notifications/message") == 0) {
            lines++;
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(out[i].payload, "data")),
                                "an info line");
            assert_true(i < nout - 1); /* before the result */
        }
    }
    assert_int_equal(lines, 1);
    reset();
    mcp_server_log(s, VT_LOG_ERROR, "test", "no call's line"); /* never initialized */
    assert_int_equal(nout, 0);
    mcp_server_end(s);
    mcp_server_free(s);
}

/* A 2026-07-28 call's client is the one its own _meta names, whatever an
 * earlier request said. */
static void test_client_info_per_request(void **st)
{
    (void)st;
    mcp_server *s = server();
#define CLIENT_CALL                                                                                \
    "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"plain\","       \
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                          \
    "\"io.modelcontextprotocol/clientCapabilities\":{}%s}}}"
    const char *infos[] = {
        ",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1\"}",
        ",\"io.modelcontextprotocol/clientInfo\":{\"name\":\"other\",\"version\":\"9\"}", ""};
    const char *want[] = {"claude-code", "other", NULL};
    for (int i = 0; i < 3; i++) {
        char *j = NULL;
        assert_true(asprintf(&j, CLIENT_CALL, i + 1, infos[i]) > 0);
        handle(s, j, NULL, NULL);
        free(j);
        const cJSON *sc = cJSON_GetObjectItem(out[nout - 1].payload, "structuredContent");
        const char *got = cJSON_GetStringValue(cJSON_GetObjectItem(sc, "client"));
        if (want[i])
            assert_string_equal(got, want[i]);
        else
            assert_null(got);
        reset();
    }
    mcp_server_end(s);
    mcp_server_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_versions),
        cmocka_unit_test(test_input_required_bound_to_principal),
        cmocka_unit_test(test_log_level_per_request),
        cmocka_unit_test(test_client_info_per_request),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
