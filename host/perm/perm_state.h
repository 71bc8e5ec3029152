/* The permission engine's loaded state (permission_init*, permission_fini
 * and the other loading calls of permission.h are defined in
 * perm_state.c): what the decision stages of permission.c read. */
#ifndef VTHOST_PERM_STATE_H
#define VTHOST_PERM_STATE_H

#include "permission.h"

/* The settings of every layer; NULL until an init succeeded.  Borrowed
 * until permission_fini. */
const perm_settings *perm_state_settings(void);

/* The agent of a call: the per-call one named by `spec` (a name, never a
 * path; loaded once, then cached), or the process's primary agent for
 * NULL, "" or the --agent value.  *out is borrowed until permission_fini;
 * *err (malloc'd) says why an agent does not load. */
int perm_state_agent(const char *spec, const perm_agent **out, char **err);

/* The auto-review denial counters, read together. */
void perm_state_counters(long *consecutive, long *total);
/* The reviewer answered: an allow ends a run of denials, a block counts
 * in both counters. */
void perm_state_count_review(int allowed);

#endif
