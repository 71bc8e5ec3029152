/* The transport alone: a server that does no work, answering every
 * request at once with a canned answer of a given size, over loopback TCP
 * with HTTP/1.1 framing or over a pipe with one message per line.  Driven
 * by floor.mjs with the same clients and messages as http_bench.mjs, it
 * gives the HTTP/stdio ratio a server with no per-call cost of its own
 * would reach.  Not a ctest test.  Built by hand:
 *
 *   gcc -O2 -pthread tests/bench/http/floor_echo.c -o /tmp/floor_echo
 *
 *   floor_echo tcp BYTES    listens on 127.0.0.1 (port printed on
 *                           stdout), a thread per connection waiting with
 *                           poll() as libmicrohttpd's do, one send per
 *                           answer
 *   floor_echo pipe BYTES   a line on stdin, a line on stdout
 */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static char answer[65536];
static size_t answer_len;

/* `n` bytes of JSON-RPC result ({"jsonrpc":"2.0","id":0,"result":{"x":"..."}}). */
static size_t canned(char *out, size_t n)
{
    static const char head[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"result\":{\"x\":\"";
    static const char tail[] = "\"}}";
    size_t fixed = sizeof head - 1 + sizeof tail - 1;
    size_t pad = n > fixed ? n - fixed : 0;
    memcpy(out, head, sizeof head - 1);
    memset(out + sizeof head - 1, 'x', pad);
    memcpy(out + sizeof head - 1 + pad, tail, sizeof tail - 1);
    return fixed + pad;
}

/* The length of the whole request at the start of buf[0..len), or 0 when
 * it is not all there yet. */
static size_t request_len(const char *buf, size_t len)
{
    const char *end = memmem(buf, len, "\r\n\r\n", 4);
    if (!end)
        return 0;
    size_t head = (size_t)(end - buf) + 4, body = 0;
    for (const char *p = buf; p < end; p++) {
        if (p[0] == '\n' && strncasecmp(p + 1, "content-length:", 15) == 0) {
            body = strtoul(p + 16, NULL, 10);
            break;
        }
    }
    return len >= head + body ? head + body : 0;
}

static void *connection(void *arg)
{
    int fd = (int)(long)arg, one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    static __thread char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, -1) < 0)
            continue;
        ssize_t n = recv(fd, buf + have, sizeof buf - have, 0);
        if (n <= 0)
            break;
        have += (size_t)n;
        size_t k;
        while ((k = request_len(buf, have)) > 0) {
            if (send(fd, answer, answer_len, MSG_NOSIGNAL) != (ssize_t)answer_len)
                goto out;
            memmove(buf, buf + k, have - k);
            have -= k;
        }
    }
out:
    close(fd);
    return NULL;
}

static int serve_tcp(size_t bytes)
{
    char body[32768];
    size_t blen = canned(body, bytes);
    answer_len = (size_t)snprintf(answer, sizeof answer,
                                  "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                  "Content-Length: %zu\r\n\r\n",
                                  blen);
    memcpy(answer + answer_len, body, blen);
    answer_len += blen;
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 64) ||
        getsockname(s, (struct sockaddr *)&a, &alen))
        return 1;
    printf("%d\n", ntohs(a.sin_port));
    fflush(stdout);
    for (;;) {
        int c = accept(s, NULL, NULL);
        pthread_t t;
        if (c >= 0 && pthread_create(&t, NULL, connection, (void *)(long)c) == 0)
            pthread_detach(t);
    }
}

static int serve_pipe(size_t bytes)
{
    answer_len = canned(answer, bytes);
    answer[answer_len++] = '\n';
    static char buf[1 << 20];
    size_t have = 0;
    for (;;) {
        ssize_t n = read(0, buf + have, sizeof buf - have);
        if (n <= 0)
            return 0;
        have += (size_t)n;
        char *nl;
        while ((nl = memchr(buf, '\n', have))) {
            if (write(1, answer, answer_len) != (ssize_t)answer_len)
                return 1;
            size_t k = (size_t)(nl - buf) + 1;
            memmove(buf, buf + k, have - k);
            have -= k;
        }
    }
}

int main(int argc, char **argv)
{
    size_t bytes = argc > 2 ? strtoul(argv[2], NULL, 10) : 100;
    if (bytes > 32000)
        bytes = 32000;
    if (argc > 1 && strcmp(argv[1], "tcp") == 0)
        return serve_tcp(bytes);
    if (argc > 1 && strcmp(argv[1], "pipe") == 0)
        return serve_pipe(bytes);
    fprintf(stderr, "usage: floor_echo tcp|pipe [BYTES]\n");
    return 2;
}
