/* The host side of starting a command: the descriptors, the plan, and
 * the clone or fork of the process that leads the command's session
 * (spawn_child.c says what that process does, and why). */
#include "execwatch.h"
#include "plainexec.h"
#include "sandbox.h"
#include "spawn.h"
#include "spawn_int.h"
#include "zygote.h"

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

#define PIPE_BYTES (1 << 20)

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

/* ---- the host side ----------------------------------------------------- */

static int lifeline[2] = {-1, -1}; /* read end for supervisors; write end held */

void spawn_close(spawn_proc *p)
{
    int *fds[] = {&p->out_fd, &p->in_fd, &p->pidfd, &p->status_fd};
    for (size_t i = 0; i < sizeof fds / sizeof *fds; i++) {
        if (*fds[i] >= 0)
            close(*fds[i]);
        *fds[i] = -1;
    }
}

int spawn_status(spawn_proc *p, int *exit_code)
{
    if (p->status_fd < 0)
        return 0;
    int code = 0;
    ssize_t n;
    while ((n = read(p->status_fd, &code, sizeof code)) < 0 && errno == EINTR)
        ;
    if (n < 0 && errno == EAGAIN)
        return 0;
    close(p->status_fd);
    p->status_fd = -1;
    if (n != (ssize_t)sizeof code)
        return 0; /* the leader died without a word: its own status says */
    *exit_code = code;
    return 1;
}

