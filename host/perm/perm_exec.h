/* Run-time command enforcement, host side: the policy a command-running
 * tool consults for every program its command executes (vt_host_api
 * exec_policy, added in ABI 1.1).  Built on the permission engine's own
 * decision (permission_evaluate) and prompt path (permission_check). */
#ifndef VTHOST_PERM_EXEC_H
#define VTHOST_PERM_EXEC_H

#include <vthost/plugin.h>

/* The policy for the programs `call` starts.  See plugin.h. */
int perm_exec_policy(vt_call *call, vt_exec_policy **out);

/* The subject text rules see for `prog`: its name and arguments joined by
 * single spaces, each word spelled as the exec plugin renders a command's
 * text (single-quoted unless it is plain: a word with a blank stays one
 * word), control characters turned into spaces (a newline must not hide
 * an argument from a deny pattern).  malloc'd, or NULL. */
char *perm_exec_subject(const vt_exec_program *prog);

#endif
