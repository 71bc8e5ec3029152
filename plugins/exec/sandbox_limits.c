/* Resource bounds and privileges of a session: its pids cgroup (made by
 * the host per call, joined by the session leader), rlimits, and the
 * dropping of every capability.  The child-side functions make system
 * calls only (async-signal-safe). */
#include "sandbox_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

static char *fmt2(const char *a, const char *b)
{
    char *s = NULL;
    return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

static int can_make_child(const char *dir)
{
    char probe[4096];
    snprintf(probe, sizeof probe, "%s/vthost-probe-%d", dir, (int)getpid());
    if (mkdir(probe, 0755) != 0)
        return 0;
    snprintf(probe + strlen(probe), sizeof probe - strlen(probe), "/pids.max");
    int ok = access(probe, W_OK) == 0;
    probe[strlen(probe) - strlen("/pids.max")] = '\0';
    rmdir(probe);
    return ok;
}

/* Remove what killed hosts left behind: empty vthost-* children. */
static void sweep(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "vthost-", 7) || e->d_type != DT_DIR)
            continue;
        /* only a dead host's: a live one may have just made it */
        int owner = atoi(e->d_name + 7);
        if (owner <= 0 || kill(owner, 0) == 0 || errno != ESRCH)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        rmdir(path); /* fails while in use: fine */
    }
    if (d)
        closedir(d);
}

/* One line of /proc/self/cgroup ("ID:CONTROLLERS:PATH"): the directory
 * of a pids cgroup it names, the v1 pids hierarchy's or the v2
 * (unified) one's, into dir; *v2 says which.  Returns 1, or 0 when the
 * line names neither. */
int sandbox_cgroup_line(const char *line, char *dir, size_t size, int *v2)
{
    const char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c2)
        return 0;
    size_t nctrl = (size_t)(c2 - c1 - 1), npath = strcspn(c2 + 1, "\n");
    const char *ctrl = c1 + 1, *path = c2 + 1;
    int n;
    *v2 = 0;
    if (nctrl == 4 && !strncmp(ctrl, "pids", 4)) {
        n = snprintf(dir, size, "/sys/fs/cgroup/pids%.*s", (int)npath, path);
    } else if (nctrl == 0 && c1 == line + 1 && line[0] == '0') {
        /* the unified hierarchy: at /sys/fs/cgroup, or beside v1 ones */
        const char *mnt = access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0
                              ? "/sys/fs/cgroup"
                              : "/sys/fs/cgroup/unified";
        n = snprintf(dir, size, "%s%.*s", mnt, (int)npath, path);
        *v2 = 1;
    } else {
        return 0;
    }
    if (n < 0 || (size_t)n >= size)
        return 0;
    size_t len = strlen(dir);
    if (len > 1 && dir[len - 1] == '/')
        dir[len - 1] = '\0';
    return 1;
}

/* The pids cgroup this host may make session children in: the v1 pids
 * hierarchy (writable as root), or a delegated v2 cgroup whose
 * subtree_control already enables pids.  NULL when there is none. */
char *sandbox_cgroup_find(void)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return NULL;
    char line[4096], *found = NULL;
    while (!found && fgets(line, sizeof line, f)) {
        char dir[3800]; /* room for the names made under it */
        int v2 = 0;
        if (!sandbox_cgroup_line(line, dir, sizeof dir, &v2))
            continue;
        if (v2) {
            char sub[4200], ctl[256] = "";
            snprintf(sub, sizeof sub, "%s/cgroup.subtree_control", dir);
            FILE *s = fopen(sub, "re");
            if (!s)
                continue;
            if (!fgets(ctl, sizeof ctl, s))
                ctl[0] = '\0';
            fclose(s);
            if (!strstr(ctl, "pids"))
                continue;
        }
        if (can_make_child(dir)) {
            sweep(dir);
            found = strdup(dir);
        }
    }
    fclose(f);
    return found;
}

