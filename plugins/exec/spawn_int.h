/* What the host side of spawn (spawn.c) hands the child side
 * (spawn_child.c): one command's plan, and the child's entry points. */
#ifndef VTHOST_EXEC_SPAWN_INT_H
#define VTHOST_EXEC_SPAWN_INT_H

#include "sandbox.h"
#include "spawn.h"

#include <signal.h>
#include <sys/types.h>

typedef struct child_plan {
    const spawn_req *req;
    pid_t host;
    int death_sig;
    int lifeline;             /* read end; EOF once the host is gone */
    int in_rd, out_wr;        /* pipes */
    int slave;                /* PTY */
    const sandbox_plan *plan; /* this call's confinement, or NULL */
    int status_wr;            /* the session leader's status pipe, else -1 */
} child_plan;

/* The child's two roles (spawn_child.c): the session leader, cloned into
 * the session's namespaces, and the supervisor, a plain fork. */
_Noreturn void spawn_lead_session(const child_plan *c);
_Noreturn void spawn_supervise(const child_plan *c);

/* The keyboard's signals, blocked across the fork (spawn_child.c). */
void spawn_keyboard_set(sigset_t *kbd);

/* The value of PATH in envp, or NULL. */
const char *spawn_env_path(char *const *envp);

#endif
