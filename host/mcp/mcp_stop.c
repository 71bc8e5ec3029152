/* Stop requests: the flag and the wake-up of the leader's poll.  Below
 * every other engine file, since any of them may stop the server (the
 * output, when the client is gone). */
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>
#include "mcp_internal.h"

void mcp_server_stop(mcp_server *s)
{
    atomic_store(&s->stop_requested, 1);
    mcp_server_wake(s);
}

void mcp_server_wake(mcp_server *s)
{
    if (s->wake[1] < 0)
        return; /* a front end's engine: nothing reads for it */
    int saved = errno;
    ssize_t n = write(s->wake[1], "x", 1);
    (void)n; /* a full pipe already wakes the reader */
    errno = saved;
}
