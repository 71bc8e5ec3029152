/* Run-time command enforcement: the filter, its installation in the
 * supervisor, and the watcher thread that judges every execve.
 *
 * Which programs are "the command text's own" (by_shell): the first
 * program (the shell) and every process that has not become another
 * program since it was forked from it (subshells, pipelines, command
 * substitutions).  The watcher records each process it let exec a
 * program (pid and start time, so a reused pid is not mistaken), and a
 * trapped process is by_shell unless it or one of its ancestors is such
 * a program.  A known shell run by the shell (bash -c TEXT, sh script,
 * echo ... | bash) stays part of the command text: the programs it runs
 * are judged as if the text had named them.  Orphans whose lineage is
 * lost count as by_shell (the stricter reading). */
#include "execwatch.h"
#include "execwatch_ident.h"
#include "execwatch_int.h"
#include "execwatch_proc.h"
#include "sandbox.h"
#include "seccomp_lib.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <vthost/clock.h>
#include <vthost/grow.h>

static struct sock_fprog filter; /* built once; read-only afterwards */
static int nr_execve = -1, nr_execveat = -1;

static pthread_mutex_t all_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t all_cv = PTHREAD_COND_INITIALIZER;
static execwatch *all_head; /* watchers whose thread runs */
static int stopping;
/* Threads that left all_head and still need joining.  They are joinable,
 * not detached, so that fini can wait until each has returned: the code
 * they run lives in this module, which the host may unload right after. */
static pthread_t *ended;
static size_t nended, capended;

/* Join the threads that have ended (they are returning: short waits). */
static void join_ended(void)
{
    pthread_mutex_lock(&all_mu);
    pthread_t *list = ended;
    size_t n = nended;
    ended = NULL;
    nended = capended = 0;
    pthread_mutex_unlock(&all_mu);
    for (size_t i = 0; i < n; i++)
        pthread_join(list[i], NULL);
    free(list);
}

/* ---- the filter -------------------------------------------------------- */

int execwatch_available(void) { return filter.len > 0; }

const struct sock_fprog *execwatch_filter(void) { return &filter; }

void execwatch_adopt(struct sock_fprog *f) { sandbox_bpf_adopt(&filter, f); }

int execwatch_prepare(void)
{
    if (filter.len)
        return VT_OK;
    /* Level 6: the kernel can continue a trapped call (Linux 5.5). */
    if (seccomp_lib_bind() != VT_OK || libseccomp.api_get() < 6)
        return VT_ERR_UNSUPPORTED;
    scmp_filter_ctx ctx = libseccomp.init(SCMP_ACT_ALLOW);
    if (!ctx)
        return VT_ERR_NOMEM;
    nr_execve = libseccomp.syscall_resolve_name("execve");
    nr_execveat = libseccomp.syscall_resolve_name("execveat");
    int rc = libseccomp.rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0);
    if (rc == 0)
        rc = libseccomp.rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execveat), 0);
    return sandbox_bpf_export(ctx, rc, &filter);
}

int execwatch_child_install(int sock, int prog_fd, const char *given, const char *abs)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    /* with the sandbox's top part where the confinement left it here */
    int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          sandbox_seccomp_listener(&filter));
    if (fd < 0)
        return -errno;
    int fds[2] = {fd, prog_fd};
    size_t nfd = prog_fd >= 0 ? 2 : 1;
    char cbuf[CMSG_SPACE(sizeof fds)];
    memset(cbuf, 0, sizeof cbuf);
    /* 'L': the listener alone; 'D': and the program, "given\0abs\0" */
    char byte = prog_fd >= 0 ? 'D' : 'L';
    struct iovec iov[3] = {{&byte, 1}, {(void *)given, 0}, {(void *)abs, 0}};
    if (prog_fd >= 0) {
        iov[1].iov_len = strlen(given) + 1;
        iov[2].iov_len = strlen(abs) + 1;
    }
    struct msghdr m = {.msg_iov = iov,
                       .msg_iovlen = prog_fd >= 0 ? 3 : 1,
                       .msg_control = cbuf,
                       .msg_controllen = CMSG_SPACE(nfd * sizeof(int))};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(nfd * sizeof(int));
    memcpy(CMSG_DATA(c), fds, nfd * sizeof(int));
    ssize_t r;
    do
        r = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (r < 0 && errno == EINTR);
    int e = r > 0 ? 0 : -errno;
    close(fd); /* the supervisor must not answer its own traps */
    return e ? e : (r > 0 ? 0 : -EIO);
}

