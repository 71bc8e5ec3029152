/* MCP output: one JSON-RPC message per line on the protocol descriptor,
 * written whole under one lock so concurrent calls never interleave. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include "mcp_internal.h"

static int write_all(int fd, const char *body, size_t len)
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

int mcp_send_text(struct mcp_server *s, const char *text, size_t len)
{
    int rc = 0;
    pthread_mutex_lock(&s->wlock);
    if (s->out_dead || write_all(s->out_fd, text, len) < 0) {
        rc = -1;
        if (!s->out_dead) {
            /* The client is gone: nothing more can be answered, so stop. */
            s->out_dead = 1;
            mcp_server_stop(s);
        }
    }
    pthread_mutex_unlock(&s->wlock);
    return rc;
}

int mcp_send(struct mcp_server *s, cJSON *msg)
{
    char *text = msg ? cJSON_PrintUnformatted(msg) : NULL;
    cJSON_Delete(msg);
    if (!text)
        return -1;
    int rc = mcp_send_text(s, text, strlen(text));
    free(text);
    return rc;
}

static cJSON *envelope(const cJSON *id)
{
    cJSON *m = cJSON_CreateObject();
    if (!m)
        return NULL;
    cJSON_AddStringToObject(m, "jsonrpc", "2.0");
    cJSON_AddItemToObject(m, "id", id ? mcp_id_copy(id) : cJSON_CreateNull());
    return m;
}

void mcp_send_result(struct mcp_server *s, const cJSON *id, cJSON *result)
{
    cJSON *m = envelope(id);
    if (!m || !result) {
        cJSON_Delete(m);
        cJSON_Delete(result);
        return;
    }
    cJSON_AddItemToObject(m, "result", result);
    mcp_send(s, m);
}

void mcp_send_error(struct mcp_server *s, const cJSON *id, int code,
                    const char *message)
{
    cJSON *m = envelope(id);
    if (!m)
        return;
    cJSON *e = cJSON_AddObjectToObject(m, "error");
    cJSON_AddNumberToObject(e, "code", code);
    cJSON_AddStringToObject(e, "message", message);
    mcp_send(s, m);
}

void mcp_send_notification(struct mcp_server *s, const char *method,
                           cJSON *params)
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
