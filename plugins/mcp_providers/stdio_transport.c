/* The stdio transport: a provider as a child process.
 *
 * The child is forked by the provider's own reader thread, which lives
 * exactly as long as the child: PR_SET_PDEATHSIG fires when the thread
 * that forked exits, so forking from a short-lived call thread would
 * kill the provider when that thread ends.  The child gets its own
 * process group (the whole group is killed on stop) and one end of a
 * socket pair as stdin and stdout: writes to a socket can say
 * MSG_NOSIGNAL, so a provider that died never raises SIGPIPE in vthost.
 * The reader watches the child's death beside its output (a pidfd): a
 * provider that crashed while a helper it spawned holds its stdout
 * fails its calls at once, and its group (the helper too) is killed.
 * Messages are newline-delimited JSON (the MCP stdio transport). */
#define _GNU_SOURCE /* pipe2, execvpe */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "provider.h"

typedef struct stdio_state {
    pid_t pid;
    int fd; /* our end of the child's stdin/stdout socket */
    int io_running, io_joinable;
    pthread_t io;
    pthread_mutex_t wmu; /* one writer at a time */
} stdio_state;

/* p->tp_state, created on first use.  Caller holds p->mu. */
static stdio_state *state_locked(provider *p)
{
    if (!p->tp_state) {
        stdio_state *s = calloc(1, sizeof *s);
        if (!s)
            return NULL;
        s->fd = -1;
        pthread_mutex_init(&s->wmu, NULL);
        p->tp_state = s;
    }
    return p->tp_state;
}

static int stdio_send(provider *p, const char *text, const transport_req *req)
{
    (void)req;
    size_t len = strlen(text), off = 0;
    int rc = 0;
    pthread_mutex_lock(&p->mu);
    stdio_state *s = p->tp_state;
    pthread_mutex_unlock(&p->mu);
    if (!s)
        return -1;
    pthread_mutex_lock(&s->wmu);
    pthread_mutex_lock(&p->mu);
    int fd = s->fd;
    pthread_mutex_unlock(&p->mu);
    while (fd >= 0 && off <= len) {
        const char *b = off < len ? text + off : "\n";
        size_t n = off < len ? len - off : 1;
        ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            rc = -1;
            break;
        }
        if (off == len)
            break;
        off += (size_t)w;
    }
    pthread_mutex_unlock(&s->wmu);
    return fd < 0 ? -1 : rc;
}

/* One line; returns 0, or -1 when it is not JSON-RPC at all. */
static int handle_line(provider *p, const char *line, size_t len)
{
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    if (len == 0)
        return 0;
    return provider_receive(p, cJSON_ParseWithLength(line, len));
}

static char *describe_exit(const char *name, int status)
{
    char buf[200];
    if (WIFEXITED(status))
        snprintf(buf, sizeof buf, "MCP provider '%s' exited with status %d", name,
                 WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
        snprintf(buf, sizeof buf, "MCP provider '%s' was killed by signal %d", name,
                 WTERMSIG(status));
    else
        snprintf(buf, sizeof buf, "MCP provider '%s' ended", name);
    return strdup(buf);
}

/* A descriptor that becomes readable when process `pid` exits (Linux
 * 5.3), or -1: then the reader looks every DEATH_POLL_MS. */
#define DEATH_POLL_MS 100
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    long fd = syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        (void)fcntl((int)fd, F_SETFD, FD_CLOEXEC);
        return (int)fd;
    }
#endif
    (void)pid;
    return -1;
}

/* 1 once the child has exited (it is left to be reaped). */
static int child_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Waits until fd has something to read (1), or the child has exited
 * (0): its death is watched on its own, since a helper it spawned may
 * hold its stdout open long after it died. */
