/* Command sandbox: preparation (seccomp filter, namespaces probe, pids
 * cgroup, the Landlock probe), the per-call plan, and the child-side
 * steps in their order.  See sandbox.h for the split between parent and
 * child; the pieces live in sandbox_config.c, sandbox_landlock.c,
 * sandbox_seccomp.c, sandbox_paths.c, sandbox_limits.c and
 * sandbox_denial.c. */
#include "sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <vthost/format.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

const char *sandbox_mode_name(sandbox_mode m)
{
    switch (m) {
    case SANDBOX_WORKSPACE_WRITE: return "workspace-write";
    case SANDBOX_READ_ONLY: return "read-only";
    case SANDBOX_FULL_ACCESS: return "danger-full-access";
    }
    return "?";
}

char *sandbox_fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = vt_vformat(f, ap);
    va_end(ap);
    return s;
}

/* ---- namespaces ------------------------------------------------------------ */

/* The probe's child, pid 1 of its new namespaces: a private /proc. */
static int probe_mounts(void)
{
    return mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
                   mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == 0
               ? 0
               : 1;
}

/* Whether a session can have its own PID and mount namespace here (as
 * root directly, else inside a user namespace) and mount a fresh /proc.
 * One process cloned straight into the namespaces, as a session leader
 * is (every start pays for this probe); without clone3, a child that
 * unshares and forks the namespace's first process. */
static int namespaces_probe(int own_userns)
{
    int flags = CLONE_NEWPID | CLONE_NEWNS | (own_userns ? CLONE_NEWUSER : 0);
    struct clone_args a;
    memset(&a, 0, sizeof a);
    a.flags = (uint64_t)flags;
    a.exit_signal = SIGCHLD;
    long r = syscall(SYS_clone3, &a, sizeof a);
    if (r == 0)
        _exit(probe_mounts());
    if (r > 0) {
        int st = 0;
        pid_t pid = (pid_t)r;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        return WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    if (errno != ENOSYS)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(flags) != 0)
            _exit(1);
        pid_t init = fork();
        if (init == 0)
            _exit(probe_mounts());
        int st = 0;
        _exit(init > 0 && waitpid(init, &st, 0) == init && WIFEXITED(st) && WEXITSTATUS(st) == 0
                  ? 0
                  : 1);
    }
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ---- prepare ---------------------------------------------------------------- */

void sandbox_free(sandbox *sb)
{
    if (!sb)
        return;
    sandbox_cgroup_gone_free(sb);
    free(sb->vtcode_dir);
    sandbox_seccomp_free(sb);
    for (size_t i = 0; i < sb->nroots; i++)
        free(sb->roots[i]);
    free(sb->roots);
    free(sb->cgroup_base);
    for (size_t i = 0; i < sb->npolicy; i++)
        free(sb->policy[i]);
    free(sb->policy);
    free(sb);
}

static int add_root(sandbox *sb, const char *root)
{
    if (VT_GROW(&sb->roots, &sb->cap_roots, sb->nroots + 1) != 0)
        return VT_ERR_NOMEM;
    return (sb->roots[sb->nroots] = strdup(root)) ? (sb->nroots++, VT_OK) : VT_ERR_NOMEM;
}

static void warn_more(char **warning, const char *text)
{
    char *w = *warning ? sandbox_fmt("%s; %s", *warning, text) : strdup(text);
    if (w) {
        free(*warning);
        *warning = w;
    }
}

/* Before a command runs: the workspace's policy directory exists (the
 * host's workspace service makes it, with what it holds), so that it is
 * mounted read-only like an existing one. */
static void policy_make_dir(const sandbox *sb, sandbox_plan *p)
{
    const vt_wsindex_v1 *x = sb->index;
    if (!sb->vtcode_dir || !x || x->struct_size < sizeof *x)
        return;
    char *dir = NULL, *err = NULL;
    if (x->prepare(&dir, &err) != VT_OK && !p->truncated) {
        p->truncated = err;
        err = NULL;
    }
    free(dir);
    free(err);
}

