/* The leader maker, the host's side (zygote.h; the maker's program is
 * zygote_maker.c).
 *
 * Why: a session leader cloned from the host copies the host's page
 * tables (plugins, threads' stacks and arenas, the workspace index) and
 * leaves every page of the host write-protected until its next write
 * faults; cloned from this small program, only its few mappings and
 * pages are copied, and the host's pages are never shared.
 *
 * What it is: a program of its own (vthost-leader-maker, built from the
 * exec plugin's leader code, in libexec/vthost/), opened by descriptor
 * when the plugin loads and run by the host at the second command that
 * needs a leader (a one-shot call has one: the host clones it), once the
 * sandbox's configuration and the run-time checks' filter exist (both
 * fixed for the plugin's life: the host sends them first, and each
 * request names the configuration it was made for).  It has the host's credentials,
 * limits, umask and working directory as they were then, and nothing
 * more: no environment, no descriptor but its socket and the lifeline's
 * read end (the host's child closes every other before the exec), stdin
 * and stdout on /dev/null, no handler installed, and its capability
 * bounding set empty (what a leader drops anyway).  It is as dumpable as
 * any program the host runs: the HTTP server's peer check reads its
 * descriptors like those of any other process vthost started.  Each
 * request brings one command's plan as bytes (zygote_plan.c) and its
 * descriptors (SCM_RIGHTS); the maker clones the leader with
 * CLONE_PARENT, so the leader is the host's child exactly as before (the
 * host reaps it, its pidfd is the host's), and runs spawn_lead_session
 * on it.
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
#include "execwatch.h"
#include "leader_wire.h"
#include "zygote.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int sock = -1;
static pid_t maker = -1;
static uint64_t made_for; /* the key the running maker was started with */
static int unable;        /* a maker could not set itself up: none again */
static unsigned asked;    /* leaders asked for so far */
static int program = -1;  /* the maker's program (zygote_init) */

/* What the maker's configuration must match: the sandbox's and whether
 * the run-time checks' filter existed when it was started. */
static uint64_t key_of(const sandbox *sb)
{
    return (uint64_t)(uintptr_t)sb ^ (uint64_t)execwatch_available();
}

void zygote_init(void)
{
    Dl_info info;
    char path[PATH_MAX], dir[PATH_MAX];
    if (program >= 0 || !dladdr((void *)zygote_init, &info) || !info.dli_fname ||
        !realpath(info.dli_fname, dir))
        return;
    /* lib/vthost/plugins/exec.so -> libexec/vthost/vthost-leader-maker */
    char *plugins = dirname(dir);
    if (snprintf(path, sizeof path, "%s/../../../libexec/vthost/%s", plugins, ZYGOTE_PROGRAM) >=
        (int)sizeof path)
        return;
    program = open(path, O_PATH | O_CLOEXEC);
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

/* In the host's child: the maker's descriptors in their places, every
 * other closed, stdin and stdout on /dev/null, then the program, with no
 * environment.  Async-signal-safe (the host has threads). */
static _Noreturn void exec_maker(int s, int life)
{
    /* first out of the way of each other's places */
    s = fcntl(s, F_DUPFD, ZYGOTE_RECEIVED_FD);
    life = fcntl(life, F_DUPFD, ZYGOTE_RECEIVED_FD);
    int prog = fcntl(program, F_DUPFD, ZYGOTE_RECEIVED_FD);
    if (s < 0 || life < 0 || prog < 0 || dup2(s, ZYGOTE_SOCK_FD) < 0 ||
        dup2(life, ZYGOTE_LIFE_FD) < 0 || dup3(prog, ZYGOTE_PROGRAM_FD, O_CLOEXEC) < 0)
        _exit(126);
    if (syscall(SYS_close_range, 3, ZYGOTE_SOCK_FD - 1, 0) < 0 ||
        syscall(SYS_close_range, ZYGOTE_PROGRAM_FD + 1, ~0U, 0) < 0)
        for (int fd = 3; fd < 4096; fd++) /* before Linux 5.9 */
            if (fd < ZYGOTE_SOCK_FD || fd > ZYGOTE_PROGRAM_FD)
                close(fd);
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        _exit(126);
    char *argv[] = {"vthost-maker", NULL}, *envp[] = {NULL};
    syscall(SYS_execveat, ZYGOTE_PROGRAM_FD, "", argv, envp, AT_EMPTY_PATH);
    _exit(126);
}

static int send_all(const void *buf, size_t len)
{
    for (size_t done = 0; done < len;) {
        ssize_t n = send(sock, (const char *)buf + done, len - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* The maker's first message (zygote_maker.c, read_config): the key, the
 * name a leader takes (this thread's, as a leader the host clones has
 * it), the configuration and the programs it cannot build itself. */
static int send_config(const sandbox *sb, uint64_t key)
{
    char name[16] = {0};
    prctl(PR_GET_NAME, name);
    wire_out w = {0};
    wire_put_u64(&w, key);
    wire_put_str(&w, name);
    sandbox_pack(sb, &w);
    sandbox_bpf_pack(execwatch_filter(), &w);
    sandbox_bpf_pack(sandbox_seccomp_watch_program(0), &w);
    sandbox_bpf_pack(sandbox_seccomp_watch_program(1), &w);
    uint64_t len = w.len;
    int rc = w.failed || send_all(&len, sizeof len) != 0 || send_all(w.buf, w.len) != 0 ? -1 : 0;
    free(w.buf);
    return rc;
}

static int maker_start(const sandbox *sb, uint64_t key, int lifeline)
{
    if (program < 0)
        return VT_ERR_UNSUPPORTED;
    /* Its leaders attach the checks' listener with the top of the
     * seccomp filter in it (without it, the two apart). */
    if (execwatch_available())
        (void)sandbox_seccomp_watch_prepare();
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return VT_ERR_IO;
    pid_t pid = fork();
    if (pid == 0)
        exec_maker(sv[1], lifeline);
    close(sv[1]);
    if (pid < 0) {
        close(sv[0]);
        return VT_ERR_IO;
    }
    sock = sv[0];
    maker = pid;
    made_for = key;
    char ready = 0;
    ssize_t n = -1;
    if (send_config(sb, key) == 0)
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
    return send_all(w->buf, w->len);
}

/* The maker's answer: 0 with *pid and *pidfd, a negative errno from its
 * clone, or 1 when the maker is gone (no answer). */
static int recv_reply(pid_t *pid, int *pidfd)
{
    zygote_reply rp;
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
    if (program >= 0)
        close(program);
    program = -1;
    pthread_mutex_unlock(&mu);
}
