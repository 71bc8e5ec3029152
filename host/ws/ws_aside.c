/* The set-aside directory of the workspace (ws_aside.h). */
#include "ws_aside.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "beneath.h"
#include "log.h"
#include "paths.h"
#include "strutil.h"

static atomic_int reported;
static atomic_uint seq;

static int refuse(const char *reason, const char **why, int *first)
{
    *why = reason;
    *first = atomic_exchange(&reported, 1) == 0;
    return -1;
}

/* A .vtcode/ the host makes is kept out of the repository's status. */
static void vtcode_make(int ws)
{
    if (mkdirat(ws, ".vtcode", 0755) != 0)
        return;
    int fd = beneath_open(ws, ".vtcode/.gitignore", O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return;
    if (write(fd, "*\n", 2) != 2)
        host_log(VT_LOG_WARNING, NULL, "cannot write .vtcode/.gitignore");
    close(fd);
}

int ws_aside_open(const char *root, const char **why, int *first)
{
    *why = NULL;
    *first = 0;
    const char *vt_why = paths_vtcode_refusal(root);
    if (vt_why)
        return refuse(!strcmp(vt_why, "a symbolic link") ? ".vtcode is a symbolic link"
                      : !strcmp(vt_why, "not a directory")
                          ? ".vtcode is not a directory"
                          : ".vtcode cannot be used (another filesystem, a mount, or unreadable)",
                      why, first);
    int ws = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (ws < 0)
        return refuse("the workspace cannot be opened", why, first);
    vtcode_make(ws);
    if (beneath_mkdirs(ws, ".vtcode/set-aside", 0700) != 0 && errno != EEXIST) {
        close(ws);
        return refuse(".vtcode/set-aside is not a directory (a file or a link is in its place)",
                      why, first);
    }
    int fd = beneath_open(ws, ".vtcode/set-aside", O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0);
    struct stat a, b;
    int bad = fd < 0 || fstat(fd, &a) != 0 || fstat(ws, &b) != 0;
    close(ws);
    if (bad) {
        if (fd >= 0)
            close(fd);
        return refuse(".vtcode/set-aside is not a directory (a file or a link is in its place)",
                      why, first);
    }
    /* a directory someone else owns, or another filesystem mounted
     * there, is not a place to keep the user's originals */
    if (a.st_uid != geteuid() || a.st_dev != b.st_dev) {
        close(fd);
        return refuse(".vtcode/set-aside is not a directory of the workspace owned by this user",
                      why, first);
    }
    return fd;
}

char *ws_aside_prefix(const char *rel)
{
    unsigned n = atomic_fetch_add(&seq, 1) + 1;
    char *head = str_printf("%ld-%ld-%u-", (long)time(NULL), (long)getpid(), n);
    size_t hl = head ? strlen(head) : 0, rl = strlen(rel);
    char *out = head ? malloc(hl + rl + 2) : NULL;
    if (out) {
        memcpy(out, head, hl);
        for (size_t i = 0; i < rl; i++)
            out[hl + i] = rel[i] == '/' ? '%' : rel[i];
        out[hl + rl] = '%';
        out[hl + rl + 1] = '\0';
    }
    free(head);
    return out;
}
