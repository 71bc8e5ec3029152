/* The workspace of `vthost serve`: --workspace; else the client's first
 * file:// root; else the working directory.  /, the home directory and
 * system directories are refused unless named with --workspace. */
#ifndef VTHOST_SERVE_WORKSPACE_H
#define VTHOST_SERVE_WORKSPACE_H

#include <stdint.h>
#include "host.h"

/* Before host_open: remember the options (borrowed until the server ends)
 * and judge the working directory when no --workspace was given. */
void serve_workspace_prepare(const host_options *opts);
/* Before each tool call: the first one settles the workspace (waits for
 * the client's roots, reopens the host on the chosen root).  NULL to go
 * on, else why calls are refused (borrowed).  *reopened is set when the
 * host was reopened (the tool list may have changed). */
const char *serve_workspace_gate(int *reopened);
/* Readers of the host's tool tables outside a call (tools/list) hold this
 * while the host may be reopened. */
void serve_workspace_read_lock(void);
void serve_workspace_read_unlock(void);
/* The workspace as the initialize instructions name it: the directory,
 * or "the client's first root" while that is still to come. */
const char *serve_workspace_label(void);
/* A number that moves after the label changes or the host is reopened
 * (its profile, configuration and tools with it); read it before what it
 * vouches for. */
uint64_t serve_workspace_generation(void);
/* A directory that is never a workspace unless named explicitly. */
int serve_workspace_refused(const char *canonical);

#endif
