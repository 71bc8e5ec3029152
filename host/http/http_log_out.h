/* The access log's output: lines gathered in memory and written to the
 * log's descriptor together, at most HTTP_LOG_OUT_DELAY_MS after the
 * first of them, in the order they were added.  A write(2) per line was
 * a system call per request, and with every connection's thread
 * appending to one file the writes queued on the file's lock: without
 * them the server's CPU per cheap request fell ~5-10 % and its requests
 * per second rose 10-20 % with 8 clients (tests/bench/http/README.md). */
#ifndef VTHOST_HTTP_LOG_OUT_H
#define VTHOST_HTTP_LOG_OUT_H

#include <stddef.h>

/* How long a line may wait in memory before it is written. */
#define HTTP_LOG_OUT_DELAY_MS 10

/* Gather lines for `fd` from now on, with a thread that writes them out.
 * If that thread cannot be started, each line is written as it comes.
 * Not while lines are being added. */
void http_log_out_start(int fd);

/* Add one line (`n` bytes, its newline included). */
void http_log_out_add(const char *line, size_t n);

/* Write every line added so far, now. */
void http_log_out_flush(void);

/* Write the rest and end the writing thread; lines added after this are
 * dropped until the next start.  Not while lines are being added. */
void http_log_out_stop(void);

#endif
