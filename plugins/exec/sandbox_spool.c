/* Spool views: the commands of one client session of the HTTP server see
 * only that session's spooled output.  The host spools an HTTP client's
 * calls to .vtcode/context/tool_outputs/c-ID/ (ID: its
 * vt_host_api.call_client_id, 16 hex digits); in the command's mount
 * namespace an empty read-only tmpfs covers tool_outputs/ and the
 * client's own c-ID/ is bound back, read-only.  So another client's files
 * can be neither listed nor read, whatever their names, while the
 * session's own spool_path works as given.  The stdio client (id 0) keeps
 * the whole directory.  Parent side: the directories made, paths and
 * mount flags; the session leader only makes system calls. */
#include "sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* mkdir of each component below .vtcode, never through a link: a
 * descriptor of the last, or -1. */
static int make_dirs(const char *vtcode, const char *const *names, size_t n)
{
    int fd = open(vtcode, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    for (size_t i = 0; i < n && fd >= 0; i++) {
        if (mkdirat(fd, names[i], 0755) != 0 && errno != EEXIST) {
            close(fd);
            return -1;
        }
        int next = openat(fd, names[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        close(fd);
        fd = next;
    }
    return fd;
}

static unsigned long locked_flags(int fd)
{
    struct statvfs sv;
    return fstatvfs(fd, &sv) == 0 ? sandbox_mount_flags(sv.f_flag) : 0;
}

int sandbox_spool_plan(const sandbox *sb, sandbox_plan *p, uint64_t client)
{
    if (!client || !sb->vtcode_dir)
        return VT_OK;
    if (!sb->namespaces) {
        if (!p->truncated)
            p->truncated = strdup("without a mount namespace, this session's commands can "
                                  "read other client sessions' spooled output");
        return VT_OK;
    }
    char view[32];
    snprintf(view, sizeof view, "c-%016llx", (unsigned long long)client);
    const char *const names[] = {"context", "tool_outputs", view};
    int own = make_dirs(sb->vtcode_dir, names, 3);
    if (own < 0)
        return VT_ERR_IO; /* fail closed: no command that could see others' output */
    p->spool_flags = locked_flags(own);
    close(own);
    size_t n = strlen(sb->vtcode_dir) + 64;
    p->spool_dir = malloc(n);
    p->spool_own = malloc(n);
    if (!p->spool_dir || !p->spool_own) {
        sandbox_spool_free(p);
        return VT_ERR_NOMEM;
    }
    snprintf(p->spool_dir, n, "%s/context/tool_outputs", sb->vtcode_dir);
    snprintf(p->spool_own, n, "%s/%s", p->spool_dir, view);
    return VT_OK;
}

void sandbox_spool_free(sandbox_plan *p)
{
    free(p->spool_dir);
    free(p->spool_own);
    p->spool_dir = p->spool_own = NULL;
}

/* "/proc/self/fd/N" without stdio (the session leader after clone). */
static void fd_path(char out[32], int fd)
{
    static const char pre[] = "/proc/self/fd/";
    char digits[12];
    int k = 0;
    do
        digits[k++] = (char)('0' + fd % 10);
    while ((fd /= 10) && k < 11);
    memcpy(out, pre, sizeof pre - 1);
    int i = sizeof pre - 1;
    while (k)
        out[i++] = digits[--k];
    out[i] = 0;
}

int sandbox_spool_enter(const sandbox_plan *p, const char **what)
{
    if (!p->spool_dir)
        return 0;
    *what = "hiding other client sessions' spooled output";
    /* held across the cover: the own directory is bound back from it */
    int own = open(p->spool_own, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (own < 0)
        return -errno;
    char src[32];
    fd_path(src, own);
    unsigned long tmpfs = MS_NOSUID | MS_NODEV | MS_NOEXEC;
    int rc = 0;
    if (mount("tmpfs", p->spool_dir, "tmpfs", tmpfs, "size=16k,mode=0755") != 0 ||
        mkdir(p->spool_own, 0755) != 0 || mount(src, p->spool_own, NULL, MS_BIND, NULL) != 0 ||
        mount(NULL, p->spool_own, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | p->spool_flags, NULL) !=
            0 ||
        mount(NULL, p->spool_dir, NULL, MS_REMOUNT | MS_RDONLY | tmpfs, "size=16k,mode=0755") != 0)
        rc = -errno;
    close(own);
    return rc;
}
