/* The access log's output: see http_log_out.h.
 *
 * Two buffers: connection threads append to `pending` under `buf_mu`,
 * held for a copy only; whoever writes takes `write_mu`, swaps the
 * buffers under `buf_mu` and writes the other one outside it.  Writes
 * are one at a time (write_mu), and each takes every line added before
 * its swap, so lines reach the log in the order they were added.  The
 * writer is the flusher thread once a line has waited
 * HTTP_LOG_OUT_DELAY_MS, or a thread that finds the buffer full, or
 * http_log_out_flush/stop. */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fd_write.h"
#include "http_log_out.h"

/* Room for ~350 lines: more than 10 ms of requests on this front. */
#define BUF_SIZE (64 * 1024)

typedef struct buf {
    char data[BUF_SIZE];
    size_t len;
} buf;

static buf bufs[2];
static buf *pending = &bufs[0]; /* under buf_mu */
static buf *out = &bufs[1];     /* under write_mu */
static pthread_mutex_t buf_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t write_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER; /* a first line, or stop */
static int stopping;                                   /* under buf_mu */
static pthread_t flusher;
static int gathering; /* the flusher runs: set and cleared outside any add */
static int out_fd = -1;

static void write_all(const char *p, size_t n)
{
    if (out_fd >= 0)
        (void)fd_write_all(out_fd, p, n); /* the log is not worth failing a request over */
}

void http_log_out_flush(void)
{
    pthread_mutex_lock(&write_mu);
    pthread_mutex_lock(&buf_mu);
    buf *full = pending;
    pending = out;
    out = full;
    pthread_mutex_unlock(&buf_mu);
    write_all(out->data, out->len);
    out->len = 0;
    pthread_mutex_unlock(&write_mu);
}

/* Sleeps until a line is pending, lets it wait out the delay (lines
 * added meanwhile join it), writes them all; until stopped.  The delay
 * is a plain sleep, nothing to wake it early: a full buffer is written
 * by whoever fills it, and a stop writes the rest itself. */
static void *flusher_main(void *arg)
{
    (void)arg;
    const struct timespec delay = {0, HTTP_LOG_OUT_DELAY_MS * 1000000L};
    pthread_mutex_lock(&buf_mu);
    while (!stopping) {
        if (!pending->len) {
            pthread_cond_wait(&wake, &buf_mu);
            continue;
        }
        pthread_mutex_unlock(&buf_mu);
        nanosleep(&delay, NULL);
        http_log_out_flush();
        pthread_mutex_lock(&buf_mu);
    }
    pthread_mutex_unlock(&buf_mu);
    return NULL;
}

void http_log_out_start(int fd)
{
    out_fd = fd;
    stopping = 0;
    gathering = pthread_create(&flusher, NULL, flusher_main, NULL) == 0;
}

void http_log_out_add(const char *line, size_t n)
{
    if (!gathering) {
        write_all(line, n);
        return;
    }
    if (n > BUF_SIZE)
        n = BUF_SIZE; /* lines are shorter (http_log.c); never beyond the buffer */
    pthread_mutex_lock(&buf_mu);
    while (pending->len + n > BUF_SIZE) {
        /* full before the delay is out: written now, by this thread */
        pthread_mutex_unlock(&buf_mu);
        http_log_out_flush();
        pthread_mutex_lock(&buf_mu);
    }
    if (!pending->len)
        pthread_cond_signal(&wake);
    memcpy(pending->data + pending->len, line, n);
    pending->len += n;
    pthread_mutex_unlock(&buf_mu);
}

void http_log_out_stop(void)
{
    if (gathering) {
        pthread_mutex_lock(&buf_mu);
        stopping = 1;
        pthread_cond_signal(&wake);
        pthread_mutex_unlock(&buf_mu);
        pthread_join(flusher, NULL);
        gathering = 0;
    }
    http_log_out_flush();
    out_fd = -1;
}