/* A removed session's cgroup waits here until its supervisor has
 * exited (its pidfd is readable: before that, it may not have
 * joined yet) and the cgroup is empty (rmdir succeeds).  The host keeps
 * two of its files open (-1 until opened): cgroup.procs, read from
 * offset 0 for the emptiness check, and pids.max, written again when the
 * cgroup is taken for the next session.  A file of a removed cgroup
 * fails every read and write (ENODEV), also when another cgroup has
 * been made under the same name since, so neither check can pass on
 * another cgroup than the one the host made.  Only the first KEEP_FILES
 * waiting cgroups keep their files (the next to be taken is the first
 * empty one): a burst of sessions costs no descriptors beyond those. */
#define KEEP_FILES 1

typedef struct gone_entry {
    char *dir;
    char *join; /* the file a leader joins by (tasks or cgroup.procs) */
    int pidfd;  /* the supervisor's, or -1 */
    int procs_fd, max_fd;
    int keep; /* may keep its files open */
} gone_entry;

struct cgroup_gone {
    pthread_mutex_t mu;
    gone_entry *e;
    size_t n, cap;
};

int sandbox_cgroup_gone_init(sandbox *sb)
{
    sb->gone = calloc(1, sizeof *sb->gone);
    if (!sb->gone)
        return VT_ERR_NOMEM;
    pthread_mutex_init(&sb->gone->mu, NULL);
    return VT_OK;
}

static int supervisor_gone(int pidfd)
{
    struct pollfd f = {.fd = pidfd, .events = POLLIN};
    return pidfd < 0 || poll(&f, 1, 0) > 0;
}

static void close_if(int fd)
{
    if (fd >= 0)
        close(fd);
}

/* The cgroup `dir`'s cgroup.procs, open for reading, or -1. */
static int open_procs(const char *dir)
{
    char *procs = fmt2(dir, "/cgroup.procs");
    int fd = procs ? open(procs, O_RDONLY | O_CLOEXEC) : -1;
    free(procs);
    return fd;
}

static void gone_drop(gone_entry *e)
{
    free(e->dir);
    free(e->join);
    close_if(e->pidfd);
    close_if(e->procs_fd);
    close_if(e->max_fd);
}

void sandbox_cgroup_release(sandbox_plan *p)
{
    struct cgroup_gone *g = p->sb ? p->sb->gone : NULL;
    gone_entry e = {p->cgroup,          p->cgroup_procs,  p->supervisor_pidfd,
                    p->cgroup_procs_fd, p->cgroup_max_fd, 1};
    p->cgroup = p->cgroup_procs = NULL;
    p->supervisor_pidfd = p->cgroup_procs_fd = p->cgroup_max_fd = -1;
    if (!e.dir) {
        gone_drop(&e);
        return;
    }
    if (!g || (supervisor_gone(e.pidfd) && (rmdir(e.dir) == 0 || errno != EBUSY))) {
        gone_drop(&e);
        return;
    }
    pthread_mutex_lock(&g->mu);
    size_t keeping = 0;
    for (size_t i = 0; i < g->n; i++)
        keeping += g->e[i].keep;
    if (keeping >= KEEP_FILES) {
        close_if(e.procs_fd);
        close_if(e.max_fd);
        e.procs_fd = e.max_fd = -1;
        e.keep = 0;
    }
    if (VT_GROW(&g->e, &g->cap, g->n + 1) == 0)
        g->e[g->n++] = e;
    else
        gone_drop(&e); /* out of memory: a later start's sweep removes it */
    pthread_mutex_unlock(&g->mu);
}

void sandbox_cgroup_gone_free(sandbox *sb)
{
    if (!sb->gone)
        return;
    /* The sessions were ended: their inits are exiting. */
    sandbox_cgroup_sweep(sb, 1000);
    for (size_t i = 0; i < sb->gone->n; i++)
        gone_drop(&sb->gone->e[i]);
    free(sb->gone->e);
    pthread_mutex_destroy(&sb->gone->mu);
    free(sb->gone);
    sb->gone = NULL;
}

/* Whether a process is in the cgroup `e`: 0 none (its cgroup.procs
 * reads empty, in v1 and v2 alike), 1 some, -1 cannot tell (gone). */
static int cgroup_busy(gone_entry *e)
{
    if (e->procs_fd < 0 && (e->procs_fd = open_procs(e->dir)) < 0)
        return -1;
    char c;
    ssize_t n = pread(e->procs_fd, &c, 1, 0);
    if (!e->keep) {
        close(e->procs_fd);
        e->procs_fd = -1;
    }
    return n < 0 ? -1 : n != 0;
}