/* ---- lifetime ---------------------------------------------------------- */

static void watch_free(execwatch *w)
{
    if (w->policy)
        w->policy->release(w->policy);
    ew_strv_free(w->writable);
    ew_ident_free(w->ident);
    ew_strv_free(w->shell_argv);
    ew_strv_free(w->direct_argv);
    free(w->direct_given);
    free(w->direct_abs);
    if (w->shell_fd >= 0)
        close(w->shell_fd);
    if (w->direct_fd >= 0)
        close(w->direct_fd);
    if (w->shell_pidfd >= 0)
        close(w->shell_pidfd);
    if (w->sock >= 0)
        close(w->sock);
    if (w->listener >= 0)
        close(w->listener);
    for (int k = 0; k < 2; k++)
        if (w->stop[k] >= 0)
            close(w->stop[k]);
    cJSON_Delete(w->denied);
    cJSON_Delete(w->programs);
    free(w->marks);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

static void unref(execwatch *w)
{
    pthread_mutex_lock(&w->mu);
    int last = --w->refs == 0;
    pthread_mutex_unlock(&w->mu);
    if (last)
        watch_free(w);
}

execwatch *execwatch_retain(execwatch *w)
{
    if (w) {
        pthread_mutex_lock(&w->mu);
        w->refs++;
        pthread_mutex_unlock(&w->mu);
    }
    return w;
}

void execwatch_release(execwatch *w)
{
    if (w)
        unref(w);
}

void execwatch_set_live(execwatch *w, vt_call *call)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->live = call;
    while (!call && w->asking)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

cJSON *execwatch_denied(execwatch *w)
{
    if (!w)
        return NULL;
    pthread_mutex_lock(&w->mu);
    cJSON *d = w->denied && cJSON_GetArraySize(w->denied) ? cJSON_Duplicate(w->denied, 1) : NULL;
    pthread_mutex_unlock(&w->mu);
    return d;
}

cJSON *execwatch_programs(execwatch *w, int *complete)
{
    *complete = 1;
    if (!w)
        return NULL;
    pthread_mutex_lock(&w->mu);
    cJSON *p = w->programs ? cJSON_Duplicate(w->programs, 1) : cJSON_CreateArray();
    *complete = !w->programs_cut && p;
    pthread_mutex_unlock(&w->mu);
    return p;
}

/* ---- the thread ------------------------------------------------------------ */

/* The program of plain words the supervisor found, sent with the
 * listener: its file (kept high) and "given\0abs\0". */
static int take_direct(execwatch *w, int fd, const char *body, size_t n)
{
    const char *end = memchr(body, 0, n);
    if (!w->direct_argv || !end || !memchr(end + 1, 0, n - (size_t)(end + 1 - body))) {
        close(fd);
        return -1;
    }
    w->direct_fd = fcntl(fd, F_DUPFD_CLOEXEC, 64);
    close(fd);
    w->direct_given = strdup(body);
    w->direct_abs = strdup(end + 1);
    return w->direct_fd < 0 || !w->direct_given || !w->direct_abs ? -1 : 0;
}

static int receive_listener(execwatch *w)
{
    for (;;) {
        struct pollfd f[2] = {{.fd = w->sock, .events = POLLIN},
                              {.fd = w->stop[0], .events = POLLIN}};
        if (poll(f, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (f[1].revents)
            return -1;
        char cbuf[CMSG_SPACE(2 * sizeof(int))], byte;
        char body[2 * PATH_MAX + 2];
        struct iovec iov[2] = {{&byte, 1}, {body, sizeof body - 1}};
        struct msghdr m = {
            .msg_iov = iov, .msg_iovlen = 2, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
        ssize_t r = recvmsg(w->sock, &m, MSG_CMSG_CLOEXEC);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1; /* the supervisor is gone before it started the shell */
        struct cmsghdr *c = CMSG_FIRSTHDR(&m);
        size_t nfd = byte == 'D' ? 2 : 1;
        if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(nfd * sizeof(int)))
            return -1;
        int fds[2] = {-1, -1};
        memcpy(fds, CMSG_DATA(c), nfd * sizeof(int));
        w->listener = fds[0];
        if (nfd == 2)
            return take_direct(w, fds[1], body, (size_t)r - 1);
        return 0;
    }
}

static void serve(execwatch *w)
{
    struct seccomp_notif *req = NULL;
    struct seccomp_notif_resp *resp = NULL;
    if (libseccomp.notify_alloc(&req, &resp) != 0)
        return;
    for (;;) {
        /* The supervisor holds its end of the socket until it exits:
         * then the command is over (what it left behind can no longer
         * execute anything: the closed listener fails its execve). */
        struct pollfd f[3] = {{.fd = w->listener, .events = POLLIN},
                              {.fd = w->stop[0], .events = POLLIN},
                              {.fd = w->sock, .events = POLLIN}};
        if (poll(f, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (f[1].revents || (f[2].revents && !(f[0].revents & POLLIN)))
            break;
        if (f[0].revents & (POLLHUP | POLLERR) && !(f[0].revents & POLLIN))
            break; /* every process of the command is gone */
        memset(req, 0, sizeof *req);
        if (libseccomp.notify_receive(w->listener, req) != 0)
            continue; /* the process died meanwhile */
        int refuse;   /* 0 or the errno */
        if (!w->shell) {
            /* The first execve is the supervisor starting the shell the
             * call's permission check judged by name: deny rules only. */
            w->shell = (pid_t)req->pid;
            w->shell_pidfd = (int)syscall(SYS_pidfd_open, w->shell, 0);
            if (w->shell_pidfd < 0)
                (void)ew_shell_start(w); /* without a pidfd: now, while it waits here */
            refuse = ew_judge(w, req, req->data.nr == nr_execveat, 1);
        } else {
            refuse = ew_judge(w, req, req->data.nr == nr_execveat, 0);
        }
        /* What was read must still belong to this trap. */
        if (libseccomp.notify_id_valid(w->listener, req->id) != 0)
            continue;
        memset(resp, 0, sizeof *resp);
        resp->id = req->id;
        if (!refuse)
            resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        else
            resp->error = -refuse;
        (void)libseccomp.notify_respond(w->listener, resp);
    }
    libseccomp.notify_free(req, resp);
}

static void *thread_main(void *arg)
{
    execwatch *w = arg;
    if (receive_listener(w) == 0)
        serve(w);
    /* Closing the listener fails any execve still to come (ENOSYS). */
    pthread_mutex_lock(&w->mu);
    if (w->listener >= 0)
        close(w->listener);
    if (w->sock >= 0)
        close(w->sock);
    for (int k = 0; k < 2; k++)
        if (w->stop[k] >= 0)
            close(w->stop[k]);
    /* The shell's file is judged and run by now (the supervisor holds its
     * own copy); a session kept for its output must not keep it open. */
    if (w->shell_fd >= 0)
        close(w->shell_fd);
    if (w->direct_fd >= 0)
        close(w->direct_fd);
    if (w->shell_pidfd >= 0)
        close(w->shell_pidfd);
    w->listener = w->sock = w->stop[0] = w->stop[1] = w->shell_fd = w->direct_fd = -1;
    w->shell_pidfd = -1;
    w->done = 1;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_mutex_lock(&all_mu);
    for (execwatch **p = &all_head; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    if (VT_GROW(&ended, &capended, nended + 1) == 0)
        ended[nended++] = pthread_self();
    else
        pthread_detach(pthread_self()); /* no memory: cannot be joined */
    pthread_cond_broadcast(&all_cv);
    pthread_mutex_unlock(&all_mu);
    unref(w);
    return NULL;
}

/* The shell's file, opened once: what the first execve is judged by and
 * what the supervisor runs.  High, like the socket, so the child's
 * rearranging of low descriptors cannot hit it.  A file that cannot be
 * opened is left to the kernel's execve of its path (its error). */
static int open_shell(execwatch *w, const char *path, char *const *argv)
{
    if (!path)
        return VT_OK;
    size_t n = 0;
    while (argv && argv[n])
        n++;
    w->shell_argv = calloc(n + 1, sizeof *w->shell_argv);
    if (!w->shell_argv)
        return VT_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(w->shell_argv[i] = strdup(argv[i])))
            return VT_ERR_NOMEM;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == EACCES) /* execute-only: runs all the same */
        fd = open(path, O_PATH | O_CLOEXEC);
    struct stat sb;
    if (fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        char head[2] = {0};
        w->shell_script = pread(fd, head, 2, 0) == 2 && head[0] == '#' && head[1] == '!';
        w->shell_fd = fcntl(fd, F_DUPFD_CLOEXEC, 64);
    }
    if (fd >= 0)
        close(fd);
    return VT_OK;
}

int execwatch_shell_fd(const execwatch *w, int *script)
{
    *script = w ? w->shell_script : 0;
    return w ? w->shell_fd : -1;
}

int execwatch_start(const execwatch_opts *o, execwatch **out, int *child_sock)
{
    *out = NULL;
    *child_sock = -1;
    execwatch *w = calloc(1, sizeof *w);
    if (!w) {
        o->policy->release(o->policy);
        ew_strv_free(o->writable);
        return VT_ERR_NOMEM;
    }
    w->api = o->api;
    w->policy = o->policy;
    w->writable = o->writable;
    w->sock = w->listener = w->stop[0] = w->stop[1] = w->shell_fd = w->direct_fd = -1;
    w->shell_pidfd = -1;
    w->refs = 2;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (ew_ident_new(o->denied, getenv("PATH"), &w->ident) != VT_OK ||
        open_shell(w, o->shell_path, o->shell_argv) != VT_OK ||
        (o->direct_argv && !(w->direct_argv = ew_strv_dup(o->direct_argv, 0)))) {
        watch_free(w);
        return VT_ERR_NOMEM;
    }
    int sv[2] = {-1, -1}, child = -1;
    if (!filter.len || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
        pipe2(w->stop, O_CLOEXEC) < 0) {
        if (sv[0] >= 0) {
            close(sv[0]);
            close(sv[1]);
        }
        watch_free(w);
        return filter.len ? VT_ERR_IO : VT_ERR_UNSUPPORTED;
    }
    w->sock = sv[0];
    /* High, so the child's rearranging of low descriptors cannot hit it. */
    child = fcntl(sv[1], F_DUPFD_CLOEXEC, 64);
    close(sv[1]);
    join_ended();
    pthread_t t;
    pthread_mutex_lock(&all_mu);
    int rc = child < 0 || stopping ? -1 : pthread_create(&t, NULL, thread_main, w);
    if (rc == 0) {
        w->next = all_head;
        all_head = w;
    }
    pthread_mutex_unlock(&all_mu);
    if (rc != 0) {
        if (child >= 0)
            close(child);
        watch_free(w);
        return VT_ERR_IO;
    }
    *out = w;
    *child_sock = child;
    return VT_OK;
}

int execwatch_wait(execwatch *w, int ms)
{
    if (!w)
        return 1;
    struct timespec until;
    vt_clock_deadline_ms(&until, ms);
    pthread_mutex_lock(&w->mu);
    while (!w->done && pthread_cond_clockwait(&w->cv, &w->mu, CLOCK_MONOTONIC, &until) == 0)
        ;
    int done = w->done;
    pthread_mutex_unlock(&w->mu);
    return done;
}

void execwatch_fini(void)
{
    pthread_mutex_lock(&all_mu);
    stopping = 1;
    for (execwatch *w = all_head; w; w = w->next) {
        pthread_mutex_lock(&w->mu);
        if (w->stop[1] >= 0) {
            ssize_t r = write(w->stop[1], "x", 1);
            (void)r;
        }
        pthread_mutex_unlock(&w->mu);
    }
    while (all_head)
        pthread_cond_wait(&all_cv, &all_mu);
    stopping = 0;
    pthread_mutex_unlock(&all_mu);
    join_ended();
    free(filter.filter);
    filter.filter = NULL;
    filter.len = 0;
}
