/* The leader maker (zygote.h).
 *
 * Why: a session leader cloned from the host copies the host's page
 * tables (plugins, threads' stacks and arenas, the workspace index) and
 * leaves every page of the host write-protected until its next write
 * faults; cloned from this small process, only the maker's few pages are
 * shared, and the host's pages never are.
 *
 * What it is: a fork of the host, taken at the second command that needs
 * a leader (a one-shot call has one: the host clones it), once the
 * sandbox's configuration and the run-time checks' filter exist (both
 * fixed for the plugin's
 * life: the maker reads them from its own copy, and each request names
 * the configuration it was made for).  It has the host's credentials,
 * limits, umask and working directory as they were then, and nothing
 * more: every descriptor but its socket and the lifeline's read end is
 * closed, stdin and stdout are /dev/null, no handler is installed, and
 * its capability bounding set is empty (what a leader drops anyway).
 * It stays as dumpable as the host (which holds all it holds and more):
 * the HTTP server's peer check reads its descriptors like those of any
 * other process vthost started.  Each request brings one command's plan as
 * bytes (zygote_plan.c) and its descriptors (SCM_RIGHTS); the maker
 * clones the leader with CLONE_PARENT, so the leader is the host's
 * child exactly as before (the host reaps it, its pidfd is the host's),
 * and runs spawn_lead_session on it.
 *
 * Who reaches it: only the host, through a socketpair (no path).  A
 * leader closes the maker's socket in child_setup with every other
 * descriptor above its fixed ones, before anything of the command runs,
 * and the command lives in its own PID namespace with a fresh /proc: it
 * can neither hold nor find the socket.
 *
 * Its end: the host's lifeline (spawn.c) reads EOF once the host is
 * gone, however it died, and the socket reads EOF once the host closed
 * it (zygote_fini) or died; the maker polls both.  (A parent-death
 * signal would fire when the forking *thread* ends, which the server's
 * worker threads do while the host lives on.) */
#include "leader_wire.h"
#include "zygote.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>

#include "execwatch.h"

/* The maker's own descriptors, above the leader's fixed ones and below
 * where the received ones are moved. */
#define Z_SOCK 60
#define Z_LIFE 61
#define Z_RECEIVED 64
#define Z_MAX_BYTES (64u << 20)

typedef struct reply {
    int32_t err; /* 0 or a negative errno */
    int32_t pid;
} reply;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int sock = -1;
static pid_t maker = -1;
static uint64_t made_for; /* the key the running maker was forked with */
static int unable;        /* a maker could not set itself up: none again */
static unsigned asked;    /* leaders asked for so far */
/* In the maker: the host's name, which a leader takes back. */
static char host_name[16];

/* What the maker's copy of the host must match: the configuration and
 * whether the run-time checks' filter existed when it was forked. */
static uint64_t key_of(const sandbox *sb)
{
    return (uint64_t)(uintptr_t)sb ^ (uint64_t)execwatch_available();
}

/* ---- the maker --------------------------------------------------------- */

