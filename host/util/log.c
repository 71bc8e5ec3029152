/* Host logging: stderr by default; a front end may take the lines over. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <vthost/plugin.h>
#include "log.h"
#include "strbuf.h"
#include "text_escape.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static host_log_sink log_sink;
static void *log_sink_ctx;
static int log_level = VT_LOG_WARNING;

static const char *level_name(int level)
{
    static const char *names[] = {"debug", "info", "notice", "warning", "error"};
    return level >= 0 && level <= VT_LOG_ERROR ? names[level] : "error";
}

void host_set_log_sink(host_log_sink sink, void *ctx)
{
    pthread_mutex_lock(&log_lock);
    log_sink = sink;
    log_sink_ctx = ctx;
    pthread_mutex_unlock(&log_lock);
}

void host_set_log_level(int level) { log_level = level; }

/* Warnings and errors said so far (whether shown or sunk). */
static unsigned long log_warned;
static vt_strbuf *log_copy; /* also gets each line written to stderr */

void host_log_copy_to(vt_strbuf *b)
{
    pthread_mutex_lock(&log_lock);
    log_copy = b;
    pthread_mutex_unlock(&log_lock);
}

unsigned long host_log_warnings(void)
{
    pthread_mutex_lock(&log_lock);
    unsigned long n = log_warned;
    pthread_mutex_unlock(&log_lock);
    return n;
}

static void log_vemit(int level, const char *who, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

static void log_vemit(int level, const char *who, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    /* a warning may quote a command or a file name: shown, never obeyed,
     * and one message is one line (a name holding "\nvthost: ..." would
     * otherwise print a line vthost never wrote) */
    char *shown = text_escape(msg, 0);
    const char *line = shown ? shown : "(a log message that could not be shown)";
    pthread_mutex_lock(&log_lock);
    if (level >= VT_LOG_WARNING)
        log_warned++;
    if (log_sink)
        log_sink(log_sink_ctx, level, who ? who : "vthost", line);
    else if (level >= log_level) {
        fprintf(stderr, "vthost: %s%s%s: %s\n", who ? who : "", who ? ": " : "", level_name(level),
                line);
        if (log_copy)
            strbuf_printf(log_copy, "vthost: %s%s%s: %s\n", who ? who : "", who ? ": " : "",
                          level_name(level), line);
    }
    pthread_mutex_unlock(&log_lock);
    free(shown);
}

void host_log(int level, const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vemit(level, who, fmt, ap);
    va_end(ap);
}

void host_vlog(int level, const char *who, const char *fmt, va_list ap)
{
    log_vemit(level, who, fmt, ap);
}
