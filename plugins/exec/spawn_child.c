/* A command runs under a small process of ours that leads its session
 * and process group, starts the shell with vfork+exec and reports how it
 * ended.
 *
 * Sandboxed with namespaces, that process is the *session leader*: the
 * host clones it straight into a new PID and mount namespace (and a
 * user namespace when not root), so it is pid 1 there.  It confines
 * itself (mounts, Landlock, seccomp: everything it starts inherits
 * them), starts the shell, reaps orphans, ends whatever is left once the
 * shell is done, and writes the shell's status to a pipe the host reads
 * *before* it exits: the namespace's teardown (unmounts, the pid
 * namespace's end) happens after the result is known, off the call's
 * critical path; the host reaps the leader later (spawn_reap_later).
 *
 * Without namespaces (or unsandboxed) it is a *supervisor*, a fork of the
 * host that relays the shell's status as its own.
 *
 * Either way a host that dies (even by SIGKILL) takes the whole session
 * with it, grandchildren included.  The child learns of the host's death
 * from a "lifeline" pipe whose write end only the host holds: its read
 * end reports EOF when the host process is gone, whichever thread forked.
 * (A parent-death signal alone fires when the forking *thread* exits,
 * which the MCP server's worker threads do; it is kept as a wake-up.)
 * Between fork and exec only async-signal-safe calls are made (the host
 * is multi-threaded). */
#include "execwatch.h"
#include "plainexec.h"
#include "sandbox.h"
#include "spawn.h"
#include "spawn_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
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

/* ---- the child side ---------------------------------------------------- */

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

/* A Ctrl-C (SIGINT to the session's process group, or to its first
 * process while that has no group of its own yet) that comes while the
 * session is still being set up must not be lost: the shell started
 * after it would never see it.  Keyboard signals are blocked from before
 * the fork on (blocked signals stay pending, even for a PID namespace's
 * init with no handler yet); right before the shell is started the
 * pending ones are noted, and the shell (the vfork child) takes default
 * dispositions, raises what was noted and unblocks: a signal that came
 * before, or that comes at any time after, ends it as it should. */
void spawn_keyboard_set(sigset_t *kbd)
{
    sigemptyset(kbd);
    sigaddset(kbd, SIGINT);
    sigaddset(kbd, SIGQUIT);
}

/* In the vfork child, right before execve; `before` is what was pending
 * in the parent before the vfork. */
static void keyboard_child(const sigset_t *before)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    if (sigismember(before, SIGINT))
        raise(SIGINT);
    if (sigismember(before, SIGQUIT))
        raise(SIGQUIT);
    sigset_t kbd;
    spawn_keyboard_set(&kbd);
    sigprocmask(SIG_UNBLOCK, &kbd, NULL);
}

/* Every signal unblocked but the keyboard's; what is pending of those is
 * noted in *before for the shell. */
static void keyboard_hold(sigset_t *before)
{
    sigset_t kbd;
    spawn_keyboard_set(&kbd);
    sigprocmask(SIG_SETMASK, &kbd, NULL);
    sigpending(before);
}

