/* The sandbox of exec_command's commands (Linux): no capabilities,
 * no_new_privs, Landlock (filesystem, signals, abstract sockets), a
 * seccomp filter (network, mounts, namespaces, kernel interfaces), a PID
 * and mount namespace per session (fresh /proc, read-only .git/.vtcode/
 * policy files, masked host sockets, vthost's own data masked) and
 * resource bounds.
 * Everything that allocates or can fail slowly happens in the host
 * (sandbox_prepare once, sandbox_plan_make per call: the Landlock
 * ruleset, the protected paths); the children only
 * make system calls, because the host is multi-threaded and they run
 * between fork and exec. */
#ifndef VTHOST_EXEC_SANDBOX_H
#define VTHOST_EXEC_SANDBOX_H

#include <limits.h>

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "netproxy_rules.h"

typedef enum sandbox_mode {
    SANDBOX_WORKSPACE_WRITE = 0,
    SANDBOX_READ_ONLY = 1,
    SANDBOX_FULL_ACCESS = 2 /* danger-full-access: no sandbox */
} sandbox_mode;

typedef struct sandbox_config {
    sandbox_mode mode;
    char **writable_roots; /* extra roots, absolute, as written (normalized) */
    size_t nwritable, cap_writable;
    int network_access;        /* default 0 */
    int fallback_unsandboxed;  /* run unsandboxed (with a warning) when
                                 Landlock is unavailable */
    unsigned max_processes;    /* per session; default SANDBOX_DEFAULT_PROCESSES */
    unsigned cpu_time_seconds; /* per process of a non-interactive run; 0: none */
    unsigned max_memory_mb;    /* RLIMIT_DATA per process, MiB; 0: none */
    unsigned max_file_size_mb; /* RLIMIT_FSIZE per process, MiB; 0: none */
    netproxy_rules network;    /* [sandbox.network]: the domains a command reaches
                                  through the filtering proxy (netproxy.h) */
} sandbox_config;

#define SANDBOX_DEFAULT_PROCESSES 1024
#define SANDBOX_DEFAULT_CPU_SECONDS 3600
/* A sanitizer runtime maps terabytes of shadow memory as private data in
 * every instrumented program, which any data limit refuses: sanitizer
 * builds (whose tests run instrumented helpers) have no default. */
#if defined(__SANITIZE_ADDRESS__)
#define SANDBOX_DEFAULT_MEMORY_MB 0
#else
#define SANDBOX_DEFAULT_MEMORY_MB 8192
#endif
#define SANDBOX_DEFAULT_FILE_SIZE_MB 4096

/* Read [sandbox] from the configuration tree.  A wrong type or value is
 * an error naming the key (*err, malloc'd). */
int sandbox_config_parse(const cJSON *config, sandbox_config *out, char **err);
void sandbox_config_free(sandbox_config *c);
const char *sandbox_mode_name(sandbox_mode m);

typedef struct sandbox sandbox;
typedef struct sandbox_plan sandbox_plan;

/* Prepare the confinement of commands run in `workspace` under `cfg`
 * (the Landlock ruleset and the seccomp filter are built here, once).
 * *out is NULL for danger-full-access.  When the kernel lacks Landlock,
 * fails with a clear *err unless the config allows the fallback; then
 * *out is NULL and *warning says so.  *warning (malloc'd or NULL) also
 * reports protections this machine cannot give (no namespaces, no
 * process bound). */
int sandbox_prepare(const sandbox_config *cfg, const char *workspace, sandbox **out, char **warning,
                    char **err);
void sandbox_free(sandbox *sb);
/* Free what plans keep between calls (the mount table, the protected
 * names seen at the root): at the end. */
void sandbox_mounts_fini(void);
void sandbox_names_fini(void);
/* Close and free the socket table kept open between plans: at the end. */
void sandbox_paths_fini(void);
/* The host's policy files and directories (absolute, NULL-ended;
 * copied): those that exist inside a writable place are mounted
 * read-only for every command, like .vtcode/ and vtcode.toml. */
int sandbox_protect_paths(sandbox *sb, const char *const *paths);

/* Per call, in the host right before the fork: the protected paths as
 * they are now (every .git, gitfile target, .vtcode, vtcode.toml), the
 * host's unix sockets to mask, this session's pids cgroup.  *out is
 * owned by the caller: sandbox_plan_free after the fork (the children
 * keep their copy).  `tty`: interactive runs get no CPU limit. */
/* What one call adds to the sandbox once the user approved it
 * (sandbox_permissions "with_additional_permissions"): writable paths,
 * absolute and canonical, and the network.  Each is granted by a
 * descriptor opened without following links.  Borrowed by
 * sandbox_plan_make for the duration of the call. */
