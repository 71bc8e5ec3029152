/* The connection's other end, from the kernel: see http_peer.h.
 *
 * The socket diagnostics look up the socket whose own address is the
 * connection's remote one and whose remote address is ours: found, it is
 * a socket of this machine (of this network namespace), and the kernel
 * says which inode it is; /proc says who holds that inode
 * (http_peer_proc.c).  Not found, the client is on another machine (or
 * in another network namespace, which a command with the network on
 * never is) when its address is not one of this machine's; when it is,
 * the socket is gone already (its maker reset the connection) and
 * nothing can be told. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include "http_peer.h"
#include "http_peer_int.h"
#include "log.h"
#include "text_escape.h"

#define DIAG_TIMEOUT_MS 1000

/* ---- addresses ---------------------------------------------------------- */

/* An IPv4 address an IPv6 socket shows as ::ffff:a.b.c.d, as IPv4: the
 * socket at the other end may be either kind, and the IPv4 lookup finds
 * both. */
static void unmap(struct sockaddr_storage *ss)
{
    const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
    if (ss->ss_family != AF_INET6 || !IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr))
        return;
    struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = a6->sin6_port};
    memcpy(&a4.sin_addr, &a6->sin6_addr.s6_addr[12], 4);
    memset(ss, 0, sizeof *ss);
    memcpy(ss, &a4, sizeof a4);
}

static in_port_t port_of(const struct sockaddr_storage *ss)
{
    return ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port
                                    : ((const struct sockaddr_in6 *)ss)->sin6_port;
}

static const void *addr_of(const struct sockaddr_storage *ss, size_t *len)
{
    *len = ss->ss_family == AF_INET ? 4 : 16;
    return ss->ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
                                    : (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
}

static void show(const struct sockaddr_storage *ss, char *out, size_t size)
{
    char a[INET6_ADDRSTRLEN] = "?";
    size_t len = 0;
    inet_ntop(ss->ss_family, addr_of(ss, &len), a, sizeof a);
    snprintf(out, size, ss->ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", a,
             (unsigned)ntohs(port_of(ss)));
}

/* Whether `peer` is an address of this machine: loopback, ours on this
 * connection, or an interface's. */
static int local_address(const struct sockaddr_storage *peer, const struct sockaddr_storage *ours)
{
    size_t len = 0, olen = 0;
    const unsigned char *a = addr_of(peer, &len), *o = addr_of(ours, &olen);
    if (peer->ss_family == AF_INET ? a[0] == 127
                                   : IN6_IS_ADDR_LOOPBACK((const struct in6_addr *)(const void *)a))
        return 1;
    if (len == olen && memcmp(a, o, len) == 0)
        return 1;
    struct ifaddrs *ifs = NULL;
    int found = getifaddrs(&ifs) != 0; /* cannot tell: as if local */
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != peer->ss_family)
            continue;
        struct sockaddr_storage s = {0};
        memcpy(&s, i->ifa_addr,
               peer->ss_family == AF_INET ? sizeof(struct sockaddr_in)
                                          : sizeof(struct sockaddr_in6));
        const void *x = addr_of(&s, &olen);
        found = memcmp(x, a, len) == 0;
    }
    freeifaddrs(ifs);
    return found;
}

/* ---- socket diagnostics ------------------------------------------------- */

/* The TCP socket whose own address is `src` and remote address `dst`:
 * 0 with its inode, VT_ERR_NOT_FOUND when this network namespace has no
 * such socket, VT_ERR_UNSUPPORTED or VT_ERR_IO when the kernel cannot be
 * asked.  *uid: the user that made it. */
