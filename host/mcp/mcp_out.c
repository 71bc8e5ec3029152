/* MCP output: one JSON-RPC message per line on the protocol descriptor.
 *
 * Messages go through a bounded queue drained by one writer thread, so a
 * call's thread never blocks on a client that stopped reading: it queues
 * its response and is free.  The queue is bounded twice: past
 * MCP_OUT_SOFT the leader stops reading new requests (mcp_out_wait_room),
 * past MCP_OUT_HARD a producer waits for room.  Whole messages are queued
 * in order, so concurrent calls never interleave and a call's progress
 * always precedes its response. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include "mcp_internal.h"
#include "monotime.h"

/* One write per poll: a pipe that polls writable takes PIPE_BUF bytes
 * without blocking, so the writer can always be stopped. */
#define CHUNK 4096

typedef struct mcp_out_msg {
    struct mcp_out_msg *next;
    size_t len; /* including the '\n' */
    char text[];
} mcp_out_msg;

static int write_direct(int fd, const char *body, size_t len)
{
    struct iovec iov[2] = {{(void *)body, len}, {"\n", 1}};
    int n = 2;
    struct iovec *v = iov;
    while (n > 0) {
        ssize_t w = writev(fd, v, n);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return -1;
        }
        size_t left = (size_t)w;
        while (n > 0 && left >= v->iov_len) {
            left -= v->iov_len;
            v++;
            n--;
        }
        if (n > 0) {
            v->iov_base = (char *)v->iov_base + left;
            v->iov_len -= left;
        }
    }
    return 0;
}

