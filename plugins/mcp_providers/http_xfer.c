/* One exchange of the Streamable HTTP transport with the provider's
 * endpoint (see http_transport.c): the request with its headers, run on
 * a pooled handle until done or stopped, and what arrives, read as one
 * JSON body or as a stream of server-sent events. */
#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "http_transport_int.h"

int stale(const xfer *x)
{
    pthread_mutex_lock(&x->p->mu);
    int st = x->s->epoch != x->epoch || x->p->stopping;
    pthread_mutex_unlock(&x->p->mu);
    return st;
}

/* The provider broke the protocol on this exchange: `what` it sent. */
static void set_broke(xfer *x, const char *what)
{
    if (x->broke)
        return;
    char buf[300];
    snprintf(buf, sizeof buf, "MCP provider '%s' sent %s", x->p->name, what);
    x->broke = strdup(buf);
}

static void broke_big(xfer *x)
{
    char what[80];
    snprintf(what, sizeof what, "a message over %zu bytes", x->p->lim.max_message);
    set_broke(x, what);
}

/* ---- what arrives ----------------------------------------------------------- */

/* Printable ASCII only: a value the server chose goes back into headers. */
static int visible(const char *v, size_t n)
{
    if (n == 0 || n > 1024)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] < 0x21 || v[i] > 0x7e)
            return 0;
    return 1;
}

static void deliver_one(xfer *x, cJSON *m)
{
    if (x->is_init) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "id");
        const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(m, "result"), "protocolVersion"));
        /* compared as doubles: an id like 1e59 has no long to be cast to */
        if (cJSON_IsNumber(id) && id->valuedouble == (double)x->req->id && v &&
            visible(v, strlen(v))) {
            pthread_mutex_lock(&x->p->mu);
            free(x->s->version);
            x->s->version = strdup(v);
            pthread_mutex_unlock(&x->p->mu);
        }
    }
    if (provider_receive(x->p, m) < 0)
        set_broke(x, "malformed JSON-RPC (not a JSON object)");
}

/* One JSON text: a message, or a batch of them (2025-03-26). */
void deliver(xfer *x, const char *text, size_t len)
{
    if (stale(x))
        return;
    cJSON *m = cJSON_ParseWithLength(text, len);
    if (cJSON_IsArray(m) && cJSON_GetArraySize(m) > 0) {
        cJSON *it;
        /* a batch of requests for the client ends with the call too */
        while (!x->broke && !(x->stopped = should_stop(x)) &&
               (it = cJSON_DetachItemFromArray(m, 0)))
            deliver_one(x, it);
        cJSON_Delete(m);
    } else if (m) {
        deliver_one(x, m);
    } else {
        set_broke(x, "malformed JSON-RPC (not JSON)");
    }
}

/* One line of an event stream (WHATWG server-sent events). */
static void sse_line(xfer *x, const char *line, size_t n)
{
    if (n == 0) { /* end of an event */
        /* an event whose data is empty (a priming event: only its id
         * counts) is no message */
        if (x->data.len > 1 && !x->other_event && !x->data.failed)
            deliver(x, x->data.data, x->data.len - 1); /* without the last LF */
        mcpp_api->strbuf_reset(&x->data);
        x->other_event = 0;
        return;
    }
    if (line[0] == ':')
        return; /* a comment (keep-alive) */
    const char *colon = memchr(line, ':', n);
    size_t flen = colon ? (size_t)(colon - line) : n;
    const char *v = colon ? colon + 1 : line + n;
    size_t vlen = n - (size_t)(v - line);
    if (vlen && *v == ' ') {
        v++;
        vlen--;
    }
    if (flen == 4 && memcmp(line, "data", 4) == 0) {
        if (x->data.len + vlen + 1 > x->p->lim.max_message) {
            broke_big(x);
            return;
        }
        mcpp_api->strbuf_append(&x->data, v, vlen);
        mcpp_api->strbuf_append(&x->data, "\n", 1);
    } else if (flen == 5 && memcmp(line, "event", 5) == 0) {
        x->other_event = !(vlen == 0 || (vlen == 7 && memcmp(v, "message", 7) == 0));
    } else if (flen == 2 && memcmp(line, "id", 2) == 0 && visible(v, vlen)) {
        free(x->last_id); /* it goes back in a header: printable only */
        x->last_id = strndup(v, vlen);
    } else if (flen == 5 && memcmp(line, "retry", 5) == 0 && vlen && vlen < 9 &&
               strspn(v, "0123456789") >= vlen) {
        x->retry_ms = strtol(v, NULL, 10);
        x->has_retry = 1;
    }
}

