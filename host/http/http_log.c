/* The access log: see http_log.h. */
#include <cjson/cJSON.h>
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

static void add(cJSON *o, const char *key, const char *v)
{
    if (v && *v)
        cJSON_AddStringToObject(o, key, v);
}

void http_log_write(const http_log_entry *e)
{
    char when[STR_UTC_NOW_SIZE];
    str_utc_now(when);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "time", when);
    add(o, "remote", e->remote);
    add(o, "method", e->method);
    add(o, "path", e->path);
    cJSON_AddNumberToObject(o, "status", e->status);
    add(o, "session", e->session);
    add(o, "rpc", e->rpc);
    add(o, "tool", e->tool);
    add(o, "decision", e->decision);
    /* Tenths of a millisecond, written as integers: the double's own
     * printing (a printf and a scanf back) cost more than the rest of
     * the line. */
    long long tenths = e->ms > 0 ? (long long)(e->ms * 10) : 0;
    char ms[32];
    if (tenths % 10)
        snprintf(ms, sizeof ms, "%lld.%lld", tenths / 10, tenths % 10);
    else
        snprintf(ms, sizeof ms, "%lld", tenths / 10);
    cJSON_AddRawToObject(o, "ms", ms);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return;
    pthread_mutex_lock(&mu);
    if (out) {
        /* One write per line: stderr is unbuffered, and a write per piece
         * was a system call (and a wake-up of whoever reads it) each.
         * The prefix tells the line apart from other stderr lines. */
        fprintf(out, "%s%s\n", out == stderr ? "vthost access: " : "", line);
        fflush(out);
    }
    pthread_mutex_unlock(&mu);
    cJSON_free(line);
}

void http_log_close(void)
{
    pthread_mutex_lock(&mu);
    if (out && out != stderr)
        fclose(out);
    out = NULL;
    pthread_mutex_unlock(&mu);
}
