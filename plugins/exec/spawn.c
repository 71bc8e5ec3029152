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
#define INIT_GRACE_MS 200 /* leftovers after the shell exited */
#define PIPE_BYTES (1 << 20)

/* ---- the child side ---------------------------------------------------- */

typedef struct child_plan {
    const spawn_req *req;
    pid_t host;
    int death_sig;
    int lifeline;      /* read end; EOF once the host is gone */
    int in_rd, out_wr; /* pipes */
    int slave;         /* PTY */
    const sandbox_plan *plan; /* this call's confinement, or NULL */
} child_plan;

/* The parent-death signal fired: the forking thread ended, which the
 * host's worker threads do while the host lives on.  Only a wake-up:
 * the lifeline alone says whether the host is gone. */
static volatile sig_atomic_t parent_died;

static void on_parent_died(int sig)
{
    (void)sig;
    parent_died = 1;
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
/* Run-time enforcement's socket (execwatch.h), kept by the supervisor
 * and the session's init until they exit; above STATUS_FD/ALIVE_FD. */
#define WATCH_FD 7

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

/* How the supervisor learns the shell's status from the session's init
 * (init cannot re-raise a signal on itself: pid 1 ignores it). */
#define STATUS_FD 5
/* Read end held by init; EOF once the supervisor is gone. */
#define ALIVE_FD 6

static volatile sig_atomic_t term_seen;

static void on_term(int sig)
{
    (void)sig;
    term_seen = 1;
}

/* Reap whatever has exited; returns 1 once no child is left. */
static int reap_all(pid_t shell, int *shell_st, int hang)
{
    for (;;) {
        int st;
        pid_t r = waitpid(-1, &st, hang ? 0 : WNOHANG);
        if (r == shell)
            *shell_st = st;
        if (r > 0)
            continue;
        if (r < 0 && errno == EINTR)
            continue;
        return r < 0 && errno == ECHILD;
    }
}

/* pid 1 of the session's PID namespace.  Confines itself (everything it
 * starts inherits it), starts the shell, reaps orphans, and when the
 * shell is done ends everything left in the namespace: TERM, a short
 * grace, KILL.  Its own exit ends the namespace (the kernel kills what
 * is left), and its parent's death kills it (PDEATHSIG), so the
 * session's processes, daemons included, never outlive the session. */
static _Noreturn void session_init(const child_plan *c)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    struct pollfd alive = {.fd = ALIVE_FD, .events = POLLIN};
    if (poll(&alive, 1, 0) > 0)
        _exit(137); /* the supervisor died before PDEATHSIG was set */
    const char *what = "sandbox";
    int rc = sandbox_confine(c->plan, SANDBOX_FD, c->req->workdir, &what);
    if (rc != 0) {
        if (!strcmp(what, "the working directory"))
            say("vthost: cannot enter ", c->req->workdir);
        else
            say("vthost: cannot sandbox the command: ", what);
        _exit(126);
    }
    /* The session's processes share init's domain; not being dumpable
     * keeps them from ptracing it (it holds the status pipe). */
    prctl(PR_SET_DUMPABLE, 0);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    /* Run-time enforcement: after all confinement (no_new_privs is set,
     * which a listener filter needs), right before the shell is exec'd,
     * so every execve of the session is judged.  Only one listener filter
     * may exist per task chain; the sandbox's filter has none. */
    if (c->req->watch_sock > 2 && execwatch_child_install(WATCH_FD) != 0) {
        say("vthost: cannot start the run-time command checks", NULL);
        _exit(126);
    }
    pid_t shell = vfork();
    if (shell == 0) {
        execve(c->req->path, c->req->argv, c->req->envp);
        say("vthost: cannot execute ", c->req->path);
        _exit(127);
    }
    close(0);
    close(1);
    close(2);
    int st = 126 << 8, done = shell < 0, forwarded = 0;
    while (!done) {
        int w;
        pid_t r = waitpid(-1, &w, 0);
        if (r == shell) {
            st = w;
            done = 1;
        } else if (r < 0 && errno == ECHILD) {
            done = 1;
        } else if (r < 0 && errno == EINTR && term_seen && !forwarded) {
            kill(-1, SIGTERM); /* the session ends: pass it on to everyone */
            forwarded = 1;
        }
    }
    /* The shell is done: nothing it started may stay. */
    if (kill(-1, SIGTERM) == 0) {
        for (int t = 0; t < INIT_GRACE_MS / 10 && !reap_all(shell, &st, 0); t++)
            sleep_ms(10);
        kill(-1, SIGKILL);
    }
    reap_all(shell, &st, 1);
    ssize_t n = write(STATUS_FD, &st, sizeof st);
    (void)n;
    _exit(0);
}

