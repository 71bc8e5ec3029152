/* A one-shot call's side of the workspace keeper (ws_keeper.h): ask it,
 * load what it vouches for, apply the changes it reports; start one. */
#include "ws_keeper.h"
#include "ws_keeper_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "paths.h"

static int enabled = 1, allowed;
static uint32_t min_dirs = 2000, idle_s = 600;

void ws_keeper_configure(int on, uint32_t dirs, uint32_t idle)
{
    enabled = on;
    min_dirs = dirs;
    idle_s = idle;
}

void ws_keeper_allow_start(void) { allowed = 1; }

int wsk_paths(const char *root, int make, wsk_files *f)
{
    const size_t cap = sizeof f->sock;
    char *cache = ws_index_cache_dir(), key[17];
    char *dir = cache ? paths_join(cache, "keeper") : NULL;
    free(cache);
    if (!dir)
        return -1;
    if (make)
        paths_mkdirs(dir, 0700);
    struct stat st;
    int ok =
        lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == getuid() && !(st.st_mode & 077);
    ws_index_key(root, key);
    ok = ok &&
         (size_t)snprintf(f->sock, cap, "%s/%s-" WSK_GEN ".sock", dir, key) <
             sizeof(((struct sockaddr_un *)0)->sun_path) &&
         (size_t)snprintf(f->lock, cap, "%s/%s-" WSK_GEN ".lock", dir, key) < cap &&
         (size_t)snprintf(f->idx, cap, "%s/%s-" WSK_GEN ".idx", dir, key) < cap;
    free(dir);
    return ok ? 0 : -1;
}

/* The keeper's pid as its lock file names it, or -1. */
static pid_t lock_pid(const char *lock)
{
    int fd = open(lock, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    char b[32] = {0};
    ssize_t n = fd >= 0 ? read(fd, b, sizeof b - 1) : -1;
    if (fd >= 0)
        close(fd);
    long v = n > 0 ? strtol(b, NULL, 10) : -1;
    return v > 0 ? (pid_t)v : -1;
}

/* A connection to the keeper at `f`, its peer checked to be the process
 * holding the lock, as this user; -1 when none answers. */
static int dial(const wsk_files *f)
{
    const char *sock = f->sock;
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof a.sun_path)
        return -1;
    memcpy(a.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {WSK_TIMEOUT_MS / 1000, 0};
    struct ucred cr;
    socklen_t cl = sizeof cr;
    if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) ||
        connect(fd, (struct sockaddr *)&a, sizeof a) ||
        getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &cl) || cr.uid != getuid() ||
        cr.pid != lock_pid(f->lock)) {
        close(fd);
        return -1;
    }
    return fd;
}

/* The connection a process's asks share, and a buffered reader of the
 * keeper's answers on it.  The keeper keeps it open for WSK_TIMEOUT_MS
 * after each answer, so one call's asks (a dozen, from the guard, the
 * after-call checks and the sandbox's plan) cost one connect. */
typedef struct wsk_conn {
    int fd, got; /* got: a byte of the current answer arrived */
    pid_t pid;   /* the process that dialled it */
    wsk_files f; /* the keeper's files, as checked when it was dialled */
    size_t pos, len;
    char buf[8192];
} wsk_conn;

void wsx_keeper_hangup(ws_index *ix)
{
    if (!ix->keeper_conn)
        return;
    if (ix->keeper_conn->fd >= 0)
        close(ix->keeper_conn->fd);
    free(ix->keeper_conn);
    ix->keeper_conn = NULL;
}

