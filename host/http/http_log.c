/* The access log: see http_log.h. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "http_log.h"
#include "strutil.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static FILE *out;

int http_log_open(const char *path)
{
    if (!path) {
        out = stderr;
        return 0;
    }
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    out = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        out = stderr;
        return -1;
    }
    setvbuf(out, NULL, _IOLBF, 0);
    return 0;
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

void http_log_write(const http_log_entry *e)
{
    char when[STR_UTC_NOW_SIZE];
    str_utc_now(when);
    line l;
    l.n = 0;
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
        snprintf(num, sizeof num, ",\"ms\":%lld.%lld}", tenths / 10, tenths % 10);
    else
        snprintf(num, sizeof num, ",\"ms\":%lld}", tenths / 10);
    put(&l, num, strlen(num));
    l.buf[l.n] = 0;
    pthread_mutex_lock(&mu);
    if (out) {
        /* One write per line: stderr is unbuffered, and a write per piece
         * was a system call (and a wake-up of whoever reads it) each.
         * The prefix tells the line apart from other stderr lines. */
        fprintf(out, "%s%s\n", out == stderr ? "vthost access: " : "", l.buf);
        fflush(out);
    }
    pthread_mutex_unlock(&mu);
}

void http_log_close(void)
{
    pthread_mutex_lock(&mu);
    if (out && out != stderr)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&mu);
}
