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
    cJSON_AddNumberToObject(o, "ms", (double)(long long)(e->ms * 10) / 10);
    char *line = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!line)
        return;
    pthread_mutex_lock(&mu);
    if (out) {
        if (out == stderr)
            fputs("vthost access: ", out); /* told apart from other stderr lines */
        fputs(line, out);
        fputc('\n', out);
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
