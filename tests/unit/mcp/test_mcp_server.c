/* The MCP engine over real pipes with a scripted tool backend: JSON-RPC
 * error codes, id echo, concurrency (ping during a slow call),
 * cancellation, progress, elicitation round trips, list_changed, log
 * notifications and shutdown on EOF. */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "mcp_server.h"

/* ---- scripted backend ------------------------------------------------ */

static mcp_server *g_srv;
static atomic_int slow_done;   /* 1 ran out, 2 saw its cancel */
static int g_release[2] = {-1, -1}; /* "block" returns once this is readable */

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int fake_call(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    out->response = cJSON_CreateObject();
    const char *t = req->tool;
    if (strcmp(t, "echo") == 0) {
        cJSON_AddItemToObject(out->response, "echo",
                              req->args ? cJSON_Duplicate(req->args, 1)
                                        : cJSON_CreateObject());
        if (req->agent)
            cJSON_AddStringToObject(out->response, "agent", req->agent);
    } else if (strcmp(t, "fail") == 0) {
        out->status = CALL_TOOL_FAILED;
        out->message = strdup("it failed: fix the input and retry");
    } else if (strcmp(t, "deny") == 0) {
        out->status = CALL_DENIED;
        out->message = strdup("denied by rule deny = [\"deny\"]");
    } else if (strcmp(t, "slow") == 0) {
        for (int i = 0; i < 3000; i++) {
            if (atomic_load(req->cancel)) {
                atomic_store(&slow_done, 2);
                out->status = CALL_CANCELLED;
                return VT_ERR_CANCELLED;
            }
            sleep_ms(1);
        }
        atomic_store(&slow_done, 1);
    } else if (strcmp(t, "block") == 0) {
        /* a call that waits without waking (as a command's output is
         * waited for), until released or cancelled */
        struct pollfd p = {.fd = g_release[0], .events = POLLIN};
        for (int i = 0; i < 30 && !atomic_load(req->cancel); i++)
            if (poll(&p, 1, 100) > 0)
                break;
    } else if (strcmp(t, "progress") == 0) {
        req->fe->progress(req->fe->ctx, 1, 3, "one");
        req->fe->progress(req->fe->ctx, 1, 3, "repeat is dropped");
        req->fe->progress(req->fe->ctx, 2, 3, "two");
        req->fe->progress(req->fe->ctx, 3, 3, NULL);
    } else if (strcmp(t, "ask") == 0) {
        cJSON *q = cJSON_CreateObject();
        cJSON_AddStringToObject(q, "tool", "ask");
        cJSON_AddStringToObject(q, "message", "Run the thing?");
        cJSON_AddStringToObject(q, "rule", "ask = [\"ask\"]");
        int rc = req->fe->prompt ? req->fe->prompt(req->fe->ctx, q) : -100;
        cJSON_Delete(q);
        cJSON_AddNumberToObject(out->response, "approved", rc);
    } else if (strcmp(t, "sample") == 0) {
        char *answer = NULL;
        int rc = req->fe->sample
                     ? req->fe->sample(req->fe->ctx, "sys", "review", "probe", &answer)
                     : -100;
        cJSON_AddNumberToObject(out->response, "rc", rc);
        cJSON_AddStringToObject(out->response, "answer", answer ? answer : "");
        free(answer);
    } else if (strcmp(t, "relay") == 0) {
        /* a plugin's request to the client (vt_host_api.client_request) */
        const cJSON *method = cJSON_GetObjectItemCaseSensitive(req->args, "method");
        const cJSON *params = cJSON_GetObjectItemCaseSensitive(req->args, "params");
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(req->args, "timeout");
        cJSON *res = NULL, *err = NULL;
        int rc = req->fe->client_request
                     ? req->fe->client_request(req->fe->ctx, method->valuestring, params,
                                               ms ? ms->valueint : 0, &res, &err)
                     : -100;
        cJSON_AddNumberToObject(out->response, "rc", rc);
        cJSON_AddNumberToObject(out->response, "caps", req->fe->client_caps);
        if (res)
            cJSON_AddItemToObject(out->response, "result", res);
        if (err)
            cJSON_AddItemToObject(out->response, "error", err);
    } else if (strcmp(t, "huge") == 0) {
        size_t n = 11u * 1024 * 1024;
        char *big = malloc(n + 1);
        memset(big, 'x', n);
        big[n] = 0;
        cJSON_AddStringToObject(out->response, "output", big);
        free(big);
    } else if (strcmp(t, "who") == 0) {
        /* the client as the call sees it (vt_host_api.call_client_info) */
        if (req->fe->client_name)
            cJSON_AddStringToObject(out->response, "name", req->fe->client_name);
        if (req->fe->client_version)
            cJSON_AddStringToObject(out->response, "version", req->fe->client_version);
    } else if (strcmp(t, "expand") == 0) {
        out->list_changed = 1;
    } else if (strcmp(t, "log") == 0) {
        mcp_server_log(g_srv, VT_LOG_INFO, "test", "hello info");
        mcp_server_log(g_srv, VT_LOG_DEBUG, "test", "hello debug");
    } else {
        out->status = CALL_UNKNOWN;
        out->message = strdup("Unknown tool 'nope'");
        return VT_ERR_NOT_FOUND;
    }
    return 0;
}

