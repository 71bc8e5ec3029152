/* Event ids, priming and replay of SSE streams: see http_sse.h. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "http_sse.h"

typedef struct ev {
    struct ev *next;
    uint64_t seq;
    size_t len;
    char text[];
} ev;

struct http_sse_log {
    unsigned stream;
    uint64_t seq; /* the last event's; 0 is the priming event */
    ev *head, *tail;
    size_t count, bytes;
    uint64_t replay_after; /* UINT64_MAX: no replay pending */
    ev *pin;               /* being written from the log: not trimmed */
};

http_sse_log *http_sse_log_new(unsigned stream)
{
    http_sse_log *l = calloc(1, sizeof *l);
    if (l) {
        l->stream = stream;
        l->replay_after = UINT64_MAX;
    }
    return l;
}

void http_sse_log_free(http_sse_log *l)
{
    if (!l)
        return;
    for (ev *e = l->head, *n; e; e = n) {
        n = e->next;
        free(e);
    }
    free(l);
}

char *http_sse_priming(http_sse_log *l, size_t *len)
{
    char *out = malloc(96);
    if (!out)
        return NULL;
    int n = snprintf(out, 96, "id: %u-0\nretry: %d\ndata: \n\n", l->stream, HTTP_SSE_RETRY_MS);
    *len = (size_t)n;
    return out;
}

/* Drop the oldest events beyond the bounds, keeping the newest. */
static void trim(http_sse_log *l)
{
    while (l->head && l->head != l->tail && l->head != l->pin &&
           (l->count > HTTP_SSE_LOG_EVENTS || l->bytes > HTTP_SSE_LOG_BYTES)) {
        ev *e = l->head;
        l->head = e->next;
        l->count--;
        l->bytes -= e->len;
        free(e);
    }
}

static ev *append(http_sse_log *l, const char *text, size_t n)
{
    char head[48];
    int h = snprintf(head, sizeof head, "id: %u-%" PRIu64 "\n", l->stream, l->seq + 1);
    static const char mid[] = "event: message\ndata: ";
    size_t len = (size_t)h + sizeof mid - 1 + n + 2;
    ev *e = malloc(sizeof *e + len + 1);
    if (!e)
        return NULL;
    e->next = NULL;
    e->seq = ++l->seq;
    e->len = len;
    char *p = e->text;
    memcpy(p, head, (size_t)h);
    p += h;
    memcpy(p, mid, sizeof mid - 1);
    p += sizeof mid - 1;
    memcpy(p, text, n);
    p += n;
    memcpy(p, "\n\n", 3);
    if (l->tail)
        l->tail->next = e;
    else
        l->head = e;
    l->tail = e;
    l->count++;
    l->bytes += len;
    trim(l);
    return e;
}

char *http_sse_event(http_sse_log *l, const char *text, size_t n, size_t *len)
{
    ev *e = append(l, text, n);
    char *out = e ? malloc(e->len + 1) : NULL;
    if (out) {
        memcpy(out, e->text, e->len + 1);
        *len = e->len;
    }
    return out;
}

int http_sse_event_pinned(http_sse_log *l, const char *text, size_t n)
{
    ev *e = append(l, text, n);
    if (!e)
        return VT_ERR_NOMEM;
    l->pin = e;
    return VT_OK;
}

const char *http_sse_pinned(const http_sse_log *l, size_t *len)
{
    *len = l->pin ? l->pin->len : 0;
    return l->pin ? l->pin->text : NULL;
}

void http_sse_unpin(http_sse_log *l) { l->pin = NULL; }

int http_sse_keep(http_sse_log *l, const char *text, size_t n)
{
    return append(l, text, n) ? VT_OK : VT_ERR_NOMEM;
}

int http_sse_parse_id(const char *id, unsigned *stream, uint64_t *seq)
{
    char *end = NULL;
    if (!id || *id < '0' || *id > '9')
        return VT_ERR_INVALID;
    unsigned long s = strtoul(id, &end, 10);
    if (*end != '-' || end[1] < '0' || end[1] > '9' || s > 0xffffffffUL)
        return VT_ERR_INVALID;
    unsigned long long q = strtoull(end + 1, &end, 10);
    if (*end)
        return VT_ERR_INVALID;
    *stream = (unsigned)s;
    *seq = (uint64_t)q;
    return VT_OK;
}

int http_sse_rewind(http_sse_log *l, uint64_t seq)
{
    if (seq > l->seq)
        return VT_ERR_NOT_FOUND;
    l->replay_after = seq;
    return VT_OK;
}

char *http_sse_replay(http_sse_log *l, size_t *len)
{
    if (l->replay_after == UINT64_MAX)
        return NULL;
    ev *e = l->head;
    while (e && e->seq <= l->replay_after)
        e = e->next;
    if (!e) {
        l->replay_after = UINT64_MAX;
        return NULL;
    }
    l->replay_after = e->seq;
    char *out = malloc(e->len + 1);
    if (out) {
        memcpy(out, e->text, e->len + 1);
        *len = e->len;
    }
    return out;
}
