/* Command sandbox: Landlock (filesystem), seccomp through libseccomp
 * (network), a private mount namespace (read-only .git and .vtcode).
 * See sandbox.h for the split between parent and child. */
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vthost/plugin.h>

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

#define MAX_PROTECTED 32

struct sandbox {
    int ruleset_fd;                /* Landlock ruleset, applied in the child */
    struct sock_fprog seccomp;     /* network filter, or .len == 0 */
    /* read-only bind mounts in a private mount namespace */
    char *protect[MAX_PROTECTED];
    unsigned long protect_flags[MAX_PROTECTED];
    size_t nprotect;
    int own_userns;                /* not root: a user namespace is needed */
    char uid_map[64], gid_map[64];
};

const char *sandbox_mode_name(sandbox_mode m)
{
    switch (m) {
    case SANDBOX_WORKSPACE_WRITE: return "workspace-write";
    case SANDBOX_READ_ONLY: return "read-only";
    case SANDBOX_FULL_ACCESS: return "danger-full-access";
    }
    return "?";
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    if (vasprintf(&s, f, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

/* ---- configuration ------------------------------------------------------ */

int sandbox_config_parse(const cJSON *config, sandbox_config *out, char **err)
{
    memset(out, 0, sizeof *out);
    *err = NULL;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(config, "sandbox");
    if (!t)
        return VT_OK;
    if (!cJSON_IsObject(t)) {
        *err = strdup("vtcode.toml: key 'sandbox' must be a table");
        return VT_ERR_INVALID;
    }
    const cJSON *mode = cJSON_GetObjectItemCaseSensitive(t, "mode");
    if (mode) {
        const char *m = cJSON_IsString(mode) ? mode->valuestring : "";
        if (!strcmp(m, "workspace-write"))
            out->mode = SANDBOX_WORKSPACE_WRITE;
        else if (!strcmp(m, "read-only"))
            out->mode = SANDBOX_READ_ONLY;
        else if (!strcmp(m, "danger-full-access"))
            out->mode = SANDBOX_FULL_ACCESS;
        else {
            *err = strdup("vtcode.toml: key 'sandbox.mode' must be \"workspace-write\", "
                          "\"read-only\" or \"danger-full-access\"");
            return VT_ERR_INVALID;
        }
    }
    const cJSON *net = cJSON_GetObjectItemCaseSensitive(t, "network_access");
    if (net && !cJSON_IsBool(net)) {
        *err = strdup("vtcode.toml: key 'sandbox.network_access' must be true or false");
        return VT_ERR_INVALID;
    }
    out->network_access = cJSON_IsTrue(net);
    const cJSON *fb = cJSON_GetObjectItemCaseSensitive(t, "fallback");
    if (fb) {
        if (!cJSON_IsString(fb) || (strcmp(fb->valuestring, "unsandboxed") &&
                                    strcmp(fb->valuestring, "refuse"))) {
            *err = strdup("vtcode.toml: key 'sandbox.fallback' must be \"refuse\" or "
                          "\"unsandboxed\"");
            return VT_ERR_INVALID;
        }
        out->fallback_unsandboxed = !strcmp(fb->valuestring, "unsandboxed");
    }
    const cJSON *roots = cJSON_GetObjectItemCaseSensitive(t, "writable_roots");
    if (roots && !cJSON_IsArray(roots)) {
        *err = strdup("vtcode.toml: key 'sandbox.writable_roots' must be an array of "
                      "directory paths");
        return VT_ERR_INVALID;
    }
    const cJSON *r;
    cJSON_ArrayForEach(r, roots) {
        if (!cJSON_IsString(r) || r->valuestring[0] != '/') {
            *err = strdup("vtcode.toml: key 'sandbox.writable_roots' must hold absolute "
                          "directory paths");
            sandbox_config_free(out);
            return VT_ERR_INVALID;
        }
        char *canon = realpath(r->valuestring, NULL);
        if (!canon)
            continue; /* a root that does not exist grants nothing */
        char **g = realloc(out->writable_roots, (out->nwritable + 1) * sizeof *g);
        if (!g) {
            free(canon);
            sandbox_config_free(out);
            return VT_ERR_NOMEM;
        }
        out->writable_roots = g;
        g[out->nwritable++] = canon;
    }
    return VT_OK;
}

void sandbox_config_free(sandbox_config *c)
{
    for (size_t i = 0; i < c->nwritable; i++)
        free(c->writable_roots[i]);
    free(c->writable_roots);
    memset(c, 0, sizeof *c);
}

/* ---- Landlock ------------------------------------------------------------ */

int sandbox_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi < 0 ? 0 : (int)abi;
}

static uint64_t handled_rights(int abi)
{
    uint64_t r = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE |
                 LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_DIR |
                 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK |
                 LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2)
        r |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3)
        r |= LANDLOCK_ACCESS_FS_TRUNCATE;
    if (abi >= 5)
        r |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
    return r;
}