static cJSON *fake_list(void)
{
    return cJSON_Parse("[{\"name\":\"echo\",\"description\":\"d\","
                       "\"inputSchema\":{\"type\":\"object\"}}]");
}

static char *fake_instructions(void) { return strdup("scripted backend"); }

/* ---- harness --------------------------------------------------------- */

typedef struct harness {
    int to_srv[2], from_srv[2];
    pthread_t thread;
    int run_rc;
    int joined;
    char buf[1 << 16];
    size_t have;
    char last[4096];  /* raw text of the last message (prefix) */
} harness;

static harness H;

static void *server_thread(void *arg)
{
    (void)arg;
    H.run_rc = mcp_server_run(g_srv, 1000, 2000);
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    memset(&H, 0, sizeof H);
    atomic_store(&slow_done, 0);
    if (pipe(H.to_srv) || pipe(H.from_srv))
        return -1;
    mcp_ops ops = {.call = fake_call, .list_tools = fake_list,
                   .instructions = fake_instructions};
    g_srv = mcp_server_new(H.to_srv[0], H.from_srv[1], &ops);
    if (!g_srv)
        return -1;
    return pthread_create(&H.thread, NULL, server_thread, NULL);
}

static int teardown(void **state)
{
    (void)state;
    if (H.to_srv[1] >= 0)
        close(H.to_srv[1]);
    if (!H.joined)
        pthread_join(H.thread, NULL);
    mcp_server_free(g_srv);
    g_srv = NULL;
    close(H.to_srv[0]);
    close(H.from_srv[0]);
    close(H.from_srv[1]);
    return 0;
}

static void send_line(const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(write(H.to_srv[1], text, n), (ssize_t)n);
    assert_int_equal(write(H.to_srv[1], "\n", 1), 1);
}

/* The next message from the server, or NULL after timeout_ms. */
static cJSON *recv_msg(int timeout_ms)
{
    for (;;) {
        char *nl = memchr(H.buf, '\n', H.have);
        if (nl) {
            *nl = 0;
            size_t keep = (size_t)(nl - H.buf);
            if (keep >= sizeof H.last)
                keep = sizeof H.last - 1;
            memcpy(H.last, H.buf, keep);
            H.last[keep] = 0;
            cJSON *m = cJSON_Parse(H.buf);
            size_t used = (size_t)(nl - H.buf) + 1;
            memmove(H.buf, nl + 1, H.have - used);
            H.have -= used;
            assert_non_null(m);
            return m;
        }
        struct pollfd p = {.fd = H.from_srv[0], .events = POLLIN};
        if (poll(&p, 1, timeout_ms) <= 0)
            return NULL;
        ssize_t n = read(H.from_srv[0], H.buf + H.have, sizeof H.buf - H.have - 1);
        if (n <= 0)
            return NULL;
        H.have += (size_t)n;
    }
}

static cJSON *must_recv(void)
{
    cJSON *m = recv_msg(5000);
    assert_non_null(m);
    return m;
}

