/* The sandbox's seccomp filter, built once with libseccomp and exported
 * as BPF so that the session leader only hands it to the kernel.
 * Refusals return EPERM (ENOSYS for clone3), never kill: tools see an
 * ordinary error and can say so.  The filter covers every syscall ABI an
 * x86-64 kernel accepts (x86-64, x32, i386), so a 32-bit binary is
 * filtered the same way.
 *
 * It is also made in two parts that stack to the same decisions: the
 * base, which the leader maker attaches once and its leaders inherit
 * (a reference: the kernel neither copies nor checks it again), and the
 * top, which such a leader attaches after its own set-up (alone, or in
 * the run-time checks' listener filter). */
#include "sandbox_int.h"
#include "seccomp_lib.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* Syscalls no sandboxed command needs and that reach past its sandbox:
 * the mount API (would undo the read-only mounts), namespaces (both in
 * `setup_refused`, below), the kernel keyring, BPF and perf, module and kexec loading, swap, reboot,
 * file handles (open_by_handle_at escapes any directory confinement),
 * io_uring (performs socket and file operations that seccomp never
 * sees).  Most already need a capability the command does not have;
 * the filter holds even where one is left (a user namespace's root). */
static const char *const refused[] = {
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "swapon",
    "swapoff",
    "reboot",
    "open_by_handle_at",
    "name_to_handle_at",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "acct",
    "quotactl",
    "lookup_dcookie",
    "vhangup",
    "iopl",
    "ioperm",
};

/* What a session leader's own set-up still calls (its mounts, a
 * namespace the supervisor path unshares): refused only by the top part
 * of the filter, which the leader attaches once its set-up is done. */
static const char *const setup_refused[] = {
    "mount",    "umount",  "umount2", "mount_setattr", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick",  "pivot_root",    "chroot",    "setns",      "unshare",
};

static int add(scmp_filter_ctx ctx, int errno_, const char *name, unsigned n,
               const struct scmp_arg_cmp *cmp)
{
    int nr = libseccomp.syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        return 0; /* unknown to this libseccomp: nothing to refuse */
    int rc = libseccomp.rule_add_array(ctx, SCMP_ACT_ERRNO(errno_), nr, n, cmp);
    /* -EDOM/-EINVAL: the syscall does not exist on one of the ABIs, or
     * cannot be compared there (i386's multiplexed socketcall, below). */
    return rc == -EDOM ? 0 : rc;
}

static struct scmp_arg_cmp masked(unsigned arg, uint64_t mask, uint64_t value)
{
    struct scmp_arg_cmp c = {
        .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask, .datum_b = value};
    return c;
}

/* The base part: what neither the leader maker nor a leader's set-up
 * calls. */
static int base_rules(scmp_filter_ctx ctx)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof refused / sizeof *refused; i++)
        rc = add(ctx, EPERM, refused[i], 0, NULL);
    /* TIOCSTI types into a terminal, TIOCLINUX reads and pastes the
     * console.  The kernel compares the request as 32 bits: so does this. */
    struct scmp_arg_cmp sti = masked(1, 0xffffffffu, TIOCSTI);
    struct scmp_arg_cmp linux_ = masked(1, 0xffffffffu, TIOCLINUX);
    if (rc == 0)
        rc = add(ctx, EPERM, "ioctl", 1, &sti);
    if (rc == 0)
        rc = add(ctx, EPERM, "ioctl", 1, &linux_);
    /* mknod/mknodat: FIFOs and sockets only (the file type is 4 bits). */
    for (unsigned t = 0; rc == 0 && t < 16; t++) {
        mode_t type = (mode_t)t << 12;
        if (type == S_IFIFO || type == S_IFSOCK)
            continue;
        struct scmp_arg_cmp m1 = masked(1, S_IFMT, type), m2 = masked(2, S_IFMT, type);
        rc = add(ctx, EPERM, "mknod", 1, &m1);
        if (rc == 0)
            rc = add(ctx, EPERM, "mknodat", 1, &m2);
    }
    return rc;
}

/* The top part: the mount API and namespaces, which the maker (it clones
 * leaders into new namespaces) and a leader's set-up need, and the
 * network, which a call may change.  No syscall is in both parts: where
 * both refuse, the kernel would take the newer filter's errno. */