/* The sandbox's fields from the configuration and this process's ids. */
static sandbox *sandbox_new(const sandbox_config *cfg, int abi)
{
    sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return NULL;
    sb->mode = cfg->mode;
    sb->network_access = cfg->network_access;
    sb->landlock_abi = abi;
    sb->max_processes = cfg->max_processes;
    sb->cpu_seconds = cfg->cpu_time_seconds;
    sb->memory_mb = cfg->max_memory_mb;
    sb->file_size_mb = cfg->max_file_size_mb;
    sb->own_userns = geteuid() != 0;
    snprintf(sb->uid_map, sizeof sb->uid_map, "%u %u 1\n", geteuid(), geteuid());
    snprintf(sb->gid_map, sizeof sb->gid_map, "%u %u 1\n", getegid(), getegid());
    sb->namespaces = namespaces_probe(sb->own_userns);
    sb->proxy = (cfg->network.nallow || cfg->network.ndeny) && !cfg->network_access;
    return sb;
}

/* The writable roots, a probe of the Landlock ruleset and both seccomp
 * filters; *step names the one that failed. */
static int build_fixed_parts(sandbox *sb, const sandbox_config *cfg, const char *workspace,
                             const char **step)
{
    *step = "writable roots";
    int rc = add_root(sb, workspace);
    for (size_t i = 0; rc == VT_OK && cfg->mode == SANDBOX_WORKSPACE_WRITE && i < cfg->nwritable;
         i++)
        rc = add_root(sb, cfg->writable_roots[i]);
    if (rc == VT_OK) {
        /* Built once: a call's ruleset is made the same way (checked here). */
        *step = "Landlock ruleset";
        int probe = -1;
        rc = sandbox_build_ruleset(sb, NULL, NULL, &probe);
        if (probe >= 0)
            close(probe);
    }
    if (rc == VT_OK) {
        *step = "seccomp filter";
        rc = sandbox_seccomp_prepare(sb, cfg->network_access);
    }
    return rc;
}

/* The pids cgroup for max_processes, or a warning that it is not enforced. */
static int prepare_pids(sandbox *sb, char **warning)
{
    sb->cgroup_base = sandbox_cgroup_find();
    if (sb->cgroup_base && sandbox_cgroup_gone_init(sb) != VT_OK)
        return VT_ERR_NOMEM;
    if (!sb->cgroup_base && !(sb->own_userns && sb->namespaces))
        warn_more(warning, geteuid() == 0
                               ? "running as root without a writable pids cgroup: "
                                 "[sandbox] max_processes is NOT enforced, a command can "
                                 "start processes without bound (mount the cgroup v1 pids "
                                 "hierarchy, or delegate a cgroup v2 subtree with the pids "
                                 "controller enabled, to bound them)"
                               : "no writable pids cgroup and no per-session user "
                                 "namespace: [sandbox] max_processes is not enforced on "
                                 "this machine");
    return VT_OK;
}

/* No Landlock: commands run unsandboxed only when the configuration
 * says so. */
static int no_landlock(const sandbox_config *cfg, char **warning, char **err)
{
    if (cfg->fallback_unsandboxed) {
        *warning = strdup("this kernel offers no Landlock: commands run unsandboxed "
                          "([sandbox] fallback = \"unsandboxed\")");
        return VT_OK;
    }
    *err = strdup("cannot sandbox commands: this kernel offers no Landlock. Set "
                  "[sandbox] fallback = \"unsandboxed\" or mode = \"danger-full-access\" "
                  "in vtcode.toml to run commands without a sandbox");
    return VT_ERR_UNSUPPORTED;
}