static const cJSON *get(const cJSON *o, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    const cJSON *cur = o;
    for (char *tok = strtok(buf, "."); tok && cur; tok = strtok(NULL, "."))
        cur = cJSON_IsArray(cur) ? cJSON_GetArrayItem(cur, atoi(tok))
                                 : cJSON_GetObjectItemCaseSensitive(cur, tok);
    return cur;
}

static void expect_error(const char *line, int code, const char *id_json)
{
    send_line(line);
    cJSON *m = must_recv();
    const cJSON *c = get(m, "error.code");
    assert_non_null(c);
    assert_int_equal(c->valueint, code);
    char *id = cJSON_PrintUnformatted(get(m, "id"));
    assert_string_equal(id, id_json);
    free(id);
    cJSON_Delete(m);
}

static void expect_ping(const char *id_json)
{
    char line[128];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", id_json);
    send_line(line);
    cJSON *m = must_recv();
    assert_true(cJSON_IsObject(get(m, "result")));
    /* Compared as text: the id must come back exactly as sent. */
    char want[160];
    snprintf(want, sizeof want, "\"id\":%s,", id_json);
    if (!strstr(H.last, want))
        fail_msg("%s not in %s", want, H.last);
    cJSON_Delete(m);
}

/* ---- tests ----------------------------------------------------------- */

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"jsonrpc\":\"2.0\",", -32700, "null");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"} trailing", -32700, "null");
    expect_error("42", -32600, "null");
    expect_error("[]", -32600, "null");
    expect_error("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", -32600, "null");
    expect_error("{\"jsonrpc\":\"2.0\"}", -32600, "null");
    expect_error("{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}", -32600, "3");
    expect_error("{\"id\":4,\"method\":\"ping\"}", -32600, "4");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}", -32600, "null");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"ping\"}", -32600, "null");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":7}", -32600, "5");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":1}", -32600, "6");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"resources/list\"}", -32601, "7");
    /* server/discover without the _meta of 2026-07-28 is a 2025-era
     * message, and that era has no such method: the -32601 a client's
     * fallback to initialize keys on */
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\"}", -32601, "7");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"server/discover\","
                 "\"params\":{}}", -32601, "7");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"subscriptions/listen\"}", -32601, "7");
    /* other requests without their _meta fields are malformed */
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/call\"}", -32602, "\"x\"");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\","
                 "\"params\":{\"name\":\"echo\",\"arguments\":[1]}}", -32602, "8");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"logging/setLevel\","
                 "\"params\":{\"level\":\"loud\"}}", -32602, "9");
    expect_error("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/list\","
                 "\"params\":{\"cursor\":\"zz\"}}", -32602, "10");
    /* Notifications (known, unknown) and blank lines get no answer. */
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}");
    send_line("   \r");
    /* An unsolicited response is dropped silently. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}");
    expect_ping("\"after\"");
}

static void test_ids_echoed(void **state)
{
    (void)state;
    expect_ping("0");
    expect_ping("-17");
    expect_ping("9007199254740991");
    expect_ping("1234567890123456");
    expect_ping("\"a b\\\"c\"");
    expect_ping("\"\"");
}

static void test_initialize(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},"
              "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    cJSON *m = must_recv();
    assert_string_equal(get(m, "result.protocolVersion")->valuestring, "2025-03-26");
    assert_true(cJSON_IsTrue(get(m, "result.capabilities.tools.listChanged")));
    assert_true(cJSON_IsObject(get(m, "result.capabilities.logging")));
    assert_string_equal(get(m, "result.serverInfo.name")->valuestring, "vthost");
    assert_string_equal(get(m, "result.instructions")->valuestring, "scripted backend");
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"1999-01-01\"}}");
    m = must_recv();
    assert_string_equal(get(m, "result.protocolVersion")->valuestring, "2025-11-25");
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
    m = must_recv();
    assert_string_equal(get(m, "result.tools.0.name")->valuestring, "echo");
    cJSON_Delete(m);
}

static void test_call_results(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"echo\",\"arguments\":{\"a\":1},"
              "\"_meta\":{\"vthost/agent\":\"reviewer\"}}}");
    cJSON *m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.echo.a")->valueint, 1);
    assert_string_equal(get(m, "result.structuredContent.agent")->valuestring, "reviewer");
    assert_string_equal(get(m, "result.content.0.type")->valuestring, "text");
    assert_non_null(strstr(get(m, "result.content.0.text")->valuestring, "\"a\":1"));
    assert_null(get(m, "result.isError"));
    cJSON_Delete(m);

    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"fail\"}}");
    m = must_recv();
    assert_true(cJSON_IsTrue(get(m, "result.isError")));
    assert_string_equal(get(m, "result.content.0.text")->valuestring,
                        "it failed: fix the input and retry");
    cJSON_Delete(m);

    send_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"deny\"}}");
    m = must_recv();
    assert_true(cJSON_IsTrue(get(m, "result.isError")));
    assert_non_null(strstr(get(m, "result.content.0.text")->valuestring, "denied"));
    cJSON_Delete(m);

    expect_error("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"nope\"}}",
                 -32602, "4");

    /* The notification goes out before the result: a client that
     * re-lists on it has the new tools when the model reads the result. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"expand\"}}");
    m = must_recv();
    assert_non_null(get(m, "method"));
    assert_string_equal(get(m, "method")->valuestring, "notifications/tools/list_changed");
    cJSON_Delete(m);
    m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 5);
    cJSON_Delete(m);
}

static void test_response_over_limit(void **state)
{
    (void)state;
    /* Never a message over the clients' 10 MiB limit: an error result. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"huge\"}}");
    cJSON *m = must_recv();
    assert_true(cJSON_IsTrue(get(m, "result.isError")));
    assert_non_null(strstr(get(m, "result.content.0.text")->valuestring, "10 MiB"));
    assert_null(get(m, "result.structuredContent"));
    cJSON_Delete(m);
}

static void test_ping_during_slow_call_and_cancel(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":\"slow-1\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    expect_ping("1");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
    cJSON *m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 2);
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
              "\"params\":{\"requestId\":\"slow-1\",\"reason\":\"test\"}}");
    for (int i = 0; i < 2000 && atomic_load(&slow_done) == 0; i++)
        sleep_ms(1);
    assert_int_equal(atomic_load(&slow_done), 2);
    /* No response for the cancelled call: the next message is the ping. */
    expect_ping("3");
    assert_null(recv_msg(100));
}