struct stat;
typedef struct sandbox_extra {
    char **write;
    size_t nwrite;
    int network;
    /* What each write path was when the user was asked (its device and
     * inode), or NULL: the plan refuses a path that is no longer that
     * object or is reached through a symbolic link now. */
    struct stat *ids;
} sandbox_extra;

/* `path` (absolute) opened O_PATH with no symbolic link followed on the
 * way (openat2 RESOLVE_NO_SYMLINKS, else a walk one component at a
 * time), *st filled: a descriptor, or -errno (-ELOOP: a link on the
 * way).  sandbox_fd.c. */
int sandbox_fd_open(const char *path, struct stat *st);

/* Take the workspace's repositories from the host's index (the service
 * vt_wsindex_v1, borrowed until the plugin's fini) instead of walking the
 * workspace before each command; the names to keep read-only and the
 * policy directory come from it too.  In workspace-write mode the host's
 * after-call check of what commands leave behind is armed with the
 * writable roots (the sessions report to it: VT_EVENTS_SERVICE). */
struct vt_wsindex_v1;
void sandbox_use_index(sandbox *sb, const struct vt_wsindex_v1 *index);

/* Mask the host's own data (the service vt_host_data_v1, borrowed until
 * the plugin's fini) in every session: its configuration, state, cache,
 * trust list, token and key files cannot be read by a command. */
struct vt_host_data_v1;
void sandbox_use_host_data(sandbox *sb, const struct vt_host_data_v1 *host_data);

/* `why` (may be NULL): on failure, why the command must not run
 * (malloc'd), or NULL. */
int sandbox_plan_make(const sandbox *sb, int tty, const sandbox_extra *extra, sandbox_plan **out,
                      char **why);

/* Give the plan's session the spool view of HTTP client session `client`
 * (vt_host_api.call_client_id; 0, the stdio client: none): its commands
 * see only that client's spooled output (sandbox_spool.c).  0, or a
 * negative vt_status: the command must not run. */
int sandbox_plan_spool(sandbox_plan *p, uint64_t client);

/* Mask the programs `names` (NULL-terminated base names, the policy's
 * denied_programs) in the plan's session: every path in the command's
 * PATH (`path_env`, may be NULL) and the system's program directories
 * that names one of their files, hard links included, is covered by
 * /dev/null.  Nothing without namespaces (the execve check remains). */
int sandbox_mask_plan(sandbox_plan *p, const char *const *names, const char *path_env);

/* 1 when the file `file` (canonical base name `own`) has more than two
 * names in the program directories `dirs` (hard links, or symlinks to
 * it; directories only root can write) that are neither `own` nor one
 * of `denied` (NULL-terminated): a multi-call binary such as busybox,
 * which is other programs too.  Such a file is neither masked for a
 * name linked to it nor judged by identity. */
struct stat;
int sandbox_other_programs(const struct stat *file, const char *own, const char *const *denied,
                           char dirs[][PATH_MAX], size_t nd);

/* The directories a command finds programs in: `path_env`'s (may be
 * NULL) and the system's, canonical, without repeats, at most `max`
 * into dirs; their count. */
size_t sandbox_program_dirs(const char *path_env, char dirs[][PATH_MAX], size_t max);
void sandbox_plan_free(sandbox_plan *p);
/* After the fork: the session's leader (or supervisor), whose exit (then an empty
 * cgroup) lets the host remove the session's cgroup. */
void sandbox_plan_started(sandbox_plan *p, pid_t supervisor);
/* Why the plan protects less than it should (a walk budget hit), or NULL. */
const char *sandbox_plan_warning(const sandbox_plan *p);

/* Whether a call with `extra` (may be NULL) gets the filtering proxy:
 * domains are listed, the network is otherwise off, and sessions have
 * namespaces.  Its session leader then takes the proxy's hand-over
 * socket at SANDBOX_NETPROXY_FD (spawn_req.netproxy_fd). */
int sandbox_proxy(const sandbox *sb, const sandbox_extra *extra);
#define SANDBOX_NETPROXY_FD 8

/* Whether sessions get their own PID and mount namespace. */
int sandbox_namespaces(const sandbox *sb);

/* The clone flags of this call's session leader: new PID and mount
 * namespaces (a user namespace when not root; a network namespace when
 * the network is off and Landlock cannot scope abstract sockets). */
int sandbox_clone_flags(const sandbox_plan *p);

/* In the session leader, right after the clone: when it is in a user
 * namespace of its own, map its user and group ids.  Async-signal-safe.
 * Returns 0 or -errno, *what names the step. */
int sandbox_id_maps(const sandbox *sb, const char **what);

/* In the session leader (or, without namespaces, the supervisor), before
 * the shell is started: mounts (fresh /proc, masked host sockets,
 * read-only protected paths), then chdir(workdir) so that a workdir
 * inside a protected directory lands on the read-only mount, then the
 * pids cgroup and rlimits, no capabilities, no_new_privs, Landlock,
 * seccomp.  Async-signal-safe.  `ruleset_fd` is the Landlock ruleset as
 * the child holds it, or -1 for where the parent keeps it.  Returns 0
 * or -errno; *what names the step that failed. */
