/* Bounded line reader: see mcp_reader.h. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/grow.h>
#include "mcp_reader.h"

#define CHUNK ((size_t)64 * 1024)
/* After a large message the buffer shrinks back once it is empty, so one
 * big request does not pin megabytes for the rest of the session. */
#define SHRINK_ABOVE ((size_t)1024 * 1024)

static void init_common(mcp_reader *r, size_t max_line)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    r->wake_fd = -1;
    r->max_line = max_line ? max_line : MCP_MAX_LINE;
}

void mcp_reader_init_fd(mcp_reader *r, int fd, int wake_fd, size_t max_line)
{
    init_common(r, max_line);
    r->fd = fd;
    r->wake_fd = wake_fd;
}

void mcp_reader_init_mem(mcp_reader *r, const void *data, size_t len, size_t max_line)
{
    init_common(r, max_line);
    r->mem = data;
    r->mem_len = len;
}

void mcp_reader_free(mcp_reader *r)
{
    free(r->buf);
    r->buf = NULL;
    r->cap = r->start = r->end = 0;
}

/* Make room for at least one chunk after `end`. */
static int make_room(mcp_reader *r)
{
    if (r->start == r->end) {
        r->start = r->end = 0;
        if (r->cap > SHRINK_ABOVE) {
            free(r->buf);
            r->buf = NULL;
            r->cap = 0;
        }
    } else if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    return VT_GROW(&r->buf, &r->cap, r->end + CHUNK);
}

/* A read of n >= 0 bytes into the buffer's end taken in: 1. */
static int took(mcp_reader *r, ssize_t n)
{
    if (n == 0)
        r->eof = 1;
    r->end += (size_t)n;
    return 1;
}

/* Read more input: 1 when bytes arrived or EOF was seen, else a
 * negative mcp_read_result. */
static int fill(mcp_reader *r)
{
    if (make_room(r) < 0)
        return MCP_READ_ERROR;
    if (r->fd < 0) {
        size_t n = r->mem_len - r->mem_pos;
        if (n > CHUNK)
            n = CHUNK;
        if (n == 0)
            r->eof = 1;
        if (n > 0)
            memcpy(r->buf + r->end, r->mem + r->mem_pos, n);
        r->mem_pos += n;
        r->end += n;
        return 1;
    }
    if (r->ready) {
        if (!atomic_exchange(r->ready, 0))
            return MCP_READ_AGAIN;
        ssize_t n;
        while ((n = read(r->fd, r->buf + r->end, r->cap - r->end)) < 0 && errno == EINTR)
            ;
        if (n < 0)
            return errno == EAGAIN ? MCP_READ_AGAIN : MCP_READ_ERROR;
        return took(r, n);
    }
    for (;;) {
        struct pollfd p[2] = {{.fd = r->fd, .events = POLLIN},
                              {.fd = r->wake_fd, .events = POLLIN}};
        int rc = poll(p, r->wake_fd >= 0 ? 2 : 1, -1);
        if (rc < 0) {
            if (errno == EINTR)
                continue;
            return MCP_READ_ERROR;
        }
        /* Shutdown wins over pending input: the caller is asked to stop. */
        if (r->wake_fd >= 0 && p[1].revents)
            return MCP_READ_WAKE;
        if (!p[0].revents)
            continue;
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return MCP_READ_ERROR;
        }
        return took(r, n);
    }
}

static void emit(mcp_reader *r, size_t stop, size_t next, const char **line, size_t *len)
{
    size_t n = stop - r->start;
    if (n > 0 && r->buf[r->start + n - 1] == '\r')
        n--;
    *line = r->buf + r->start;
    *len = n;
    r->start = next;
}

int mcp_reader_has_line(const mcp_reader *r)
{
    return r->eof || (r->end > r->start && memchr(r->buf + r->start, '\n', r->end - r->start));
}

int mcp_reader_next(mcp_reader *r, const char **line, size_t *len)
{
    size_t seen = 0; /* bytes after start already known to hold no '\n' */
    for (;;) {
        if (r->skipping) {
            char *nl =
                r->end > r->start ? memchr(r->buf + r->start, '\n', r->end - r->start) : NULL;
            if (nl) {
                r->start = (size_t)(nl - r->buf) + 1;
                r->skipping = 0;
                seen = 0;
                continue;
            }
            r->start = r->end = 0;
            if (r->eof)
                return MCP_READ_EOF;
        } else {
            size_t pending = r->end - r->start;
            char *nl =
                pending > seen ? memchr(r->buf + r->start + seen, '\n', pending - seen) : NULL;
            if (nl) {
                size_t at = (size_t)(nl - r->buf);
                if (at - r->start > r->max_line) {
                    r->start = at + 1;
                    return MCP_READ_TOO_LONG;
                }
                emit(r, at, at + 1, line, len);
                return MCP_READ_LINE;
            }
            if (pending > r->max_line) {
                r->skipping = 1;
                r->start = r->end = 0;
                return MCP_READ_TOO_LONG;
            }
            if (r->eof) {
                if (pending > 0) {
                    emit(r, r->end, r->end, line, len);
                    return MCP_READ_LINE;
                }
                return MCP_READ_EOF;
            }
            seen = pending;
        }
        int rc = fill(r);
        if (rc < 0)
            return rc;
    }
}