/* 0 written, -1 output broken, -2 told to stop. */
static int write_polled(struct mcp_server *s, const char *p, size_t len)
{
    while (len > 0) {
        struct pollfd fds[2] = {{.fd = s->out_fd, .events = POLLOUT},
                                {.fd = s->out_wake[0], .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (fds[1].revents)
            return -2;
        if (!(fds[0].revents & (POLLOUT | POLLERR | POLLHUP)))
            continue;
        ssize_t w = write(s->out_fd, p, len < CHUNK ? len : CHUNK);
        if (w < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

static void drop_queue_locked(struct mcp_server *s)
{
    while (s->out_head) {
        mcp_out_msg *m = s->out_head;
        s->out_head = m->next;
        free(m);
    }
    s->out_tail = NULL;
    s->out_bytes = 0;
    pthread_cond_broadcast(&s->room_cond);
}

/* The output is gone: nothing more can be answered, so stop.  Caller
 * holds wlock. */
static void mark_dead_locked(struct mcp_server *s)
{
    if (!s->out_dead) {
        s->out_dead = 1;
        drop_queue_locked(s);
        mcp_server_stop(s);
    }
}

static void *writer_main(void *arg)
{
    struct mcp_server *s = arg;
    pthread_mutex_lock(&s->wlock);
    for (;;) {
        while (!s->out_head && !s->writer_stop)
            pthread_cond_wait(&s->out_cond, &s->wlock);
        mcp_out_msg *m = s->out_head;
        if (!m)
            break;
        s->out_head = m->next;
        if (!s->out_head)
            s->out_tail = NULL;
        pthread_mutex_unlock(&s->wlock);
        int rc = write_polled(s, m->text, m->len);
        pthread_mutex_lock(&s->wlock);
        s->out_bytes -= m->len;
        free(m);
        pthread_cond_broadcast(&s->room_cond);
        if (rc == -1)
            mark_dead_locked(s);
        if (rc < 0)
            break;
    }
    pthread_mutex_unlock(&s->wlock);
    return NULL;
}

int mcp_out_start(struct mcp_server *s)
{
    if (pipe2(s->out_wake, O_CLOEXEC | O_NONBLOCK) < 0)
        return -1;
    pthread_mutex_lock(&s->wlock);
    int rc = pthread_create(&s->writer, NULL, writer_main, s);
    if (rc == 0)
        s->writer_running = 1;
    pthread_mutex_unlock(&s->wlock);
    return rc == 0 ? 0 : -1;
}

void mcp_out_finish(struct mcp_server *s, int ms)
{
    pthread_mutex_lock(&s->wlock);
    if (!s->writer_running) {
        pthread_mutex_unlock(&s->wlock);
        return;
    }
    struct timespec end;
    mono_deadline_ms(&end, ms);
    while (s->out_bytes > 0 && !s->out_dead)
        if (pthread_cond_timedwait(&s->room_cond, &s->wlock, &end) == ETIMEDOUT)
            break;
    s->writer_stop = 1;
    pthread_cond_broadcast(&s->out_cond);
    pthread_mutex_unlock(&s->wlock);
    ssize_t n = write(s->out_wake[1], "x", 1);
    (void)n;
    pthread_join(s->writer, NULL);
    pthread_mutex_lock(&s->wlock);
    s->writer_running = 0;
    /* A call still running after shutdown has nobody to write for it. */
    s->out_dead = 1;
    drop_queue_locked(s);
    pthread_mutex_unlock(&s->wlock);
}

void mcp_out_wait_room(struct mcp_server *s)
{
    pthread_mutex_lock(&s->wlock);
    while (s->writer_running && !s->out_dead && !s->writer_stop && s->out_bytes > MCP_OUT_SOFT &&
           !atomic_load(&s->stop_requested)) {
        /* Timed: a stop request only writes to the wake pipe. */
        struct timespec t;
        mono_deadline_ms(&t, 50);
        pthread_cond_timedwait(&s->room_cond, &s->wlock, &t);
    }
    pthread_mutex_unlock(&s->wlock);
}

int mcp_send_text(struct mcp_server *s, const char *text, size_t len)
{
    if (s->sink)
        return s->sink(s->sink_ud, text, len);
    int rc = 0;
    pthread_mutex_lock(&s->wlock);
    if (s->out_dead) {
        rc = -1;
    } else if (!s->writer_running) {
        if (write_direct(s->out_fd, text, len) < 0) {
            mark_dead_locked(s);
            rc = -1;
        }
    } else {
        while (!s->out_dead && !s->writer_stop && s->out_bytes > 0 &&
               s->out_bytes + len + 1 > MCP_OUT_HARD)
            pthread_cond_wait(&s->room_cond, &s->wlock);
        mcp_out_msg *m = s->out_dead || s->writer_stop ? NULL : malloc(sizeof *m + len + 1);
        if (!m) {
            rc = -1;
        } else {
            memcpy(m->text, text, len);
            m->text[len] = '\n';
            m->len = len + 1;
            m->next = NULL;
            if (s->out_tail)
                s->out_tail->next = m;
            else
                s->out_head = m;
            s->out_tail = m;
            s->out_bytes += m->len;
            pthread_cond_signal(&s->out_cond);
        }
    }
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

/* The structure of a message for a front end that takes it so. */
static void describe(const cJSON *msg, mcp_out *o)
{
    const cJSON *method = cJSON_GetObjectItemCaseSensitive(msg, "method");
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");
    o->id = cJSON_IsNull(id) ? NULL : id;
    o->method = cJSON_GetStringValue(method);
    if (o->method) {
        o->kind = id ? MCP_OUT_REQUEST : MCP_OUT_NOTIFICATION;
        o->payload = cJSON_GetObjectItemCaseSensitive(msg, "params");
    } else if ((o->payload = cJSON_GetObjectItemCaseSensitive(msg, "result"))) {
        o->kind = MCP_OUT_RESULT;
    } else {
        o->kind = MCP_OUT_ERROR;
        o->payload = cJSON_GetObjectItemCaseSensitive(msg, "error");
    }
}

static int deliver(struct mcp_server *s, const cJSON *msg, const char *text, size_t len,
                   const char *version)
{
    if (!s->front)
        return mcp_send_text(s, text, len);
    mcp_out o = {.version = version, .text = text, .len = len};
    describe(msg, &o);
    return s->front(s->front_ud, &o);
}

int mcp_send_built(struct mcp_server *s, const cJSON *msg, const char *text, size_t len)
{
    return deliver(s, msg, text, len, NULL);
}

static int send_version(struct mcp_server *s, cJSON *msg, const char *version)
{
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
    int rc = text ? deliver(s, msg, text, strlen(text), version) : -1;
    cJSON_Delete(msg);
    free(text);
    return rc;
}

int mcp_send(struct mcp_server *s, cJSON *msg) { return send_version(s, msg, NULL); }

static cJSON *envelope(const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? mcp_id_copy(id) : cJSON_CreateNull());
    return m;
}

void mcp_send_result_version(struct mcp_server *s, const cJSON *id, cJSON *result,
                             const char *version)
{
    cJSON *m = envelope(id);
    if (!m || !result) {
        cJSON_Delete(m);
        cJSON_Delete(result);
        return;
    }
    cJSON_AddItemToObject(m, "result", result);
    send_version(s, m, version);
}

void mcp_send_result(struct mcp_server *s, const cJSON *id, cJSON *result)
{
    mcp_send_result_version(s, id, result, NULL);
}

void mcp_send_error_data(struct mcp_server *s, const cJSON *id, int code, const char *message,
                         cJSON *data)
{
    cJSON *m = envelope(id);
    if (!m) {
        cJSON_Delete(data);
        return;
    }
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    if (data)
        cJSON_AddItemToObject(e, "data", data);
    mcp_send(s, m);
}

void mcp_send_error(struct mcp_server *s, const cJSON *id, int code, const char *message)
{
    mcp_send_error_data(s, id, code, message, NULL);
}

void mcp_send_notification(struct mcp_server *s, const char *method, cJSON *params)
{
    cJSON *m = cJSON_CreateObject();
    if (!m) {
        cJSON_Delete(params);
        return;
    }
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddStringToObject(m, "method", method);
    if (params)
        cJSON_AddItemToObject(m, "params", params);
    mcp_send(s, m);
}
