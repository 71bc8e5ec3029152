/* Private to the sandbox's files (sandbox*.c): the prepared sandbox, the
 * per-call plan and the pieces each file provides.  spawn.c and the rest
 * of the plugin see only sandbox.h. */
#ifndef VTHOST_EXEC_SANDBOX_INT_H
#define VTHOST_EXEC_SANDBOX_INT_H

#include <linux/filter.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sandbox.h"

struct sandbox {
    sandbox_mode mode;
    int network_access;
    int landlock_abi;
    struct sock_fprog seccomp;     /* the whole filter as BPF, built once */
    struct sock_fprog seccomp_net; /* the same with the network allowed (built
                                    when the configuration turns it off, for
                                    calls that add it), else empty */
    /* The whole filter in two parts (sandbox_seccomp.c): the base, which
     * the leader maker attaches once for every leader it clones, and the
     * top, which such a leader attaches after its set-up. */
    struct sock_fprog seccomp_base, seccomp_top, seccomp_top_net;
    char **roots; /* workspace + writable roots: where .git is looked for */
    size_t nroots, cap_roots;
    int namespaces; /* PID + mount namespace per session */
    int proxy;      /* domains listed with the network off (sandbox_netproxy.c) */
    int own_userns; /* not root: the namespaces sit in a user namespace */
    char uid_map[64], gid_map[64];
    char *cgroup_base;        /* a pids cgroup (v1 or delegated v2) we may create
                                    children in, or NULL */
    struct cgroup_gone *gone; /* session cgroups to remove once empty */
    unsigned max_processes;   /* 0: unbounded */
    char *vtcode_dir;         /* the workspace's policy directory, made by the
                                    host's service before each command
                                    (workspace-write with namespaces), or NULL */
    unsigned cpu_seconds;     /* RLIMIT_CPU for non-interactive runs, 0: none */
    unsigned memory_mb;       /* RLIMIT_DATA, MiB, 0: none */
    unsigned file_size_mb;    /* RLIMIT_FSIZE, MiB, 0: none */
    char **policy;            /* the host's policy paths (sandbox_protect_paths) */
    size_t npolicy, cap_policy;
    const struct vt_wsindex_v1 *index;       /* the host's workspace index, or NULL: walk */
    const struct vt_host_data_v1 *host_data; /* the host's own data, or NULL */
};

/* What a path was when the plan was made (`exact`: reached without a
 * symbolic link; else it is used by its name). */
typedef struct sandbox_ident {
    dev_t dev;
    ino_t ino;
    int exact;
} sandbox_ident;

/* One call's confinement, computed in the host right before the fork
 * (it allocates); the session leader only makes system calls with it. */
struct sandbox_plan {
    const sandbox *sb;
    int tty;
    char **ro;               /* protected paths: read-only bind mounts */
    unsigned long *ro_flags; /* the mount flags each must keep */
    sandbox_ident *ro_id;    /* what each was when planned */
    size_t nro, cap_ro, cap_ro_flags, cap_ro_id;
    char **pin; /* directories above policy files that a command
                                    could rename: bound onto themselves first
                                    (a mount point cannot be renamed), outermost
                                    first */
    size_t npin, cap_pin;
    char **hide; /* path sockets outside the workspace, masked */
    size_t nhide, cap_hide;
    char **mask; /* files of denied programs: /dev/null bound over
                                    each (sandbox_mask.c) */
    size_t nmask, cap_mask;
    char *cgroup;               /* this session's pids cgroup directory, or NULL */
    char *cgroup_procs;         /* the file it joins by: tasks (v1), cgroup.procs */
    int cgroup_procs_fd;        /* the host's: its cgroup.procs and pids.max, */
    int cgroup_max_fd;          /* kept open for the next session, or -1 */
    char *truncated;            /* why protection is incomplete, or NULL */
    int supervisor_pidfd;       /* set by sandbox_plan_started, else -1 */
    int ruleset_fd;             /* this call's Landlock ruleset */
    int network;                /* the configuration's or the call's */
    int proxy;                  /* no network but the proxy's port (sandbox_netproxy.c) */
    const sandbox_extra *extra; /* while the plan is made, else NULL */
    /* The spool view (sandbox_spool.c): tool_outputs/ covered, the
     * client's own c-ID/ bound back; NULL for the stdio client. */
    char *spool_dir, *spool_own; /* absolute paths */
    unsigned long spool_flags;   /* the mount flags the own bind must keep */
    /* vthost's own data (sandbox_data.c): canonical paths, each covered
     * by an empty read-only tmpfs (a directory) or /dev/null (a file) in
     * the session; without namespaces, left out of Landlock's grants. */
    char **data;
    unsigned char *data_dir;
    size_t ndata, cap_data, cap_data_dir;
};