static int send_reply(int32_t err, pid_t pid, int pidfd)
{
    reply rp = {err, (int32_t)pid};
    struct iovec iov = {&rp, sizeof rp};
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (pidfd >= 0) {
        m.msg_control = cbuf;
        m.msg_controllen = sizeof cbuf;
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(c), &pidfd, sizeof pidfd);
    }
    ssize_t n;
    while ((n = sendmsg(Z_SOCK, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    return n == (ssize_t)sizeof rp ? 0 : -1;
}

/* Exactly n bytes, or -1 (EOF, error). */
static int read_full(int fd, void *buf, size_t n)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/* One request's length and descriptors (moved above Z_RECEIVED, so that
 * child_setup's moves onto the fixed ones never overwrite another);
 * returns the count of descriptors, or -1 when the host is gone. */
static int recv_head(uint64_t *len, int fds[ZYGOTE_MAX_FDS])
{
    char cbuf[CMSG_SPACE(ZYGOTE_MAX_FDS * sizeof(int))];
    struct iovec iov = {len, sizeof *len};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t r;
    while ((r = recvmsg(Z_SOCK, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            int high = fcntl(fd, F_DUPFD_CLOEXEC, Z_RECEIVED);
            close(fd);
            if (n < ZYGOTE_MAX_FDS && high >= 0)
                fds[n++] = high;
            else if (high >= 0)
                close(high);
        }
    }
    if (r != (ssize_t)sizeof *len || (m.msg_flags & MSG_CTRUNC)) {
        for (int i = 0; i < n; i++)
            close(fds[i]);
        return -1;
    }
    return n;
}

/* The leader, a child of the host (CLONE_PARENT: the maker's parent). */
static pid_t clone_for_host(int flags, int *pidfd)
{
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = (uint64_t)(unsigned)flags | CLONE_PARENT | CLONE_PIDFD;
    a.pidfd = (uint64_t)(uintptr_t)pidfd;
    a.exit_signal = 0; /* CLONE_PARENT: the maker's own, SIGCHLD */
    long r = syscall(SYS_clone3, &a, sizeof a);
    if (r < 0 && errno == ENOSYS) {
        /* before Linux 5.3, or under valgrind: clone, then pidfd_open */
        r = syscall(SYS_clone, (unsigned long)(unsigned)flags | CLONE_PARENT, NULL, NULL, NULL,
                    NULL);
        if (r > 0)
            *pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r, 0);
    }
    return (pid_t)r;
}

/* One request: read, clone, answer.  -1 once the host is gone. */
static int serve_one(const sandbox *sb, uint64_t key)
{
    uint64_t len = 0;
    int fds[ZYGOTE_MAX_FDS];
    int nfd = recv_head(&len, fds);
    if (nfd < 0)
        return -1;
    char *buf = len <= Z_MAX_BYTES ? malloc(len ? len : 1) : NULL;
    if (!buf || read_full(Z_SOCK, buf, len) != 0) {
        /* the rest of the request is still in the stream: the answer is
         * the last, and the host starts another maker */
        free(buf);
        for (int i = 0; i < nfd; i++)
            close(fds[i]);
        send_reply(-ENOMEM, -1, -1);
        return -1;
    }
    zygote_plan z;
    wire_in r = {buf, buf + len, 0};
    int err = zygote_plan_read(&r, key, sb, fds, nfd, Z_LIFE, &z) ? -EINVAL : 0;
    pid_t pid = -1;
    int pidfd = -1;
    if (err == 0) {
        pid = clone_for_host(sandbox_clone_flags(z.plan), &pidfd);
        if (pid == 0) {
            prctl(PR_SET_NAME, host_name);
            spawn_lead_session(&z.c);
        }
        err = pid < 0 ? -errno : 0;
        zygote_plan_free(&z);
    }
    for (int i = 0; i < nfd; i++)
        close(fds[i]);
    free(buf);
    int rc = send_reply(err, pid, pidfd);
    if (pidfd >= 0)
        close(pidfd);
    return rc;
}

/* The maker's own state: its two descriptors in place, everything else
 * of the host's closed, stdin and stdout on /dev/null (stderr stays: a
 * leader that cannot set up says so there, as one cloned by the host
 * does), default signal handling with the keyboard's blocked (a leader
 * expects them blocked from its start: spawn_child.c). */
static int maker_setup(int s, int life, const sandbox *sb)
{
    /* first out of the way of each other's places */
    s = fcntl(s, F_DUPFD_CLOEXEC, Z_RECEIVED);
    life = fcntl(life, F_DUPFD_CLOEXEC, Z_RECEIVED);
    if (s < 0 || life < 0 || dup2(s, Z_SOCK) < 0 || dup2(life, Z_LIFE) < 0)
        return -1;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        return -1;
    if (syscall(SYS_close_range, 3, Z_SOCK - 1, 0) < 0 ||
        syscall(SYS_close_range, Z_LIFE + 1, ~0U, 0) < 0)
        for (int fd = 3; fd < 4096; fd++) /* before Linux 5.9 */
            if (fd != Z_SOCK && fd != Z_LIFE)
                close(fd);
    fcntl(Z_SOCK, F_SETFD, FD_CLOEXEC);
    fcntl(Z_LIFE, F_SETFD, FD_CLOEXEC);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &sa, NULL);
    sigset_t kbd;
    spawn_keyboard_set(&kbd);
    /* As root, the bounding set emptied here once is empty in every
     * leader, which then skips 41 changes of its credentials (a leader in
     * a user namespace starts with a full set there and drops it). */
    (void)sandbox_bset_drop();
    /* Attached here once, the base of the seccomp filter is every
     * leader's by inheritance (a reference, not a copy); a leader then
     * attaches only the small top part.  Without it, leaders attach the
     * whole filter. */
    (void)sandbox_seccomp_base_enter(sb);
    return sigprocmask(SIG_SETMASK, &kbd, NULL);
}

static _Noreturn void maker_main(int s, int life, const sandbox *sb, uint64_t key)
{
    if (maker_setup(s, life, sb) != 0)
        _exit(126);
    /* ready: the host clones leaders itself until it reads this */
    if (write(Z_SOCK, "r", 1) != 1)
        _exit(126);
    /* "vthost-maker" in ps (and to tests counting a call's processes) */
    prctl(PR_GET_NAME, host_name);
    prctl(PR_SET_NAME, "vthost-maker");
    for (;;) {
        struct pollfd f[2] = {{.fd = Z_SOCK, .events = POLLIN}, {.fd = Z_LIFE, .events = POLLIN}};
        if (poll(f, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(126);
        }
        if (f[1].revents || (f[0].revents & ~POLLIN) || serve_one(sb, key) != 0)
            _exit(0); /* the host is gone, or closed the socket */
    }
}

/* ---- the host side ----------------------------------------------------- */

static void maker_end(void)
{
    if (sock >= 0)
        close(sock);
    sock = -1;
    if (maker > 0)
        while (waitpid(maker, NULL, 0) < 0 && errno == EINTR)
            ;
    maker = -1;
}

static int maker_start(const sandbox *sb, uint64_t key, int lifeline)
{
    /* Its leaders attach the checks' listener with the top of the
     * seccomp filter in it (without it, the two apart). */
    if (execwatch_available())
        (void)sandbox_seccomp_watch_prepare();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return VT_ERR_IO;
    pid_t pid = fork();
    if (pid == 0)
        maker_main(sv[1], lifeline, sb, key);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return VT_ERR_IO;
    }
    sock = sv[0];
    maker = pid;
    made_for = key;
    char ready = 0;
    ssize_t n;
    while ((n = read(sock, &ready, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1 || ready != 'r') {
        maker_end(); /* it could not set itself up: the host clones */
        return VT_ERR_UNSUPPORTED;
    }
    return VT_OK;
}

static int send_request(const wire_out *w, const int *fds, int nfd)
{
    uint64_t len = w->len;
    struct iovec iov = {&len, sizeof len};
    char cbuf[CMSG_SPACE(ZYGOTE_MAX_FDS * sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
    if (nfd > 0) {
        m.msg_control = cbuf;
        m.msg_controllen = CMSG_SPACE((size_t)nfd * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN((size_t)nfd * sizeof(int));
        memcpy(CMSG_DATA(c), fds, (size_t)nfd * sizeof(int));
    }
    ssize_t n;
    while ((n = sendmsg(sock, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (n != (ssize_t)sizeof len)
        return -1;
    for (size_t done = 0; done < w->len;) {
        n = send(sock, w->buf + done, w->len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* The maker's answer: 0 with *pid and *pidfd, a negative errno from its
 * clone, or 1 when the maker is gone (no answer). */
static int recv_reply(pid_t *pid, int *pidfd)
{
    reply rp;
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&rp, sizeof rp};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t n;
    while ((n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    struct cmsghdr *c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
    *pidfd = -1;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
        c->cmsg_len == CMSG_LEN(sizeof(int)))
        memcpy(pidfd, CMSG_DATA(c), sizeof *pidfd);
    if (n != (ssize_t)sizeof rp) {
        if (*pidfd >= 0)
            close(*pidfd);
        *pidfd = -1;
        return 1;
    }
    *pid = rp.pid;
    return rp.err;
}

int zygote_clone(const child_plan *c, int lifeline, pid_t *pid, int *pidfd)
{
    static int off = -1;
    if (off < 0)
        off = getenv("VTHOST_NO_LEADER_MAKER") != NULL;
    if (off || !c->plan)
        return VT_ERR_UNSUPPORTED;
    const sandbox *sb = c->req->sandbox;
    uint64_t key = key_of(sb);
    wire_out w = {0};
    int fds[ZYGOTE_MAX_FDS];
    int nfd = zygote_plan_write(c, key, &w, fds);
    int rc = VT_ERR_UNSUPPORTED;
    pthread_mutex_lock(&mu);
    for (int attempt = 0; attempt < 2 && !w.failed; attempt++) {
        if (sock >= 0 && made_for != key)
            maker_end();
        if (sock < 0) {
            /* The first leader is the host's own: a one-shot call has
             * only one, and a maker (a fork of the host) would only add
             * to it. */
            if (unable || asked++ == 0)
                break;
            int st = maker_start(sb, key, lifeline);
            unable = st == VT_ERR_UNSUPPORTED;
            if (st != VT_OK)
                break;
        }
        if (send_request(&w, fds, nfd) != 0) {
            maker_end(); /* it was gone before this request: a new one, once */
            continue;
        }
        /* Delivered: without an answer the leader may exist, so the
         * caller must not start another (the call fails instead). */
        int r = recv_reply(pid, pidfd);
        if (r == 1)
            maker_end();
        else if (r < 0)
            errno = -r;
        rc = r == 0 ? VT_OK : VT_ERR_IO;
        break;
    }
    pthread_mutex_unlock(&mu);
    free(w.buf);
    return rc;
}

void zygote_fini(void)
{
    pthread_mutex_lock(&mu);
    maker_end();
    sandbox_seccomp_watch_free();
    pthread_mutex_unlock(&mu);
}