static int top_rules(scmp_filter_ctx ctx, int network_access)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof setup_refused / sizeof *setup_refused; i++)
        rc = add(ctx, EPERM, setup_refused[i], 0, NULL);
    /* clone with any namespace flag (CLONE_NEWTIME shares its bit with
     * the exit signal in clone's flags and is refused by unshare). */
    static const uint64_t ns_flags[] = {CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                        CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET};
    for (size_t i = 0; rc == 0 && i < sizeof ns_flags / sizeof *ns_flags; i++) {
        struct scmp_arg_cmp c = masked(0, ns_flags[i], ns_flags[i]);
        rc = add(ctx, EPERM, "clone", 1, &c);
    }
    /* clone3 passes its flags in memory, where seccomp cannot look:
     * ENOSYS makes libc fall back to clone, whose flags are checked. */
    if (rc == 0)
        rc = add(ctx, ENOSYS, "clone3", 0, NULL);
    if (network_access || rc)
        return rc;
    /* Network off: only Unix-domain sockets (path ones outside the
     * workspace are masked by the mount namespace, abstract ones by
     * Landlock's scope). */
    struct scmp_arg_cmp not_unix = {.arg = 0, .op = SCMP_CMP_NE, .datum_a = AF_UNIX, .datum_b = 0};
    rc = add(ctx, EPERM, "socket", 1, &not_unix);
    /* i386 may also create sockets through socketcall(2), whose
     * arguments are in memory: refused there (no other ABI has it). */
    if (rc == 0)
        rc = add(ctx, EPERM, "socketcall", 0, NULL);
    return rc;
}

int sandbox_bpf_export(void *ctx, int rc, struct sock_fprog *out)
{
    int mfd = rc == 0 ? memfd_create("vthost-seccomp", MFD_CLOEXEC) : -1;
    rc = -1;
    if (mfd >= 0 && libseccomp.export_bpf(ctx, mfd) == 0) {
        off_t n = lseek(mfd, 0, SEEK_END);
        struct sock_filter *prog = n > 0 ? malloc((size_t)n) : NULL;
        if (prog && pread(mfd, prog, (size_t)n, 0) == n) {
            out->filter = prog;
            out->len = (unsigned short)((size_t)n / sizeof *prog);
            rc = 0;
        } else {
            free(prog);
        }
    }
    if (mfd >= 0)
        close(mfd);
    libseccomp.release(ctx);
    return rc == 0 ? VT_OK : VT_ERR_IO;
}

int sandbox_seccomp_build_as(int network_access, int tree, int part, struct sock_fprog *out)
{
    out->filter = NULL;
    out->len = 0;
    if (seccomp_lib_bind() != VT_OK)
        return VT_ERR_UNSUPPORTED;
    scmp_filter_ctx ctx = libseccomp.init(SCMP_ACT_ALLOW);
    if (!ctx)
        return VT_ERR_NOMEM;
    int rc = 0;
    if (libseccomp.arch_native() == SCMP_ARCH_X86_64) {
        rc = libseccomp.arch_add(ctx, SCMP_ARCH_X86);
        if (rc == 0 || rc == -EEXIST)
            rc = libseccomp.arch_add(ctx, SCMP_ARCH_X32);
        if (rc == -EEXIST)
            rc = 0;
    }
    /* A binary tree of syscall numbers instead of a chain: attaching the
     * filter, the kernel runs it over every syscall number to find those
     * always allowed (the action cache), with interrupts off, once per
     * session; over a chain of some 200 instructions per ABI that was the
     * largest part of a session leader's own CPU.  The same program
     * otherwise; without the attribute (libseccomp before 2.5) the
     * default order stays. */
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
    if (rc == 0 && tree)
        (void)libseccomp.attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#else
    (void)tree;
#endif
    if (rc == 0 && part != SANDBOX_SECCOMP_TOP)
        rc = base_rules(ctx);
    if (rc == 0 && part != SANDBOX_SECCOMP_BASE)
        rc = top_rules(ctx, network_access);
    return sandbox_bpf_export(ctx, rc, out);
}

int sandbox_seccomp_build(int network_access, int part, struct sock_fprog *out)
{
#ifdef VTHOST_SECCOMP_PREBUILT
    /* Made at build time from the rules above (seccomp_gen.c): the same
     * programs, without compiling them on every start (unit_sandbox_seccomp
     * checks they are equal). */
    const struct sock_filter *const src[3][2] = {
        {sandbox_bpf_prebuilt_off, sandbox_bpf_prebuilt_on},
        {sandbox_bpf_prebuilt_base, sandbox_bpf_prebuilt_base},
        {sandbox_bpf_prebuilt_top_off, sandbox_bpf_prebuilt_top_on}};
    const unsigned short len[3][2] = {
        {sandbox_bpf_prebuilt_off_len, sandbox_bpf_prebuilt_on_len},
        {sandbox_bpf_prebuilt_base_len, sandbox_bpf_prebuilt_base_len},
        {sandbox_bpf_prebuilt_top_off_len, sandbox_bpf_prebuilt_top_on_len}};
    int on = network_access != 0;
    out->filter = malloc(len[part][on] * sizeof *src[part][on]);
    out->len = out->filter ? len[part][on] : 0;
    if (!out->filter)
        return VT_ERR_NOMEM;
    memcpy(out->filter, src[part][on], len[part][on] * sizeof *src[part][on]);
    return VT_OK;
#else
    return sandbox_seccomp_build_as(network_access, 1, part, out);
#endif
}