/* sandbox_seccomp.c.  The filter is whole, or in two parts whose stack
 * decides as the whole does: the base (no syscall a leader's set-up or
 * the maker calls) and the top (those, and the network). */
enum { SANDBOX_SECCOMP_WHOLE, SANDBOX_SECCOMP_BASE, SANDBOX_SECCOMP_TOP };
/* One part as BPF (out->filter malloc'd); the base ignores the network. */
int sandbox_seccomp_build(int network_access, int part, struct sock_fprog *out);
/* The same laid out as a chain (tree 0) or a binary tree of syscall
 * numbers (tree 1, what sandbox_seccomp_build gives): one program, two
 * shapes (the test compares them). */
int sandbox_seccomp_build_as(int network_access, int tree, int part, struct sock_fprog *out);
/* Every program a sandbox needs into sb (seccomp*), once. */
int sandbox_seccomp_prepare(sandbox *sb, int network_access);
void sandbox_seccomp_free(sandbox *sb);
/* In a session leader (or supervisor) at the end of its confinement:
 * the top part where the maker attached the base, else the whole. */
int sandbox_seccomp_enter(const sandbox_plan *p);
/* The tree programs as the build's libseccomp made them (seccomp_gen.c;
 * present when VTHOST_SECCOMP_PREBUILT is defined). */
extern const struct sock_filter sandbox_bpf_prebuilt_off[], sandbox_bpf_prebuilt_on[],
    sandbox_bpf_prebuilt_base[], sandbox_bpf_prebuilt_top_off[], sandbox_bpf_prebuilt_top_on[];
extern const unsigned short sandbox_bpf_prebuilt_off_len, sandbox_bpf_prebuilt_on_len,
    sandbox_bpf_prebuilt_base_len, sandbox_bpf_prebuilt_top_off_len,
    sandbox_bpf_prebuilt_top_on_len;

/* sandbox_mounts.c: the host's mount table (/proc/self/mountinfo), read
 * again only when it changed.  hold() returns it and its length, locked
 * until release(); sandbox_mounts_fini (sandbox.h) frees it. */
typedef struct sandbox_mnt {
    char dev[32];
    char *root, *point; /* the filesystem's path mounted, and where */
} sandbox_mnt;
const sandbox_mnt *sandbox_mounts_hold(size_t *n);
void sandbox_mounts_release(void);

/* sandbox_names.c: present[i] = 1 when root/names[i] (names ends with
 * NULL) is a directory or a regular file, by lstat or by what the last
 * plan saw while the workspace index logged no change since. */
void sandbox_names_present(const sandbox *sb, const char *root, const char *const *names,
                           unsigned char *present);

/* sandbox_paths.c: what this call protects and hides (parent side). */
int sandbox_paths_plan(const sandbox *sb, sandbox_plan *p);

/* sandbox_limits.c: the pids cgroup (parent side) and, in the child,
 * rlimits and the dropping of every capability. */
char *sandbox_cgroup_find(void);
/* One line of /proc/self/cgroup: the pids cgroup directory it names
 * (v1 pids or v2) into dir, *v2 set; 1, or 0 when none. */
int sandbox_cgroup_line(const char *line, char *dir, size_t size, int *v2);
int sandbox_cgroup_make(const sandbox *sb, sandbox_plan *p);
/* A session's cgroup outlives its supervisor (which reports the shell's
 * status without waiting for the namespace's slow teardown): the host
 * removes it once the supervisor (`pidfd`, or -1) has exited and the
 * cgroup is empty, at the next call or at the end.  The plan's cgroup,
 * its files and the supervisor's pidfd are taken over.  `wait_ms`: how long the sweep may wait for
 * busy ones. */
int sandbox_cgroup_gone_init(sandbox *sb);
void sandbox_cgroup_release(sandbox_plan *p);
void sandbox_cgroup_sweep(const sandbox *sb, int wait_ms);
void sandbox_cgroup_gone_free(sandbox *sb);
int sandbox_limits_apply(const sandbox_plan *p, const char **what);
int sandbox_caps_drop(void);

/* sandbox_spool.c: the spool view of client `client` (0: none).  Parent
 * side: 0, or a negative vt_status when it cannot be prepared (the
 * command must not run).  Child side: 0 or -errno with *what. */
int sandbox_spool_plan(const sandbox *sb, sandbox_plan *p, uint64_t client);
void sandbox_spool_free(sandbox_plan *p);
int sandbox_spool_enter(const sandbox_plan *p, const char **what);

/* sandbox_data.c: vthost's own data.  Parent side, before the ruleset:
 * the list from the host (directories that do not exist yet are made,
 * 0700, so that they are masked like existing ones); 0, or a negative
 * vt_status with p->truncated saying why the command must not run. */
