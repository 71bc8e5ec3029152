/* Which processes hold a socket, and whether they descend from this
 * process.  First a table of every process in /proc: parent, start time
 * and user (stat); whether each descends from this process follows from
 * it.  Then the descriptors (fd/) of this process and its descendants,
 * all of them: a holder among them is refused, whoever else holds the
 * socket.  Then the others' of the socket's user, only until one holder
 * turns up.
 *
 * Why the chain of parents holds: a sandboxed command runs in a PID
 * namespace whose first process (the session leader) this process cloned
 * itself.  An orphan inside is reparented to that leader (or to a
 * subreaper inside), never outside it, and when the leader ends the
 * kernel ends everything in the namespace; so however a command forks,
 * detaches or re-parents (double fork, setsid, a subreaper of its own,
 * threads: /proc/PID is the thread group), every process of the session
 * has this process among its ancestors.  A parent whose start time is
 * later than its child's is a reused pid, and a holder whose start time
 * changed since the table was read is a new process under an old pid:
 * neither is trusted (reported unsure, and refused).  A process started
 * after the table was read is in no chain, so it can only be an unknown
 * holder: a socket held only by such a process, only in a message in
 * flight (SCM_RIGHTS) or only in a thread's private descriptor table has
 * no holder found here, which the caller refuses. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "http_peer_int.h"

/* Bounds of one scan: a machine with more is judged unsure (refused). */
#define MAX_PROCS (1 << 17)
#define MAX_LINKS (1 << 21)
#define MAX_DEPTH 4096

typedef struct proc_ent {
    pid_t pid, ppid;
    unsigned long long start; /* clock ticks after boot */
    uid_t uid;                /* of /proc/PID: the process's user */
    int mine;                 /* 1 this process or its descendant, 0 not, -1 cannot tell */
    int holds;                /* holds the socket */
    int unreadable;           /* its descriptors could not be read */
    char comm[16];
} proc_ent;

typedef struct scan {
    int proc;      /* /proc */
    char want[40]; /* "socket:[INODE]" */
    size_t links;  /* descriptors read so far */
    proc_ent *tab;
    size_t n, cap;
    int incomplete;
} scan;

/* pid's parent, start time and name from /proc/PID/stat; 0, or -1 when
 * the process is gone. */
static int read_stat(int proc, const char *pid, proc_ent *e)
{
    char path[300], buf[1024];
    snprintf(path, sizeof path, "%s/stat", pid);
    int fd = openat(proc, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = 0;
    /* "PID (COMM) STATE PPID ... STARTTIME(22nd)": the name may hold
     * spaces and parentheses, so fields count from the last ')' */
    char *open = strchr(buf, '('), *close_ = strrchr(buf, ')');
    if (!open || !close_ || close_ < open)
        return -1;
    size_t len = (size_t)(close_ - open - 1);
    if (len >= sizeof e->comm)
        len = sizeof e->comm - 1;
    memcpy(e->comm, open + 1, len);
    e->comm[len] = 0;
    char *save = NULL, *f = strtok_r(close_ + 1, " ", &save);
    for (int field = 3; f; field++, f = strtok_r(NULL, " ", &save)) {
        if (field == 4)
            e->ppid = (pid_t)strtol(f, NULL, 10);
        if (field == 22) {
            e->start = strtoull(f, NULL, 10);
            return 0;
        }
    }
    return -1;
}

/* Whether pid holds the socket (e->holds); e->unreadable when its
 * descriptors cannot be listed or read. */
static void read_fds(scan *s, proc_ent *e)
{
    char path[32];
    snprintf(path, sizeof path, "%d/fd", (int)e->pid);
    int dfd = openat(s->proc, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        e->unreadable = errno != ENOENT;
        return;
    }
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        e->unreadable = 1;
        return;
    }
    size_t wlen = strlen(s->want);
    char link[64];
    for (struct dirent *de; !e->holds && (de = readdir(d));) {
        if (de->d_name[0] == '.')
            continue;
        if (++s->links > MAX_LINKS) {
            s->incomplete = 1;
            break;
        }
        ssize_t n = readlinkat(dfd, de->d_name, link, sizeof link);
        if (n < 0 && errno == EACCES)
            e->unreadable = 1;
        e->holds = n == (ssize_t)wlen && memcmp(link, s->want, wlen) == 0;
    }
    closedir(d);
}

static int add_proc(scan *s, const char *pid)
{
    if (s->n >= MAX_PROCS || VT_GROW(&s->tab, &s->cap, s->n + 1) != 0) {
        s->incomplete = 1;
        return -1;
    }
    proc_ent *e = &s->tab[s->n];
    memset(e, 0, sizeof *e);
    e->pid = (pid_t)strtol(pid, NULL, 10);
    struct stat st;
    if (read_stat(s->proc, pid, e) != 0 || fstatat(s->proc, pid, &st, 0) != 0)
        return 0; /* gone */
    e->uid = st.st_uid;
    s->n++;
    return 0;
}

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const proc_ent *)a)->pid, y = ((const proc_ent *)b)->pid;
    return (x > y) - (x < y);
}

