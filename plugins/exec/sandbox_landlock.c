/* Landlock on the parent side: the rights this kernel's ABI handles and
 * the ruleset of one call (what a command may read, execute and write,
 * each writable place granted by what it is, not by its name). */
#include "sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* Landlock scopes and network rights, newer than Debian 12's headers:
 * the ruleset attribute is passed with the size this kernel knows. */
struct ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* ---- Landlock ------------------------------------------------------------ */

int sandbox_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

uint64_t sandbox_handled_rights(int abi)
{
    uint64_t r =
        LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
        LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
        LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
        LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
        LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return r;
}

#define FILE_RIGHTS                                                                                \
    (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |   \
     LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Allow `rights` beneath the object open at `fd` (an O_PATH descriptor). */
static int allow_fd(int ruleset, int fd, uint64_t rights, uint64_t handled)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights &= FILE_RIGHTS;
    struct landlock_path_beneath_attr attr = {
        .allowed_access = rights & handled,
        .parent_fd = fd,
    };
    long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
    return rc < 0 ? VT_ERR_IO : VT_OK;
}

/* Allow `rights` beneath `path`; a path that does not exist is skipped. */
int sandbox_allow_path(int ruleset, const char *path, uint64_t rights, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return VT_OK;
    int rc = allow_fd(ruleset, fd, rights, handled);
    close(fd);
    return rc;
}

/* Writing granted beneath a place a command may write (`what` names it
 * in a refusal), from a descriptor opened without following any link
 * (sandbox_fd.c): a place that does not exist grants nothing; one
 * reached through a link now, or (`want`, may be NULL) no longer the
 * object approved, refuses the call with p->truncated saying why (`p`
 * NULL, the probe at prepare: skipped, the call's plan refuses). */
static int grant_place(int rs, const char *what, const char *path, const struct stat *want,
                       uint64_t handled, sandbox_plan *p)
{
    struct stat st;
    int fd = sandbox_fd_open(path, &st);
    if (fd == -ENOENT)
        return VT_OK;
    char *why = NULL;
    if (fd < 0)
        why = p ? sandbox_fd_refusal(what, path, fd) : NULL;
    else if (want && (st.st_dev != want->st_dev || st.st_ino != want->st_ino))
        why = p ? sandbox_fmt("cannot run the command: %s (%s) is no longer the directory "
                              "that was approved (it was replaced since the question was "
                              "asked); nothing was granted. Ask again for the path as it is "
                              "now",
                              what, path)
                : NULL;
    else {
        int rc = allow_fd(rs, fd, handled, handled);
        close(fd);
        return rc;
    }
    if (fd >= 0)
        close(fd);
    if (!p)
        return VT_OK;
    free(p->truncated);
    p->truncated = why;
    return VT_ERR_DENIED;
}

/* The Landlock ruleset of one call: reading and executing everywhere,
 * the terminals, and in workspace-write the workspace, the writable
 * roots, /tmp and $TMPDIR, plus the call's additional writable paths.
 * A ruleset per call (a few system calls) lets a call's additional
 * permissions extend it, and lets the session leader add its own
 * /dev/pts instance before applying it. */
int sandbox_build_ruleset(const sandbox *sb, const sandbox_extra *extra, sandbox_plan *p, int *out)
{
    int abi = sb->landlock_abi;
    uint64_t handled = sandbox_handled_rights(abi);
    struct ruleset_attr attr = {.handled_access_fs = handled};
    size_t size = sizeof attr.handled_access_fs;
    int network = sb->network_access || (extra && extra->network);
    /* ABI 4: TCP bind/connect, refused outright with the network off
     * (seccomp refuses the sockets too: two locks). */
    if (abi >= 4 && !network) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(struct ruleset_attr, scoped);
    }
    /* ABI 6: no signal to, no abstract socket of, a process outside. */
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_SIGNAL | LL_SCOPE_ABSTRACT_UNIX_SOCKET;
        size = sizeof attr;
    }
    int low = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (low < 0)
        return VT_ERR_UNSUPPORTED;
    /* Kept above the low descriptors a child rearranges before exec. */
    int rs = fcntl(low, F_DUPFD_CLOEXEC, 64);
    close(low);
    if (rs < 0)
        return VT_ERR_IO;
    uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
    /* With namespaces vthost's own data is masked by mounts; without,
     * it is left out of the grant (`p` NULL: the probe at prepare). */
    int rc = sb->namespaces ? sandbox_allow_path(rs, "/", read, handled)
                            : sandbox_data_allow_read(rs, p, read, handled);
    /* /dev/pts is not here: the session leader mounts a fresh instance
     * and allows that one (other terminals of the machine are not in
     * it); without namespaces the host's is allowed. */
    const char *terminals[] = {"/dev/null",
                               "/dev/tty",
                               "/dev/zero",
                               "/dev/full",
                               sb->namespaces ? NULL : "/dev/pts",
                               sb->namespaces ? NULL : "/dev/ptmx"};
    for (size_t i = 0; rc == VT_OK && i < sizeof terminals / sizeof *terminals; i++)
        if (terminals[i])
            rc = sandbox_allow_path(rs, terminals[i], TERMINAL_RIGHTS, handled);
    /* /tmp by its name: a command cannot replace it (its parent is not
     * writable); every other place by what it is (grant_place). */
    if (sb->mode == SANDBOX_WORKSPACE_WRITE) {
        const char *tmpdir = getenv("TMPDIR");
        for (size_t i = 0; rc == VT_OK && i < sb->nroots; i++)
            rc = grant_place(rs, i ? "the writable root" : "the workspace", sb->roots[i], NULL,
                             handled, p);
        if (rc == VT_OK)
            rc = sandbox_allow_path(rs, "/tmp", handled, handled);
        if (rc == VT_OK && tmpdir && tmpdir[0] == '/')
            rc = grant_place(rs, "$TMPDIR", tmpdir, NULL, handled, p);
    }
    for (size_t i = 0; rc == VT_OK && extra && i < extra->nwrite; i++)
        rc = grant_place(rs, "the approved additional write path", extra->write[i],
                         extra->ids ? &extra->ids[i] : NULL, handled, p);
    /* The filtering proxy's port: the one TCP connection allowed. */
    if (rc == VT_OK && sandbox_proxy(sb, extra) && abi >= 4)
        rc = sandbox_netproxy_allow(rs);
    if (rc != VT_OK) {
        close(rs);
        return rc;
    }
    *out = rs;
    return VT_OK;
}
