/* LD_PRELOAD shim for patch_sync_failure.py: fsync and fdatasync fail
 * with EIO on the Nth call (VTPATCH_FSYNC_FAIL_AT=N, counted from 1)
 * made on one of apply_patch's staged temporaries (a name holding
 * ".vtpatch-"); every other call goes to the C library.  The number of
 * such calls is counted in VTPATCH_FSYNC_COUNT (a file, one line
 * appended per call), so the test knows how many a patch makes.
 * For patch_staged_mode.py: with VTPATCH_STAGED_MODES set, each write
 * to a staged temporary first appends the file's permission bits, as
 * they are when the content arrives, to that file (one octal line). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

/* The build hides symbols by default; these two must interpose. */
#define SHIM __attribute__((visibility("default")))

static atomic_int calls;

/* 1 when fd is a staged temporary of apply_patch. */
static int is_staged(int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof path - 1);
    if (n <= 0)
        return 0;
    path[n] = '\0';
    return strstr(path, ".vtpatch-") != NULL;
}

/* 1 when this call must fail. */
static int fail_now(int fd)
{
    if (!is_staged(fd))
        return 0;
    int k = atomic_fetch_add(&calls, 1) + 1;
    const char *count = getenv("VTPATCH_FSYNC_COUNT");
    int cfd = count ? open(count, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600) : -1;
    if (cfd >= 0) {
        (void)!write(cfd, "x\n", 2);
        close(cfd);
    }
    const char *at = getenv("VTPATCH_FSYNC_FAIL_AT");
    return at && atoi(at) == k;
}

SHIM int fsync(int fd)
{
    if (fail_now(fd)) {
        errno = EIO;
        return -1;
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    return real(fd);
}

SHIM int fdatasync(int fd)
{
    if (fail_now(fd)) {
        errno = EIO;
        return -1;
    }
    int (*real)(int) = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    return real(fd);
}

/* The staged file's mode when content is written to it. */
static void note_mode(int fd)
{
    const char *out = getenv("VTPATCH_STAGED_MODES");
    struct stat st;
    if (!out || !is_staged(fd) || fstat(fd, &st) != 0)
        return;
    int ofd = open(out, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (ofd >= 0) {
        char line[32];
        int n = snprintf(line, sizeof line, "%o\n", (unsigned)(st.st_mode & 07777));
        (void)!write(ofd, line, (size_t)n);
        close(ofd);
    }
}

SHIM ssize_t writev(int fd, const struct iovec *iov, int n)
{
    note_mode(fd);
    ssize_t (*real)(int, const struct iovec *, int) =
        (ssize_t(*)(int, const struct iovec *, int))dlsym(RTLD_NEXT, "writev");
    return real(fd, iov, n);
}