/* One pass over the removed sessions' cgroups (g->mu held): those whose
 * supervisor has exited and that hold no process are removed, or, with
 * `take`, the first of them is handed back for the next session instead
 * of a new one made and the old removed (both cost the kernel more than
 * the check).  Its supervisor has exited, so every process of that
 * session was killed with its PID namespace and none is left in it;
 * nothing can join an empty cgroup but by a write to its files, which
 * only the host can make.  Returns whether one was taken (into *spare). */
static int sweep_locked(struct cgroup_gone *g, gone_entry *spare)
{
    int taken = 0;
    size_t k = 0;
    for (size_t i = 0; i < g->n; i++) {
        gone_entry *e = &g->e[i];
        int busy = supervisor_gone(e->pidfd) ? cgroup_busy(e) : 1;
        if (busy == 0 && spare && !taken) {
            *spare = *e;
            taken = 1;
        } else if (busy <= 0 && (rmdir(e->dir) == 0 || errno != EBUSY)) {
            gone_drop(e);
        } else {
            g->e[k++] = *e;
        }
    }
    g->n = k;
    return taken;
}

void sandbox_cgroup_sweep(const sandbox *sb, int wait_ms)
{
    struct cgroup_gone *g = sb->gone;
    if (!g)
        return;
    pthread_mutex_lock(&g->mu);
    for (int t = 0;; t++) {
        (void)sweep_locked(g, NULL);
        if (!g->n || t * 2 >= wait_ms)
            break;
        struct timespec ts = {0, 2000000L};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_unlock(&g->mu);
}

/* Bound the cgroup by a write to its pids.max (kept open).  0, or -1
 * when it cannot be written (for a kept file: the cgroup was removed). */
static int write_max(const sandbox *sb, sandbox_plan *p)
{
    if (p->cgroup_max_fd < 0) {
        char *max = fmt2(p->cgroup, "/pids.max");
        p->cgroup_max_fd = max ? open(max, O_WRONLY | O_CLOEXEC) : -1;
        free(max);
    }
    char text[16];
    int n = snprintf(text, sizeof text, "%u\n", sb->max_processes);
    return p->cgroup_max_fd >= 0 && pwrite(p->cgroup_max_fd, text, (size_t)n, 0) == n ? 0 : -1;
}

/* The previous session's empty cgroup, bounded again: 1, or 0 when
 * there is none fit (one that was removed meanwhile is let go). */
static int take_spare(const sandbox *sb, sandbox_plan *p)
{
    gone_entry e;
    pthread_mutex_lock(&sb->gone->mu);
    int taken = sweep_locked(sb->gone, &e);
    pthread_mutex_unlock(&sb->gone->mu);
    if (!taken)
        return 0;
    close_if(e.pidfd);
    p->cgroup = e.dir;
    p->cgroup_procs = e.join;
    p->cgroup_procs_fd = e.procs_fd;
    p->cgroup_max_fd = e.max_fd;
    if (p->cgroup_procs && write_max(sb, p) == 0)
        return 1;
    rmdir(p->cgroup); /* fails with ENOENT when it is gone: fine */
    e = (gone_entry){p->cgroup, p->cgroup_procs, -1, p->cgroup_procs_fd, p->cgroup_max_fd, 0};
    gone_drop(&e);
    p->cgroup = p->cgroup_procs = NULL;
    p->cgroup_procs_fd = p->cgroup_max_fd = -1;
    return 0;
}

int sandbox_cgroup_make(const sandbox *sb, sandbox_plan *p)
{
    static atomic_uint seq;
    if (!sb->cgroup_base || !sb->max_processes)
        return VT_OK;
    if (sb->gone && take_spare(sb, p))
        return VT_OK;
    char name[64];
    snprintf(name, sizeof name, "/vthost-%d-%u", (int)getpid(), atomic_fetch_add(&seq, 1));
    p->cgroup = fmt2(sb->cgroup_base, name);
    if (!p->cgroup)
        return VT_ERR_NOMEM;
    if (mkdir(p->cgroup, 0755) != 0)
        return VT_ERR_IO;
    /* The session leader joins by itself before anything else runs in it,
     * single-threaded (a clone child), so moving its one thread moves the
     * whole process.  In v1 that is a write to `tasks`, which skips the
     * global threadgroup lock a write to cgroup.procs takes: that lock
     * waits for an RCU grace period, 10-25 ms on a busy machine, on every
     * call.  v2 has no `tasks` (its cgroup.threads is for threaded
     * cgroups only). */
    char *tasks = fmt2(p->cgroup, "/tasks");
    p->cgroup_procs = tasks && access(tasks, W_OK) == 0 ? tasks : NULL;
    if (!p->cgroup_procs) {
        free(tasks);
        p->cgroup_procs = fmt2(p->cgroup, "/cgroup.procs");
    }
    if (!p->cgroup_procs || write_max(sb, p) != 0) {
        rmdir(p->cgroup);
        return p->cgroup_procs ? VT_ERR_IO : VT_ERR_NOMEM;
    }
    /* opened now, for the check before it is taken again: the files a
     * kept cgroup holds are those of its first session */
    p->cgroup_procs_fd = open_procs(p->cgroup);
    return VT_OK;
}

int sandbox_limits_apply(const sandbox_plan *p, const char **what)
{
    const sandbox *sb = p->sb;
    if (p->cgroup_procs) {
        *what = "joining the session's pids cgroup";
        int rc = sandbox_write_file(p->cgroup_procs, "0");
        if (rc)
            return rc;
    } else if (sb->own_userns && sb->max_processes) {
        /* Processes are counted per user *and user namespace* (Linux
         * 5.14+): in the session's own user namespace, RLIMIT_NPROC
         * bounds this session alone. */
        *what = "RLIMIT_NPROC";
        struct rlimit r = {sb->max_processes, sb->max_processes};
        if (setrlimit(RLIMIT_NPROC, &r) != 0)
            return -errno;
    }
    /* memory and file size: a runaway command fails (ENOMEM, EFBIG or
     * SIGXFSZ) instead of taking the machine's memory or disk */
    static const int res[2] = {RLIMIT_DATA, RLIMIT_FSIZE};
    const unsigned mb[2] = {sb->memory_mb, sb->file_size_mb};
    for (int i = 0; i < 2; i++) {
        if (!mb[i])
            continue;
        *what = i ? "RLIMIT_FSIZE" : "RLIMIT_DATA";
        struct rlimit have, r;
        r.rlim_cur = r.rlim_max = (rlim_t)mb[i] << 20;
        if (getrlimit(res[i], &have) == 0 && have.rlim_max != RLIM_INFINITY &&
            have.rlim_max < r.rlim_max) /* never above the host's own bound */
            r.rlim_cur = r.rlim_max = have.rlim_max;
        if (setrlimit(res[i], &r) != 0)
            return -errno;
    }
    if (!p->tty && sb->cpu_seconds) {
        *what = "RLIMIT_CPU";
        struct rlimit r = {sb->cpu_seconds, sb->cpu_seconds + 5};
        if (setrlimit(RLIMIT_CPU, &r) != 0)
            return -errno;
    }
    return 0;
}

int sandbox_bset_drop(void)
{
    /* Each drop is a new set of credentials: the ones already gone (a
     * leader from the leader maker, which dropped them once) are only
     * read. */
    int dropped = 0;
    for (int cap = 0; cap < 64; cap++) {
        int in = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);
        if (in < 0)
            break; /* EINVAL: past the last capability */
        if (in && prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0)
            dropped = 1;
    }
    return dropped;
}

/* Root's command is as weak as anyone's: lock root's special treatment
 * off, empty the bounding and ambient sets, then every other set. */
int sandbox_caps_drop(void)
{
    if (prctl(PR_GET_SECUREBITS) >= 0)
        (void)prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
                                           SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
                                           SECBIT_KEEP_CAPS_LOCKED);
    int dropped = sandbox_bset_drop();
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        return -errno;
    struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct d[2];
    memset(d, 0, sizeof d);
    if (syscall(SYS_capset, &h, d) != 0)
        return -errno;
    /* With CAP_SETPCAP the bounding set is empty now; without it (an
     * ordinary user without namespaces) there was nothing to gain. */
    if (dropped && prctl(PR_CAPBSET_READ, 0, 0, 0, 0) > 0)
        return -EPERM;
    return 0;
}