/* In the parent, after vfork returned: its own copies go to its handler. */
static void keyboard_release(void)
{
    sigset_t kbd;
    spawn_keyboard_set(&kbd);
    sigprocmask(SIG_UNBLOCK, &kbd, NULL);
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
#define SANDBOX_FD 4 /* the Landlock ruleset, while the child sets up */
/* The session leader's report to the host: the shell's exit code. */
#define STATUS_FD 5
/* Run-time enforcement's socket (execwatch.h), kept by the supervisor
 * or the session leader until it exits. */
#define WATCH_FD 7
/* The shell's file, judged by the watcher (EXECWATCH_SHELL_FD). */
#define SHELL_FD EXECWATCH_SHELL_FD
/* The filtering proxy's hand-over socket (SANDBOX_NETPROXY_FD, 8) is the
 * last fixed one. */
#define LAST_FD SANDBOX_NETPROXY_FD
/* A program run without the shell (plainexec.h), opened after
 * child_setup closed everything above LAST_FD. */
#define DIRECT_FD EXECWATCH_DIRECT_FD

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

static volatile sig_atomic_t term_seen;

static void on_term(int sig)
{
    (void)sig;
    term_seen = 1;
}

static void on_child(int sig) { (void)sig; /* a wake-up: the leader reaps in its loop */ }

/* Reset every signal's handling (nothing of the host's leaks), become
 * the session's leader with the command's terminal or pipes as 0-2, and
 * keep, above them, only the descriptors the child needs in fixed
 * places: the lifeline (3), the Landlock ruleset (4), the status pipe
 * (5, session leader), the shell's judged file (6) and the run-time
 * checks' socket (7), the filtering proxy's socket (8).  The child
 * never execs itself, so close-on-exec does not protect the host's other
 * descriptors here: they are all closed (output EOF and the lifeline's
 * EOF depend on it).  Their sources are >= 16 (ruleset, status) or >= 64
 * (watch socket, shell file), except the lifeline, moved first. */
static int child_setup(const child_plan *c)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &sa, NULL);
    if (setsid() < 0 || setup_stdio(c) < 0) {
        say("vthost: cannot set up the command's terminal or pipes", NULL);
        return -1;
    }
    if (dup2(c->lifeline, LIFELINE_FD) < 0 || fcntl(LIFELINE_FD, F_SETFD, FD_CLOEXEC) < 0)
        return -1;
    unsigned keep = 1u << LIFELINE_FD;
    if (c->plan) {
        if (dup2(sandbox_plan_ruleset_fd(c->plan), SANDBOX_FD) < 0 ||
            fcntl(SANDBOX_FD, F_SETFD, FD_CLOEXEC) < 0)
            return -1;
        keep |= 1u << SANDBOX_FD;
    }
    if (c->status_wr >= 0) {
        if (dup2(c->status_wr, STATUS_FD) < 0 || fcntl(STATUS_FD, F_SETFD, FD_CLOEXEC) < 0)
            return -1;
        keep |= 1u << STATUS_FD;
    }
    if (c->req->watch_sock > 2) {
        if (dup2(c->req->watch_sock, WATCH_FD) < 0 || fcntl(WATCH_FD, F_SETFD, FD_CLOEXEC) < 0)
            return -1;
        keep |= 1u << WATCH_FD;
    }
    if (c->req->shell_fd > 2) {
        /* a script's interpreter opens it as /dev/fd/6: kept for it */
        if (dup2(c->req->shell_fd, SHELL_FD) < 0 ||
            fcntl(SHELL_FD, F_SETFD, c->req->shell_script ? 0 : FD_CLOEXEC) < 0)
            return -1;
        keep |= 1u << SHELL_FD;
    }
    if (c->req->netproxy_fd > 2) {
        if (dup2(c->req->netproxy_fd, SANDBOX_NETPROXY_FD) < 0 ||
            fcntl(SANDBOX_NETPROXY_FD, F_SETFD, FD_CLOEXEC) < 0)
            return -1;
        keep |= 1u << SANDBOX_NETPROXY_FD;
    }
    unsigned lo = 3;
    for (unsigned fd = 3; fd <= LAST_FD + 1; fd++) {
        if (fd <= LAST_FD && !(keep & (1u << fd)))
            continue;
        if (fd > lo && syscall(SYS_close_range, lo, fd - 1, 0) < 0)
            for (unsigned k = lo; k < fd; k++)
                close((int)k);
        lo = fd + 1;
    }
    if (syscall(SYS_close_range, LAST_FD + 1, ~0U, 0) < 0)
        for (int fd = LAST_FD + 1; fd < 4096; fd++)
            close(fd);
    return 0;
}

static void confine_or_die(const child_plan *c)
{
    const char *what = "sandbox";
    if (sandbox_confine(c->plan, SANDBOX_FD, c->req->workdir, &what) != 0) {
        if (!strcmp(what, "the working directory"))
            say("vthost: cannot enter ", c->req->workdir);
        else
            say("vthost: cannot sandbox the command: ", what);
        _exit(126);
    }
}

/* The wake-ups the supervisor and the session leader wait for: the
 * parent-death signal (then the lifeline says whether the host is
 * gone), ^C and ^\ (they outlive them to report how the command ended;
 * exec resets these handlers in the command), and for the leader TERM
 * (the session ends: passed on to everyone) and CHLD (reap).  The
 * parent-death signal is set last: entering a user namespace clears it. */
static void wakeups(const child_plan *c, int leader)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_parent_died;
    sigaction(c->death_sig, &sa, NULL);
    sa.sa_handler = on_keyboard_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    if (leader) {
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
        sa.sa_handler = on_child;
        sigaction(SIGCHLD, &sa, NULL);
    }
    prctl(PR_SET_PDEATHSIG, c->death_sig);
}

/* In the vfork child: the program the search found, run as the shell
 * would have run it; a refusal or a failure is reported in the words of
 * the shell it stands in for (bash names the path it ran, dash the word
 * it was given), with its status (126; 127 once gone). */
