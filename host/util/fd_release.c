/* The last close of an inotify descriptor that holds watches waits for an
 * SRCU grace period (the kernel's fsnotify mark reaper): 10-25 ms on a
 * busy machine, at the end of every one-shot call whose workspace index
 * watched the tree, and the process's exit would wait for it just the
 * same.  A grandchild takes the last reference instead: it keeps only
 * that descriptor and a pipe, waits until this process has dropped its
 * own, closes it and exits; its parent (the middle process) ends at once,
 * so it belongs to init, which reaps it, and this process waits for
 * nothing but the middle's exit.  The middle is a vfork child: it borrows
 * this process's memory instead of copying it, so the only copy made is
 * the grandchild's, and the middle's exit has nothing to tear down. */
#include "fd_release.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* The grandchild's copy of the command line, blanked: a process listing
 * must not show a second vthost with the call's arguments (a check that
 * nothing of a command outlives its call would take it for one).  The
 * strings start at argv[0], which glibc keeps as program_invocation_name. */
static void forget_command_line(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    char buf[4096];
    size_t n = 0;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0)
        n += (size_t)r;
    close(fd);
    if (program_invocation_name && n)
        memset(program_invocation_name, 0, n);
    prctl(PR_SET_NAME, "vthost-release");
}

/* Every descriptor of the grandchild but keep[0] and keep[1] (lower
 * first): copies of the host's files must not outlive it there. */
static void close_others(int a, int b)
{
    int lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo > 0)
        syscall(SYS_close_range, 0, lo - 1, 0);
    if (hi > lo + 1)
        syscall(SYS_close_range, lo + 1, hi - 1, 0);
    syscall(SYS_close_range, hi + 1, ~0U, 0);
}

static long raw_fork(void)
{
#ifdef SYS_fork
    return syscall(SYS_fork);
#else
    return syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

void fd_release_detached(int fd)
{
    int p[2];
    if (fd < 0)
        return;
    if (pipe2(p, O_CLOEXEC) != 0) {
        close(fd);
        return;
    }
    /* No signal handler may run in the middle: it would run on this
     * thread's stack, in this process's memory. */
    sigset_t all, was;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &was);
    pid_t mid = vfork();
    if (mid == 0) {
        /* This process's memory, borrowed until _exit: a raw fork only
         * (glibc's fork would run atfork handlers and write its own
         * state, which is the parent's here). */
        if (raw_fork() != 0)
            _exit(0);
        /* The grandchild, with a copy of its own; async-signal-safe
         * calls only from here: the host has threads. */
        pthread_sigmask(SIG_SETMASK, &was, NULL);
        forget_command_line();
        close_others(fd, p[0]);
        char c;
        while (read(p[0], &c, 1) < 0 && errno == EINTR) {
        }
        close(fd); /* the last reference: the kernel's wait is here */
        _exit(0);
    }
    pthread_sigmask(SIG_SETMASK, &was, NULL);
    int st;
    if (mid > 0)
        while (waitpid(mid, &st, 0) < 0 && errno == EINTR) {
        }
    /* Not the last reference while the grandchild holds one; with no
     * grandchild (a fork failed) it is, and this close waits. */
    close(fd);
    close(p[0]);
    close(p[1]); /* the grandchild's read ends: it closes now */
}