#define FILE_RIGHTS (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |          \
                     LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |          \
                     LANDLOCK_ACCESS_FS_IOCTL_DEV)

/* Allow `rights` beneath `path`; a path that does not exist is skipped. */
static int allow_path(int ruleset, const char *path, uint64_t rights, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return VT_OK;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        rights &= FILE_RIGHTS;
    struct landlock_path_beneath_attr attr = {
        .allowed_access = rights & handled,
        .parent_fd = fd,
    };
    long rc = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
    close(fd);
    return rc < 0 ? VT_ERR_IO : VT_OK;
}

static int build_ruleset(const sandbox_config *cfg, const char *workspace, int abi, int *out)
{
    uint64_t handled = handled_rights(abi);
    struct landlock_ruleset_attr attr = {.handled_access_fs = handled};
    int low = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (low < 0)
        return VT_ERR_UNSUPPORTED;
    /* Kept above the low descriptors a child rearranges before exec. */
    int rs = fcntl(low, F_DUPFD_CLOEXEC, 64);
    close(low);
    if (rs < 0)
        return VT_ERR_IO;
    uint64_t read = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR |
                    LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
    uint64_t term = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                    LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
    int rc = allow_path(rs, "/", read, handled);
    const char *terminals[] = {"/dev/null", "/dev/tty", "/dev/pts", "/dev/zero",
                               "/dev/full", "/dev/ptmx"};
    for (size_t i = 0; rc == VT_OK && i < sizeof terminals / sizeof *terminals; i++)
        rc = allow_path(rs, terminals[i], term, handled);
    if (cfg->mode == SANDBOX_WORKSPACE_WRITE) {
        const char *tmpdir = getenv("TMPDIR");
        if (rc == VT_OK)
            rc = allow_path(rs, workspace, handled, handled);
        for (size_t i = 0; rc == VT_OK && i < cfg->nwritable; i++)
            rc = allow_path(rs, cfg->writable_roots[i], handled, handled);
        if (rc == VT_OK)
            rc = allow_path(rs, "/tmp", handled, handled);
        if (rc == VT_OK && tmpdir && tmpdir[0] == '/')
            rc = allow_path(rs, tmpdir, handled, handled);
    }
    if (rc != VT_OK) {
        close(rs);
        return rc;
    }
    *out = rs;
    return VT_OK;
}

/* ---- seccomp --------------------------------------------------------------- */

/* Build the network filter once and keep it as BPF, so the child only
 * has to hand it to the kernel. */
static int build_seccomp(struct sock_fprog *out)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return VT_ERR_NOMEM;
    const struct scmp_arg_cmp not_unix = {.arg = 0, .op = SCMP_CMP_NE,
                                          .datum_a = AF_UNIX, .datum_b = 0};
    int rc = seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 1,
                                    &not_unix);
    /* io_uring can open sockets without socket(2). */
    if (rc == 0)
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(io_uring_setup), 0);
    int mfd = rc == 0 ? memfd_create("vthost-seccomp", MFD_CLOEXEC) : -1;
    if (mfd >= 0 && seccomp_export_bpf(ctx, mfd) == 0) {
        off_t n = lseek(mfd, 0, SEEK_END);
        struct sock_filter *prog = n > 0 ? malloc((size_t)n) : NULL;
        if (prog && pread(mfd, prog, (size_t)n, 0) == n) {
            out->filter = prog;
            out->len = (unsigned short)((size_t)n / sizeof *prog);
            rc = 0;
        } else {
            free(prog);
            rc = -1;
        }
    } else {
        rc = -1;
    }
    if (mfd >= 0)
        close(mfd);
    seccomp_release(ctx);
    return rc == 0 ? VT_OK : VT_ERR_IO;
}

