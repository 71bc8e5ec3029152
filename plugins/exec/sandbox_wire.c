/* A session leader's plan as bytes, and back (sandbox.h): the lists of
 * paths the leader mounts over, the cgroup it joins, the spool view and
 * the data masks; the host's side (truncation warning, the supervisor's
 * pidfd, the cgroup to remove) stays with the host. */
#include "leader_wire.h"
#include "sandbox_int.h"

#include <stdlib.h>
#include <string.h>

static void put_list(wire_out *w, char *const *v, size_t n) { wire_put_strv(w, v, (long)n); }

void sandbox_plan_pack(const sandbox_plan *p, wire_out *w)
{
    wire_put_u64(w, (uint64_t)p->tty);
    put_list(w, p->ro, p->nro);
    for (size_t i = 0; i < p->nro; i++) {
        wire_put_u64(w, p->ro_flags[i]);
        wire_put_u64(w, (uint64_t)p->ro_id[i].dev);
        wire_put_u64(w, (uint64_t)p->ro_id[i].ino);
        wire_put_u64(w, (uint64_t)p->ro_id[i].exact);
    }
    put_list(w, p->pin, p->npin);
    put_list(w, p->hide, p->nhide);
    put_list(w, p->mask, p->nmask);
    wire_put_str(w, p->cgroup);
    wire_put_str(w, p->cgroup_procs);
    wire_put_u64(w, (uint64_t)p->network);
    wire_put_u64(w, (uint64_t)p->proxy);
    wire_put_str(w, p->spool_dir);
    wire_put_str(w, p->spool_own);
    wire_put_u64(w, p->spool_flags);
    put_list(w, p->data, p->ndata);
    for (size_t i = 0; i < p->ndata; i++)
        wire_put_u64(w, p->data_dir[i]);
}

void sandbox_plan_unpacked_free(sandbox_plan *p)
{
    if (!p)
        return;
    free(p->ro);
    free(p->ro_flags);
    free(p->ro_id);
    free(p->pin);
    free(p->hide);
    free(p->mask);
    free(p->data);
    free(p->data_dir);
    free(p);
}

/* The read-only mounts' flags and identities, after their paths. */
static int get_ro(wire_in *r, sandbox_plan *p)
{
    p->ro = wire_get_strv(r, &p->nro);
    if (!p->ro)
        return -1;
    p->ro_flags = calloc(p->nro + 1, sizeof *p->ro_flags);
    p->ro_id = calloc(p->nro + 1, sizeof *p->ro_id);
    if (!p->ro_flags || !p->ro_id)
        return -1;
    for (size_t i = 0; i < p->nro; i++) {
        p->ro_flags[i] = (unsigned long)wire_get_u64(r);
        p->ro_id[i].dev = (dev_t)wire_get_u64(r);
        p->ro_id[i].ino = (ino_t)wire_get_u64(r);
        p->ro_id[i].exact = (int)wire_get_u64(r);
    }
    return r->bad ? -1 : 0;
}

static int get_data(wire_in *r, sandbox_plan *p)
{
    p->data = wire_get_strv(r, &p->ndata);
    if (!p->data)
        return -1;
    p->data_dir = calloc(p->ndata + 1, 1);
    if (!p->data_dir)
        return -1;
    for (size_t i = 0; i < p->ndata; i++)
        p->data_dir[i] = (unsigned char)wire_get_u64(r);
    return r->bad ? -1 : 0;
}

sandbox_plan *sandbox_plan_unpack(wire_in *r, const sandbox *sb, int ruleset_fd)
{
    sandbox_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->sb = sb;
    p->supervisor_pidfd = -1;
    p->cgroup_procs_fd = p->cgroup_max_fd = -1;
    p->ruleset_fd = ruleset_fd;
    p->tty = (int)wire_get_u64(r);
    int ok = get_ro(r, p) == 0 && (p->pin = wire_get_strv(r, &p->npin)) &&
             (p->hide = wire_get_strv(r, &p->nhide)) && (p->mask = wire_get_strv(r, &p->nmask));
    if (ok) {
        p->cgroup = wire_get_str(r);
        p->cgroup_procs = wire_get_str(r);
        p->network = (int)wire_get_u64(r);
        p->proxy = (int)wire_get_u64(r);
        p->spool_dir = wire_get_str(r);
        p->spool_own = wire_get_str(r);
        p->spool_flags = (unsigned long)wire_get_u64(r);
        ok = get_data(r, p) == 0;
    }
    if (!ok || r->bad) {
        sandbox_plan_unpacked_free(p);
        return NULL;
    }
    return p;
}