int sandbox_prepare(const sandbox_config *cfg, const char *workspace, sandbox **out, char **warning,
                    char **err)
{
    *out = NULL;
    *warning = NULL;
    *err = NULL;
    if (cfg->mode == SANDBOX_FULL_ACCESS)
        return VT_OK;
    int abi = sandbox_landlock_abi();
    if (abi <= 0)
        return no_landlock(cfg, warning, err);
    sandbox *sb = sandbox_new(cfg, abi);
    if (!sb)
        return VT_ERR_NOMEM;
    const char *step = NULL;
    int rc = build_fixed_parts(sb, cfg, workspace, &step);
    if (rc != VT_OK) {
        *err = sandbox_fmt("cannot prepare the command sandbox (%s)", step);
        sandbox_free(sb);
        return rc;
    }
    if (!sb->namespaces)
        warn_more(warning, sb->own_userns
                               ? "this machine offers no unprivileged user namespaces: "
                                 "commands share the host's PID namespace (processes "
                                 "outside are visible, background processes may outlive "
                                 "the session) and repositories and policy files are not read-only"
                               : "cannot create PID and mount namespaces: commands share "
                                 "the host's processes and repositories and policy files are not "
                                 "read-only");
    if (sb->proxy && !sb->namespaces)
        warn_more(warning, "[sandbox.network] lists domains, but the filtering proxy needs a "
                           "network namespace per session, which this machine cannot make: "
                           "commands have no network");
    if (cfg->max_processes && prepare_pids(sb, warning) != VT_OK) {
        sandbox_free(sb);
        return VT_ERR_NOMEM;
    }
    *out = sb;
    return VT_OK;
}

int sandbox_namespaces(const sandbox *sb) { return sb && sb->namespaces; }

int sandbox_proxy(const sandbox *sb, const sandbox_extra *extra)
{
    return sb && sb->proxy && sb->namespaces && !sb->network_access && !(extra && extra->network);
}

int sandbox_plan_ruleset_fd(const sandbox_plan *p) { return p ? p->ruleset_fd : -1; }

/* ---- the per-call plan ------------------------------------------------------ */

void sandbox_plan_free(sandbox_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nro; i++)
        free(p->ro[i]);
    for (size_t i = 0; i < p->nhide; i++)
        free(p->hide[i]);
    for (size_t i = 0; i < p->nmask; i++)
        free(p->mask[i]);
    free(p->mask);
    free(p->ro);
    free(p->ro_flags);
    free(p->ro_id);
    for (size_t i = 0; i < p->npin; i++)
        free(p->pin[i]);
    free(p->pin);
    free(p->hide);
    sandbox_cgroup_release(p);
    free(p->truncated);
    if (p->ruleset_fd >= 0)
        close(p->ruleset_fd);
    sandbox_spool_free(p);
    sandbox_data_free(p);
    free(p);
}

int sandbox_plan_spool(sandbox_plan *p, uint64_t client)
{
    return sandbox_spool_plan(p->sb, p, client);
}

int sandbox_plan_make(const sandbox *sb, int tty, const sandbox_extra *extra, sandbox_plan **out,
                      char **why)
{
    *out = NULL;
    if (why)
        *why = NULL;
    sandbox_plan *p = calloc(1, sizeof *p);
    if (!p)
        return VT_ERR_NOMEM;
    p->sb = sb;
    p->tty = tty;
    p->supervisor_pidfd = -1;
    p->cgroup_procs_fd = p->cgroup_max_fd = -1;
    p->ruleset_fd = -1;
    p->extra = extra;
    p->network = sb->network_access || (extra && extra->network);
    p->proxy = sandbox_proxy(sb, extra);
    int rc = sandbox_data_plan(sb, p);
    if (rc == VT_OK)
        rc = sandbox_build_ruleset(sb, extra, p, &p->ruleset_fd);
    if (rc != VT_OK && why) {
        *why = p->truncated; /* why the command must not run */
        p->truncated = NULL;
    }
    if (rc == VT_OK)
        policy_make_dir(sb, p);
    if (rc == VT_OK)
        rc = sandbox_paths_plan(sb, p);
    p->extra = NULL; /* the caller's: not kept past this call */
    if (rc == VT_OK && sb->namespaces && sandbox_cgroup_make(sb, p) != VT_OK) {
        /* a cgroup that cannot be made now: bound by nothing, say so */
        free(p->cgroup);
        free(p->cgroup_procs);
        p->cgroup = p->cgroup_procs = NULL;
        if (p->cgroup_max_fd >= 0)
            close(p->cgroup_max_fd);
        p->cgroup_max_fd = -1;
        if (!p->truncated)
            p->truncated = strdup("cannot create this session's pids cgroup: its process "
                                  "count is not bounded");
    }
    if (rc != VT_OK) {
        sandbox_plan_free(p);
        return rc;
    }
    *out = p;
    return VT_OK;
}