static void test_eof_cancels_in_flight(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    expect_ping("2");
    close(H.to_srv[1]);
    H.to_srv[1] = -1;
    pthread_join(H.thread, NULL);
    H.joined = 1;
    assert_int_equal(H.run_rc, 0);
    assert_int_equal(atomic_load(&slow_done), 2);
    assert_null(recv_msg(50));
}

static void test_eof_answers_finished_calls(void **state)
{
    (void)state;
    /* Requests piped in before end of input are still answered. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
    close(H.to_srv[1]);
    H.to_srv[1] = -1;
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        cJSON *m = must_recv();
        seen |= 1 << get(m, "id")->valueint;
        cJSON_Delete(m);
    }
    assert_int_equal(seen, 6);
    pthread_join(H.thread, NULL);
    H.joined = 1;
    assert_int_equal(H.run_rc, 0);
}

static void test_stop_cancels_at_once(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    expect_ping("2");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    mcp_server_stop(g_srv);
    pthread_join(H.thread, NULL);
    H.joined = 1;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
    assert_true(ms < 800);  /* no 1000 ms drain period on a stop request */
    assert_int_equal(atomic_load(&slow_done), 2);
    assert_int_equal(H.run_rc, 0);
}

static double cpu_ms(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 +
           (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

static void test_idle_standby_does_not_spin(void **state)
{
    (void)state;
    /* Right after a call the threads wait for input: none may spin. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
    cJSON_Delete(must_recv());
    double c0 = cpu_ms();
    sleep_ms(500);
    double used = cpu_ms() - c0;
    if (used > 60)
        fail_msg("%.0f ms of CPU in 500 ms of idling", used);
    expect_ping("2");
}

static long wakeups(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_nvcsw;
}

static void test_no_wakeups_between_and_during_calls(void **state)
{
    (void)state;
    /* Between quick calls, and while a call waits, when no input comes
     * the engine's threads sleep: nothing polls for input on a timer (a
     * thread is woken by the input itself, a ping answered at once). */
    for (int i = 0; i < 3; i++) {
        send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\"}}");
        cJSON_Delete(must_recv());
    }
    long w0 = wakeups();
    sleep_ms(300);
    long idle = wakeups() - w0;
    if (idle > 30)
        fail_msg("%ld wake-ups of the process in 300 ms after a call", idle);
    assert_int_equal(pipe(g_release), 0);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"block\"}}");
    expect_ping("1");
    w0 = wakeups();
    sleep_ms(300);
    long woke = wakeups() - w0;
    expect_ping("2");
    assert_int_equal(write(g_release[1], "x", 1), 1);
    cJSON *m = must_recv();
    assert_string_equal(get(m, "id")->valuestring, "b");
    cJSON_Delete(m);
    close(g_release[0]);
    close(g_release[1]);
    g_release[0] = g_release[1] = -1;
    /* the call's own 100 ms looks, the test's sleep: a few */
    if (woke > 30)
        fail_msg("%ld wake-ups of the process in 300 ms while a call waited", woke);
}

