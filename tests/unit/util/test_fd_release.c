/* fd_release_detached: the descriptor leaves this process at once, its
 * last reference is really dropped (by the detached grandchild), and no
 * child of this process is left behind to reap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fd_release.h"

/* EOF on `rd` within 10 s: every copy of the pipe's write end is closed. */
static int eof_within(int rd)
{
    struct pollfd p = {.fd = rd, .events = POLLIN};
    char c;
    return poll(&p, 1, 10000) == 1 && read(rd, &c, 1) == 0;
}

static void no_child_left(void)
{
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
}

static void test_pipe_end_released(void **st)
{
    (void)st;
    int p[2];
    assert_int_equal(pipe2(p, O_CLOEXEC), 0);
    fd_release_detached(p[1]);
    assert_int_equal(fcntl(p[1], F_GETFD), -1); /* gone from here */
    assert_int_equal(errno, EBADF);
    assert_true(eof_within(p[0])); /* and from the helper */
    close(p[0]);
    no_child_left();
}

/* The use it is made for: an inotify descriptor holding a watch; a pipe
 * of this process open meanwhile still ends when this process closes it. */
static void test_inotify_released(void **st)
{
    (void)st;
    int other[2];
    assert_int_equal(pipe2(other, O_CLOEXEC), 0);
    int ifd = inotify_init1(IN_CLOEXEC);
    assert_true(ifd >= 0);
    assert_true(inotify_add_watch(ifd, "/", IN_CREATE | IN_ONLYDIR) >= 0);
    fd_release_detached(ifd);
    assert_int_equal(fcntl(ifd, F_GETFD), -1);
    close(other[1]);
    assert_true(eof_within(other[0]));
    close(other[0]);
    no_child_left();
}

static void test_negative_is_nothing(void **st)
{
    (void)st;
    fd_release_detached(-1);
    no_child_left();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pipe_end_released),
        cmocka_unit_test(test_inotify_released),
        cmocka_unit_test(test_negative_is_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
