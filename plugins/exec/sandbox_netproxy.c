/* The sandbox's half of the filtering proxy (netproxy.h): a session
 * whose configuration lists domains keeps its private network namespace,
 * and its leader, before it drops its capabilities, brings the
 * namespace's loopback up, listens on 127.0.0.1:NETPROXY_PORT and hands
 * the listening socket to the host's proxy over SANDBOX_NETPROXY_FD.  The
 * command never holds it: Landlock lets it connect to that port only, and
 * nothing in the namespace leads anywhere else. */
#include "netproxy.h"
#include "sandbox_int.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* Landlock's port rule (ABI 4), newer than Debian 12's headers. */
struct net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};
#define LL_RULE_NET_PORT 2
#define LL_NET_CONNECT_TCP (1ULL << 1)

int sandbox_netproxy_allow(int ruleset)
{
    struct net_port_attr a = {.allowed_access = LL_NET_CONNECT_TCP, .port = NETPROXY_PORT};
    return syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &a, 0) == 0 ? VT_OK
                                                                                 : VT_ERR_IO;
}

/* The namespace's loopback, down in a new namespace. */
static int loopback_up(void)
{
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -errno;
    struct ifreq r;
    memset(&r, 0, sizeof r);
    memcpy(r.ifr_name, "lo", 3);
    int rc = 0;
    if (ioctl(s, SIOCGIFFLAGS, &r) != 0)
        rc = -errno;
    r.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (rc == 0 && ioctl(s, SIOCSIFFLAGS, &r) != 0)
        rc = -errno;
    close(s);
    return rc;
}

static int send_fd(int via, int fd)
{
    char byte = 'L';
    union {
        struct cmsghdr h;
        char buf[CMSG_SPACE(sizeof(int))];
    } u;
    memset(&u, 0, sizeof u);
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof u.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    return sendmsg(via, &m, MSG_NOSIGNAL) == 1 ? 0 : -errno;
}

int sandbox_netproxy_enter(const sandbox_plan *p, const char **what)
{
    if (!p->proxy)
        return 0;
    *what = "the session's loopback interface";
    int rc = loopback_up();
    if (rc != 0)
        return rc;
    /* No proxy was started for this call (the host could not): the
     * namespace stays without a way out. */
    if (fcntl(SANDBOX_NETPROXY_FD, F_GETFD) < 0)
        return 0;
    *what = "the proxy's listening socket";
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (l < 0)
        return -errno;
    int one = 1;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons(NETPROXY_PORT),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 256) != 0)
        rc = -errno;
    if (rc == 0)
        rc = send_fd(SANDBOX_NETPROXY_FD, l);
    /* The hand-over socket stays open (close-on-exec) until the leader
     * exits: its end tells the proxy that the session is over. */
    close(l);
    return rc;
}