static void test_ping_during_call_after_quiet_period(void **state)
{
    (void)state;
    /* Two long calls outlast a quiet second, then end one after the
     * other (both threads back wait for input): a new long call must
     * still leave someone reading. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    expect_ping("1");
    sleep_ms(1200);
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"a\"}}");
    sleep_ms(150);
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"b\"}}");
    sleep_ms(150);
    atomic_store(&slow_done, 0);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":\"c\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
    cJSON *m = recv_msg(1500);
    assert_non_null(m);
    assert_int_equal(get(m, "id")->valueint, 2);
    assert_int_equal(atomic_load(&slow_done), 0); /* answered while c ran */
    cJSON_Delete(m);
}

static void test_pipelined_burst(void **state)
{
    (void)state;
    /* 300 calls in one write: every one answered once, whatever order. */
    enum { N = 300 };
    static char burst[N * 96];
    size_t off = 0;
    for (int i = 0; i < N; i++)
        off += (size_t)snprintf(burst + off, sizeof burst - off,
                                "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\","
                                "\"params\":{\"name\":\"echo\"}}\n", i);
    size_t done = 0;
    static unsigned char seen[N];
    memset(seen, 0, sizeof seen);
    int got = 0;
    while (got < N) {
        if (done < off) {
            ssize_t w = write(H.to_srv[1], burst + done, off - done > 4096 ? 4096 : off - done);
            assert_true(w > 0);
            done += (size_t)w;
        }
        cJSON *m = recv_msg(done < off ? 0 : 5000);
        if (!m) {
            assert_true(done < off);
            continue;
        }
        int id = get(m, "id")->valueint;
        assert_true(id >= 0 && id < N);
        assert_int_equal(seen[id], 0);
        seen[id] = 1;
        got++;
        cJSON_Delete(m);
    }
    expect_ping("\"end\"");
}

static void test_progress(void **state)
{
    (void)state;
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"tok-\\u00e9\"}}}");
    double last = 0;
    for (int i = 0; i < 3; i++) {
        cJSON *m = must_recv();
        assert_string_equal(get(m, "method")->valuestring, "notifications/progress");
        assert_string_equal(get(m, "params.progressToken")->valuestring, "tok-\xc3\xa9");
        double p = get(m, "params.progress")->valuedouble;
        assert_true(p > last);
        last = p;
        assert_int_equal(get(m, "params.total")->valueint, 3);
        cJSON_Delete(m);
    }
    cJSON *m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 1);
    cJSON_Delete(m);
    /* Without a token: no progress at all. */
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\"}}");
    m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 2);
    cJSON_Delete(m);
}

static void init_with(const char *caps)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":"
             "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":%s,"
             "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}", caps);
    send_line(line);
    cJSON_Delete(must_recv());
}