/* The supervisor's wait for its child (the shell, or the session's
 * init): its exit, or the host's death, whichever first.  With a session
 * init, `status_fd` delivers the shell's status once nothing of the
 * session is left; the supervisor still waits for init's exit (an init
 * left behind would be reparented, and a subreaper above the host would
 * collect it as a zombie).  Returns the child's wait status, or the
 * shell's. */
static int wait_child(pid_t child, int status_fd)
{
    int is_init = status_fd >= 0;
    int st = 0, have_shell = 0, shell_st = 0;
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    for (;;) {
        if (is_init && term_seen) {
            /* TERM to the supervisor (session end): init forwards it */
            kill(child, SIGTERM);
            term_seen = 0;
        }
        if (pidfd >= 0) {
            struct pollfd f[3] = {{.fd = LIFELINE_FD, .events = POLLIN},
                                  {.fd = pidfd, .events = POLLIN},
                                  {.fd = status_fd, .events = POLLIN}};
            if (poll(f, status_fd >= 0 ? 3 : 2, -1) < 0 && errno != EINTR)
                _exit(126);
            if (f[0].revents)
                end_group(child);
            if (status_fd >= 0 && f[2].revents) {
                ssize_t n = read(status_fd, &shell_st, sizeof shell_st);
                have_shell = n == (ssize_t)sizeof shell_st;
                status_fd = -1; /* now (or without a word) only init's exit */
                continue;
            }
            if (!f[1].revents)
                continue;
            pid_t r = waitpid(child, &st, WNOHANG);
            if (r == child)
                break;
            if (r < 0 && errno != EINTR)
                _exit(126);
            continue;
        }
        /* no pidfd (old kernel): the parent-death signal interrupts */
        pid_t r = waitpid(child, &st, 0);
        if (r == child)
            break;
        if (parent_died && lifeline_cut(0))
            end_group(child);
        if (r < 0 && errno != EINTR)
            _exit(126);
    }
    if (have_shell)
        return shell_st;
    if (status_fd >= 0) {
        /* init's exit status is its own; the shell's comes through the pipe */
        if (read(status_fd, &shell_st, sizeof shell_st) == (ssize_t)sizeof shell_st)
            return shell_st;
    }
    if (is_init && WIFEXITED(st) && WEXITSTATUS(st) == 0)
        return 126 << 8;
    return st;
}

/* A pipe above the fixed descriptors, so that moving its ends onto them
 * never overwrites the other end. */
