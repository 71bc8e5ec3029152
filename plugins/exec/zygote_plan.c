/* One command's child_plan as the leader maker receives it: the request
 * (program, arguments, environment, working directory, the plain words'
 * program), the sandbox plan (sandbox_wire.c), and which of the fixed
 * descriptors travel beside the bytes.  Host-side fields (the plan's
 * warning and error slots, the client, the mask list) stay behind. */
#include "leader_wire.h"
#include "zygote.h"

#include <stdlib.h>
#include <string.h>

/* The descriptors, by their bit in the mask: stdin pipe, output pipe,
 * PTY slave, status pipe, Landlock ruleset, run-time checks socket, the
 * shell's file, the proxy's socket. */
enum { F_IN, F_OUT, F_SLAVE, F_STATUS, F_RULESET, F_WATCH, F_SHELL, F_PROXY };

static int envp_index(const spawn_req *r)
{
    for (int k = 0; r->direct_under && r->envp && r->envp[k]; k++)
        if (r->envp[k] == r->direct_under)
            return k;
    return -1;
}

int zygote_plan_write(const child_plan *c, uint64_t key, wire_out *w, int fds[ZYGOTE_MAX_FDS])
{
    const spawn_req *r = c->req;
    int have[ZYGOTE_MAX_FDS] = {c->in_rd,
                                c->out_wr,
                                c->slave,
                                c->status_wr,
                                sandbox_plan_ruleset_fd(c->plan),
                                r->watch_sock > 2 ? r->watch_sock : -1,
                                r->shell_fd > 2 ? r->shell_fd : -1,
                                r->netproxy_fd > 2 ? r->netproxy_fd : -1};
    uint64_t mask = 0;
    int n = 0;
    for (int i = 0; i < ZYGOTE_MAX_FDS; i++)
        if (have[i] >= 0) {
            mask |= 1u << i;
            fds[n++] = have[i];
        }
    wire_put_u64(w, key);
    wire_put_u64(w, mask);
    wire_put_u64(w, (uint64_t)c->death_sig);
    wire_put_str(w, r->path);
    wire_put_strv(w, r->argv, -1);
    wire_put_strv(w, r->envp, -1);
    wire_put_str(w, r->workdir);
    wire_put_u64(w, (uint64_t)r->tty);
    wire_put_u64(w, (uint64_t)r->shell_script);
    wire_put_u64(w, r->direct_argv != NULL);
    if (r->direct_argv)
        wire_put_strv(w, r->direct_argv, -1);
    wire_put_u64(w, (uint64_t)(int64_t)envp_index(r));
    sandbox_plan_pack(c->plan, w);
    return n;
}

void zygote_plan_free(zygote_plan *z)
{
    free(z->argv);
    free(z->envp);
    free(z->direct_argv);
    sandbox_plan_unpacked_free(z->plan);
    memset(z, 0, sizeof *z);
}

/* The request's strings; 0 or -1. */
static int read_req(wire_in *r, zygote_plan *z)
{
    spawn_req *q = &z->req;
    q->path = wire_get_str(r);
    z->argv = wire_get_strv(r, NULL);
    z->envp = wire_get_strv(r, NULL);
    q->workdir = wire_get_str(r);
    q->tty = (int)wire_get_u64(r);
    q->shell_script = (int)wire_get_u64(r);
    if (wire_get_u64(r) && !(z->direct_argv = wire_get_strv(r, NULL)))
        return -1;
    int64_t under = (int64_t)wire_get_u64(r);
    if (r->bad || !q->path || !z->argv || !z->envp || !q->workdir)
        return -1;
    size_t nenv = 0;
    while (z->envp[nenv])
        nenv++;
    if (under >= (int64_t)nenv)
        return -1;
    q->argv = z->argv;
    q->envp = z->envp;
    q->direct_argv = z->direct_argv;
    q->direct_under = under >= 0 ? z->envp[under] : NULL;
    return 0;
}

int zygote_plan_read(wire_in *r, uint64_t key, const sandbox *sb, const int *fds, int nfd,
                     int lifeline, zygote_plan *z)
{
    memset(z, 0, sizeof *z);
    int at[ZYGOTE_MAX_FDS];
    if (wire_get_u64(r) != key)
        return -1;
    uint64_t mask = wire_get_u64(r);
    if (r->bad || mask >> ZYGOTE_MAX_FDS || __builtin_popcountll(mask) != nfd)
        return -1;
    int n = 0;
    for (int i = 0; i < ZYGOTE_MAX_FDS; i++)
        at[i] = mask & (1u << i) ? fds[n++] : -1;
    if (at[F_RULESET] < 0 || at[F_STATUS] < 0)
        return -1;
    z->c.death_sig = (int)wire_get_u64(r);
    if (read_req(r, z) != 0 || !(z->plan = sandbox_plan_unpack(r, sb, at[F_RULESET])) ||
        r->p != r->end) {
        zygote_plan_free(z);
        return -1;
    }
    z->req.sandbox = sb;
    z->req.watch_sock = at[F_WATCH] > 2 ? at[F_WATCH] : 0;
    z->req.shell_fd = at[F_SHELL] > 2 ? at[F_SHELL] : 0;
    z->req.netproxy_fd = at[F_PROXY] > 2 ? at[F_PROXY] : 0;
    z->c.req = &z->req;
    z->c.lifeline = lifeline;
    z->c.in_rd = at[F_IN];
    z->c.out_wr = at[F_OUT];
    z->c.slave = at[F_SLAVE];
    z->c.status_wr = at[F_STATUS];
    z->c.plan = z->plan;
    if (z->req.tty ? z->c.slave < 0 : z->c.in_rd < 0 || z->c.out_wr < 0) {
        zygote_plan_free(z);
        return -1;
    }
    return 0;
}
