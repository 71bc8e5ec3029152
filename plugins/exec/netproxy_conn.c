/* One connection of the filtering proxy (netproxy.h): an HTTP request
 * (absolute URI) or CONNECT, or a SOCKS5 CONNECT, judged, connected out
 * and relayed.  Every refusal answers in the client's protocol and is
 * noted for the call's result. */
#include "netproxy_addr.h"
#include "netproxy_http.h"
#include "netproxy_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define HEAD_TIMEOUT_MS 30000
#define CONNECT_TIMEOUT_MS 15000
#define IDLE_TIMEOUT_MS (10 * 60 * 1000)
#define RELAY_BUF (1024 * 1024) /* the pipe of each direction */

/* Read at least `want` bytes within `ms` (less at EOF); the count, or -1. */
static ssize_t read_some(int fd, char *buf, size_t size, size_t want, int ms)
{
    size_t got = 0;
    while (got < want) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, ms) != 1)
            return -1;
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -1 : (ssize_t)got;
        got += (size_t)n;
    }
    return (ssize_t)got;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* One direction of a relay: the bytes move from socket to pipe to
 * socket with splice(2), never through user memory. */
typedef struct lane {
    int from, to;
    int pipe[2];
    size_t queued; /* in the pipe, not yet written */
    int open;
    uint64_t bytes;
} lane;

/* Move what `from` has (after poll said so) on to `to`: 0; 1 at its end
 * (`to` is told); -1 on an error. */
