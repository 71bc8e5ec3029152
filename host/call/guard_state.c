/* The guard's counter file: one exclusive flock per read-modify-write,
 * so two processes cannot both see "3 of 4" and both go on. */
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

static pthread_mutex_t local_mu = PTHREAD_MUTEX_INITIALIZER;
static long local_pending;
static int warned;

void guard_state_reset_local(void)
{
    pthread_mutex_lock(&local_mu);
    local_pending = 0;
    pthread_mutex_unlock(&local_mu);
}

/* Enter (making it) directory `name` below `dir`, never through a link. */
static int enter(int dir, const char *name)
{
    int fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        if (mkdirat(dir, name, 0755) < 0 && errno != EEXIST)
            return -1;
        fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    }
    return fd;
}

static int open_state(const char *workspace)
{
    int root = open(workspace, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int vt = root >= 0 ? enter(root, ".vtcode") : -1;
    int st = vt >= 0 ? enter(vt, "state") : -1;
    const char *base = strrchr(GUARD_STATE_FILE, '/') + 1;
    int fd = st >= 0 ? openat(st, base, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644) : -1;
    int e = errno;
    if (root >= 0)
        close(root);
    if (vt >= 0)
        close(vt);
    if (st >= 0)
        close(st);
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
                 "anti-blind-editing: %s/%s cannot be used (%s); the count of unverified "
                 "edits is kept by this process only",
                 workspace ? workspace : "?", GUARD_STATE_FILE, strerror(errno));
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
        char buf[64];
        int n = snprintf(buf, sizeof buf, "{\"pending\":%ld}\n", st->pending);
        if (ftruncate(st->fd, 0) != 0 || pwrite(st->fd, buf, (size_t)n, 0) != n)
            host_log(VT_LOG_WARNING, NULL, "anti-blind-editing: cannot write %s: %s",
                     GUARD_STATE_FILE, strerror(errno));
    }
    close(st->fd); /* releases the lock */
    st->fd = -1;
}