static int diag_lookup(const struct sockaddr_storage *src, const struct sockaddr_storage *dst,
                       unsigned long *inode, uid_t *uid)
{
    int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (nl < 0)
        return VT_ERR_UNSUPPORTED;
    struct {
        struct nlmsghdr nh;
        struct inet_diag_req_v2 r;
    } q;
    memset(&q, 0, sizeof q);
    q.nh.nlmsg_len = sizeof q;
    q.nh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    q.nh.nlmsg_flags = NLM_F_REQUEST;
    q.nh.nlmsg_seq = 1;
    q.r.sdiag_family = (unsigned char)src->ss_family;
    q.r.sdiag_protocol = IPPROTO_TCP;
    q.r.idiag_states = ~0u;
    q.r.id.idiag_sport = port_of(src);
    q.r.id.idiag_dport = port_of(dst);
    size_t len = 0;
    const void *a = addr_of(src, &len);
    memcpy(q.r.id.idiag_src, a, len);
    a = addr_of(dst, &len);
    memcpy(q.r.id.idiag_dst, a, len);
    q.r.id.idiag_cookie[0] = q.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
    struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
    int rc = VT_ERR_IO;
    union {
        struct nlmsghdr nh;
        char bytes[8192];
    } buf;
    struct pollfd p = {.fd = nl, .events = POLLIN};
    ssize_t n = -1;
    if (sendto(nl, &q, sizeof q, 0, (struct sockaddr *)&kernel, sizeof kernel) == sizeof q &&
        poll(&p, 1, DIAG_TIMEOUT_MS) == 1)
        n = recv(nl, &buf, sizeof buf, 0);
    close(nl);
    for (struct nlmsghdr *h = &buf.nh; n > 0 && NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
        if (h->nlmsg_type == NLMSG_ERROR) {
            const struct nlmsgerr *e = NLMSG_DATA(h);
            return e->error == -ENOENT ? VT_ERR_NOT_FOUND : VT_ERR_IO;
        }
        if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
            continue;
        const struct inet_diag_msg *m = NLMSG_DATA(h);
        /* a listener answers a lookup that no connection matches: its
         * remote port is 0, never ours */
        if (m->idiag_state == TCP_LISTEN || m->id.idiag_dport != port_of(dst))
            return VT_ERR_NOT_FOUND;
        *inode = m->idiag_inode;
        *uid = m->idiag_uid;
        return 0;
    }
    return rc;
}

/* ---- the verdict -------------------------------------------------------- */

/* The refusal, from who holds the socket `inode` that user `uid` made;
 * 0 when it may be served. */
static int judge_owners(unsigned long inode, uid_t uid, char *why, size_t size)
{
    peer_owners o;
    if (peer_proc_owners(inode, uid, &o) != 0) {
        snprintf(why, size,
                 "Forbidden: cannot tell whether this connection comes from a process started "
                 "by this vthost (/proc cannot be read, or is not this process's)");
        return VT_ERR_DENIED;
    }
    if (o.ours == getpid()) {
        snprintf(why, size,
                 "Forbidden: this connection comes from this vthost itself: the server does "
                 "not serve its own process (nor anything it started)");
        return VT_ERR_DENIED;
    }
    /* the program's name is the command's to choose: one line, shown */
    char *comm = text_escape(o.comm, 0);
    const char *name = comm ? comm : "?";
    if (o.ours)
        snprintf(why, size,
                 "Forbidden: this connection comes from process %d (%s), started by this vthost: "
                 "a command may not use the server that runs it; connect from outside "
                 "vthost's commands",
                 (int)o.ours, name);
    else if (o.unsure)
        snprintf(why, size,
                 "Forbidden: cannot tell whether process %d (%s), which holds this connection, "
                 "was started by this vthost (its parents changed while they were read); "
                 "try again",
                 (int)o.unsure, name);
    free(comm);
    if (o.ours || o.unsure)
        return VT_ERR_DENIED;
    if (o.other)
        return 0;
    /* Another user's socket, whose processes an unprivileged vthost
     * cannot look at: its commands run as its own user (a user namespace
     * maps back to it, and no_new_privs keeps set-user-ID programs out of
     * the sandbox); one that ran such a program is unreadable above. */
    if (!o.unreadable && !o.incomplete && geteuid() != 0 && uid != geteuid())
        return 0;
    snprintf(why, size,
             "Forbidden: no process that this vthost can look at holds this connection%s, so it "
             "may come from a process started by this vthost; connect from a process of "
             "this user that keeps its connection open",
             o.incomplete   ? " (too many processes to look through)"
             : o.unreadable ? " (a process it started cannot be looked at)"
                            : "");
    return VT_ERR_DENIED;
}