/* ---- mount namespace --------------------------------------------------------- */

static int userns_probe(int own_userns)
{
    static int cached = -1;
    if (cached >= 0)
        return cached;
    pid_t pid = fork();
    if (pid == 0) {
        int flags = CLONE_NEWNS | (own_userns ? CLONE_NEWUSER : 0);
        _exit(unshare(flags) == 0 ? 0 : 1);
    }
    int st = 0;
    cached = pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    return cached;
}

static unsigned long mount_flags_of(const char *path)
{
    struct statvfs sv;
    unsigned long f = 0;
    if (statvfs(path, &sv) != 0)
        return 0;
    if (sv.f_flag & ST_NOSUID) f |= MS_NOSUID;
    if (sv.f_flag & ST_NODEV) f |= MS_NODEV;
    if (sv.f_flag & ST_NOEXEC) f |= MS_NOEXEC;
    if (sv.f_flag & ST_NOATIME) f |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) f |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) f |= MS_RELATIME;
    return f;
}

static void add_protected(sandbox *sb, const char *root)
{
    static const char *names[] = {".git", ".vtcode"};
    for (size_t i = 0; i < 2 && sb->nprotect < MAX_PROTECTED; i++) {
        char *p = fmt("%s/%s", root, names[i]);
        struct stat st;
        if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            sb->protect_flags[sb->nprotect] = mount_flags_of(p);
            sb->protect[sb->nprotect++] = p;
        } else {
            free(p);
        }
    }
}

/* ---- prepare / enter ----------------------------------------------------------- */

void sandbox_free(sandbox *sb)
{
    if (!sb)
        return;
    if (sb->ruleset_fd >= 0)
        close(sb->ruleset_fd);
    free(sb->seccomp.filter);
    for (size_t i = 0; i < sb->nprotect; i++)
        free(sb->protect[i]);
    free(sb);
}

