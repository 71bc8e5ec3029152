/* The engine in transport mode: a front end that reads and writes for
 * itself (HTTP, one engine per client session) hands messages in one at
 * a time and runs the calls on threads of its own; the engine answers
 * through the front end's sink on the sending thread.  Everything else
 * (dispatch, calls, client requests, cancellation) is the stdio engine's
 * own code. */
#include "mcp_internal.h"
#include "mcp_listen.h"

mcp_server *mcp_server_new_sink(const mcp_ops *ops, mcp_sink_fn sink, void *ud)
{
    /* Only the stdio engine reads: no self-pipe to wake a reader (two
     * descriptors made and closed per stateless HTTP request). */
    mcp_server *s = mcp_server_alloc(ops);
    if (!s)
        return NULL;
    s->sink = sink;
    s->sink_ud = ud;
    return s;
}

void mcp_server_handle(mcp_server *s, const char *text, size_t len, struct mcp_call **call)
{
    mcp_dispatch_line(s, text, len, call);
}

void mcp_server_set_output(mcp_server *s, mcp_out_fn fn, void *ud)
{
    s->front = fn;
    s->front_ud = ud;
}

void mcp_server_handle_json(mcp_server *s, cJSON *msg, const char *principal,
                            const char *header_version, struct mcp_call **call)
{
    mcp_msg_ctx ctx = {.principal = principal ? principal : "local",
                       .header_version = header_version};
    mcp_dispatch_message(s, msg, &ctx, call);
}

void mcp_server_run_call(mcp_server *s, struct mcp_call *call) { mcp_call_run(s, call); }

void mcp_server_cancel(mcp_server *s, const cJSON *id) { mcp_call_cancel(s, id); }

void mcp_server_end(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    s->stopping = 1;
    mcp_call_cancel_all_locked(s);
    pthread_mutex_unlock(&s->lock);
    mcp_listen_end(s);
}

int mcp_server_running(mcp_server *s)
{
    pthread_mutex_lock(&s->lock);
    int n = s->ncalls;
    pthread_mutex_unlock(&s->lock);
    return n;
}