static int high_pipe(int p[2])
{
    int low[2];
    if (pipe2(low, O_CLOEXEC) < 0)
        return -1;
    p[0] = fcntl(low[0], F_DUPFD_CLOEXEC, 16);
    p[1] = fcntl(low[1], F_DUPFD_CLOEXEC, 16);
    close(low[0]);
    close(low[1]);
    return p[0] < 0 || p[1] < 0 ? -1 : 0;
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
        if (dup2(sandbox_plan_ruleset_fd(c->plan), SANDBOX_FD) < 0 ||
            fcntl(SANDBOX_FD, F_SETFD, FD_CLOEXEC) < 0)
            _exit(126);
    }
    /* The host made watch_sock >= 64, so the moves above cannot clobber
     * it; it goes to WATCH_FD and everything else above `keep` closes. */
    int watch = c->req->watch_sock > 2;
    if (watch && (dup2(c->req->watch_sock, WATCH_FD) < 0 ||
                  fcntl(WATCH_FD, F_SETFD, FD_CLOEXEC) < 0))
        _exit(126);
    if (syscall(SYS_close_range, keep + 1, watch ? WATCH_FD - 1 : ~0U, 0) < 0 ||
        (watch && syscall(SYS_close_range, WATCH_FD + 1, ~0U, 0) < 0))
        for (int fd = keep + 1; fd < 4096; fd++)
            if (!watch || fd != WATCH_FD)
                close(fd);
    int ns = c->req->sandbox && sandbox_namespaces(c->req->sandbox);
    if (ns) {
        const char *what = "namespaces";
        if (sandbox_unshare(c->req->sandbox, &what) != 0) {
            say("vthost: cannot sandbox the command: ", what);
            _exit(126);
        }
    } else if (c->req->sandbox) {
        /* No namespaces on this machine: the supervisor confines itself
         * and starts the shell directly. */
        const char *what = "sandbox";
        if (sandbox_confine(c->plan, SANDBOX_FD, c->req->workdir, &what) != 0) {
            say("vthost: cannot sandbox the command: ", what);
            _exit(126);
        }
    } else if (chdir(c->req->workdir) < 0) {
        say("vthost: cannot enter ", c->req->workdir);
        _exit(126);
    }
    /* Without a session init the supervisor itself starts the shell:
     * the run-time checks go here (in the init otherwise). */
    if (!ns && watch && execwatch_child_install(WATCH_FD) != 0) {
        say("vthost: cannot start the run-time command checks", NULL);
        _exit(126);
    }
    /* Before the parent-death signal is set: entering a user namespace
     * clears it. */
    sa.sa_handler = on_parent_died;
    sigaction(c->death_sig, &sa, NULL);
    sa.sa_handler = on_keyboard_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    if (ns) {
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
    }
    prctl(PR_SET_PDEATHSIG, c->death_sig);
    int host_gone = lifeline_cut(0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    int status_pipe[2] = {-1, -1}, alive_pipe[2] = {-1, -1};
    if (ns && (high_pipe(status_pipe) < 0 || high_pipe(alive_pipe) < 0 ||
               dup2(status_pipe[1], STATUS_FD) < 0 || dup2(alive_pipe[0], ALIVE_FD) < 0 ||
               fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC) < 0 ||
               fcntl(ALIVE_FD, F_SETFD, FD_CLOEXEC) < 0)) {
        say("vthost: cannot set up the command's session", NULL);
        _exit(126);
    }
    pid_t child = -1;
    if (!host_gone)
        child = ns ? fork() : vfork();
    if (child == 0) {
        if (ns) {
            close(status_pipe[0]);
            close(alive_pipe[1]);
            session_init(c);
        }
        execve(c->req->path, c->req->argv, c->req->envp);
        say("vthost: cannot execute ", c->req->path);
        _exit(127);
    }
    /* The command's holders alone decide when its output ends. */
    close(0);
    close(1);
    close(2);
    if (ns) {
        close(STATUS_FD);
        close(ALIVE_FD);
        close(status_pipe[1]);
        close(alive_pipe[0]);
    }
    if (host_gone)
        end_group(child);
    if (child < 0)
        _exit(126);
    /* The session's cgroup is removed by the host once init is gone
     * (sandbox_plan_free hands it over). */
    int st = wait_child(child, ns ? status_pipe[0] : -1);
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
    sandbox_plan *plan = NULL;
    if (req->sandbox &&
        (rc = sandbox_plan_make(req->sandbox, req->tty, req->extra, &plan)) != VT_OK)
        goto fail;
    c.plan = plan;
    if (req->plan_warning && sandbox_plan_warning(plan))
        *req->plan_warning = strdup(sandbox_plan_warning(plan));
    pid_t pid = fork();
    if (pid == 0)
        supervise(&c);
    if (pid > 0)
        sandbox_plan_started(plan, pid);
    sandbox_plan_free(plan);
    if (pid < 0) {
        rc = VT_ERR_IO;
        goto fail;
    }
    out->pid = pid;
    out->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    out->own_pidns = req->sandbox && sandbox_namespaces(req->sandbox);
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