static int still_connected(int fd)
{
    struct tcp_info ti;
    socklen_t len = sizeof ti;
    return getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
           ti.tcpi_state == TCP_ESTABLISHED;
}

/* The verdict on one connection: 0 to serve, else VT_ERR_DENIED and
 * *why; *peer_text names the client for the log. */
static int decide(int fd, char *why, size_t size, char *peer_text, size_t peer_size)
{
    struct sockaddr_storage ours, peer;
    socklen_t ol = sizeof ours, pl = sizeof peer;
    snprintf(peer_text, peer_size, "an unknown address");
    if (getsockname(fd, (struct sockaddr *)&ours, &ol) != 0 ||
        getpeername(fd, (struct sockaddr *)&peer, &pl) != 0 ||
        (peer.ss_family != AF_INET && peer.ss_family != AF_INET6)) {
        snprintf(why, size, "Forbidden: cannot tell who is at the other end of this connection");
        return VT_ERR_DENIED;
    }
    unmap(&ours);
    unmap(&peer);
    show(&peer, peer_text, peer_size);
    unsigned long inode = 0, mine = 0;
    uid_t uid = 0, my_uid = 0;
    int rc = ours.ss_family == peer.ss_family ? diag_lookup(&peer, &ours, &inode, &uid)
                                              : VT_ERR_NOT_FOUND;
    /* No such socket here: another machine's client (or another network
     * namespace's, which a command with the network on never is) -- unless
     * the address is this machine's, where the socket is gone (reset or
     * closed) or the kernel cannot be asked.  Our own end, still
     * connected and not found either, tells the second. */
    if (rc != 0 && !local_address(&peer, &ours))
        return 0;
    if (rc != 0 && still_connected(fd) && diag_lookup(&ours, &peer, &mine, &my_uid) != 0) {
        snprintf(why, size,
                 "Forbidden: the kernel cannot say which process made this connection from "
                 "this machine (socket diagnostics, NETLINK_SOCK_DIAG, are unavailable: "
                 "load the inet_diag and tcp_diag modules), so it may come from a process "
                 "started by this vthost");
        return VT_ERR_DENIED;
    }
    if (rc != 0 || inode == 0) {
        snprintf(why, size,
                 "Forbidden: the process that made this connection has closed it already, so "
                 "it may have been started by this vthost; keep the connection open until "
                 "the answer");
        return VT_ERR_DENIED;
    }
    return judge_owners(inode, uid, why, size);
}

int http_peer_check(int fd, http_peer_verdict *kept, char *why, size_t size)
{
    if (kept && kept->known) {
        if (kept->rc)
            snprintf(why, size, "%s", kept->why);
        return kept->rc;
    }
    char text[HTTP_PEER_WHY_MAX] = "", peer[INET6_ADDRSTRLEN + 16];
    int rc;
    if (fd < 0) {
        snprintf(text, sizeof text,
                 "Forbidden: cannot tell who is at the other end of this connection");
        snprintf(peer, sizeof peer, "an unknown address");
        rc = VT_ERR_DENIED;
    } else {
        rc = decide(fd, text, sizeof text, peer, sizeof peer);
    }
    if (rc)
        host_log(VT_LOG_WARNING, "http", "refused a connection from %s: %s", peer, text);
    if (kept) {
        kept->rc = rc;
        snprintf(kept->why, sizeof kept->why, "%s", text);
        kept->known = 1;
    }
    if (rc)
        snprintf(why, size, "%s", text);
    return rc;
}
