/* What a PTY shows the model: terminal escape sequences removed and
 * CRLF / CR line endings turned into LF.  Streaming: a sequence split
 * across reads is handled by the state kept between calls. */
#ifndef VTHOST_EXEC_TERMFILTER_H
#define VTHOST_EXEC_TERMFILTER_H

#include <stddef.h>

typedef struct term_filter {
    int state; /* zero-initialise */
} term_filter;

/* Filter `len` bytes of `in` into `out`, which has room for len + 1
 * bytes (a CR held back from the previous call may come out as LF) and
 * does not overlap `in`.  Returns the bytes written. */
size_t term_filter_run(term_filter *f, const char *in, size_t len, char *out);

/* End of stream: a pending CR becomes LF.  Writes at most one byte. */
size_t term_filter_flush(term_filter *f, char *out);

#endif