static int wait_readable(int fd, int pidfd, pid_t pid)
{
    for (;;) {
        struct pollfd f[2] = {{.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
        int n = poll(f, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? -1 : DEATH_POLL_MS);
        if (n < 0 && errno != EINTR)
            return 1; /* let read() say what is wrong */
        if (n > 0 && f[0].revents)
            return 1;
        if ((n > 0 && pidfd >= 0 && f[1].revents) || (pidfd < 0 && child_exited(pid)))
            return 0;
    }
}

/* Reads until EOF, a protocol failure or the child's death (what it
 * wrote before it died is still read); returns the failure or NULL. */
static char *read_loop(provider *p, int fd, pid_t pid, int pidfd)
{
    int dead = 0;
    size_t cap = 65536, len = 0;
    char *buf = malloc(cap);
    char why[256];
    if (!buf)
        return strdup("out of memory");
    for (;;) {
        if (len == cap) {
            if (cap > p->lim.max_message) {
                snprintf(why, sizeof why, "MCP provider '%s' sent a message over %zu bytes",
                         p->name, p->lim.max_message);
                free(buf);
                return strdup(why);
            }
            if (VT_GROW(&buf, &cap, len + 1) != 0) {
                free(buf);
                return strdup("out of memory");
            }
        }
        if (!dead && !wait_readable(fd, pidfd, pid))
            dead = 1;
        /* once it is dead only what is already there is read */
        ssize_t n = recv(fd, buf + len, cap - len, dead ? MSG_DONTWAIT : 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            free(buf);
            return NULL;
        }
        size_t start = 0, scan = len;
        len += (size_t)n;
        for (size_t i = scan; i < len; i++)
            if (buf[i] == '\n') {
                if (handle_line(p, buf + start, i - start) < 0) {
                    snprintf(why, sizeof why,
                             "MCP provider '%s' sent malformed JSON-RPC "
                             "(not a JSON object)",
                             p->name);
                    free(buf);
                    return strdup(why);
                }
                start = i + 1;
            }
        if (len - start > p->lim.max_message) {
            snprintf(why, sizeof why, "MCP provider '%s' sent a message over %zu bytes", p->name,
                     p->lim.max_message);
            free(buf);
            return strdup(why);
        }
        memmove(buf, buf + start, len - start);
        len -= start;
    }
}

static void io_done(provider *p, stdio_state *s)
{
    pthread_mutex_lock(&p->mu);
    s->io_running = 0;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

/* The child after fork: the provider's command with the socket sock as
 * stdin and stdout, in its own process group, dying with the host; when
 * it cannot run, its errno goes to the host on errfd.  Async-signal-safe
 * calls only. */
static void run_child(const provider *p, int sock, int errfd, pid_t parent)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(127);
    if (dup2(sock, 0) < 0 || dup2(sock, 1) < 0)
        _exit(127);
    if (p->cwd && chdir(p->cwd) < 0) {
        int e = errno;
        (void)!write(errfd, &e, sizeof e);
        _exit(127);
    }
    execvpe(p->argv[0], p->argv, p->envp);
    int e = errno;
    (void)!write(errfd, &e, sizeof e);
    _exit(127);
}

/* Why the child could not run the command, read from errfd (its errno;
 * end of file once the exec closed the pipe); NULL when it ran. */
static char *exec_failure(const provider *p, int errfd)
{
    int e = 0;
    ssize_t got;
    do
        got = read(errfd, &e, sizeof e);
    while (got < 0 && errno == EINTR);
    if (got != (ssize_t)sizeof e)
        return NULL;
    char buf[600];
    snprintf(buf, sizeof buf, "MCP provider '%s': cannot run '%s'%s%s: %s", p->name, p->argv[0],
             p->cwd ? " in " : "", p->cwd ? p->cwd : "", strerror(e));
    return strdup(buf);
}

/* Starts the provider's command: its pid and the host's end of the
 * socket in *pid and *fd, or -1 with the reason (allocated; NULL when
 * out of memory) in *why. */
static int spawn_provider(provider *p, pid_t *pid, int *fd, char **why)
{
    int sv[2] = {-1, -1}, ep[2] = {-1, -1};
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
        *why = strdup("cannot create the provider's pipes");
        goto fail;
    }
    pid_t parent = getpid();
    pid_t child = fork();
    if (child == 0)
        run_child(p, sv[1], ep[1], parent);
    close(sv[1]);
    sv[1] = -1;
    close(ep[1]);
    ep[1] = -1;
    if (child < 0) {
        *why = strdup("fork failed");
        goto fail;
    }
    setpgid(child, child);
    *why = exec_failure(p, ep[0]);
    close(ep[0]); /* read once: the exec closed the child's end, or it failed */
    ep[0] = -1;
    if (*why) {
        waitpid(child, NULL, 0);
        goto fail;
    }
    *pid = child;
    *fd = sv[0];
    return 0;

fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (ep[i] >= 0)
            close(ep[i]);
    }
    return -1;
}

/* Serves the started provider (pid, socket fd) until the socket or the
 * process ends, then kills its process group, reaps it and closes fd.
 * Returns why it ended (allocated). */
