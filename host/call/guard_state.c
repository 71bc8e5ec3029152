/* The guard's counter file: one exclusive flock per read-modify-write,
 * so two processes cannot both see "3 of 4" and both go on.  It is host
 * state, kept under $XDG_STATE_HOME/vthost/guard/ and keyed by the
 * canonical workspace path: nothing of it appears in the repository. */
#include "guard_state.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "log.h"
#include "paths.h"
#include "strutil.h"
#include "ws_index.h"

static pthread_mutex_t local_mu = PTHREAD_MUTEX_INITIALIZER;
static long local_pending;
static int warned;

void guard_state_reset_local(void)
{
    pthread_mutex_lock(&local_mu);
    local_pending = 0;
    pthread_mutex_unlock(&local_mu);
}

/* $XDG_STATE_HOME/vthost/guard/<key>.json, made as needed (0700: host
 * data, never the repository's, and outside what commands may write:
 * the sandbox keeps it read-only where they could). */
static char *state_path(const char *workspace)
{
    char *dir = ws_index_state_dir(), key[17], *f = NULL;
    ws_index_key(workspace, key);
    char *sub = dir ? str_printf("%s/guard", dir) : NULL;
    if (sub && paths_mkdirs(sub, 0700) == VT_OK)
        f = str_printf("%s/%s.json", sub, key);
    free(sub);
    free(dir);
    return f;
}

static int open_state(const char *workspace)
{
    char *f = state_path(workspace);
    if (!f) {
        errno = ENOENT;
        return -1;
    }
    int fd = open(f, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    int e = errno;
    free(f);
    errno = e;
    return fd;
}

static long read_pending(int fd)
{
    char buf[256];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    cJSON *j = cJSON_Parse(buf);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pending");
    long v = cJSON_IsNumber(p) && p->valuedouble >= 0 && p->valuedouble < 1e15
                 ? (long)p->valuedouble
                 : 0;
    cJSON_Delete(j);
    return v;
}

void guard_state_lock(const char *workspace, guard_state *st)
{
    memset(st, 0, sizeof *st);
    st->workspace = workspace;
    st->fd = workspace ? open_state(workspace) : -1;
    if (st->fd >= 0) {
        int rc;
        do
            rc = flock(st->fd, LOCK_EX);
        while (rc < 0 && errno == EINTR);
        if (rc == 0) {
            st->pending = read_pending(st->fd);
            return;
        }
        close(st->fd);
        st->fd = -1;
    }
    pthread_mutex_lock(&local_mu);
    if (!warned) {
        warned = 1;
        host_log(VT_LOG_WARNING, NULL,
                 "anti-blind-editing: the state of %s under $XDG_STATE_HOME/vthost/guard/ "
                 "cannot be used (%s); the count of unverified edits is kept by this process "
                 "only",
                 workspace ? workspace : "?", strerror(errno));
    }
    st->pending = local_pending;
}

void guard_state_unlock(guard_state *st)
{
    if (st->fd < 0) {
        if (st->changed)
            local_pending = st->pending;
        pthread_mutex_unlock(&local_mu);
        return;
    }
    if (st->changed) {
        char buf[4352];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "workspace", st->workspace ? st->workspace : "");
        cJSON_AddNumberToObject(o, "pending", (double)st->pending);
        char *text = cJSON_PrintUnformatted(o);
        cJSON_Delete(o);
        int n = snprintf(buf, sizeof buf, "%s\n", text ? text : "");
        free(text);
        if (n < 0 || (size_t)n >= sizeof buf) /* a very long path: the count alone */
            n = snprintf(buf, sizeof buf, "{\"pending\":%ld}\n", st->pending);
        if (ftruncate(st->fd, 0) != 0 || pwrite(st->fd, buf, (size_t)n, 0) != n)
            host_log(VT_LOG_WARNING, NULL, "anti-blind-editing: cannot write the state of %s: %s",
                     st->workspace ? st->workspace : "?", strerror(errno));
    }
    close(st->fd); /* releases the lock */
    st->fd = -1;
}