void sandbox_plan_started(sandbox_plan *p, pid_t supervisor)
{
    if (p && p->cgroup && p->supervisor_pidfd < 0)
        p->supervisor_pidfd = (int)syscall(SYS_pidfd_open, supervisor, 0);
}

const char *sandbox_plan_warning(const sandbox_plan *p) { return p ? p->truncated : NULL; }

/* ---- the child side ------------------------------------------------------------ */

int sandbox_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    int rc = write(fd, text, n) == (ssize_t)n ? 0 : -errno;
    close(fd);
    return rc;
}

int sandbox_clone_flags(const sandbox_plan *p)
{
    const sandbox *sb = p->sb;
    int flags = CLONE_NEWPID | CLONE_NEWNS | (sb->own_userns ? CLONE_NEWUSER : 0);
    /* A kernel whose Landlock cannot scope abstract unix sockets (before
     * ABI 6): with the network off, a network namespace of the session's
     * own keeps the host's abstract sockets out of reach (they live per
     * network namespace; path sockets do not, the mounts mask those).
     * Newer kernels skip its cost: Landlock's scope does it. */
    if (!p->network && sb->landlock_abi < 6)
        flags |= CLONE_NEWNET;
    /* The filtering proxy: a namespace whose only way out is the proxy. */
    if (p->proxy)
        flags |= CLONE_NEWNET;
    return flags;
}

int sandbox_id_maps(const sandbox *sb, const char **what)
{
    if (!sb->own_userns)
        return 0;
    *what = "user namespace id maps";
    int rc = sandbox_write_file("/proc/self/setgroups", "deny");
    if (rc == 0)
        rc = sandbox_write_file("/proc/self/uid_map", sb->uid_map);
    if (rc == 0)
        rc = sandbox_write_file("/proc/self/gid_map", sb->gid_map);
    return rc;
}

