/* Checks owed across a crash: the records (ws_owed.h). */
#include "ws_owed.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "log.h"
#include "monotime.h"
#include "paths.h"
#include "strutil.h"
#include "ws_index.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static char *root_dir;
static char *record;        /* this process's record file while it exists, else NULL */
static int record_fd = -1;  /* open on it, for the next arming */
static int armed;           /* the record owes a check (it holds the text) */
static char record_key[17]; /* the workspace key the record is named by */
static pid_t self_pid;      /* the process `self_start` was read for */
static unsigned long long self_start;
static int64_t *live; /* sessions still running, by the last responses */
static size_t nlive, caplive;
static size_t inflight; /* calls that run commands, begun and not ended */
static size_t sessions; /* sandboxed sessions running, by the host events */
static char *pending;   /* the recovery's report, for the next call */
static struct timespec record_since;

/* The start time of process `pid` (field 22 of /proc/PID/stat), or 0. */
static unsigned long long start_time(pid_t pid)
{
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(p, "re");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *s = strrchr(buf, ')');
    unsigned long long t = 0;
    for (int field = 2; s && *s && field < 22; s++)
        if (*s == ' ')
            field++;
    if (s && sscanf(s, "%llu", &t) != 1)
        t = 0;
    return t;
}

/* $XDG_STATE_HOME/vthost/owed, made 0700 when `make`; malloc'd. */
static char *owed_dir(int make)
{
    char *state = ws_index_state_dir();
    char *d = state ? str_printf("%s/owed", state) : NULL;
    free(state);
    if (d && make && paths_mkdirs(d, 0700) != VT_OK) {
        free(d);
        d = NULL;
    }
    return d;
}

void ws_owed_open(const char *root)
{
    pthread_mutex_lock(&mu);
    free(root_dir);
    root_dir = root ? strdup(root) : NULL;
    pthread_mutex_unlock(&mu);
}

/* The record's text: the workspace and the time a check is owed since. */
static char *record_text(void)
{
    struct timespec now;
    wall_now(&now);
    /* a second before now: status-change times lag the wall clock by a
     * tick, and a check that starts a little early loses nothing */
    record_since = (struct timespec){now.tv_sec - 1, now.tv_nsec};
    return str_printf("workspace\t%s\nsince\t%lld %ld\n", root_dir, (long long)record_since.tv_sec,
                      record_since.tv_nsec);
}

/* Drop the record file (mu held). */
static void record_drop(void)
{
    if (record)
        unlink(record);
    if (record_fd >= 0)
        close(record_fd);
    free(record);
    record = NULL;
    record_fd = -1;
    armed = 0;
}

/* This process's record file, empty (owing nothing), made when it is
 * not there: the first call makes it, later calls only write into it.
 * A file someone removed since (no link left) is made again. */
static int record_file(void)
{
    struct stat st;
    char key[17];
    ws_index_key(root_dir, key);
    /* removed since, or named for the workspace before a change of roots */
    if (record_fd >= 0 &&
        (fstat(record_fd, &st) != 0 || st.st_nlink == 0 || strcmp(key, record_key) != 0))
        record_drop();
    if (record_fd >= 0)
        return VT_OK;
    char *dir = owed_dir(1);
    if (!dir)
        return VT_ERR_IO;
    pid_t pid = getpid();
    if (pid != self_pid) {
        self_start = start_time(pid);
        self_pid = pid;
    }
    char *name = str_printf("%s/%s-%d-%llu", dir, key, (int)pid, self_start);
    free(dir);
    /* made empty: a crash before the text is in owes nothing, as no
     * session has started yet */
    int fd = name ? open(name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600) : -1;
    if (fd < 0) {
        free(name);
        return VT_ERR_IO;
    }
    record = name;
    record_fd = fd;
    memcpy(record_key, key, sizeof key);
    return VT_OK;
}

/* Arm this process's record: a check is owed from now (mu held).  The
 * text goes into the empty file in one write; the recovery reads only
 * records of processes that are gone, so none is read half written. */
static int record_write(void)
{
    int rc = record_file();
    char *text = rc == VT_OK ? record_text() : NULL;
    if (rc == VT_OK) {
        size_t n = text ? strlen(text) : 0;
        rc = text && pwrite(record_fd, text, n, 0) == (ssize_t)n ? VT_OK : VT_ERR_IO;
    }
    if (rc == VT_OK)
        armed = 1;
    else
        record_drop();
    free(text);
    return rc;
}

int ws_owed_call_begin(unsigned effects)
{
    if (!(effects & VT_EFFECT_EXECUTES))
        return VT_OK;
    pthread_mutex_lock(&mu);
    int rc = !root_dir || armed ? VT_OK : record_write();
    inflight++;
    pthread_mutex_unlock(&mu);
    return rc;
}

static void live_set(int64_t id, int running)
{
    for (size_t i = 0; i < nlive; i++)
        if (live[i] == id) {
            if (!running)
                live[i] = live[--nlive];
            return;
        }
    if (running && VT_GROW(&live, &caplive, nlive + 1) == 0)
        live[nlive++] = id;
}

/* No session left and no call under way: nothing is owed (mu held).
 * The file stays, emptied, for the next call to arm again; one that
 * cannot be emptied goes. */
static void clear_locked(void)
{
    if (armed && !nlive && !sessions && !inflight) {
        armed = 0;
        if (ftruncate(record_fd, 0) != 0)
            record_drop();
    }
}

