/* The leader maker: a small process, forked from the host once (at the
 * second command that gets a session leader), that clones each command's
 * session leader on the host's request.  Cloning from it copies its few
 * pages instead of the host's page tables, and the host's own pages are
 * never shared copy-on-write with a leader (zygote.c says why each
 * protection holds). */
#ifndef VTHOST_EXEC_ZYGOTE_H
#define VTHOST_EXEC_ZYGOTE_H

#include "spawn_int.h"

#include <stdint.h>
#include <sys/types.h>

/* Clone c's session leader (in the namespaces sandbox_clone_flags
 * gives its plan) as a child of the host: VT_OK with *pid and *pidfd;
 * VT_ERR_UNSUPPORTED when no maker could take the request (then the
 * caller clones the leader itself); VT_ERR_IO when the maker took it and
 * could not clone, or gave no answer (the call fails: a leader may
 * exist).  `lifeline` is the host's read end.  VTHOST_NO_LEADER_MAKER in
 * the host's environment turns the maker off (the host clones every
 * leader itself). */
int zygote_clone(const child_plan *c, int lifeline, pid_t *pid, int *pidfd);

/* End the maker (spawn_fini): its socket closes, it exits, it is reaped. */
void zygote_fini(void);

/* At the plugin's load (spawn_init): open the maker's program
 * (libexec/vthost/vthost-leader-maker in the plugin's prefix), so that
 * the program run later is the one there now.  Without it, the host
 * clones every leader itself. */
void zygote_init(void);

/* The maker's descriptors (zygote_maker.c), above the leader's fixed ones
 * and below where the received ones are moved. */
#define ZYGOTE_SOCK_FD 60
#define ZYGOTE_LIFE_FD 61
#define ZYGOTE_PROGRAM_FD 62 /* the host's child only, until its exec */
#define ZYGOTE_RECEIVED_FD 64
#define ZYGOTE_PROGRAM "vthost-leader-maker"

/* zygote_plan.c: a child_plan as bytes and descriptors, and back. */
struct wire_out;
struct wire_in;
/* The descriptors of c the leader needs, in the order zygote_plan_read
 * wants them back: returns their count (at most ZYGOTE_MAX_FDS). */
#define ZYGOTE_MAX_FDS 8

/* The maker's answer to one request (its pidfd rides along by
 * SCM_RIGHTS). */
typedef struct zygote_reply {
    int32_t err; /* 0 or a negative errno */
    int32_t pid;
} zygote_reply;
int zygote_plan_write(const child_plan *c, uint64_t key, struct wire_out *w,
                      int fds[ZYGOTE_MAX_FDS]);

typedef struct zygote_plan {
    child_plan c;
    spawn_req req;
    char **argv, **envp, **direct_argv;
    sandbox_plan *plan;
} zygote_plan;

/* Read what zygote_plan_write wrote (its strings stay in r's buffer),
 * with the descriptors received beside it; 0, or -1 when malformed or
 * when `key` (the maker's configuration) is not the one it was written
 * for. */
int zygote_plan_read(struct wire_in *r, uint64_t key, const sandbox *sb, const int *fds, int nfd,
                     int lifeline, zygote_plan *z);
void zygote_plan_free(zygote_plan *z);

#endif
