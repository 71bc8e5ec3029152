/* Resolution and the address checks of the proxy (netproxy_addr.h). */
#include "netproxy_addr.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

typedef enum addr_class {
    ADDR_PUBLIC,
    ADDR_SELF,       /* loopback, or an address of this machine */
    ADDR_LINK_LOCAL, /* link-local and cloud metadata */
    ADDR_NEVER       /* unspecified, multicast, broadcast */
} addr_class;

static addr_class class_v4(const unsigned char *a)
{
    if (a[0] == 127)
        return ADDR_SELF;
    if (a[0] == 169 && a[1] == 254)
        return ADDR_LINK_LOCAL;
    if (a[0] == 0 || a[0] >= 224)
        return ADDR_NEVER;
    return ADDR_PUBLIC;
}

static addr_class class_v6(const struct in6_addr *a)
{
    static const unsigned char metadata[16] = {0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0,    0,
                                               0,    0,    0,    0,    0, 0, 0x02, 0x54};
    if (IN6_IS_ADDR_V4MAPPED(a) || IN6_IS_ADDR_V4COMPAT(a))
        return class_v4(a->s6_addr + 12);
    if (IN6_IS_ADDR_LOOPBACK(a))
        return ADDR_SELF;
    if (IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_MULTICAST(a))
        return ADDR_NEVER;
    if (IN6_IS_ADDR_LINKLOCAL(a) || !memcmp(a->s6_addr, metadata, 16))
        return ADDR_LINK_LOCAL;
    return ADDR_PUBLIC;
}

/* Whether `sa` is one of this machine's interface addresses: reaching it
 * reaches the host's own services (vthost's HTTP port among them). */
static int is_own_address(const struct sockaddr *sa)
{
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) != 0)
        return 1; /* cannot tell: treat it as the host's */
    int own = 0;
    for (struct ifaddrs *i = ifs; i && !own; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != sa->sa_family)
            continue;
        if (sa->sa_family == AF_INET)
            own = ((const struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr ==
                  ((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr;
        else
            own = !memcmp(&((const struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr,
                          &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
    }
    freeifaddrs(ifs);
    return own;
}

static unsigned port_of(const struct sockaddr *sa)
{
    return ntohs(sa->sa_family == AF_INET
                     ? ((const struct sockaddr_in *)(const void *)sa)->sin_port
                     : ((const struct sockaddr_in6 *)(const void *)sa)->sin6_port);
}

/* Whether `sa` (an address of this machine) reaches a listening socket of
 * this very process: vthost's own HTTP server, whatever port it was given.
 * Found among the process's descriptors, so no configuration is needed. */
static int is_own_listener(const struct sockaddr *sa)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 1; /* cannot tell: refuse */
    int own = 0;
    struct dirent *e;
    while (!own && (e = readdir(d))) {
        int fd = atoi(e->d_name);
        struct stat st;
        int listening = 0;
        socklen_t ll = sizeof listening;
        struct sockaddr_storage b;
        socklen_t bl = sizeof b;
        if (e->d_name[0] == '.' || fd == dirfd(d) || fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode) ||
            getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &ll) != 0 || !listening ||
            getsockname(fd, (struct sockaddr *)&b, &bl) != 0 ||
            (b.ss_family != AF_INET && b.ss_family != AF_INET6))
            continue;
        /* same port, any local address: a listener bound to the wildcard
         * or to the very address */
        own = port_of((struct sockaddr *)&b) == port_of(sa);
    }
    closedir(d);
    return own;
}

static addr_class classify(const struct sockaddr *sa)
{
    addr_class c =
        sa->sa_family == AF_INET
            ? class_v4(
                  (const unsigned char *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr)
            : class_v6(&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr);
    return c == ADDR_PUBLIC && is_own_address(sa) ? ADDR_SELF : c;
}

/* Whether the resolved address may be connected to; else *why. */
static int address_allowed(const netproxy_rules *r, const struct sockaddr *sa, unsigned port,
                           const char *host, char *why, size_t whysz)
{
    char text[INET6_ADDRSTRLEN] = "?";
    const void *bin =
        sa->sa_family == AF_INET
            ? (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr
            : (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
    inet_ntop(sa->sa_family, bin, text, sizeof text);
    addr_class c = classify(sa);
    if (c == ADDR_SELF && is_own_listener(sa)) {
        snprintf(why, whysz, "%s resolves to %s port %u, where vthost itself listens", host, text,
                 port);
        return 0;
    }
    int ok = c == ADDR_PUBLIC || (c == ADDR_SELF && netproxy_rules_lists(r, "localhost", port)) ||
             ((c == ADDR_SELF || c == ADDR_LINK_LOCAL) && netproxy_rules_lists(r, text, port));
    if (!ok)
        snprintf(why, whysz, "%s resolves to %s, %s", host, text,
                 c == ADDR_SELF         ? "an address of this machine (list \"localhost\" or the "
                                          "address to allow it)"
                 : c == ADDR_LINK_LOCAL ? "a link-local or cloud metadata address (list the "
                                          "address to allow it)"
                                        : "an address no connection may go to");
    return ok;
}

/* The test hook's answer for `host`, as a numeric name into out; 1 when
 * the file names it. */
static int hosts_override(const char *host, char *out, size_t size)
{
    const char *path = getenv(NETPROXY_HOSTS_ENV);
    FILE *f = path && *path ? fopen(path, "re") : NULL;
    if (!f)
        return 0;
    char line[512];
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) {
        char *save = NULL, *addr = strtok_r(line, " \t\r\n", &save);
        if (!addr || addr[0] == '#')
            continue;
        for (char *n = strtok_r(NULL, " \t\r\n", &save); n && !found;
             n = strtok_r(NULL, " \t\r\n", &save))
            if (!strcasecmp(n, host)) {
                snprintf(out, size, "%s", addr);
                found = 1;
            }
    }
    fclose(f);
    return found;
}

static int connect_within(const struct addrinfo *ai, int timeout_ms)
{
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int err = 0;
    socklen_t el = sizeof err;
    if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0 ||
        err) {
        close(fd);
        return -1;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int netproxy_connect(const netproxy_rules *r, const char *host, unsigned port, int timeout_ms,
                     char *why, size_t whysz)
{
    char name[256], service[8];
    int literal = 0;
    if (netproxy_host_normalize(host, name, sizeof name, &literal) != 0) {
        snprintf(why, whysz, "%s is not a host name", host);
        return -1;
    }
    char over[256];
    int numeric = literal || hosts_override(name, over, sizeof over);
    snprintf(service, sizeof service, "%u", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = numeric ? AI_NUMERICHOST : AI_ADDRCONFIG};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(numeric && !literal ? over : name, service, &hints, &res);
    if (gai != 0) {
        snprintf(why, whysz, "%s could not be resolved (%s)", host, gai_strerror(gai));
        return -1;
    }
    int fd = -1, refused = 0, tried = 0;
    for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
        if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
            continue;
        if (!address_allowed(r, ai->ai_addr, port, host, why, whysz)) {
            refused = 1;
            continue;
        }
        tried = 1;
        fd = connect_within(ai, timeout_ms);
    }
    freeaddrinfo(res);
    if (fd >= 0)
        return fd;
    if (tried || !refused)
        snprintf(why, whysz, "%s port %u could not be reached", host, port);
    return tried || !refused ? -1 : -2;
}