static char *serve_provider(provider *p, stdio_state *s, pid_t pid, int fd)
{
    struct timeval tv = {p->lim.request_timeout_ms / 1000,
                         (p->lim.request_timeout_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    pthread_mutex_lock(&p->mu);
    s->pid = pid;
    s->fd = fd;
    pthread_mutex_unlock(&p->mu);
    provider_connected(p);

    int pidfd = open_pidfd(pid);
    char *broke = read_loop(p, fd, pid, pidfd);
    if (pidfd >= 0)
        close(pidfd);

    pthread_mutex_lock(&p->mu);
    kill(-pid, SIGKILL); /* the group: a provider's helpers go too */
    s->pid = 0;
    pthread_mutex_unlock(&p->mu);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    pthread_mutex_lock(&s->wmu); /* no writer still uses the socket */
    pthread_mutex_lock(&p->mu);
    s->fd = -1;
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&s->wmu);
    close(fd);
    return broke ? broke : describe_exit(p->name, status);
}

static void *io_main(void *arg)
{
    provider *p = arg;
    stdio_state *s = p->tp_state;
    pid_t pid;
    int fd;
    char *why = NULL;
    if (spawn_provider(p, &pid, &fd, &why) < 0) {
        provider_closed(p, why ? why : "cannot start", 1);
    } else {
        why = serve_provider(p, s, pid, fd);
        provider_closed(p, why, 0);
    }
    free(why);
    io_done(p, s);
    return NULL;
}

/* Waits, p->mu held, up to ms for the reader to have reaped the last
 * process (io_running cleared). */
static void wait_io_ended(provider *p, stdio_state *s, int ms)
{
    struct timespec deadline;
    provider_deadline(&deadline, ms);
    while (s->io_running && !provider_past(&deadline)) {
        struct timespec slice;
        provider_deadline(&slice, 20);
        pthread_cond_timedwait(&p->cond, &p->mu, &slice);
    }
}

static int stdio_open(provider *p, char **err)
{
    pthread_mutex_lock(&p->mu);
    stdio_state *s = state_locked(p);
    if (!s) {
        pthread_mutex_unlock(&p->mu);
        *err = strdup("out of memory");
        return VT_ERR_NOMEM;
    }
    /* The last process may still be being torn down (killed, reaped) when
     * the next call restarts the provider: wait for that a little rather
     * than fail the call. */
    wait_io_ended(p, s, 2000);
    int join = s->io_joinable && !s->io_running;
    pthread_t old = s->io;
    if (join)
        s->io_joinable = 0;
    if (s->io_running) { /* still tearing the last child down */
        pthread_mutex_unlock(&p->mu);
        *err = strdup("the provider's previous process is still ending");
        return VT_ERR_BUSY;
    }
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(old, NULL);

    pthread_mutex_lock(&p->mu);
    s->io_running = 1;
    if (pthread_create(&s->io, NULL, io_main, p) != 0) {
        s->io_running = 0;
        p->state = PROV_FAILED;
        pthread_mutex_unlock(&p->mu);
        *err = strdup("cannot start a thread for the provider");
        return VT_ERR_NOMEM;
    }
    s->io_joinable = 1;
    while (s->io_running && !p->connected)
        pthread_cond_wait(&p->cond, &p->mu);
    int rc = p->connected ? VT_OK : VT_ERR_IO;
    if (rc != VT_OK)
        *err = strdup(p->reason ? p->reason : "the provider did not start");
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static void stdio_fail(provider *p)
{
    pthread_mutex_lock(&p->mu);
    stdio_state *s = p->tp_state;
    if (s && s->pid > 0)
        kill(-s->pid, SIGKILL);
    while (s && s->io_running) /* the reader reaps the child and says so */
        pthread_cond_wait(&p->cond, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

/* The whole group: SIGTERM, then SIGKILL after a second. */
static void stdio_stop(provider *p)
{
    pthread_mutex_lock(&p->mu);
    stdio_state *s = p->tp_state;
    if (!s) {
        pthread_mutex_unlock(&p->mu);
        return;
    }
    if (s->pid > 0)
        kill(-s->pid, SIGTERM);
    wait_io_ended(p, s, 1000);
    if (s->io_running && s->pid > 0)
        kill(-s->pid, SIGKILL);
    int join = s->io_joinable;
    s->io_joinable = 0;
    pthread_mutex_unlock(&p->mu);
    if (join)
        pthread_join(s->io, NULL);
}

static void stdio_destroy(provider *p)
{
    stdio_state *s = p->tp_state;
    if (s)
        pthread_mutex_destroy(&s->wmu);
    free(s);
    p->tp_state = NULL;
}

static void stdio_describe(const provider *p, cJSON *o)
{
    cJSON_AddStringToObject(o, "command", p->argv ? p->argv[0] : "");
}

const transport_ops stdio_transport = {
    .name = "stdio",
    .open = stdio_open,
    .send = stdio_send,
    .fail = stdio_fail,
    .stop = stdio_stop,
    .destroy = stdio_destroy,
    .describe = stdio_describe,
};
