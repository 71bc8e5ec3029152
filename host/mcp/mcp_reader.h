/* Bounded line reader for the MCP stdio transport.
 *
 * One JSON-RPC message per line.  A line longer than the limit is
 * reported once and its remainder discarded as it streams in, so memory
 * stays bounded by the limit plus one read chunk whatever the peer sends.
 * The reader is used by one thread at a time (the current leader). */
#ifndef VTHOST_MCP_READER_H
#define VTHOST_MCP_READER_H

#include <stdatomic.h>
#include <stddef.h>

#define MCP_MAX_LINE ((size_t)16 * 1024 * 1024)

enum mcp_read_result {
    MCP_READ_LINE = 1,      /* *line / *len hold one line (no '\n', no CR) */
    MCP_READ_EOF = 0,       /* input ended (a final unterminated line is
                              returned as a line first) */
    MCP_READ_TOO_LONG = -1, /* a line exceeded the limit; it is skipped */
    MCP_READ_WAKE = -2,     /* the wake descriptor became readable */
    MCP_READ_ERROR = -3,    /* read() failed */
    MCP_READ_AGAIN = -4     /* with `ready`: no line, and no input event to read on */
};

typedef struct mcp_reader {
    int fd;          /* input, or -1 for a memory source */
    int wake_fd;     /* polled with fd; -1 for none */
    const char *mem; /* memory source (fd == -1) */
    size_t mem_len, mem_pos;
    char *buf;
    size_t cap, start, end;
    size_t max_line;
    int skipping; /* discarding the rest of an oversized line */
    int eof;
    /* NULL: the reader polls fd and wake_fd itself.  Else the caller
     * waits for input (mcp_server.c): the reader reads fd once each time
     * it takes a 1 from here, and returns MCP_READ_AGAIN on a 0. */
    atomic_int *ready;
} mcp_reader;

/* Read from `fd`, also waking when `wake_fd` (may be -1) is readable. */
void mcp_reader_init_fd(mcp_reader *r, int fd, int wake_fd, size_t max_line);
/* Read lines from a borrowed memory buffer (fuzzing, tests). */
void mcp_reader_init_mem(mcp_reader *r, const void *data, size_t len, size_t max_line);
void mcp_reader_free(mcp_reader *r);

/* Whether mcp_reader_next has something to return without reading:
 * a whole line in the buffer, or the end of input. */
int mcp_reader_has_line(const mcp_reader *r);

/* The next line.  *line points into the reader's buffer and stays valid
 * only until the next call. */
int mcp_reader_next(mcp_reader *r, const char **line, size_t *len);

#endif