void ws_owed_call_end(unsigned effects, const cJSON *resp)
{
    if (!(effects & VT_EFFECT_EXECUTES))
        return;
    const cJSON *id = cJSON_GetObjectItemCaseSensitive(resp, "session_id");
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(resp, "is_exited");
    pthread_mutex_lock(&mu);
    if (cJSON_IsNumber(id))
        live_set((int64_t)id->valuedouble, !cJSON_IsTrue(ex));
    if (inflight)
        inflight--;
    clear_locked();
    pthread_mutex_unlock(&mu);
}

void ws_owed_session_started(void)
{
    pthread_mutex_lock(&mu);
    sessions++;
    /* normally written when its call began; a session started some
     * other way arms the record now */
    if (root_dir && !armed && record_write() != VT_OK)
        host_log(VT_LOG_WARNING, "workspace",
                 "a check owed after a crash could not be recorded under "
                 "$XDG_STATE_HOME/vthost/owed/: if vthost is killed while this session runs, "
                 "what it leaves is not judged at the next start");
    pthread_mutex_unlock(&mu);
}

void ws_owed_session_ended(void)
{
    pthread_mutex_lock(&mu);
    if (sessions)
        sessions--;
    clear_locked();
    pthread_mutex_unlock(&mu);
}

void ws_owed_close(void)
{
    pthread_mutex_lock(&mu);
    if (armed && (nlive || sessions) && root_dir) {
        /* sessions still ran: their ends may not have been judged */
        char *r = NULL;
        ws_owed_check(root_dir, &record_since, &r);
        if (r)
            host_log(VT_LOG_WARNING, "workspace", "at exit: %s", r);
        free(r);
    }
    record_drop();
    free(live);
    live = NULL;
    nlive = caplive = inflight = sessions = 0;
    free(root_dir);
    root_dir = NULL;
    free(pending);
    pending = NULL;
    pthread_mutex_unlock(&mu);
}

char *ws_owed_take_report(void)
{
    pthread_mutex_lock(&mu);
    char *r = pending;
    pending = NULL;
    pthread_mutex_unlock(&mu);
    return r;
}

/* 1 when the process that wrote the record `name` (KEY-PID-START) still
 * runs, so its checks are its own. */
static int owner_alive(const char *name)
{
    int pid = 0;
    unsigned long long start = 0;
    const char *dash = strchr(name, '-');
    if (!dash || sscanf(dash + 1, "%d-%llu", &pid, &start) != 2 || pid <= 0)
        return 0;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return 0;
    return start_time(pid) == start;
}

/* The time a record `fd` owes a check since, when it is a regular file of
 * this user naming this workspace: 0; 1 when it is such a file left
 * empty (its process ended owing nothing: ws_owed.h); else -1. */
static int record_read(int fd, struct timespec *since)
{
    struct stat st;
    char buf[PATH_MAX + 128];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid())
        return -1;
    if (st.st_size == 0)
        return 1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *ws = strstr(buf, "workspace\t"), *sn = strstr(buf, "\nsince\t");
    if (!ws || !sn)
        return -1;
    *sn = '\0';
    long long sec = 0;
    long nsec = 0;
    if (strcmp(ws + 10, root_dir) || sscanf(sn + 7, "%lld %ld", &sec, &nsec) != 2)
        return -1;
    *since = (struct timespec){(time_t)sec, nsec};
    return 0;
}

/* Run the check one record owes (with mu held); 0, 1 or -1 (refused). */
static int recover_one(int dirfd, const char *name, char **report)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct timespec since;
    int r = fd >= 0 ? record_read(fd, &since) : -1;
    if (fd >= 0)
        close(fd);
    if (r == 1) {
        unlinkat(dirfd, name, 0);
        return 0;
    }
    if (r != 0) {
        host_log(VT_LOG_WARNING, "workspace",
                 "ignored %s in vthost's owed checks: not a record of this user for this "
                 "workspace (remove it)",
                 name);
        return -1;
    }
    int rc = ws_owed_check(root_dir, &since, report);
    if (rc == 0)
        unlinkat(dirfd, name, 0);
    return rc;
}

static void report_add(char **acc, char *text)
{
    if (!text)
        return;
    char *n = *acc ? str_printf("%s; %s", *acc, text) : strdup(text);
    if (n) {
        free(*acc);
        *acc = n;
    }
    free(text);
}

int ws_owed_recover(char **report)
{
    *report = NULL;
    pthread_mutex_lock(&mu);
    char *dir = root_dir ? owed_dir(0) : NULL, key[17];
    DIR *d = dir ? opendir(dir) : NULL;
    int live_left = 0;
    if (d)
        ws_index_key(root_dir, key);
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t n = strlen(e->d_name);
        if (strncmp(e->d_name, key, 16) || e->d_name[16] != '-' ||
            (n > 4 && !strcmp(e->d_name + n - 4, ".new")) || owner_alive(e->d_name))
            continue;
        char *r = NULL;
        live_left |= recover_one(dirfd(d), e->d_name, &r) == 1;
        report_add(report, r);
    }
    if (d)
        closedir(d);
    free(dir);
    if (*report) {
        host_log(VT_LOG_WARNING, "workspace", "a check owed since vthost last stopped: %s",
                 *report);
        free(pending);
        pending = strdup(*report);
    }
    pthread_mutex_unlock(&mu);
    return live_left;
}