static int lane_move(lane *l)
{
    ssize_t n =
        splice(l->from, NULL, l->pipe[1], NULL, RELAY_BUF, SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : -1;
    if (n == 0) {
        shutdown(l->to, SHUT_WR);
        return 1;
    }
    l->queued += (size_t)n;
    while (l->queued) {
        ssize_t w = splice(l->pipe[0], NULL, l->to, NULL, l->queued, SPLICE_F_MOVE);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        l->queued -= (size_t)w;
    }
    l->bytes += (uint64_t)n;
    return 0;
}

/* Copy both ways until both sides are done; counts into np. */
static void relay(netproxy *np, int client, int server)
{
    lane up = {.from = client, .to = server, .pipe = {-1, -1}, .open = 1};
    lane down = {.from = server, .to = client, .pipe = {-1, -1}, .open = 1};
    lane *lanes[2] = {&up, &down};
    int ok = pipe2(up.pipe, O_CLOEXEC) == 0 && pipe2(down.pipe, O_CLOEXEC) == 0;
    for (int k = 0; ok && k < 2; k++)
        (void)fcntl(lanes[k]->pipe[1], F_SETPIPE_SZ, RELAY_BUF);
    while (ok && (up.open || down.open)) {
        struct pollfd p[2] = {{.fd = up.open ? client : -1, .events = POLLIN},
                              {.fd = down.open ? server : -1, .events = POLLIN}};
        int r = poll(p, 2, IDLE_TIMEOUT_MS);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        for (int k = 0; k < 2 && ok; k++) {
            if (!p[k].revents)
                continue;
            int rc = lane_move(lanes[k]);
            if (rc > 0)
                lanes[k]->open = 0;
            else if (rc < 0)
                ok = 0; /* an error: both are done */
        }
        if (up.bytes + down.bytes > (1u << 24)) { /* counted as it goes */
            netproxy_count(np, up.bytes, down.bytes);
            up.bytes = down.bytes = 0;
        }
    }
    netproxy_count(np, up.bytes, down.bytes);
    for (int k = 0; k < 2; k++)
        for (int e = 0; e < 2; e++)
            if (lanes[k]->pipe[e] >= 0)
                close(lanes[k]->pipe[e]);
}

/* Judge `host`, then resolve and connect: the server's descriptor, or -1
 * after the refusal was noted (*refused 1) or the host was unreachable. */
static int open_upstream(netproxy *np, const char *host, unsigned port, int *refused, char *why,
                         size_t whysz)
{
    *refused = 0;
    if (netproxy_judge(np, host, port, why, whysz) != 0) {
        *refused = 1;
        netproxy_refused(np, host, why);
        return -1;
    }
    int fd = netproxy_connect(np->rules, host, port, CONNECT_TIMEOUT_MS, why, whysz);
    if (fd == -2) {
        *refused = 1;
        netproxy_refused(np, host, why);
    }
    return fd < 0 ? -1 : fd;
}

static void http_answer(int fd, int code, const char *reason, const char *host, const char *why)
{
    char msg[1024];
    char body[640];
    int bl = snprintf(body, sizeof body, "vthost sandbox proxy: %s %s: %s\n",
                      code == 403 ? "refused" : "cannot reach", host, why);
    if (bl < 0 || (size_t)bl >= sizeof body)
        bl = (int)strlen(body);
    int n = snprintf(msg, sizeof msg,
                     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
                     "Connection: close\r\n\r\n%s",
                     code, reason, bl, body);
    if (n > 0)
        (void)write_all(fd, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}

static void serve_http(netproxy *np, int fd, char *buf, size_t len)
{
    netproxy_request req;
    const char *bad = NULL;
    int rc;
    while ((rc = netproxy_http_parse(buf, len, &req, &bad)) == 0) {
        ssize_t n = read_some(fd, buf + len, NETPROXY_HEAD_MAX - len, 1, HEAD_TIMEOUT_MS);
        if (n <= 0)
            return;
        len += (size_t)n;
    }
    if (rc < 0) {
        http_answer(fd, 400, "Bad Request", "this request", bad);
        return;
    }
    char why[512];
    int refused = 0;
    int up = open_upstream(np, req.host, req.port, &refused, why, sizeof why);
    if (up < 0) {
        http_answer(fd, refused ? 403 : 502, refused ? "Forbidden" : "Bad Gateway", req.host, why);
    } else if (netproxy_track(np, up) == 0) {
        int ok = req.connect ? write_all(fd, "HTTP/1.1 200 Connection established\r\n\r\n", 39) == 0
                             : write_all(up, req.head, req.head_len) == 0;
        /* what the client sent past the head: a body, or the tunnel's start */
        if (ok && len > req.consumed && write_all(up, buf + req.consumed, len - req.consumed))
            ok = 0;
        if (ok) {
            netproxy_count(np, req.connect ? 0 : req.head_len, 0);
            relay(np, fd, up);
        }
        netproxy_untrack(np, up);
    }
    if (up >= 0)
        close(up);
    free(req.head);
}

/* SOCKS5 (RFC 1928), no authentication, CONNECT only. */
static void socks_reply(int fd, unsigned char code)
{
    unsigned char r[10] = {5, code, 0, 1, 0, 0, 0, 0, 0, 0};
    (void)write_all(fd, (const char *)r, sizeof r);
}

/* At least `want` bytes in buf (len so far); 0, or -1. */
static int fill(int fd, char *buf, size_t *len, size_t want)
{
    if (*len >= want)
        return 0;
    ssize_t n = read_some(fd, buf + *len, 512 - *len, want - *len, HEAD_TIMEOUT_MS);
    if (n < (ssize_t)(want - *len))
        return -1;
    *len += (size_t)n;
    return 0;
}

/* The greeting (no authentication is the only method offered back),
 * then the request's host and port. */
static int socks_target(int fd, char *buf, size_t len, char *host, size_t hsz, unsigned *port)
{
    unsigned char *b = (unsigned char *)buf;
    if (fill(fd, buf, &len, 2) != 0 || fill(fd, buf, &len, 2 + (size_t)b[1]) != 0)
        return -1;
    int noauth = 0;
    for (unsigned i = 0; i < b[1]; i++)
        noauth |= b[2 + i] == 0;
    if (!noauth) {
        (void)write_all(fd, "\x05\xff", 2);
        return -1;
    }
    if (write_all(fd, "\x05\x00", 2) != 0)
        return -1;
    size_t greet = 2 + (size_t)b[1]; /* a client may send its request at once */
    memmove(buf, buf + greet, len - greet);
    len -= greet;
    if (fill(fd, buf, &len, 5) != 0 || b[0] != 5)
        return -1;
    if (b[1] != 1) {
        socks_reply(fd, 7); /* command not supported */
        return -1;
    }
    size_t need = b[3] == 1 ? 10 : b[3] == 4 ? 22 : b[3] == 3 ? 7 + (size_t)b[4] : 0;
    if (!need || fill(fd, buf, &len, need) != 0) {
        socks_reply(fd, 8); /* address type not supported */
        return -1;
    }
    if (b[3] == 3) {
        if (b[4] == 0 || b[4] >= hsz || memchr(b + 5, 0, b[4]))
            return -1;
        memcpy(host, b + 5, b[4]);
        host[b[4]] = 0;
    } else if (!inet_ntop(b[3] == 1 ? AF_INET : AF_INET6, b + 4, host, (socklen_t)hsz)) {
        return -1;
    }
    *port = (unsigned)b[need - 2] << 8 | b[need - 1];
    return 0;
}

static void serve_socks(netproxy *np, int fd, char *buf, size_t len)
{
    char host[256];
    unsigned port = 0;
    if (socks_target(fd, buf, len, host, sizeof host, &port) != 0)
        return;
    char why[512];
    int refused = 0;
    int up = open_upstream(np, host, port, &refused, why, sizeof why);
    if (up < 0) {
        socks_reply(fd, refused ? 2 : 4);
        return;
    }
    if (netproxy_track(np, up) == 0) {
        socks_reply(fd, 0);
        relay(np, fd, up);
        netproxy_untrack(np, up);
    }
    close(up);
}

void netproxy_serve(netproxy *np, int fd)
{
    char *buf = malloc(NETPROXY_HEAD_MAX);
    if (buf && netproxy_track(np, fd) == 0) {
        ssize_t n = read_some(fd, buf, NETPROXY_HEAD_MAX, 1, HEAD_TIMEOUT_MS);
        if (n > 0 && buf[0] == 5)
            serve_socks(np, fd, buf, (size_t)n);
        else if (n > 0)
            serve_http(np, fd, buf, (size_t)n);
        netproxy_untrack(np, fd);
    }
    free(buf);
    close(fd);
}
