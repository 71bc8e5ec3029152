/* The command runs under a small supervisor: a fork of the host that
 * leads the command's session and process group, starts the shell with
 * vfork+exec and relays its exit status.  The supervisor exists so that
 * a host that dies (even by SIGKILL) takes the whole process group with
 * it, grandchildren included.  It learns of the host's death from a
 * "lifeline" pipe whose write end only the host holds: its read end
 * reports EOF when the host process is gone, whichever thread forked.
 * (A parent-death signal alone fires when the forking *thread* exits,
 * which the MCP server's worker threads do; it is kept as a wake-up.)
 * Between fork and exec only async-signal-safe calls are made (the host
 * is multi-threaded). */
#include "spawn.h"
#include "sandbox.h"
#include "execwatch.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>

#define GRACE_MS 500
#define PIPE_BYTES (1 << 20)

/* ---- the child side ---------------------------------------------------- */

typedef struct child_plan {
    const spawn_req *req;
    pid_t host;
    int death_sig;
    int lifeline;      /* read end; EOF once the host is gone */
    int in_rd, out_wr; /* pipes */
    int slave;         /* PTY */
} child_plan;

static volatile sig_atomic_t host_gone;

static void on_host_gone(int sig)
{
    (void)sig;
    host_gone = 1;
}

static void on_keyboard_signal(int sig)
{
    /* The supervisor outlives ^C and ^\ so that it can relay how the
     * command ended; exec resets this handler in the command. */
    (void)sig;
}

static void say(const char *a, const char *b)
{
    ssize_t r = write(2, a, strlen(a));
    if (b)
        r = write(2, b, strlen(b));
    r = write(2, "\n", 1);
    (void)r;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* The host is gone: end the group, TERM first, KILL after the grace. */
static _Noreturn void end_group(pid_t cmd)
{
    signal(SIGTERM, SIG_IGN);
    kill(0, SIGTERM);
    for (int t = 0; t < GRACE_MS / 10; t++) {
        if (cmd > 0 && waitpid(cmd, NULL, WNOHANG) == cmd)
            cmd = 0;
        if (cmd <= 0)
            break;
        sleep_ms(10);
    }
    kill(0, SIGKILL);
    _exit(137);
}

#define LIFELINE_FD 3
#define SANDBOX_FD 4 /* the Landlock ruleset, while the supervisor sets up */
#define WATCH_FD 5   /* execwatch's socket, kept until the supervisor exits */

/* Whether the host is gone: its lifeline reads EOF (or errors). */
static int lifeline_cut(int timeout_ms)
{
    struct pollfd f = {.fd = LIFELINE_FD, .events = POLLIN};
    return poll(&f, 1, timeout_ms) > 0;
}

static int setup_stdio(const child_plan *c)
{
    if (c->req->tty) {
        if (ioctl(c->slave, TIOCSCTTY, 0) < 0)
            return -1;
        if (dup2(c->slave, 0) < 0 || dup2(c->slave, 1) < 0 || dup2(c->slave, 2) < 0)
            return -1;
        if (c->slave > 2)
            close(c->slave);
        return 0;
    }
    if (dup2(c->in_rd, 0) < 0 || dup2(c->out_wr, 1) < 0 || dup2(c->out_wr, 2) < 0)
        return -1;
    return 0;
}

static _Noreturn void supervise(const child_plan *c)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &sa, NULL); /* nothing of the host's handling leaks */

    if (setsid() < 0 || setup_stdio(c) < 0) {
        say("vthost: cannot set up the command's terminal or pipes", NULL);
        _exit(126);
    }
    /* The lifeline moves to fd 3 (close-on-exec: the command must not
     * hold it).  The supervisor never execs, so close-on-exec does not
     * protect the host's other descriptors here: drop them all (output
     * EOF and the lifeline's EOF depend on it). */
    if (dup2(c->lifeline, LIFELINE_FD) < 0 || fcntl(LIFELINE_FD, F_SETFD, FD_CLOEXEC) < 0)
        _exit(126);
    /* The sandbox's Landlock ruleset survives as fd 4. */
    int keep = LIFELINE_FD;
    if (c->req->sandbox) {
        keep = SANDBOX_FD;
        if (dup2(sandbox_ruleset_fd(c->req->sandbox), SANDBOX_FD) < 0 ||
            fcntl(SANDBOX_FD, F_SETFD, FD_CLOEXEC) < 0)
            _exit(126);
    }
    if (c->req->watch_sock > 2) {
        if (!c->req->sandbox)
            close(SANDBOX_FD);
        if (dup2(c->req->watch_sock, WATCH_FD) < 0 || fcntl(WATCH_FD, F_SETFD, FD_CLOEXEC) < 0)
            _exit(126);
        keep = WATCH_FD;
    }
    if (syscall(SYS_close_range, keep + 1, ~0U, 0) < 0)
        for (int fd = keep + 1; fd < 4096; fd++)
            close(fd);
    if (chdir(c->req->workdir) < 0) {
        say("vthost: cannot enter ", c->req->workdir);
        _exit(126);
    }
    /* Confinement: after the working directory is entered, before the
     * command starts, so the supervisor and all it starts are confined.
     * Before the parent-death signal is set: entering a user namespace
     * clears it. */
    if (c->req->sandbox) {
        const char *what = "sandbox";
        if (sandbox_enter(c->req->sandbox, SANDBOX_FD, &what) != 0) {
            say("vthost: cannot sandbox the command: ", what);
            _exit(126);
        }
    }
    /* Run-time enforcement: every execve from here on is judged. */
    if (c->req->watch_sock > 2 && execwatch_child_install(WATCH_FD) != 0) {
        say("vthost: cannot start the run-time command checks", NULL);
        _exit(126);
    }
    sa.sa_handler = on_host_gone;
    sigaction(c->death_sig, &sa, NULL);
    sa.sa_handler = on_keyboard_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, c->death_sig);
    if (lifeline_cut(0))
        host_gone = 1;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    pid_t cmd = host_gone ? -1 : vfork();
    if (cmd == 0) {
        execve(c->req->path, c->req->argv, c->req->envp);
        say("vthost: cannot execute ", c->req->path);
        _exit(127);
    }
    /* The command's holders alone decide when its output ends. */
    close(0);
    close(1);
    close(2);
    if (host_gone)
        end_group(cmd);
    if (cmd < 0)
        _exit(126);
    int st;
    int pidfd = (int)syscall(SYS_pidfd_open, cmd, 0);
    for (;;) {
        if (pidfd >= 0) {
            /* the command's exit, or the host's death, whichever first */
            struct pollfd f[2] = {{.fd = LIFELINE_FD, .events = POLLIN},
                                  {.fd = pidfd, .events = POLLIN}};
            if (poll(f, 2, -1) < 0 && errno != EINTR)
                _exit(126);
            if (f[0].revents)
                end_group(cmd);
            if (!f[1].revents)
                continue;
            pid_t r = waitpid(cmd, &st, WNOHANG);
            if (r == cmd)
                break;
            if (r < 0 && errno != EINTR)
                _exit(126);
            continue;
        }
        /* no pidfd (old kernel): the parent-death signal interrupts */
        pid_t r = waitpid(cmd, &st, 0);
        if (r == cmd)
            break;
        if (host_gone && lifeline_cut(0))
            end_group(cmd);
        if (r < 0 && errno != EINTR)
            _exit(126);
    }
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        sa.sa_handler = SIG_DFL;
        sigaction(sig, &sa, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
}