static int ask_with_answer(const char *answer)
{
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}");
    cJSON *req = must_recv();
    assert_string_equal(get(req, "method")->valuestring, "elicitation/create");
    const char *msg = get(req, "params.message")->valuestring;
    assert_non_null(strstr(msg, "Run the thing?"));
    assert_non_null(strstr(msg, "Tool: ask"));
    assert_non_null(strstr(msg, "Rule: ask = [\"ask\"]"));
    assert_string_equal(get(req, "params.requestedSchema.properties.decision.enum.0")->valuestring,
                        "approve");
    /* A ping while the call waits for the user is still answered. */
    expect_ping("\"mid\"");
    char *id = cJSON_PrintUnformatted(get(req, "id"));
    char line[256];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%s,%s}", id, answer);
    free(id);
    cJSON_Delete(req);
    send_line(line);
    cJSON *m = must_recv();
    int approved = get(m, "result.structuredContent.approved")->valueint;
    cJSON_Delete(m);
    return approved;
}

static void test_elicitation(void **state)
{
    (void)state;
    init_with("{\"elicitation\":{}}");
    assert_int_equal(ask_with_answer("\"result\":{\"action\":\"accept\","
                                     "\"content\":{\"decision\":\"approve\"}}"), 1);
    assert_int_equal(ask_with_answer("\"result\":{\"action\":\"accept\","
                                     "\"content\":{\"decision\":\"deny\"}}"), 0);
    assert_int_equal(ask_with_answer("\"result\":{\"action\":\"decline\"}"), PROMPT_DECLINED);
    assert_int_equal(ask_with_answer("\"result\":{\"action\":\"cancel\"}"), PROMPT_CANCELLED);
    assert_int_equal(ask_with_answer("\"error\":{\"code\":-1,\"message\":\"no\"}"), -1);
}

static void test_no_elicitation_without_capability(void **state)
{
    (void)state;
    init_with("{}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}");
    cJSON *m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.approved")->valueint, -100);
    cJSON_Delete(m);
}

static void test_sampling(void **state)
{
    (void)state;
    init_with("{\"sampling\":{}}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"sample\"}}");
    cJSON *req = must_recv();
    assert_string_equal(get(req, "method")->valuestring, "sampling/createMessage");
    assert_string_equal(get(req, "params.systemPrompt")->valuestring, "sys");
    assert_string_equal(get(req, "params.messages.0.content.text")->valuestring, "review");
    assert_string_equal(get(req, "params.modelPreferences.hints.0.name")->valuestring, "probe");
    char line[256];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"role\":\"assistant\","
             "\"content\":{\"type\":\"text\",\"text\":\"ALLOW fine\"},\"model\":\"m\"}}",
             get(req, "id")->valueint);
    cJSON_Delete(req);
    send_line(line);
    cJSON *m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.rc")->valueint, 0);
    assert_string_equal(get(m, "result.structuredContent.answer")->valuestring, "ALLOW fine");
    cJSON_Delete(m);
}

static void test_cancel_while_prompting(void **state)
{
    (void)state;
    init_with("{\"elicitation\":{}}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\"}}");
    cJSON *req = must_recv();
    int rid = get(req, "id")->valueint;
    cJSON_Delete(req);
    send_line("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}");
    /* The server withdraws its own request and never answers call 7. */
    cJSON *m = must_recv();
    assert_string_equal(get(m, "method")->valuestring, "notifications/cancelled");
    assert_int_equal(get(m, "params.requestId")->valueint, rid);
    cJSON_Delete(m);
    expect_ping("8");
    assert_null(recv_msg(100));
}

/* A plugin's request relayed as it is: the client's result, its error,
 * a timeout that withdraws the request, and the capabilities seen. */
static cJSON *relay(const char *args)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
             "{\"name\":\"relay\",\"arguments\":%s}}", args);
    send_line(line);
    return must_recv();
}

static void answer_with(const cJSON *req, const char *body)
{
    char line[512];
    snprintf(line, sizeof line, "{\"jsonrpc\":\"2.0\",\"id\":%d,%s}",
             get(req, "id")->valueint, body);
    send_line(line);
}

