/* The access log: see http_log.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "http_log.h"
#include "strutil.h"

/* The log's descriptor, written with one write(2) per line and no lock
 * of its own around the write: appended lines (O_APPEND, or a pipe, a
 * line under PIPE_BUF) do not interleave.  A lock around the write made
 * every connection's thread wait for the others' writes (most of the
 * server's lock waits with 8 clients).  The read side of `fd_lock` only
 * keeps the descriptor open while a line is written. */
static pthread_rwlock_t fd_lock = PTHREAD_RWLOCK_INITIALIZER;
static int out_fd = -1;
static int to_stderr;

int http_log_open(const char *path)
{
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    pthread_rwlock_wrlock(&fd_lock);
    out_fd = fd >= 0 ? fd : STDERR_FILENO;
    to_stderr = fd < 0;
    pthread_rwlock_unlock(&fd_lock);
    return path && fd < 0 ? -1 : 0;
}

/* The line is written as it is built, in a buffer on the stack: the
 * fields are short and bounded (the request's copies of them are), and a
 * cJSON tree made and printed per request was a dozen allocations and a
 * printf and scanf of the status. */
typedef struct line {
    char buf[4096];
    size_t n;
} line;

static void put(line *l, const char *s, size_t len)
{
    if (len > sizeof l->buf - 1 - l->n)
        len = sizeof l->buf - 1 - l->n;
    memcpy(l->buf + l->n, s, len);
    l->n += len;
}

/* `"key":"value"` with the value escaped as JSON does; nothing when the
 * value is empty.  Room for the closing bytes is always kept: a field
 * too long for the line is cut short, the line stays one JSON object. */
static void field(line *l, const char *key, const char *v)
{
    if (!v || !*v)
        return;
    char part[40];
    put(l, part, (size_t)snprintf(part, sizeof part, ",\"%s\":\"", key));
    for (const unsigned char *p = (const unsigned char *)v; *p && l->n < sizeof l->buf - 128; p++) {
        if (*p == '"' || *p == '\\') {
            char esc[2] = {'\\', (char)*p};
            put(l, esc, 2);
        } else if (*p < 0x20 || *p == 0x7f) {
            put(l, part, (size_t)snprintf(part, sizeof part, "\\u%04x", *p));
        } else {
            put(l, (const char *)p, 1);
        }
    }
    put(l, "\"", 1);
}

/* What tells an access line apart from other stderr lines. */
#define STDERR_PREFIX "vthost access: "
#define PREFIX_LEN (sizeof STDERR_PREFIX - 1)

void http_log_write(const http_log_entry *e)
{
    char when[STR_UTC_NOW_SIZE];
    str_utc_now(when);
    line l;
    /* Room for the prefix is kept at the front, filled in or skipped
     * once the descriptor is read: one lock per line. */
    l.n = PREFIX_LEN;
    put(&l, "{\"time\":\"", 9);
    put(&l, when, strlen(when));
    put(&l, "\"", 1);
    field(&l, "remote", e->remote);
    field(&l, "method", e->method);
    field(&l, "path", e->path);
    char num[64];
    put(&l, num, (size_t)snprintf(num, sizeof num, ",\"status\":%d", e->status));
    field(&l, "session", e->session);
    field(&l, "rpc", e->rpc);
    field(&l, "tool", e->tool);
    field(&l, "decision", e->decision);
    /* Tenths of a millisecond, written as integers: the double's own
     * printing (a printf and a scanf back) cost more than the rest of
     * the line. */
    long long tenths = e->ms > 0 ? (long long)(e->ms * 10) : 0;
    if (tenths % 10)
        snprintf(num, sizeof num, ",\"ms\":%lld.%lld}\n", tenths / 10, tenths % 10);
    else
        snprintf(num, sizeof num, ",\"ms\":%lld}\n", tenths / 10);
    put(&l, num, strlen(num));
    pthread_rwlock_rdlock(&fd_lock);
    size_t from = to_stderr ? 0 : PREFIX_LEN;
    if (to_stderr)
        memcpy(l.buf, STDERR_PREFIX, PREFIX_LEN);
    /* One write per line: a write per piece was a system call (and a
     * wake-up of whoever reads it) each, and pieces of two lines could
     * interleave. */
    for (size_t done = from; out_fd >= 0 && done < l.n;) {
        ssize_t n = write(out_fd, l.buf + done, l.n - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break; /* the log is not worth failing a request over */
        done += (size_t)n;
    }
    pthread_rwlock_unlock(&fd_lock);
}

void http_log_close(void)
{
    pthread_rwlock_wrlock(&fd_lock);
    if (out_fd >= 0 && out_fd != STDERR_FILENO)
        close(out_fd);
    out_fd = -1;
    to_stderr = 0;
    pthread_rwlock_unlock(&fd_lock);
}