int sandbox_prepare(const sandbox_config *cfg, const char *workspace, sandbox **out,
                    char **warning, char **err)
{
    *out = NULL;
    *warning = NULL;
    *err = NULL;
    if (cfg->mode == SANDBOX_FULL_ACCESS)
        return VT_OK;
    int abi = sandbox_landlock_abi();
    if (abi <= 0) {
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
    sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return VT_ERR_NOMEM;
    sb->ruleset_fd = -1;
    int rc = build_ruleset(cfg, workspace, abi, &sb->ruleset_fd);
    if (rc == VT_OK && !cfg->network_access)
        rc = build_seccomp(&sb->seccomp);
    if (rc != VT_OK) {
        *err = fmt("cannot prepare the command sandbox (%s)",
                   sb->ruleset_fd < 0 ? "Landlock ruleset" : "seccomp filter");
        sandbox_free(sb);
        return rc;
    }
    if (cfg->mode == SANDBOX_WORKSPACE_WRITE) {
        add_protected(sb, workspace);
        for (size_t i = 0; i < cfg->nwritable; i++)
            add_protected(sb, cfg->writable_roots[i]);
    }
    if (sb->nprotect) {
        sb->own_userns = geteuid() != 0;
        snprintf(sb->uid_map, sizeof sb->uid_map, "%u %u 1\n", geteuid(), geteuid());
        snprintf(sb->gid_map, sizeof sb->gid_map, "%u %u 1\n", getegid(), getegid());
        if (!userns_probe(sb->own_userns)) {
            for (size_t i = 0; i < sb->nprotect; i++)
                free(sb->protect[i]);
            sb->nprotect = 0;
            *warning = strdup("this machine offers no unprivileged user namespaces: .git "
                              "and .vtcode inside writable roots are not protected from "
                              "writes");
        }
    }
    *out = sb;
    return VT_OK;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    size_t n = strlen(text);
    int rc = write(fd, text, n) == (ssize_t)n ? 0 : -errno;
    close(fd);
    return rc;
}

static int enter_mounts(const sandbox *sb, const char **what)
{
    if (!sb->nprotect)
        return 0;
    *what = "private mount namespace";
    if (unshare(CLONE_NEWNS | (sb->own_userns ? CLONE_NEWUSER : 0)) != 0)
        return -errno;
    if (sb->own_userns) {
        int rc = write_file("/proc/self/setgroups", "deny");
        if (rc == 0)
            rc = write_file("/proc/self/uid_map", sb->uid_map);
        if (rc == 0)
            rc = write_file("/proc/self/gid_map", sb->gid_map);
        if (rc)
            return rc;
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return -errno;
    *what = "read-only bind mount of .git/.vtcode";
    for (size_t i = 0; i < sb->nprotect; i++) {
        if (mount(sb->protect[i], sb->protect[i], NULL, MS_BIND | MS_REC, NULL) != 0)
            return -errno;
        if (mount(NULL, sb->protect[i], NULL,
                  MS_BIND | MS_REMOUNT | MS_RDONLY | sb->protect_flags[i], NULL) != 0)
            return -errno;
    }
    return 0;
}

int sandbox_ruleset_fd(const sandbox *sb)
{
    return sb ? sb->ruleset_fd : -1;
}

int sandbox_enter(const sandbox *sb, int ruleset_fd, const char **what)
{
    static const char *unused;
    if (!what)
        what = &unused;
    if (!sb)
        return 0;
    *what = "no_new_privs";
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    int rc = enter_mounts(sb, what);
    if (rc)
        return rc;
    *what = "Landlock";
    if (syscall(SYS_landlock_restrict_self, ruleset_fd >= 0 ? ruleset_fd : sb->ruleset_fd, 0) != 0)
        return -errno;
    if (sb->seccomp.len) {
        *what = "seccomp network filter";
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &sb->seccomp, 0, 0) != 0)
            return -errno;
    }
    return 0;
}

/* ---- denial detection ------------------------------------------------------------- */

static const char *const denial_words[] = {
    "Permission denied", "Operation not permitted", "Read-only file system",
    "PermissionError", "[Errno 1]", "[Errno 13]", "[Errno 30]", "EACCES", "EPERM", "EROFS",
};

void sandbox_denial_feed(sandbox_denial_scan *s, const char *buf, size_t len)
{
    if (s->seen || !len)
        return;
    /* Look across the chunk boundary: carry + the start of this chunk. */
    char joined[128];
    size_t head = len < sizeof joined - s->ncarry ? len : sizeof joined - s->ncarry;
    memcpy(joined, s->carry, s->ncarry);
    memcpy(joined + s->ncarry, buf, head);
    for (size_t i = 0; i < sizeof denial_words / sizeof *denial_words && !s->seen; i++) {
        size_t wl = strlen(denial_words[i]);
        if (memmem(joined, s->ncarry + head, denial_words[i], wl) ||
            memmem(buf, len, denial_words[i], wl))
            s->seen = 1;
    }
    size_t keep = len < sizeof s->carry ? len : sizeof s->carry;
    if (len < sizeof s->carry && s->ncarry + len > sizeof s->carry) {
        size_t drop = s->ncarry + len - sizeof s->carry;
        memmove(s->carry, s->carry + drop, s->ncarry - drop);
        s->ncarry -= drop;
        memcpy(s->carry + s->ncarry, buf, len);
        s->ncarry += len;
    } else if (len < sizeof s->carry) {
        memcpy(s->carry + s->ncarry, buf, len);
        s->ncarry += len;
    } else {
        memcpy(s->carry, buf + len - keep, keep);
        s->ncarry = keep;
    }
}
