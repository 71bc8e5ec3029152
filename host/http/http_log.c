/* The access log: see http_log.h. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include "http_log.h"
#include "http_log_out.h"
#include "strutil.h"

/* The log's descriptor, its lines gathered and written together
 * (http_log_out.c).  The read side of `fd_lock` keeps the descriptor
 * open, and the output started, while a line is added. */
static pthread_rwlock_t fd_lock = PTHREAD_RWLOCK_INITIALIZER;
static int out_fd = -1;
static int to_stderr;

int http_log_open(const char *path)
{
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    pthread_rwlock_wrlock(&fd_lock);
    if (out_fd >= 0) /* opened again: the old one's lines first */
        http_log_out_stop();
    if (out_fd >= 0 && out_fd != STDERR_FILENO)
        close(out_fd);
    out_fd = fd >= 0 ? fd : STDERR_FILENO;
    to_stderr = fd < 0;
    http_log_out_start(out_fd);
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

/* A number in decimal, without printf (a line's printf calls were most
 * of its CPU). */
static void put_number(line *l, long long v)
{
    char d[24];
    size_t i = sizeof d;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do
        d[--i] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        d[--i] = '-';
    put(l, d + i, sizeof d - i);
}

static int plain(unsigned char c) { return c >= 0x20 && c != 0x7f && c != '"' && c != '\\'; }

/* `"key":"value"` with the value escaped as JSON does; nothing when the
 * value is empty.  Room for the closing bytes is always kept: a field
 * too long for the line is cut short, the line stays one JSON object. */
static void field(line *l, const char *key, const char *v)
{
    if (!v || !*v)
        return;
    put(l, ",\"", 2);
    put(l, key, strlen(key));
    put(l, "\":\"", 3);
    const size_t end = sizeof l->buf - 128;
    const unsigned char *p = (const unsigned char *)v;
    while (*p && l->n < end) {
        const unsigned char *run = p;
        while (plain(*p))
            p++;
        size_t len = (size_t)(p - run);
        put(l, (const char *)run, len < end - l->n ? len : end - l->n);
        if (!*p || l->n >= end)
            break;
        static const char hex[] = "0123456789abcdef";
        char esc[6] = {'\\', (char)*p};
        if (*p < 0x20 || *p == 0x7f) {
            memcpy(esc + 1, "u00", 3);
            esc[4] = hex[*p >> 4];
            esc[5] = hex[*p & 15];
        }
        put(l, esc, esc[1] == 'u' ? 6 : 2);
        p++;
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
    put(&l, ",\"status\":", 10);
    put_number(&l, e->status);
    field(&l, "session", e->session);
    field(&l, "rpc", e->rpc);
    field(&l, "tool", e->tool);
    field(&l, "decision", e->decision);
    /* Tenths of a millisecond, written as integers: the double's own
     * printing (a printf and a scanf back) cost more than the rest of
     * the line. */
    long long tenths = e->ms > 0 ? (long long)(e->ms * 10) : 0;
    put(&l, ",\"ms\":", 6);
    put_number(&l, tenths / 10);
    if (tenths % 10) {
        char frac[2] = {'.', (char)('0' + tenths % 10)};
        put(&l, frac, 2);
    }
    put(&l, "}\n", 2);
    pthread_rwlock_rdlock(&fd_lock);
    size_t from = to_stderr ? 0 : PREFIX_LEN;
    if (to_stderr)
        memcpy(l.buf, STDERR_PREFIX, PREFIX_LEN);
    if (out_fd >= 0)
        http_log_out_add(l.buf + from, l.n - from);
    pthread_rwlock_unlock(&fd_lock);
}

void http_log_close(void)
{
    pthread_rwlock_wrlock(&fd_lock);
    if (out_fd >= 0)
        http_log_out_stop(); /* every line written before the descriptor goes */
    if (out_fd >= 0 && out_fd != STDERR_FILENO)
        close(out_fd);
    out_fd = -1;
    to_stderr = 0;
    pthread_rwlock_unlock(&fd_lock);
}

void http_log_flush(void)
{
    pthread_rwlock_rdlock(&fd_lock);
    http_log_out_flush();
    pthread_rwlock_unlock(&fd_lock);
}