static void test_relay(void **state)
{
    (void)state;
    assert_int_equal(mcp_server_client_caps(g_srv), VT_CLIENT_PENDING);
    init_with("{\"elicitation\":{\"form\":{},\"url\":{}},\"sampling\":{},\"roots\":{}}");
    assert_int_equal(mcp_server_client_caps(g_srv), VT_CLIENT_ELICITATION |
                     VT_CLIENT_ELICITATION_URL | VT_CLIENT_SAMPLING | VT_CLIENT_ROOTS);
    cJSON *req = relay("{\"method\":\"elicitation/create\",\"params\":{\"message\":\"name?\","
                       "\"requestedSchema\":{\"type\":\"object\"}}}");
    assert_string_equal(get(req, "method")->valuestring, "elicitation/create");
    assert_string_equal(get(req, "params.message")->valuestring, "name?");
    answer_with(req, "\"result\":{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}");
    cJSON_Delete(req);
    cJSON *m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.rc")->valueint, 0);
    assert_string_equal(get(m, "result.structuredContent.result.content.name")->valuestring, "Ada");
    assert_int_equal(get(m, "result.structuredContent.caps")->valueint, 15);
    cJSON_Delete(m);

    /* the client's error comes back as it sent it */
    req = relay("{\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[]}}");
    answer_with(req, "\"error\":{\"code\":-1,\"message\":\"user said no\",\"data\":7}");
    cJSON_Delete(req);
    m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.rc")->valueint, VT_ERR_IO);
    assert_int_equal(get(m, "result.structuredContent.error.code")->valueint, -1);
    assert_string_equal(get(m, "result.structuredContent.error.message")->valuestring,
                        "user said no");
    assert_int_equal(get(m, "result.structuredContent.error.data")->valueint, 7);
    cJSON_Delete(m);

    /* no answer in time: withdrawn from the client, VT_ERR_BUSY */
    req = relay("{\"method\":\"roots/list\",\"timeout\":150}");
    int rid = get(req, "id")->valueint;
    cJSON_Delete(req);
    m = must_recv();
    assert_string_equal(get(m, "method")->valuestring, "notifications/cancelled");
    assert_int_equal(get(m, "params.requestId")->valueint, rid);
    assert_string_equal(get(m, "params.reason")->valuestring, "timed out");
    cJSON_Delete(m);
    m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.rc")->valueint, VT_ERR_BUSY);
    cJSON_Delete(m);
}

static void test_relay_caps_without_capabilities(void **state)
{
    (void)state;
    init_with("{\"elicitation\":{}}");
    assert_int_equal(mcp_server_client_caps(g_srv), VT_CLIENT_ELICITATION);
    cJSON *req = relay("{\"method\":\"ping\",\"timeout\":5000}");
    answer_with(req, "\"result\":{}");
    cJSON_Delete(req);
    cJSON *m = must_recv();
    assert_int_equal(get(m, "result.structuredContent.rc")->valueint, 0);
    assert_int_equal(get(m, "result.structuredContent.caps")->valueint, VT_CLIENT_ELICITATION);
    cJSON_Delete(m);
}

/* Each call carries the clientInfo of the session's initialize; a new
 * initialize names the client of later calls, and a client that gave
 * none leaves them unnamed. */
static void test_client_info(void **state)
{
    (void)state;
    const char *who = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\","
                      "\"params\":{\"name\":\"who\"}}";
    send_line(who);
    cJSON *m = must_recv();
    assert_null(get(m, "result.structuredContent.name"));
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
              "\"clientInfo\":{\"name\":\"claude-code\",\"version\":\"2.1.332\"}}}");
    cJSON_Delete(must_recv());
    send_line(who);
    m = must_recv();
    assert_string_equal(get(m, "result.structuredContent.name")->valuestring, "claude-code");
    assert_string_equal(get(m, "result.structuredContent.version")->valuestring, "2.1.332");
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
              "\"clientInfo\":{\"name\":\"codex-mcp-client\"}}}");
    cJSON_Delete(must_recv());
    send_line(who);
    m = must_recv();
    assert_string_equal(get(m, "result.structuredContent.name")->valuestring, "codex-mcp-client");
    assert_null(get(m, "result.structuredContent.version"));
    cJSON_Delete(m);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"initialize\",\"params\":"
              "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}}");
    cJSON_Delete(must_recv());
    send_line(who);
    m = must_recv();
    assert_null(get(m, "result.structuredContent.name"));
    cJSON_Delete(m);
}

/* A call run as a task: answered with the task at once, its result
 * taken with tasks/result; a cancelled task's tool sees the cancel. */
