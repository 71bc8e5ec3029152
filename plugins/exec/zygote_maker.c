/* The leader maker's program (zygote.h; zygote.c says why it exists and
 * which protections hold).  The host runs it by the descriptor it opened
 * when the exec plugin loaded (a file swapped since is never run), with
 * its socket at Z_SOCK and the lifeline's read end at Z_LIFE and nothing
 * else, no environment, the host's credentials, limits, umask and
 * working directory.  Being a program of its own, it holds none of the
 * host's memory: a leader cloned from it copies its few mappings.
 *
 * First message: the key, the host's name (which a leader takes back),
 * the sandbox's configuration and the seccomp programs (built in the
 * host: this process opens no library to make them).  Then one request
 * per leader, as before: the plan's bytes and descriptors in, the clone's
 * pid and pidfd out. */
#include "execwatch.h"
#include "leader_wire.h"
#include "session.h"
#include "zygote.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The core's table of the host's functions: none here (a leader calls
 * none of them). */
const vt_host_api *api;

#define Z_MAX_BYTES (64u << 20)

/* What the host sent first, for the maker's life. */
static struct maker_state {
    uint64_t key;
    const sandbox *sb;
    char host_name[16];
} the_maker;

static int send_reply(int32_t err, pid_t pid, int pidfd)
{
    zygote_reply rp = {err, (int32_t)pid};
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
    while ((n = sendmsg(ZYGOTE_SOCK_FD, &m, MSG_NOSIGNAL)) < 0 && errno == EINTR)
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

/* One request's length and descriptors (moved above ZYGOTE_RECEIVED_FD,
 * so that child_setup's moves onto the fixed ones never overwrite
 * another); returns the count of descriptors, or -1 when the host is
 * gone. */
static int recv_head(uint64_t *len, int fds[ZYGOTE_MAX_FDS])
{
    char cbuf[CMSG_SPACE(ZYGOTE_MAX_FDS * sizeof(int))];
    struct iovec iov = {len, sizeof *len};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    ssize_t r;
    while ((r = recvmsg(ZYGOTE_SOCK_FD, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL)) < 0 && errno == EINTR)
        ;
    int n = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        int k = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        for (int i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof fd);
            int high = fcntl(fd, F_DUPFD_CLOEXEC, ZYGOTE_RECEIVED_FD);
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

/* One message's bytes (its length first), malloc'd; NULL when the host
 * is gone or it is too long. */
static char *recv_body(uint64_t len)
{
    char *buf = len <= Z_MAX_BYTES ? malloc(len ? len : 1) : NULL;
    if (buf && read_full(ZYGOTE_SOCK_FD, buf, len) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* One request: read, clone, answer.  -1 once the host is gone. */
static int serve_one(void)
{
    uint64_t len = 0;
    int fds[ZYGOTE_MAX_FDS];
    int nfd = recv_head(&len, fds);
    if (nfd < 0)
        return -1;
    char *buf = recv_body(len);
    if (!buf) {
        /* the rest of the request is still in the stream: the answer is
         * the last, and the host starts another maker */
        for (int i = 0; i < nfd; i++)
            close(fds[i]);
        send_reply(-ENOMEM, -1, -1);
        return -1;
    }
    zygote_plan z;
    wire_in r = {buf, buf + len, 0};
    int err = zygote_plan_read(&r, the_maker.key, the_maker.sb, fds, nfd, ZYGOTE_LIFE_FD, &z)
                  ? -EINVAL
                  : 0;
    pid_t pid = -1;
    int pidfd = -1;
    if (err == 0) {
        pid = clone_for_host(sandbox_clone_flags(z.plan), &pidfd);
        if (pid == 0) {
            prctl(PR_SET_NAME, the_maker.host_name);
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

/* The host's first message (zygote.c, send_config); kept for the
 * maker's life (the configuration's strings point into it). */
static int read_config(void)
{
    uint64_t len = 0;
    if (read_full(ZYGOTE_SOCK_FD, &len, sizeof len) != 0)
        return -1;
    char *buf = recv_body(len);
    if (!buf)
        return -1;
    wire_in r = {buf, buf + len, 0};
    the_maker.key = wire_get_u64(&r);
    const char *name = wire_get_str(&r);
    if (!name || strlen(name) >= sizeof the_maker.host_name)
        return -1;
    strcpy(the_maker.host_name, name);
    if (!(the_maker.sb = sandbox_unpack(&r)))
        return -1;
    struct sock_fprog f[3];
    for (int i = 0; i < 3; i++)
        if (sandbox_bpf_unpack(&r, &f[i]) != 0)
            return -1;
    if (r.bad || r.p != r.end)
        return -1;
    execwatch_adopt(&f[0]);
    sandbox_seccomp_watch_adopt(0, &f[1]);
    sandbox_seccomp_watch_adopt(1, &f[2]);
    return 0;
}

/* The maker's own state: nothing but its two descriptors above the
 * standard ones (the host closed the rest before the exec: closed again
 * here all the same), stdin and stdout on /dev/null (stderr stays: a
 * leader that cannot set up says so there, as one cloned by the host
 * does), default signal handling with the keyboard's blocked (a leader
 * expects them blocked from its start: spawn_child.c). */
static int maker_setup(void)
{
    if (fcntl(ZYGOTE_SOCK_FD, F_SETFD, FD_CLOEXEC) < 0 ||
        fcntl(ZYGOTE_LIFE_FD, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        return -1;
    if (syscall(SYS_close_range, 3, ZYGOTE_SOCK_FD - 1, 0) < 0 ||
        syscall(SYS_close_range, ZYGOTE_LIFE_FD + 1, ~0U, 0) < 0)
        for (int fd = 3; fd < 4096; fd++) /* before Linux 5.9 */
            if (fd != ZYGOTE_SOCK_FD && fd != ZYGOTE_LIFE_FD)
                close(fd);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; sig++)
        sigaction(sig, &sa, NULL);
    sigset_t kbd;
    spawn_keyboard_set(&kbd);
    if (sigprocmask(SIG_SETMASK, &kbd, NULL) != 0 || read_config() != 0)
        return -1;
    /* As root, the bounding set emptied here once is empty in every
     * leader, which then skips 41 changes of its credentials (a leader in
     * a user namespace starts with a full set there and drops it). */
    (void)sandbox_bset_drop();
    /* Attached here once, the base of the seccomp filter is every
     * leader's by inheritance (a reference, not a copy); a leader then
     * attaches only the small top part.  Without it, leaders attach the
     * whole filter. */
    (void)sandbox_seccomp_base_enter(the_maker.sb);
    return 0;
}

int main(void)
{
    /* "vthost-maker" in ps (and to tests counting a call's processes) */
    prctl(PR_SET_NAME, "vthost-maker");
    if (maker_setup() != 0)
        _exit(126);
    /* ready: the host clones leaders itself until it reads this */
    if (write(ZYGOTE_SOCK_FD, "r", 1) != 1)
        _exit(126);
    for (;;) {
        struct pollfd f[2] = {{.fd = ZYGOTE_SOCK_FD, .events = POLLIN},
                              {.fd = ZYGOTE_LIFE_FD, .events = POLLIN}};
        if (poll(f, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            _exit(126);
        }
        if (f[1].revents || (f[0].revents & ~POLLIN) || serve_one() != 0)
            _exit(0); /* the host is gone, or closed the socket */
    }
}
