/* Fuzz target for the Streamable HTTP transport's reader: what an HTTP
 * provider sends back on one exchange, through http_xfer.c's own
 * callbacks exactly as libcurl calls them:
 *   the response headers (Mcp-Session-Id of an initialize answer), one
 *   on_header() call per line;
 *   the body in chunks cut where the input says (so SSE lines, CRLFs and
 *   events are split across chunk boundaries), through on_data(): an
 *   event stream, or a JSON body (one message or a batch) delivered as
 *   http_send() does after the transfer, or an error body (4xx/5xx)
 *   whose start goes into the message;
 *   with max_message small, so the size limit is reached.
 * Input: [flags][cut seed][headers ... NUL][body].  flags: bit 0 event
 * stream, bit 1 initialize, bits 2-4 the status (200, 202, 400, 404, 500).
 * What arrives goes to provider.c (the waits, the relay of requests for
 * the client with their bounds); the host API and libcurl's transfer are
 * not used: the callbacks are fed directly. */
#undef _GNU_SOURCE
#include "../../../plugins/mcp_providers/http_transport.c"
#undef _GNU_SOURCE
#include "../../../plugins/mcp_providers/http_xfer.c"
#undef _GNU_SOURCE
#include "../../../plugins/mcp_providers/provider.c"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "strbuf.h"
#include "../mcp_providers/provider_stubs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *stub_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *stub_format(const char *fmt, ...)
{
    char *s = malloc(1024);
    va_list ap;
    va_start(ap, fmt);
    if (s)
        vsnprintf(s, 1024, fmt, ap);
    va_end(ap);
    return s;
}

/* The client answers every relayed request at once (refuses it). */
static int stub_client_request(vt_call *call, const char *method, const cJSON *params,
                               int timeout_ms, cJSON **result, cJSON **error)
{
    (void)call;
    (void)method;
    (void)params;
    if (timeout_ms <= 0)
        abort();  /* nothing is relayed once the call is over */
    *result = NULL;
    *error = cJSON_CreateObject();
    cJSON_AddNumberToObject(*error, "code", -1);
    cJSON_AddStringToObject(*error, "message", "fuzz client");
    return VT_ERR_IO;
}

static vt_host_api api;

static void setup(void)
{
    if (api.log)
        return;
    api.struct_size = sizeof api;
    api.log = stub_log;
    api.call_progress = stub_progress;
    api.call_cancelled = stub_cancelled;
    api.workspace_root = stub_root;
    api.format = stub_format;
    api.free = free;
    api.strbuf_append = strbuf_append;
    api.strbuf_reset = strbuf_reset;
    api.client_request = stub_client_request;
    mcpp_api = &api;
}

/* What the plugin sends the provider (answers, refusals) goes nowhere. */
static int discard_send(provider *p, const char *text, const transport_req *req)
{
    (void)p;
    (void)req;
    if (!text)
        abort();
    return 0;
}

static const transport_ops discard_transport = {.name = "fuzz", .send = discard_send};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long statuses[] = {200, 202, 400, 404, 500, 200, 200, 200};
    if (size < 2 || size > 100000)
        return 0;
    setup();
    uint8_t flags = data[0], cut = data[1];
    data += 2;
    size -= 2;
    const uint8_t *nul = memchr(data, 0, size);
    size_t hlen = nul ? (size_t)(nul - data) : 0;
    const char *body = (const char *)data + (nul ? hlen + 1 : 0);
    size_t blen = size - (nul ? hlen + 1 : 0);

    provider p;
    provider_init(&p);
    p.name = "fz";
    p.tp = &discard_transport;
    p.lim.max_message = 2048;  /* small, so the size limit is reached */
    p.lim.relay_per_call = 3;
    p.lim.relay_per_minute = 5;
    p.connected = 1;
    http_state s;
    memset(&s, 0, sizeof s);
    s.up = 1;
    p.tp_state = &s;
    /* the request whose exchange this is, waited for on this thread, so
     * requests for the client are relayed right here */
    rpc_wait w = {.id = 7, .call = (vt_call *)&s, .thread = pthread_self()};
    provider_deadline(&w.deadline, 60000);
    p.waits = &w;
    transport_req req = {7, flags & 2 ? "initialize" : "tools/call"};
    xfer x = {.p = &p, .s = &s, .kind = X_POST, .req = &req, .is_init = !!(flags & 2)};
    x.started = 1;
    x.sse = flags & 1;
    x.status = statuses[(flags >> 2) & 7];

    /* the headers, one line at a time */
    for (size_t i = 0; i < hlen;) {
        size_t j = i;
        while (j < hlen && data[j] != '\n')
            j++;
        char line[1200];
        size_t n = j - i < sizeof line - 3 ? j - i : sizeof line - 3;
        memcpy(line, data + i, n);
        memcpy(line + n, "\r\n", 3);
        on_header(line, 1, n + 2, &x);
        i = j + 1;
    }
    if (x.session && !visible(x.session, strlen(x.session)))
        abort();  /* what goes back into a header is one printable token */

    /* the body, in chunks of 1 to 64 bytes as the seed says */
    size_t off = 0;
    unsigned seed = cut;
    int stopped = 0;
    while (off < blen) {
        seed = seed * 1103515245u + 12345u;
        size_t n = 1 + (seed >> 16) % 64;
        if (n > blen - off)
            n = blen - off;
        char chunk[64];
        memcpy(chunk, body + off, n);  /* libcurl's buffer is its own */
        if (on_data(chunk, 1, n, &x) != n) {
            stopped = 1;
            break;
        }
        off += n;
    }
    if (!stopped && x.status >= 200 && x.status < 300 && !x.sse && x.body.len)
        deliver(&x, x.body.data, x.body.len);
    char etext[ERR_BODY_MAX + 1];
    if (x.status >= 300)
        error_text(&x, etext, sizeof etext);

    if (x.body.len > (x.status >= 300 ? (size_t)ERR_BODY_MAX : p.lim.max_message) ||
        x.data.len > p.lim.max_message)
        abort();  /* nothing held past the limits */
    if (w.relayed > p.lim.relay_per_call || w.queued != 0)
        abort();  /* requests for the client stay within their bounds */
    if (w.reply && !cJSON_IsObject(w.reply))
        abort();
    cJSON_Delete(w.reply);
    cJSON_Delete(w.incoming);
    free(w.err);
    xfer_free(&x);
    free(s.version);
    free(s.session);
    free(p.reason);
    pthread_mutex_destroy(&p.start_mu);
    pthread_mutex_destroy(&p.mu);
    pthread_cond_destroy(&p.cond);
    return 0;
}