/* ---- the host side ----------------------------------------------------- */

static int lifeline[2] = {-1, -1}; /* read end for supervisors; write end held */

static int open_pty(const spawn_req *req, int *master, int *slave)
{
    char name[128];
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0)
        return VT_ERR_IO;
    struct winsize ws = {.ws_row = req->rows ? req->rows : 24,
                         .ws_col = req->cols ? req->cols : 80};
    if (grantpt(*master) < 0 || unlockpt(*master) < 0 ||
        ptsname_r(*master, name, sizeof name) != 0 ||
        ioctl(*master, TIOCSWINSZ, &ws) < 0) {
        close(*master);
        return VT_ERR_IO;
    }
    *slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*slave < 0) {
        close(*master);
        return VT_ERR_IO;
    }
    return VT_OK;
}

static int fork_child(const spawn_req *req, spawn_proc *out)
{
    child_plan c = {.req = req, .host = getpid(), .death_sig = SIGRTMIN + 1,
                    .lifeline = lifeline[0], .in_rd = -1, .out_wr = -1, .slave = -1};
    int in[2] = {-1, -1}, outp[2] = {-1, -1};
    int master = -1, rc = VT_OK;
    if (req->tty) {
        if ((rc = open_pty(req, &master, &c.slave)))
            return rc;
    } else {
        if (pipe2(in, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0) {
            rc = VT_ERR_IO;
            goto fail;
        }
        c.in_rd = in[0];
        c.out_wr = outp[1];
        /* A bigger pipe means fewer wake-ups for chatty commands. */
        (void)fcntl(outp[0], F_SETPIPE_SZ, PIPE_BYTES);
    }
    pid_t pid = fork();
    if (pid == 0)
        supervise(&c);
    if (pid < 0) {
        rc = VT_ERR_IO;
        goto fail;
    }
    out->pid = pid;
    out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (req->tty) {
        close(c.slave);
        out->out_fd = master;
        out->in_fd = fcntl(master, F_DUPFD_CLOEXEC, 3);
    } else {
        close(in[0]);
        close(outp[1]);
        out->out_fd = outp[0];
        out->in_fd = in[1];
    }
    int fl = fcntl(out->out_fd, F_GETFL);
    fcntl(out->out_fd, F_SETFL, fl | O_NONBLOCK);
    if (out->in_fd >= 0) {
        fl = fcntl(out->in_fd, F_GETFL);
        fcntl(out->in_fd, F_SETFL, fl | O_NONBLOCK);
    }
    return VT_OK;
fail:
    for (int k = 0; k < 2; k++) {
        if (in[k] >= 0)
            close(in[k]);
        if (outp[k] >= 0)
            close(outp[k]);
    }
    if (master >= 0)
        close(master);
    if (c.slave >= 0)
        close(c.slave);
    return rc;
}

/* ---- the lifeline ------------------------------------------------------ */

int spawn_init(void)
{
    if (lifeline[0] >= 0)
        return VT_OK;
    return pipe2(lifeline, O_CLOEXEC) == 0 ? VT_OK : VT_ERR_IO;
}

void spawn_fini(void)
{
    /* Cutting the lifeline tells every supervisor still alive (there
     * should be none: the sessions were ended first) that the host is
     * gone. */
    for (int k = 0; k < 2; k++)
        if (lifeline[k] >= 0) {
            close(lifeline[k]);
            lifeline[k] = -1;
        }
}

int spawn_start(const spawn_req *req, spawn_proc *out)
{
    if (lifeline[0] < 0)
        return VT_ERR_INTERNAL;
    return fork_child(req, out);
}