static _Noreturn void direct_exec(const child_plan *c, const char *given)
{
    syscall(SYS_execveat, DIRECT_FD, "", c->req->direct_argv, c->req->envp, AT_EMPTY_PATH);
    int e = errno;
    int bash = c->req->direct_under != NULL; /* only bash gets "_" */
    const char *what = bash                          ? plain_exec_error(e)
                       : e == ENOENT || e == ENOTDIR ? "not found"
                                                     : plain_exec_error(e);
    const char *parts[] = {c->req->argv[0],
                           bash ? ": line 1: " : ": 1: ",
                           bash ? given : c->req->direct_argv[0],
                           ": ",
                           what,
                           "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        ssize_t r = write(2, parts[i], strlen(parts[i]));
        (void)r;
    }
    _exit(e == ENOENT || e == ENOTDIR ? 127 : 126);
}

/* Where the leader (or the supervisor) looks for the words' program, in
 * the command's view of the files, before the run-time checks start:
 * the path found in given (NULL when the shell runs the text), and
 * bash's "_" set to it. */
static const char *find_direct(const child_plan *c, char *given, char *abs)
{
    const spawn_req *r = c->req;
    if (!r->direct_argv || !plain_find(r->direct_argv[0], spawn_env_path(r->envp), r->workdir,
                                       DIRECT_FD, given, abs, PATH_MAX))
        return NULL;
    if (r->direct_under) {
        size_t n = strlen(given);
        if (n + 3 > PLAIN_UNDER_BYTES) {
            close(DIRECT_FD);
            return NULL;
        }
        memcpy(r->direct_under + 2, given, n + 1);
    }
    return given;
}

/* The command itself, vfork'd with the keyboard held across (`start` 0:
 * none, and -1 returned); then the caller's own stdio is closed, so that
 * the command's holders alone decide when its output ends. */
static pid_t start_command(const child_plan *c, int start, const char *direct)
{
    sigset_t before;
    keyboard_hold(&before);
    pid_t pid = start ? vfork() : -1;
    if (pid == 0) {
        keyboard_child(&before);
        /* the very file the search found (and the watcher judged) */
        if (direct)
            direct_exec(c, direct);
        if (c->req->shell_fd > 2)
            syscall(SYS_execveat, SHELL_FD, "", c->req->argv, c->req->envp, AT_EMPTY_PATH);
        else
            execve(c->req->path, c->req->argv, c->req->envp);
        say("vthost: cannot execute ", c->req->path);
        _exit(127);
    }
    keyboard_release();
    if (direct)
        close(DIRECT_FD); /* run by now, or never */
    close(0);
    close(1);
    close(2);
    return pid;
}

/* ---- the supervisor (no PID namespace) ------------------------------------ */

/* The supervisor's wait for the shell: its exit, or the host's death,
 * whichever first.  Returns the shell's wait status. */
static int wait_child(pid_t child)
{
    int st = 0;
    int pidfd = (int)syscall(SYS_pidfd_open, child, 0);
    for (;;) {
        if (pidfd >= 0) {
            struct pollfd f[2] = {{.fd = LIFELINE_FD, .events = POLLIN},
                                  {.fd = pidfd, .events = POLLIN}};
            if (poll(f, 2, -1) < 0 && errno != EINTR)
                _exit(126);
            if (f[0].revents)
                end_group(child);
            if (!f[1].revents)
                continue;
            pid_t r = waitpid(child, &st, WNOHANG);
            if (r == child)
                return st;
            if (r < 0 && errno != EINTR)
                _exit(126);
            continue;
        }
        /* no pidfd (old kernel): the parent-death signal interrupts */
        pid_t r = waitpid(child, &st, 0);
        if (r == child)
            return st;
        if (parent_died && lifeline_cut(0))
            end_group(child);
        if (r < 0 && errno != EINTR)
            _exit(126);
    }
}

/* The last step before the command starts, the same for the leader and
 * the supervisor: find a plain command's program (find_direct), then
 * start the run-time checks, which judge that program's exec as the
 * text's; dies when the checks cannot start. */
static const char *find_and_watch(const child_plan *c, char *given, char *abs)
{
    const char *direct = find_direct(c, given, abs);
    if (c->req->watch_sock > 2 &&
        execwatch_child_install(WATCH_FD, direct ? DIRECT_FD : -1, given, abs) != 0) {
        say("vthost: cannot start the run-time command checks", NULL);
        _exit(126);
    }
    return direct;
}