static void sse_feed(xfer *x, const char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !x->broke) {
        if (x->skip_lf) {
            x->skip_lf = 0;
            if (p[i] == '\n') {
                i++;
                continue;
            }
        }
        size_t j = i;
        while (j < n && p[j] != '\n' && p[j] != '\r')
            j++;
        if (x->body.len + (j - i) > x->p->lim.max_message) {
            broke_big(x);
            return;
        }
        mcpp_api->strbuf_append(&x->body, p + i, j - i);
        if (j == n)
            return; /* the rest of the line comes with the next chunk */
        x->skip_lf = p[j] == '\r';
        int end_of_event = x->body.len == 0;
        sse_line(x, x->body.data ? x->body.data : "", x->body.len);
        mcpp_api->strbuf_reset(&x->body);
        i = j + 1;
        /* between two events, not only between two reads: one chunk may
         * carry thousands of requests, and the call may be over after
         * the first (answered, cancelled, past its deadline) */
        if (end_of_event && should_stop(x)) {
            x->stopped = 1;
            return;
        }
    }
}

static void start_body(xfer *x)
{
    x->started = 1;
    curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
    char *ct = NULL;
    curl_easy_getinfo(x->easy, CURLINFO_CONTENT_TYPE, &ct);
    x->sse = ct && strncasecmp(ct, "text/event-stream", 17) == 0;
}

static size_t on_data(char *ptr, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (!x->started)
        start_body(x);
    if (stale(x))
        return 0;
    if (x->status < 200 || x->status >= 300) { /* keep the start, for the message */
        if (x->body.len < ERR_BODY_MAX)
            mcpp_api->strbuf_append(
                &x->body, ptr, n < ERR_BODY_MAX - x->body.len ? n : ERR_BODY_MAX - x->body.len);
        return n;
    }
    if (x->stopped)
        return 0;
    if (x->sse) {
        sse_feed(x, ptr, n);
        if (x->stopped)
            return 0; /* ends the transfer: run() reports it as stopped */
    } else if (x->body.len + n > x->p->lim.max_message) {
        broke_big(x);
    } else {
        mcpp_api->strbuf_append(&x->body, ptr, n);
    }
    return x->broke ? 0 : n;
}

static size_t on_header(char *buf, size_t size, size_t nmemb, void *ud)
{
    xfer *x = ud;
    size_t n = size * nmemb;
    if (x->kind == X_GET && !x->req && n <= 2) { /* the end of the GET stream's headers */
        long status = 0;
        curl_easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
        if (status >= 200 && status < 300) {
            pthread_mutex_lock(&x->p->mu);
            x->s->get_open = 1;
            pthread_cond_broadcast(&x->p->cond);
            pthread_mutex_unlock(&x->p->mu);
        }
    }
    if (x->is_init && n > 15 && strncasecmp(buf, "mcp-session-id:", 15) == 0) {
        const char *v = buf + 15;
        size_t len = n - 15;
        while (len && (*v == ' ' || *v == '\t'))
            v++, len--;
        while (len && (v[len - 1] == '\r' || v[len - 1] == '\n' || v[len - 1] == ' '))
            len--;
        free(x->session);
        x->session = visible(v, len) ? strndup(v, len) : NULL;
    }
    return n;
}

