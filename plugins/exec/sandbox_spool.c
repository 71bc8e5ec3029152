/* Spool views: the commands of one client session of the HTTP server see
 * only that session's spooled output.  The host spools an HTTP client's
 * calls to a directory of its own (vt_host_api.call_client_id names it)
 * inside the spool directory; the host's workspace service makes it and
 * says where both are (vt_wsindex_v1.spool_view).  In the command's mount
 * namespace an empty read-only tmpfs covers the spool directory and the
 * client's own is bound back, read-only.  So another client's files can
 * be neither listed nor read, whatever their names, while the session's
 * own spool_path works as given.  The stdio client (id 0) keeps the
 * whole directory.  Parent side: the paths and mount flags; the session
 * leader only makes system calls. */
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
#include <vthost/services.h>

static unsigned long locked_flags(const char *dir)
{
    int fd = open(dir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct statvfs sv;
    unsigned long f = fd >= 0 && fstatvfs(fd, &sv) == 0 ? sandbox_mount_flags(sv.f_flag) : 0;
    if (fd >= 0)
        close(fd);
    return f;
}

int sandbox_spool_plan(const sandbox *sb, sandbox_plan *p, uint64_t client)
{
    const vt_wsindex_v1 *x = sb->index;
    if (!client || !sb->vtcode_dir || !x || x->struct_size < sizeof *x)
        return VT_OK;
    if (!sb->namespaces) {
        if (!p->truncated)
            p->truncated = strdup("without a mount namespace, this session's commands can "
                                  "read other client sessions' spooled output");
        return VT_OK;
    }
    int rc = x->spool_view(client, &p->spool_dir, &p->spool_own);
    if (rc != VT_OK) {
        sandbox_spool_free(p);
        return rc == VT_ERR_NOMEM ? rc : VT_ERR_IO; /* fail closed */
    }
    p->spool_flags = locked_flags(p->spool_own);
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