/* ---- the configuration, for the exec'd leader maker --------------------- */

/* The configuration's seccomp programs, in their order on the wire. */
#define SANDBOX_PROGRAMS(sb)                                                                       \
    {                                                                                              \
        &(sb)->seccomp, &(sb)->seccomp_net, &(sb)->seccomp_base, &(sb)->seccomp_top,               \
            &(sb)->seccomp_top_net                                                                 \
    }

void sandbox_bpf_pack(const struct sock_fprog *f, wire_out *w)
{
    wire_put_bytes(w, f->filter, (size_t)f->len * sizeof *f->filter);
}

int sandbox_bpf_unpack(wire_in *r, struct sock_fprog *out)
{
    size_t n = 0;
    const void *p = wire_get_bytes(r, &n);
    out->len = 0;
    out->filter = NULL;
    if (!p || n % sizeof *out->filter || n / sizeof *out->filter > 0xffff)
        return -1;
    if (!n)
        return 0;
    if (!(out->filter = malloc(n)))
        return -1;
    memcpy(out->filter, p, n);
    out->len = (unsigned short)(n / sizeof *out->filter);
    return 0;
}

void sandbox_pack(const sandbox *sb, wire_out *w)
{
    uint64_t v[] = {sb->mode,      sb->network_access, sb->landlock_abi,  sb->namespaces,
                    sb->proxy,     sb->own_userns,     sb->max_processes, sb->cpu_seconds,
                    sb->memory_mb, sb->file_size_mb};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        wire_put_u64(w, v[i]);
    wire_put_str(w, sb->uid_map);
    wire_put_str(w, sb->gid_map);
    wire_put_str(w, sb->cgroup_base);
    wire_put_str(w, sb->vtcode_dir);
    put_list(w, sb->roots, sb->nroots);
    put_list(w, sb->policy, sb->npolicy);
    const struct sock_fprog *f[] = SANDBOX_PROGRAMS(sb);
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        sandbox_bpf_pack(f[i], w);
}

/* The id maps, fixed-size in the struct. */
static int get_map(wire_in *r, char *to, size_t cap)
{
    const char *s = wire_get_str(r);
    if (!s || strlen(s) >= cap)
        return -1;
    strcpy(to, s);
    return 0;
}

sandbox *sandbox_unpack(wire_in *r)
{
    sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return NULL;
    sb->mode = (sandbox_mode)wire_get_u64(r);
    sb->network_access = (int)wire_get_u64(r);
    sb->landlock_abi = (int)wire_get_u64(r);
    sb->namespaces = (int)wire_get_u64(r);
    sb->proxy = (int)wire_get_u64(r);
    sb->own_userns = (int)wire_get_u64(r);
    sb->max_processes = (unsigned)wire_get_u64(r);
    sb->cpu_seconds = (unsigned)wire_get_u64(r);
    sb->memory_mb = (unsigned)wire_get_u64(r);
    sb->file_size_mb = (unsigned)wire_get_u64(r);
    int ok = get_map(r, sb->uid_map, sizeof sb->uid_map) == 0 &&
             get_map(r, sb->gid_map, sizeof sb->gid_map) == 0;
    sb->cgroup_base = wire_get_str(r);
    sb->vtcode_dir = wire_get_str(r);
    ok = ok && (sb->roots = wire_get_strv(r, &sb->nroots)) &&
         (sb->policy = wire_get_strv(r, &sb->npolicy));
    struct sock_fprog *f[] = SANDBOX_PROGRAMS(sb);
    for (size_t i = 0; ok && i < sizeof f / sizeof *f; i++)
        ok = sandbox_bpf_unpack(r, f[i]) == 0;
    if (ok && !r->bad)
        return sb;
    sandbox_unpacked_config_free(sb);
    return NULL;
}

void sandbox_unpacked_config_free(sandbox *sb)
{
    if (!sb)
        return;
    struct sock_fprog *f[] = SANDBOX_PROGRAMS(sb);
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        free(f[i]->filter);
    free(sb->roots);
    free(sb->policy);
    free(sb);
}
