/* The programs a call's deny rules refuse whatever their arguments: the
 * list a sandbox masks for the whole session (vt_exec_policy
 * denied_programs), so that no race with the per-execve check can run
 * them. */
#ifndef VTHOST_PERM_EXEC_MASK_H
#define VTHOST_PERM_EXEC_MASK_H

#include "permission.h"

/* Base names (no '/') of the programs every spelling of which the deny
 * rules (global and the agent's) of `req`'s tool refuse: `rm`, `rm *` and
 * `Bash(rm:*)` qualify, `git push *` and `rm -rf *` do not.  *out is a
 * malloc'd NULL-terminated array of malloc'd strings (perm_strings_free
 * with the count), possibly empty. */
int perm_exec_denied_programs(const perm_request *req, char ***out, size_t *count);

#endif