/* In the session leader: its own view of the filesystem. */
static int enter_mounts(const sandbox_plan *p, const char **what)
{
    *what = "private mount propagation";
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -errno;
    /* /proc of this PID namespace: nothing outside is visible (and
     * /proc/PID/root of a host process is not there to walk through). */
    *what = "a fresh /proc";
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
        return -errno;
    /* A terminal instance of its own: the machine's other terminals
     * (/dev/pts/N of other sessions) are not in it, so nothing typed
     * into or read from them.  The session's own terminal stays
     * reachable through its descriptors and /dev/tty; programs that
     * open a new terminal get one from this instance. */
    *what = "a private /dev/pts";
    if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
              "newinstance,ptmxmode=0666,mode=0620") != 0)
        return -errno;
    if (mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) != 0)
        return -errno;
    /* A host socket's path now leads to /dev/null: connect() is refused. */
    for (size_t i = 0; i < p->nhide; i++)
        (void)mount("/dev/null", p->hide[i], NULL, MS_BIND, NULL);
    /* A denied program cannot run, whatever an execve names: the kernel
     * does not execute a character device. */
    *what = "masking a denied program";
    for (size_t i = 0; i < p->nmask; i++)
        if (mount("/dev/null", p->mask[i], NULL, MS_BIND, NULL) != 0 && errno != ENOENT)
            return -errno;
    /* Renaming a directory above a policy file would carry the file's
     * read-only mount away and let a new file take its path. */
    *what = "a bind mount of a directory above a policy file";
    for (size_t i = 0; i < p->npin; i++)
        if (mount(p->pin[i], p->pin[i], NULL, MS_BIND | MS_REC, NULL) != 0 && errno != ENOENT)
            return -errno;
    *what = "read-only bind mount of a repository or policy file";
    for (size_t i = 0; i < p->nro; i++) {
        /* Under a mask of vthost's own data (its configuration
         * directory is a policy path too): the mask, mounted last, is
         * all a command sees there, so the bind (three mount calls and
         * one more mount to copy and tear down) is left out; the check
         * that the object is still the planned one stays. */
        int hidden = sandbox_data_hides(p, p->ro[i]);
        if (hidden && !p->ro_id[i].exact)
            continue;
        /* By descriptor: what the plan protected, not whatever a command
         * of another session has put at its name since. */
        int r = !p->ro_id[i].exact ? -ENOSYS
                : hidden           ? sandbox_fd_check(p->ro[i], &p->ro_id[i])
                                   : sandbox_fd_bind_ro(p->ro[i], &p->ro_id[i]);
        if (r == 0 || r == 1)
            continue;
        if (r == -ESTALE || r == -ELOOP || r == -ENOTDIR) {
            *what = "read-only bind mount of a repository or policy file (replaced since the plan "
                    "was made: a link or another object is at its path now)";
            return r;
        }
        if (mount(p->ro[i], p->ro[i], NULL, MS_BIND | MS_REC, NULL) != 0) {
            if (errno == ENOENT)
                continue; /* removed since the plan was made */
            return -errno;
        }
        if (mount(NULL, p->ro[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | p->ro_flags[i], NULL) !=
            0)
            return -errno;
    }
    /* Beneath the read-only .vtcode/: this client's spool view. */
    int rc = sandbox_spool_enter(p, what);
    /* Last, so that no bind above carries the host's data back. */
    return rc ? rc : sandbox_data_enter(p, what);
}

int sandbox_confine(const sandbox_plan *p, int ruleset_fd, const char *workdir, const char **what)
{
    static const char *unused;
    if (!what)
        what = &unused;
    const sandbox *sb = p->sb;
    int rc = 0;
    if (sb->namespaces && (rc = enter_mounts(p, what)) != 0)
        return rc;
    /* Only now: a workdir inside .git resolves on the read-only mount. */
    *what = "the working directory";
    if (workdir && chdir(workdir) != 0)
        return -errno;
    if ((rc = sandbox_netproxy_enter(p, what)) != 0)
        return rc;
    if ((rc = sandbox_limits_apply(p, what)) != 0)
        return rc;
    *what = "dropping capabilities";
    if ((rc = sandbox_caps_drop()) != 0)
        return rc;
    *what = "no_new_privs";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    *what = "Landlock";
    int rs = ruleset_fd >= 0 ? ruleset_fd : p->ruleset_fd;
    if (sb->namespaces) {
        /* The ruleset is this call's own: the private /dev/pts joins it. */
        static const char *const pts[] = {"/dev/pts", "/dev/ptmx"};
        for (size_t i = 0; i < 2; i++) {
            int fd = open(pts[i], O_PATH | O_CLOEXEC);
            if (fd < 0)
                return -errno;
            struct landlock_path_beneath_attr a = {
                .allowed_access = TERMINAL_RIGHTS & sandbox_handled_rights(sb->landlock_abi),
                .parent_fd = fd};
            long r = syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &a, 0);
            close(fd);
            if (r != 0)
                return -errno;
        }
    }
    if (syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        return -errno;
    *what = "seccomp filter";
    return sandbox_seccomp_enter(p);
}