int sandbox_seccomp_prepare(sandbox *sb, int network_access)
{
    /* Both networks once: a call with additional network access takes
     * the second. */
    int rc = sandbox_seccomp_build(network_access, SANDBOX_SECCOMP_WHOLE, &sb->seccomp);
    if (rc == VT_OK && !network_access)
        rc = sandbox_seccomp_build(1, SANDBOX_SECCOMP_WHOLE, &sb->seccomp_net);
    if (rc == VT_OK)
        rc = sandbox_seccomp_build(1, SANDBOX_SECCOMP_BASE, &sb->seccomp_base);
    if (rc == VT_OK)
        rc = sandbox_seccomp_build(network_access, SANDBOX_SECCOMP_TOP, &sb->seccomp_top);
    if (rc == VT_OK && !network_access)
        rc = sandbox_seccomp_build(1, SANDBOX_SECCOMP_TOP, &sb->seccomp_top_net);
    return rc;
}

void sandbox_seccomp_free(sandbox *sb)
{
    free(sb->seccomp.filter);
    free(sb->seccomp_net.filter);
    free(sb->seccomp_base.filter);
    free(sb->seccomp_top.filter);
    free(sb->seccomp_top_net.filter);
}

/* Set in the leader maker once the base part is attached there; a
 * leader it clones inherits both the filter and this copy of the flag,
 * a leader the host clones has neither. */
static int base_attached;
/* The run-time checks' listener filter with the top part in it, for
 * each network setting (built once in the host, before it forks the
 * maker; read-only afterwards); in a leader, whether that listener
 * follows its confinement and the one it is to attach. */
static struct sock_fprog watch_top[2];
static int watch_follows;
static const struct sock_fprog *deferred;

int sandbox_seccomp_watch_prepare(void)
{
    for (int on = 0; on < 2; on++) {
        if (watch_top[on].len)
            continue;
        if (seccomp_lib_bind() != VT_OK)
            return VT_ERR_UNSUPPORTED;
        scmp_filter_ctx ctx = libseccomp.init(SCMP_ACT_ALLOW);
        if (!ctx)
            return VT_ERR_NOMEM;
        /* The listener's own rules (execwatch.c), on the native ABI only
         * as there: any other ABI's call is killed by the listener
         * anyway, so the top's rules for them would never decide. */
        int rc = libseccomp.rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execve), 0);
        if (rc == 0)
            rc = libseccomp.rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(execveat), 0);
#if SCMP_VER_MAJOR > 2 || (SCMP_VER_MAJOR == 2 && SCMP_VER_MINOR >= 5)
        if (rc == 0)
            (void)libseccomp.attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
#endif
        if (rc == 0)
            rc = top_rules(ctx, on);
        if ((rc = sandbox_bpf_export(ctx, rc, &watch_top[on])) != VT_OK)
            return rc;
    }
    return VT_OK;
}

void sandbox_seccomp_watch_free(void)
{
    for (int on = 0; on < 2; on++) {
        free(watch_top[on].filter);
        watch_top[on].filter = NULL;
        watch_top[on].len = 0;
    }
}

void sandbox_bpf_adopt(struct sock_fprog *to, struct sock_fprog *from)
{
    free(to->filter);
    *to = *from;
    from->filter = NULL;
    from->len = 0;
}

void sandbox_seccomp_watch_adopt(int network, struct sock_fprog *f)
{
    sandbox_bpf_adopt(&watch_top[network != 0], f);
}

const struct sock_fprog *sandbox_seccomp_watch_program(int network)
{
    return &watch_top[network != 0];
}

void sandbox_seccomp_watch_follows(void) { watch_follows = 1; }

const struct sock_fprog *sandbox_seccomp_listener(const struct sock_fprog *plain)
{
    return deferred ? deferred : plain;
}

int sandbox_seccomp_base_enter(const sandbox *sb)
{
    /* no_new_privs: what attaching a filter without CAP_SYS_ADMIN needs;
     * each leader sets it anyway before it runs anything. */
    if (!sb->seccomp_base.len)
        return -EINVAL;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &sb->seccomp_base, 0, 0) != 0)
        return -errno;
    base_attached = 1;
    return 0;
}

int sandbox_seccomp_enter(const sandbox_plan *p)
{
    const sandbox *sb = p->sb;
    /* With the proxy, inet sockets too: the namespace holds only the
     * loopback and Landlock only the proxy's port. */
    int net = p->network || p->proxy;
    const struct sock_fprog *f;
    if (base_attached && watch_follows && watch_top[net || sb->network_access].len) {
        /* One attach instead of two: the listener the leader attaches
         * next (before anything of the command runs, or the leader ends)
         * carries the top part. */
        deferred = &watch_top[net || sb->network_access];
        return 0;
    }
    if (base_attached)
        f = net && sb->seccomp_top_net.len ? &sb->seccomp_top_net : &sb->seccomp_top;
    else
        f = net && sb->seccomp_net.len ? &sb->seccomp_net : &sb->seccomp;
    if (f->len && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, f, 0, 0) != 0)
        return -errno;
    return 0;
}
