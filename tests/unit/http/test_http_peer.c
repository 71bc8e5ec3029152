/* http_peer_check on real loopback connections: the test process plays
 * vthost.  A connection held by itself or by its child is refused; one
 * whose maker closed it before the check, or that sits only in a
 * message in flight, is refused (nobody can be seen holding it); one
 * held by a process outside its tree is served.  The program name a
 * process gives itself is shown on one line. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <vthost/plugin.h>
#include "http_peer.h"

static int listener(struct sockaddr_in *at)
{
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 8), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&a, &len), 0);
    *at = a;
    return l;
}

static int dial(const struct sockaddr_in *at)
{
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0 || connect(c, (const struct sockaddr *)at, sizeof *at) != 0)
        _exit(3);
    return c;
}

static int check(int fd, char *why, size_t size)
{
    why[0] = 0;
    return http_peer_check(fd, NULL, why, size);
}

static void test_own_connection_refused(void **state)
{
    (void)state;
    struct sockaddr_in at;
    int l = listener(&at), c = dial(&at), s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    char why[320];
    assert_int_equal(check(s, why, sizeof why), VT_ERR_DENIED);
    assert_non_null(strstr(why, "this vthost itself"));
    /* the connection's verdict is kept, and given again with its reason */
    http_peer_verdict kept = {0};
    assert_int_equal(http_peer_check(s, &kept, why, sizeof why), VT_ERR_DENIED);
    assert_true(kept.known);
    why[0] = 0;
    assert_int_equal(http_peer_check(-1, &kept, why, sizeof why), VT_ERR_DENIED);
    assert_non_null(strstr(why, "this vthost itself"));
    close(s);
    close(c);
    close(l);
}

/* A process that connects, says so on `ready` and holds the connection
 * until `release` ends (EOF). */
static _Noreturn void hold(const struct sockaddr_in *at, int ready, int release)
{
    int c = dial(at);
    char b = 1;
    if (write(ready, &b, 1) != 1)
        _exit(4);
    while (read(release, &b, 1) > 0)
        ;
    close(c);
    _exit(0);
}

static void test_child_connection_refused(void **state)
{
    (void)state;
    struct sockaddr_in at;
    int l = listener(&at), ready[2], release[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(release), 0);
    pid_t child = fork();
    if (child == 0) {
        close(release[1]);
        prctl(PR_SET_NAME, "x\nvthost: ok"); /* a name that would forge a log line */
        hold(&at, ready[1], release[0]);
    }
    close(release[0]);
    char b, why[320], pid[32];
    assert_int_equal(read(ready[0], &b, 1), 1);
    int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    assert_int_equal(check(s, why, sizeof why), VT_ERR_DENIED);
    snprintf(pid, sizeof pid, "process %d ", (int)child);
    assert_non_null(strstr(why, pid));
    assert_non_null(strstr(why, "started by this vthost"));
    assert_null(strchr(why, '\n'));
    assert_non_null(strstr(why, "(x\\nvthost: ok)"));
    close(release[1]);
    waitpid(child, NULL, 0);
    close(s);
    close(l);
    close(ready[0]);
    close(ready[1]);
}

/* Outside the tree: a grandchild whose parent has exited is reparented
 * to init (or a subreaper above this process), not to us. */
static void test_outsider_served(void **state)
{
    (void)state;
    struct sockaddr_in at;
    int l = listener(&at), ready[2], release[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(release), 0);
    pid_t child = fork();
    if (child == 0) {
        pid_t parent = getpid();
        if (fork() == 0) {
            close(release[1]);
            for (int i = 0; i < 5000 && getppid() == parent; i++)
                usleep(1000); /* until its parent is gone */
            hold(&at, ready[1], release[0]);
        }
        _exit(0);
    }
    waitpid(child, NULL, 0); /* the grandchild is an orphan now */
    close(release[0]);
    char b, why[320];
    assert_int_equal(read(ready[0], &b, 1), 1);
    int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    http_peer_verdict kept = {0};
    assert_int_equal(http_peer_check(s, &kept, why, sizeof why), 0);
    assert_true(kept.known);
    assert_int_equal(http_peer_check(-1, &kept, why, sizeof why), 0); /* not judged again */
    close(release[1]); /* the grandchild ends on EOF */
    close(s);
    close(l);
    close(ready[0]);
    close(ready[1]);
}

/* A child that sends a request and closes: with a FIN (the socket
 * lingers, nobody's) or a reset (the socket is gone at once). */
static void closed_before_check(int reset)
{
    struct sockaddr_in at;
    int l = listener(&at);
    pid_t child = fork();
    if (child == 0) {
        int c = dial(&at);
        struct linger now = {.l_onoff = 1, .l_linger = 0};
        if (write(c, "GET / HTTP/1.1\r\n\r\n", 18) != 18 ||
            (reset && setsockopt(c, SOL_SOCKET, SO_LINGER, &now, sizeof now) != 0))
            _exit(4);
        close(c);
        _exit(0);
    }
    waitpid(child, NULL, 0);
    int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    char why[320];
    assert_int_equal(check(s, why, sizeof why), VT_ERR_DENIED);
    /* reset, not even the peer's address is left to show */
    assert_true(strstr(why, "closed it already") ||
                (reset && strstr(why, "cannot tell who is at the other end")));
    close(s);
    close(l);
}

static void test_closed_before_check_refused(void **state)
{
    (void)state;
    closed_before_check(0);
}

static void test_reset_before_check_refused(void **state)
{
    (void)state;
    closed_before_check(1);
}

/* A socket held only in a message in flight (SCM_RIGHTS): no process
 * holds it while the check runs. */
static void test_in_flight_refused(void **state)
{
    (void)state;
    struct sockaddr_in at;
    int l = listener(&at), pair[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair), 0);
    int c = dial(&at);
    char cbuf[CMSG_SPACE(sizeof(int))] = {0}, b = 1;
    struct iovec iov = {.iov_base = &b, .iov_len = 1};
    struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                       .msg_controllen = sizeof cbuf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &c, sizeof c);
    assert_int_equal(sendmsg(pair[0], &m, 0), 1);
    close(c);
    int s = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    char why[320];
    assert_int_equal(check(s, why, sizeof why), VT_ERR_DENIED);
    assert_non_null(strstr(why, "no process"));
    close(s);
    close(pair[0]);
    close(pair[1]); /* the message and the socket in it go */
    close(l);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_connection_refused),
        cmocka_unit_test(test_child_connection_refused),
        cmocka_unit_test(test_outsider_served),
        cmocka_unit_test(test_closed_before_check_refused),
        cmocka_unit_test(test_reset_before_check_refused),
        cmocka_unit_test(test_in_flight_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