/* ---- one exchange ------------------------------------------------------------ */

struct curl_slist *add_header(struct curl_slist *h, const char *line)
{
    struct curl_slist *n = curl_slist_append(h, line);
    return n ? n : h;
}

static struct curl_slist *build_headers(xfer *x)
{
    struct curl_slist *h = NULL;
    if (x->kind == X_POST) {
        h = add_header(h, "Content-Type: application/json");
        h = add_header(h, "Accept: application/json, text/event-stream");
        h = add_header(h, "Expect:"); /* no 100-continue round trip */
    } else if (x->kind == X_GET) {
        h = add_header(h, "Accept: text/event-stream");
    }
    char line[1100];
    if (x->resume_from) {
        snprintf(line, sizeof line, "Last-Event-ID: %s", x->resume_from);
        h = add_header(h, line);
    }
    pthread_mutex_lock(&x->p->mu);
    for (const struct curl_slist *e = x->s->extra; e; e = e->next)
        h = add_header(h, e->data);
    if (!x->is_init && x->s->session) {
        snprintf(line, sizeof line, "Mcp-Session-Id: %s", x->s->session);
        h = add_header(h, line);
        x->had_session = 1;
    }
    if (!x->is_init && x->s->version) {
        snprintf(line, sizeof line, "MCP-Protocol-Version: %s", x->s->version);
        h = add_header(h, line);
    }
    pthread_mutex_unlock(&x->p->mu);
    return h;
}

int should_stop(xfer *x)
{
    if (x->broke)
        return 1;
    if (x->kind == X_DELETE)
        return provider_past(&x->deadline);
    if (stale(x))
        return 1;
    if (x->kind == X_GET && !x->req)
        return 0;
    return x->req ? provider_req_done(x->p, x->req->id) : provider_past(&x->deadline);
}

/* Run x on c.  Returns the transfer's result; *aborted when it was
 * stopped by should_stop(). */
CURLcode run(xfer *x, conn *c, const char *body, int *aborted)
{
    provider *p = x->p;
    CURL *e = c->easy;
    x->easy = e;
    struct curl_slist *h = build_headers(x);
    curl_easy_setopt(e, CURLOPT_URL, p->endpoint);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)p->lim.request_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_data);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, x);
    if (x->kind == X_POST) {
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
    } else if (x->kind == X_DELETE) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, "DELETE");
    }
    CURLcode res = CURLE_OK;
    *aborted = 0;
    curl_multi_add_handle(c->multi, e);
    for (;;) {
        int running = 0;
        if (curl_multi_perform(c->multi, &running) != CURLM_OK) {
            res = CURLE_FAILED_INIT;
            break;
        }
        if (!running) {
            int q;
            CURLMsg *m;
            while ((m = curl_multi_info_read(c->multi, &q)))
                if (m->msg == CURLMSG_DONE)
                    res = m->data.result;
            break;
        }
        if (should_stop(x)) {
            *aborted = 1;
            break;
        }
        curl_multi_poll(c->multi, NULL, 0, POLL_MS, NULL);
    }
    if (x->stopped)
        *aborted = 1;
    curl_multi_remove_handle(c->multi, e);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, NULL);
    curl_slist_free_all(h);
    if (!x->started)
        start_body(x);
    return res;
}

void xfer_free(xfer *x)
{
    mcpp_api->strbuf_reset(&x->body);
    mcpp_api->strbuf_reset(&x->data);
    free(x->session);
    free(x->broke);
    free(x->last_id);
}

/* The start of an error body, on one line. */
void error_text(xfer *x, char *out, size_t cap)
{
    size_t n = x->body.len < cap - 1 ? x->body.len : cap - 1;
    for (size_t i = 0; i < n; i++) {
        char ch = x->body.data[i];
        out[i] = (ch >= 0x20 && ch < 0x7f) ? ch : ' ';
    }
    out[n] = '\0';
}