static int rd_byte(wsk_conn *r)
{
    while (r->pos == r->len) {
        ssize_t n = recv(r->fd, r->buf, sizeof r->buf, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        r->got = 1;
        r->pos = 0;
        r->len = (size_t)n;
    }
    return (unsigned char)r->buf[r->pos++];
}

/* Bytes up to and with `end` into out (room cap); their number, or -1. */
static ssize_t rd_until(wsk_conn *r, char *out, size_t cap, int end)
{
    for (size_t n = 0; n < cap; n++) {
        int c = rd_byte(r);
        if (c < 0)
            return -1;
        out[n] = (char)c;
        if (c == end)
            return (ssize_t)n + 1;
    }
    return -1;
}

/* One request `req` (n bytes) sent on c and its answer read: the header
 * into *r, the changes into ix's log as they come.  0, or -1 (c->got
 * says whether any of the answer had arrived). */
static int exchange(ws_index *ix, wsk_conn *c, const char *req, size_t n, wsk_reply *r)
{
    char line[4200];
    unsigned long long rid = 0, rseq = 0;
    c->got = 0;
    if (c->pos != c->len) /* bytes nobody asked for: not a keeper's answer */
        return -1;
    ssize_t hl =
        send(c->fd, req, n, MSG_NOSIGNAL) == (ssize_t)n ? rd_until(c, line, 160, '\n') : -1;
    if (hl > 0)
        line[hl - 1] = '\0';
    int ok = hl > 0 && sscanf(line, WSK_PROTO " OK %llx %llu %d %zu", &rid, &rseq, &r->complete,
                              &r->nchanges) == 4;
    r->id = rid;
    r->seq = rseq;
    for (size_t i = 0; ok && i < r->nchanges; i++) {
        int kind = rd_byte(c), dir = rd_byte(c), noise = rd_byte(c);
        ok = kind >= 0 && kind <= WSX_K_ATTRIB && dir >= 0 && noise >= 0 &&
             rd_until(c, line, sizeof line, '\0') > 1;
        if (ok)
            wsx_log_change(ix, line, kind, dir != 0, noise != 0);
    }
    /* a whole answer leaves nothing unread: anything more is not one */
    return ok && c->pos == c->len ? 0 : -1;
}

/* Ask "vouch, and what changed since `since`" on ix's connection, dialled
 * when there is none.  A kept connection the keeper closed before any of
 * its answer came (its idle time, a full table, an answer sent by a
 * thread) is dialled again once; any other failure: -1. */
static int ask(ws_index *ix, const wsk_files *f, uint64_t id, uint64_t since, wsk_reply *r)
{
    char req[128];
    int n = snprintf(req, sizeof req, WSK_PROTO " SYNC %llx %llu\n", (unsigned long long)id,
                     (unsigned long long)since);
    /* a child forked with the index dials its own: two processes taking
     * turns on one stream could each read the other's answer (one asked
     * earlier, so not a barrier for the other) */
    if (ix->keeper_conn && ix->keeper_conn->pid != getpid())
        wsx_keeper_hangup(ix); /* our copy only */
    for (int tries = 0; tries < 2; tries++) {
        int kept = ix->keeper_conn != NULL;
        if (!kept) {
            wsk_conn *c = malloc(sizeof *c);
            if (!c || (c->fd = dial(f)) < 0) {
                free(c);
                return -1;
            }
            c->pos = c->len = 0;
            c->pid = getpid();
            c->f = *f;
            ix->keeper_conn = c;
        }
        if (exchange(ix, ix->keeper_conn, req, (size_t)n, r) == 0)
            return 0;
        int got = ix->keeper_conn->got;
        wsx_keeper_hangup(ix);
        if (!kept || got)
            return -1;
    }
    return -1;
}

/* The test knobs emulating a small inotify limit or queue: a keeper
 * could not keep such a workspace, so it is not asked. */
static int knobbed(const ws_index *ix) { return ix->max_watches || ix->max_queued; }

static int sync_with(ws_index *ix)
{
    wsk_files f;
    if (!enabled || knobbed(ix))
        return -1;
    if (ix->keeper_conn)
        f = ix->keeper_conn->f; /* checked at its dial, in this process */
    else if (wsk_paths(ix->root, 0, &f))
        return -1;
    for (int tries = 0; tries < 3; tries++) {
        int first = !ix->remote;
        wsk_reply r = {0};
        if (ask(ix, &f, first ? 0 : ix->keeper_id, first ? 0 : ix->keeper_seq, &r) != 0)
            return -1;
        if (!first && (r.id != ix->keeper_id || !r.complete))
            return -1; /* another keeper, or its journal has a gap */
        if (!first && r.seq == ix->keeper_seq)
            return 0;
        /* the tree as the keeper saved it at r.seq; a later save by the
         * keeper in between (another caller) makes the stamps differ:
         * ask again (the changes so far are taken) */
        if (!first)
            ix->keeper_seq = r.seq;
        ix->cache_path = f.idx; /* the keeper's file, this once */
        int read = wsx_cache_read(ix);
        ix->cache_path = NULL;
        if (read == 0 && ix->file_id == r.id && ix->file_seq == r.seq) {
            ix->remote = 1;
            ix->keeper_id = r.id;
            ix->keeper_seq = r.seq;
            ix->dirty = 0;
            return 0;
        }
    }
    return -1;
}

int wsx_keeper_sync(ws_index *ix)
{
    if (sync_with(ix) == 0)
        return 0;
    wsx_keeper_hangup(ix); /* not asked again in this process */
    return -1;
}

void wsx_keeper_start(ws_index *ix)
{
    if (!enabled || !allowed || knobbed(ix) || ix->remote || ix->degraded || ix->cut ||
        ix->live_dirs < min_dirs)
        return;
    char idle[16];
    snprintf(idle, sizeof idle, "%u", idle_s);
    char *argv[] = {"vthost", WS_KEEPER_ARG, ix->root, idle, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (posix_spawn_file_actions_init(&fa))
        return;
    posix_spawnattr_init(&at);
    /* its own session, nothing of ours held: stdio on /dev/null and every
     * other descriptor closed, so nobody waits on it */
    posix_spawnattr_setflags(&at,
                             POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &all);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    pid_t pid;
    extern char **environ;
    /* this executable by its path (under valgrind /proc/self/exe is the
     * tool); it forks the keeper and ends at once (ws_keeper_main) */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        if (posix_spawn(&pid, self, &fa, &at, argv, environ) == 0)
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
            }
    }
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
}