int sandbox_data_plan(const sandbox *sb, sandbox_plan *p);
/* One more path to mask (another mount's path to a listed object). */
int sandbox_data_add(sandbox_plan *p, const char *path);
/* Without namespaces: Landlock's `rights` (reading) everywhere but on
 * the plan's data (`p` may be NULL: everywhere). */
int sandbox_data_allow_read(int ruleset, const sandbox_plan *p, uint64_t rights, uint64_t handled);
/* Child side, last of the session's mounts: 0 or -errno with *what. */
int sandbox_data_enter(const sandbox_plan *p, const char **what);
/* Child side: 1 when `path` (a protected path of the plan) lies under one
 * of the data's masks, so that a read-only bind of it would be covered
 * and never seen (async-signal-safe). */
int sandbox_data_hides(const sandbox_plan *p, const char *path);
void sandbox_data_free(sandbox_plan *p);

/* sandbox_paths.c: whether a command of this sandbox may write `path`
 * (canonical), with the call's `extra` (may be NULL). */
int sandbox_writable(const sandbox *sb, const sandbox_extra *extra, const char *path);
/* sandbox_paths.c: mkdir -p with 0700 (the user's and the host's own
 * directories). */
void sandbox_mkdir_parents(const char *path);
/* sandbox_landlock.c: Landlock's rule for `path` (skipped when it does not exist). */
int sandbox_allow_path(int ruleset, const char *path, uint64_t rights, uint64_t handled);
/* sandbox_landlock.c: the filesystem rights Landlock handles at `abi`,
 * and the ruleset of one call in *out (`p` NULL: the probe at prepare;
 * else a refusal says why in p->truncated). */
uint64_t sandbox_handled_rights(int abi);
int sandbox_build_ruleset(const sandbox *sb, const sandbox_extra *extra, sandbox_plan *p, int *out);

/* sandbox_fd.c, child side (async-signal-safe): bind the object at
 * `path` onto itself read-only (recursively) by descriptor, opened in the
 * session's mount namespace without following links: 0; 1 when it is
 * gone; -ESTALE when it is no longer `id` (replaced since the plan),
 * -ELOOP (or -ENOTDIR) when a link is on the way now; another -errno
 * when the mount API that takes descriptors is missing or refused (the
 * caller then binds by name what it found to be the planned object). */
int sandbox_fd_bind_ro(const char *path, const sandbox_ident *id);
/* realpath(3) into `out` (PATH_MAX), cheaper for a path that is already
 * canonical and reached without a symbolic link. */
char *sandbox_realpath(const char *path, char *out);
/* The same checks without the mount: 0 when `path` is still `id`, 1
 * when it is gone, else sandbox_fd_bind_ro's errors. */
int sandbox_fd_check(const char *path, const sandbox_ident *id);
/* sandbox_fd.c: why a call is refused when `path` (`what` says which place it is)
 * could not be opened so (err: sandbox_fd_open's); malloc'd. */
char *sandbox_fd_refusal(const char *what, const char *path, int err);
/* `path` (absolute) without "//", "." and ".." into out; 0, or -EINVAL
 * (relative, or too long). */
int sandbox_path_normalize(const char *path, char *out, size_t size);

/* sandbox.c: write `text` to the existing file `path` (the child's
 * /proc and cgroup files).  Async-signal-safe; 0 or -errno. */
int sandbox_write_file(const char *path, const char *text);

/* sandbox_paths.c: the MS_* flags a bind mount must keep to match a
 * filesystem's ST_* flags (statvfs f_flag): a read-only remount that
 * drops a locked flag fails in a user namespace. */
unsigned long sandbox_mount_flags(unsigned long st_flags);

/* sandbox_netproxy.c: Landlock's rule for the proxy's port (parent
 * side); in the session leader, the namespace's loopback and the
 * listening socket handed to the proxy (0 or -errno with *what). */
int sandbox_netproxy_allow(int ruleset);
int sandbox_netproxy_enter(const sandbox_plan *p, const char **what);

/* sandbox.c: printf to a new string (malloc'd), or NULL.  The sandbox's
 * files run without the host too (unit tests), so not api->format. */
char *sandbox_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));

/* Rights newer than Debian 12's kernel headers. */
#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)
#endif
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE (1ULL << 14)
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV (1ULL << 15)
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

/* What the terminals are granted (sandbox_landlock.c, and the session
 * leader's own /dev/pts in sandbox.c). */
#define TERMINAL_RIGHTS                                                                            \
    (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |  \
     LANDLOCK_ACCESS_FS_IOCTL_DEV)

#endif
