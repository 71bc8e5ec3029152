/* Reading a file through a mapping without dying of SIGBUS: a file cut
 * short by another process while it is mapped faults on its lost pages.
 * A worker holding a guard runs its reads of the mapping between
 * cs_guard_arm and cs_guard_disarm; a fault there returns to its
 * sigsetjmp instead of killing the host.  Faults anywhere else go to the
 * handler that was installed before (or the default action). */
#ifndef CS_GUARD_H
#define CS_GUARD_H

#include <setjmp.h>
#include <stddef.h>

typedef struct cs_guard {
    sigjmp_buf jb;
    int slot; /* -1: no guard (the table is full, or no handler) */
} cs_guard;

/* Claim a slot for the calling thread (installs the handler once per
 * process).  Returns 0, or -1 when no guard is available: then do not
 * map. */
int cs_guard_claim(cs_guard *g);
void cs_guard_release(cs_guard *g);
/* Faults in [p, p + n) on this thread now jump to g->jb (armed after a
 * sigsetjmp(g->jb, 0) returned 0). */
void cs_guard_arm(cs_guard *g, const void *p, size_t n);
void cs_guard_disarm(cs_guard *g);
/* After the jump: SIGBUS unblocked again (the handler ran with it
 * blocked and the jump did not restore the mask). */
void cs_guard_recovered(cs_guard *g);
/* At unload: the handler replaced at the first claim goes back, unless
 * another was installed over ours meanwhile. */
void cs_guard_uninstall(void);

#endif