int sandbox_confine(const sandbox_plan *p, int ruleset_fd, const char *workdir, const char **what);
/* The descriptor of this call's Landlock ruleset (close-on-exec). */
int sandbox_plan_ruleset_fd(const sandbox_plan *p);

/* Empty the capability bounding set (all an exec could ever grant)
 * where this process may: 1 when something was dropped
 * (sandbox_limits.c).  The leader maker does it once for its leaders. */
int sandbox_bset_drop(void);

/* In the leader maker, once: no_new_privs and the base part of the
 * seccomp filter (sandbox_seccomp.c), which every leader it clones then
 * inherits instead of attaching the whole filter itself.  0 or a
 * negative errno (then leaders attach the whole, as the host's do). */
int sandbox_seccomp_base_enter(const sandbox *sb);
/* The run-time checks' listener filter (execwatch.c) with the top part
 * of the seccomp filter added, so that a leader the maker cloned
 * attaches one filter, not two: built in the host before the maker is
 * forked (VT_OK, or an error and leaders attach both).  In the leader,
 * before its confinement: sandbox_seccomp_watch_follows() when the
 * listener will be attached; execwatch_child_install then attaches
 * sandbox_seccomp_listener(its own), which is the combined program where
 * the confinement left the top part to it, else its own. */
struct sock_fprog;
int sandbox_seccomp_watch_prepare(void);
const struct sock_fprog *sandbox_seccomp_watch_program(int network);
void sandbox_seccomp_watch_free(void); /* at the plugin's end (zygote_fini) */
void sandbox_seccomp_watch_follows(void);
const struct sock_fprog *sandbox_seccomp_listener(const struct sock_fprog *plain);

/* A plan as bytes (sandbox_wire.c), for a leader made by another
 * process (zygote.c): everything the session leader reads of it but the
 * configuration (the same `sb` on both sides) and the Landlock ruleset
 * (a descriptor, passed beside the bytes). */
struct wire_out;
struct wire_in;
void sandbox_plan_pack(const sandbox_plan *p, struct wire_out *w);
/* The plan read back, its strings in r's buffer; NULL when malformed or
 * out of memory.  Freed by sandbox_plan_unpacked_free only (it owns no
 * cgroup, ruleset or string). */
sandbox_plan *sandbox_plan_unpack(struct wire_in *r, const sandbox *sb, int ruleset_fd);
void sandbox_plan_unpacked_free(sandbox_plan *p);
/* The configuration as bytes, for the exec'd leader maker: what a
 * session leader reads of it (mode, namespaces, id maps, limits, roots,
 * the seccomp programs), not the host's pointers (index, host data, the
 * cgroups owed).  sandbox_unpack reads it back as a sandbox of its own
 * (strings in r's buffer, programs copied); NULL when malformed. */
void sandbox_pack(const sandbox *sb, struct wire_out *w);
sandbox *sandbox_unpack(struct wire_in *r);
/* What sandbox_unpack returned (not sandbox_free: its strings are the
 * buffer's). */
void sandbox_unpacked_config_free(sandbox *sb);
/* A BPF program as bytes, and back into *out (malloc'd; an empty program
 * for none): 0, or -1 when malformed or out of memory. */
void sandbox_bpf_pack(const struct sock_fprog *f, struct wire_out *w);
int sandbox_bpf_unpack(struct wire_in *r, struct sock_fprog *out);
/* *to freed and replaced by *from, which is emptied (ownership moves). */
void sandbox_bpf_adopt(struct sock_fprog *to, struct sock_fprog *from);
/* In the exec'd maker: the listener's program with the top part that
 * sandbox_seccomp_watch_prepare built in the host (taken over). */
void sandbox_seccomp_watch_adopt(int network, struct sock_fprog *f);

/* The best Landlock ABI the kernel offers (0 when none). */
int sandbox_landlock_abi(void);

/* Denial detection over streamed output: feed every chunk; reports 1 once
 * a sandbox-denial message (EACCES/EPERM/EROFS wording, refused sockets)
 * was seen. */
typedef struct sandbox_denial_scan {
    char carry[64];
    size_t ncarry;
    int seen;
} sandbox_denial_scan;
void sandbox_denial_feed(sandbox_denial_scan *s, const char *buf, size_t len);

/* Export a libseccomp filter context as BPF for a child to install after
 * fork (no allocation there).  `rc` is the status of building `ctx` so
 * far: on non-zero nothing is exported.  Releases `ctx` in every case;
 * out->filter is malloc'd.  Returns 0 or a negative vt_status. */
struct sock_fprog;
int sandbox_bpf_export(void *ctx, int rc, struct sock_fprog *out);

#endif