static void test_tasks(void **state)
{
    (void)state;
    init_with("{}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"echo\",\"arguments\":{\"x\":1},\"task\":{\"ttl\":5000}}}");
    cJSON *m = must_recv();
    const cJSON *tid = get(m, "result.task.taskId");
    assert_non_null(tid);
    char id[64];
    snprintf(id, sizeof id, "%s", tid->valuestring);
    assert_int_equal(get(m, "result.task.ttl")->valueint, 5000);
    cJSON_Delete(m);
    char line[256];
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"%s\"}}",
             id);
    send_line(line);
    m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 2);
    assert_int_equal(get(m, "result.structuredContent.echo.x")->valueint, 1);
    const cJSON *rel = cJSON_GetObjectItem(get(m, "result._meta"),
                                           "io.modelcontextprotocol/related-task");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(rel, "taskId")), id);
    cJSON_Delete(m);

    atomic_store(&slow_done, 0);
    send_line("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":"
              "{\"name\":\"slow\",\"task\":{}}}");
    m = must_recv();
    snprintf(id, sizeof id, "%s", get(m, "result.task.taskId")->valuestring);
    cJSON_Delete(m);
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"%s\"}}",
             id);
    send_line(line); /* waits */
    snprintf(line, sizeof line,
             "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tasks/cancel\",\"params\":{\"taskId\":\"%s\"}}",
             id);
    send_line(line);
    m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 5);
    assert_string_equal(get(m, "result.status")->valuestring, "cancelled");
    cJSON_Delete(m);
    m = must_recv();
    assert_int_equal(get(m, "id")->valueint, 4);
    assert_true(cJSON_IsTrue(get(m, "result.isError")));
    cJSON_Delete(m);
    assert_int_equal(atomic_load(&slow_done), 2);
}

static void test_logging(void **state)
{
    (void)state;
    init_with("{}");
    send_line("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
    cJSON_Delete(must_recv());
    send_line("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"log\"}}");
    cJSON *m = must_recv();
    assert_string_equal(get(m, "method")->valuestring, "notifications/message");
    assert_string_equal(get(m, "params.level")->valuestring, "info");
    assert_string_equal(get(m, "params.data")->valuestring, "hello info");
    cJSON_Delete(m);
    m = must_recv();  /* the debug line was filtered: next is the result */
    assert_int_equal(get(m, "id")->valueint, 2);
    cJSON_Delete(m);
}

typedef struct big_job {
    const char *p;
    size_t n;
    int fd;
} big_job;

static void *write_big(void *arg)
{
    big_job *j = arg;
    size_t off = 0;
    while (off < j->n) {
        ssize_t w = write(j->fd, j->p + off, j->n - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    return NULL;
}

static void test_oversized_line(void **state)
{
    (void)state;
    size_t n = 17u * 1024 * 1024;
    char *big = malloc(n + 1);
    memset(big, ' ', n);
    const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"x\":\"";
    memcpy(big, head, sizeof head - 1);
    big[n - 1] = '\n';
    /* The pipe is small: write from a helper while the answer is read. */
    big_job job = {big, n, H.to_srv[1]};
    pthread_t w;
    assert_int_equal(pthread_create(&w, NULL, write_big, &job), 0);
    cJSON *m = must_recv();
    assert_int_equal(get(m, "error.code")->valueint, -32600);
    assert_true(cJSON_IsNull(get(m, "id")));
    cJSON_Delete(m);
    pthread_join(w, NULL);
    free(big);
    expect_ping("2");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ids_echoed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initialize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_call_results, setup, teardown),
        cmocka_unit_test_setup_teardown(test_response_over_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ping_during_slow_call_and_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eof_cancels_in_flight, setup, teardown),
        cmocka_unit_test_setup_teardown(test_eof_answers_finished_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stop_cancels_at_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pipelined_burst, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ping_during_call_after_quiet_period, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_standby_does_not_spin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_wakeups_between_and_during_calls, setup, teardown),
        cmocka_unit_test_setup_teardown(test_progress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_elicitation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_elicitation_without_capability, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sampling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel_while_prompting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_relay_caps_without_capabilities, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tasks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_logging, setup, teardown),
        cmocka_unit_test_setup_teardown(test_oversized_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