_Noreturn void spawn_supervise(const child_plan *c)
{
    if (child_setup(c) < 0)
        _exit(126);
    if (c->plan) {
        /* No namespaces on this machine: the supervisor confines itself
         * and starts the shell directly. */
        confine_or_die(c);
    } else if (chdir(c->req->workdir) < 0) {
        say("vthost: cannot enter ", c->req->workdir);
        _exit(126);
    }
    char given[PATH_MAX], abs[PATH_MAX];
    const char *direct = find_and_watch(c, given, abs);
    wakeups(c, 0);
    int host_gone = lifeline_cut(0);
    pid_t child = start_command(c, !host_gone, direct);
    if (host_gone)
        end_group(child);
    if (child < 0)
        _exit(126);
    int st = wait_child(child);
    if (WIFSIGNALED(st)) {
        int sig = WTERMSIG(st);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = SIG_DFL;
        sigaction(sig, &sa, NULL);
        kill(getpid(), sig);
        _exit(128 + sig);
    }
    _exit(WIFEXITED(st) ? WEXITSTATUS(st) : 126);
}

/* ---- the session leader (pid 1 of the session's PID namespace) ------------ */

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

/* Nothing of the session may stay: TERM to everyone in the namespace, a
 * short grace, KILL, and every one reaped. */
static void end_everyone(pid_t shell, int *st, int grace_ms)
{
    if (kill(-1, SIGTERM) == 0) {
        for (int t = 0; t < grace_ms / 10 && !reap_all(shell, st, 0); t++)
            sleep_ms(10);
        kill(-1, SIGKILL);
    }
    reap_all(shell, st, 1);
}

/* The shell's exit code as the host reports it (a signal: 128 + its
 * number; pid 1 cannot re-raise a signal on itself). */
static int exit_code(int st)
{
    if (WIFEXITED(st))
        return WEXITSTATUS(st);
    if (WIFSIGNALED(st))
        return 128 + WTERMSIG(st);
    return 126;
}

/* Cloned by the host into the session's namespaces (clone_leader).
 * Its own exit ends the namespace (the kernel kills what is left), and
 * the host's death ends it (lifeline), so the session's processes,
 * daemons included, never outlive the session. */
_Noreturn void spawn_lead_session(const child_plan *c)
{
    if (child_setup(c) < 0)
        _exit(126);
    const char *what = "namespaces";
    if (sandbox_id_maps(c->req->sandbox, &what) != 0) {
        say("vthost: cannot sandbox the command: ", what);
        _exit(126);
    }
    wakeups(c, 1);
    if (lifeline_cut(0))
        _exit(137); /* the host died before the parent-death signal was set */
    if (c->req->watch_sock > 2)
        sandbox_seccomp_watch_follows(); /* the listener may carry the filter's top */
    confine_or_die(c);
    /* The session's processes share the leader's domain; not being
     * dumpable keeps them from ptracing it (it holds the status pipe). */
    prctl(PR_SET_DUMPABLE, 0);
    /* Run-time enforcement: after all confinement (no_new_privs is set,
     * which a listener filter needs), right before the shell is exec'd,
     * so every execve of the session is judged.  Only one listener filter
     * may exist per task chain; the sandbox's filter has none. */
    char given[PATH_MAX], abs[PATH_MAX];
    const char *direct = find_and_watch(c, given, abs);
    pid_t shell = start_command(c, 1, direct);
    sigset_t waits, none;
    sigemptyset(&none);
    /* Signals are taken only inside ppoll, after a look at what they
     * report: none is lost between the look and the sleep. */
    sigemptyset(&waits);
    sigaddset(&waits, SIGCHLD);
    sigaddset(&waits, SIGTERM);
    sigaddset(&waits, c->death_sig);
    sigprocmask(SIG_BLOCK, &waits, NULL);
    int st = 126 << 8, done = shell < 0, forwarded = 0;
    while (!done) {
        int w;
        pid_t r;
        while ((r = waitpid(-1, &w, WNOHANG)) > 0)
            if (r == shell) {
                st = w;
                done = 1;
            }
        if (done || (r < 0 && errno == ECHILD))
            break;
        if (term_seen && !forwarded) {
            kill(-1, SIGTERM); /* the session ends: pass it on to everyone */
            forwarded = 1;
        }
        struct pollfd f = {.fd = LIFELINE_FD, .events = POLLIN};
        if (ppoll(&f, 1, NULL, &none) > 0 && f.revents) {
            end_everyone(shell, &st, GRACE_MS); /* the host is gone */
            _exit(137);
        }
    }
    /* The shell is done: nothing it started may stay. */
    end_everyone(shell, &st, INIT_GRACE_MS);
    int code = exit_code(st);
    ssize_t n = write(STATUS_FD, &code, sizeof code);
    (void)n;
    _exit(code);
}

const char *spawn_env_path(char *const *envp)
{
    for (char *const *e = envp; e && *e; e++)
        if (!strncmp(*e, "PATH=", 5))
            return *e + 5;
    return NULL;
}