static const proc_ent *find(const scan *s, pid_t pid)
{
    proc_ent key = {.pid = pid};
    return bsearch(&key, s->tab, s->n, sizeof *s->tab, by_pid);
}

/* 1 when e is `self` or descends from it, 0 when its chain ends
 * elsewhere, -1 when the chain cannot be trusted (a parent gone while
 * the table was read, a reused pid, a loop). */
static int descends(const scan *s, const proc_ent *e, pid_t self)
{
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        if (e->pid == self)
            return 1;
        if (e->ppid <= 0)
            return 0; /* the namespace's first process: the top */
        const proc_ent *p = find(s, e->ppid);
        if (!p || p->start > e->start)
            return -1;
        e = p;
    }
    return -1;
}

/* Whether /proc is this process's (its PID namespace's): else nothing
 * read there says anything about our children. */
static int proc_is_ours(int proc, pid_t self)
{
    char link[32];
    ssize_t n = readlinkat(proc, "self", link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = 0;
    return strtol(link, NULL, 10) == (long)self;
}

/* Whether the process under e's pid is still the one the table read. */
static int same_process(const scan *s, const proc_ent *e)
{
    char pid[16];
    proc_ent now = {0};
    snprintf(pid, sizeof pid, "%d", (int)e->pid);
    return read_stat(s->proc, pid, &now) == 0 && now.start == e->start;
}

/* Read the descriptors of the processes `pick` chooses, the newest
 * first, until one holds the socket: that one, or NULL. */
static proc_ent *first_holder(scan *s, int (*pick)(const proc_ent *, uid_t), uid_t uid)
{
    for (size_t i = s->n; i-- > 0 && !s->incomplete;) {
        proc_ent *e = &s->tab[i];
        if (!pick(e, uid))
            continue;
        read_fds(s, e);
        if (!e->holds)
            continue;
        if (!same_process(s, e))
            e->mine = -1;
        return e;
    }
    return NULL;
}

static int pick_mine(const proc_ent *e, uid_t uid)
{
    (void)uid;
    return e->mine != 0;
}

static int pick_maker_user(const proc_ent *e, uid_t uid) { return e->mine == 0 && e->uid == uid; }

/* Ours (and those that cannot be told) are read whole: a holder among
 * them is refused whoever else holds the socket too.  Then the others of
 * the user that made the socket, the newest first, only until one holder
 * turns up: that is all a verdict to serve needs.  A client holds the
 * socket it made; a process of another user holding it was handed it
 * (a service that takes descriptors, say), which proves nothing. */
static void judge(scan *s, uid_t uid, peer_owners *out)
{
    proc_ent *h = first_holder(s, pick_mine, uid);
    if (h) {
        *(h->mine == 1 ? &out->ours : &out->unsure) = h->pid;
        snprintf(out->comm, sizeof out->comm, "%s", h->comm);
        return;
    }
    for (size_t i = 0; i < s->n; i++)
        if (s->tab[i].mine != 0 && s->tab[i].unreadable && !out->unreadable)
            out->unreadable = s->tab[i].pid;
    h = first_holder(s, pick_maker_user, uid);
    if (h && h->mine == 0)
        out->other = h->pid;
    else if (h)
        out->unsure = h->pid, snprintf(out->comm, sizeof out->comm, "%s", h->comm);
}

int peer_proc_owners(unsigned long inode, uid_t uid, peer_owners *out)
{
    memset(out, 0, sizeof *out);
    pid_t self = getpid();
    scan s = {.proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
    if (s.proc < 0)
        return VT_ERR_IO;
    int dup_fd = proc_is_ours(s.proc, self) ? dup(s.proc) : -1;
    DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
    if (!d) {
        if (dup_fd >= 0)
            close(dup_fd);
        close(s.proc);
        return VT_ERR_IO;
    }
    snprintf(s.want, sizeof s.want, "socket:[%lu]", inode);
    for (struct dirent *de; !s.incomplete && (de = readdir(d));)
        if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
            add_proc(&s, de->d_name);
    closedir(d);
    qsort(s.tab, s.n, sizeof *s.tab, by_pid);
    for (size_t i = 0; i < s.n; i++)
        s.tab[i].mine = descends(&s, &s.tab[i], self);
    judge(&s, uid, out);
    out->incomplete = s.incomplete;
    close(s.proc);
    free(s.tab);
    return 0;
}