static int open_pty(const spawn_req *req, int *master, int *slave)
{
    char name[128];
    *master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
    if (*master < 0)
        return VT_ERR_IO;
    struct winsize ws = {.ws_row = req->rows ? req->rows : 24,
                         .ws_col = req->cols ? req->cols : 80};
    if (grantpt(*master) < 0 || unlockpt(*master) < 0 ||
        ptsname_r(*master, name, sizeof name) != 0 || ioctl(*master, TIOCSWINSZ, &ws) < 0) {
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

/* The session leader, cloned straight into the session's namespaces
 * (pid 1 there) without a copy of glibc's fork handling: the child only
 * makes system calls.  clone3 hands over the pidfd with the process;
 * without clone3 (before Linux 5.3) clone and pidfd_open do the same. */
static pid_t clone_leader(const sandbox_plan *plan, int *pidfd)
{
    uint64_t flags = (uint64_t)sandbox_clone_flags(plan);
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = flags | CLONE_PIDFD;
    a.pidfd = (uint64_t)(uintptr_t)pidfd;
    a.exit_signal = SIGCHLD;
    long r = syscall(SYS_clone3, &a, sizeof a);
    if (r < 0 && errno == ENOSYS) {
        r = syscall(SYS_clone, (unsigned long)flags | SIGCHLD, NULL, NULL, NULL, NULL);
        if (r > 0)
            *pidfd = (int)syscall(SYS_pidfd_open, (pid_t)r, 0);
    }
    return (pid_t)r;
}

/* The descriptors fork_child opens for one command (the PTY's slave is
 * in the child_plan). */
typedef struct child_fds {
    int in[2], outp[2], status[2];
    int master;
} child_fds;

static int open_pipes(child_plan *c, child_fds *f)
{
    if (pipe2(f->in, O_CLOEXEC) < 0 || pipe2(f->outp, O_CLOEXEC) < 0)
        return VT_ERR_IO;
    c->in_rd = f->in[0];
    c->out_wr = f->outp[1];
    /* A bigger pipe means fewer wake-ups for chatty commands. */
    (void)fcntl(f->outp[0], F_SETPIPE_SZ, PIPE_BYTES);
    return VT_OK;
}

/* The call's sandbox plan with its spool view and masks (NULL when the
 * command runs unsandboxed); made before the fork, which only reads it. */
static int make_plan(const spawn_req *req, sandbox_plan **out)
{
    sandbox_plan *plan = NULL;
    int rc = VT_OK;
    *out = NULL;
    char *why = NULL;
    if (req->sandbox &&
        (rc = sandbox_plan_make(req->sandbox, req->tty, req->extra, &plan, &why)) != VT_OK) {
        if (req->plan_error)
            *req->plan_error = why;
        else
            free(why);
        return rc;
    }
    if (plan && (rc = sandbox_plan_spool(plan, req->client)) == VT_OK && req->mask)
        rc = sandbox_mask_plan(plan, req->mask, spawn_env_path(req->envp));
    if (rc != VT_OK) {
        sandbox_plan_free(plan);
        return rc;
    }
    *out = plan;
    return VT_OK;
}

/* After the fork: the parent keeps its ends, non-blocking, and closes the
 * child's. */
static void keep_parent_ends(const spawn_req *req, const child_plan *c, const child_fds *f,
                             int leader, spawn_proc *out)
{
    out->own_pidns = leader;
    if (leader) {
        close(f->status[1]);
        out->status_fd = f->status[0];
        fcntl(f->status[0], F_SETFL, O_NONBLOCK);
    }
    if (req->tty) {
        close(c->slave);
        out->out_fd = f->master;
        out->in_fd = fcntl(f->master, F_DUPFD_CLOEXEC, 3);
    } else {
        close(f->in[0]);
        close(f->outp[1]);
        out->out_fd = f->outp[0];
        out->in_fd = f->in[1];
    }
    int fl = fcntl(out->out_fd, F_GETFL);
    fcntl(out->out_fd, F_SETFL, fl | O_NONBLOCK);
    if (out->in_fd >= 0) {
        fl = fcntl(out->in_fd, F_GETFL);
        fcntl(out->in_fd, F_SETFL, fl | O_NONBLOCK);
    }
}

static void close_opened(const child_plan *c, const child_fds *f)
{
    for (int k = 0; k < 2; k++) {
        if (f->in[k] >= 0)
            close(f->in[k]);
        if (f->outp[k] >= 0)
            close(f->outp[k]);
    }
    for (int k = 0; k < 2; k++)
        if (f->status[k] >= 0)
            close(f->status[k]);
    if (f->master >= 0)
        close(f->master);
    if (c->slave >= 0)
        close(c->slave);
}

static int fork_child(const spawn_req *req, spawn_proc *out)
{
    child_plan c = {.req = req,
                    .host = getpid(),
                    .death_sig = SIGRTMIN + 1,
                    .lifeline = lifeline[0],
                    .in_rd = -1,
                    .out_wr = -1,
                    .slave = -1,
                    .status_wr = -1};
    child_fds f = {.in = {-1, -1}, .outp = {-1, -1}, .status = {-1, -1}, .master = -1};
    int rc = VT_OK;
    out->status_fd = -1;
    if (req->tty) {
        if ((rc = open_pty(req, &f.master, &c.slave)))
            return rc;
    } else if ((rc = open_pipes(&c, &f)) != VT_OK) {
        goto fail;
    }
    int leader = req->sandbox && sandbox_namespaces(req->sandbox);
    if (leader) {
        if (high_pipe(f.status) < 0) {
            rc = VT_ERR_IO;
            goto fail;
        }
        c.status_wr = f.status[1];
    }
    sandbox_plan *plan = NULL;
    if ((rc = make_plan(req, &plan)) != VT_OK)
        goto fail;
    c.plan = plan;
    if (req->plan_warning && sandbox_plan_warning(plan))
        *req->plan_warning = strdup(sandbox_plan_warning(plan));
    int pidfd = -1;
    sigset_t kbd, mask;
    spawn_keyboard_set(&kbd);
    pthread_sigmask(SIG_BLOCK, &kbd, &mask); /* inherited: see keyboard_set */
    pid_t pid = -1;
    if (!leader)
        pid = fork();
    else if ((rc = zygote_clone(&c, lifeline[0], &pid, &pidfd)) == VT_ERR_UNSUPPORTED)
        pid = clone_leader(plan, &pidfd);
    else if (rc != VT_OK)
        pid = -1;
    if (pid == 0) {
        if (leader)
            spawn_lead_session(&c);
        spawn_supervise(&c);
    }
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (pid > 0)
        sandbox_plan_started(plan, pid);
    sandbox_plan_free(plan);
    if (pid < 0) {
        rc = VT_ERR_IO;
        goto fail;
    }
    out->pid = pid;
    out->pidfd = pidfd >= 0 ? pidfd : (int)syscall(SYS_pidfd_open, pid, 0);
    keep_parent_ends(req, &c, &f, leader, out);
    return VT_OK;
fail:
    close_opened(&c, &f);
    return rc;
}

/* ---- the lifeline ------------------------------------------------------ */

int spawn_init(void)
{
    zygote_init();
    if (lifeline[0] >= 0)
        return VT_OK;
    return pipe2(lifeline, O_CLOEXEC) == 0 ? VT_OK : VT_ERR_IO;
}

void spawn_fini(void)
{
    zygote_fini();
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
