/* An in-process host on a scratch workspace, for tests and benchmarks
 * that drive pipeline_call directly. */
#ifndef VTHOST_TEST_HOST_H
#define VTHOST_TEST_HOST_H

#include <stddef.h>

/* Create a workspace from the mkdtemp template in ws (rewritten to the
 * canonical path; size bytes), write `toml` as its vtcode.toml when not
 * NULL, and host_open() it with `profile` (NULL: the default, or
 * $VTHOST_TEST_PROFILE when env_profile) and `plugin_dir` (may be NULL).
 * Returns 0, or -1 after saying why on stderr. */
int test_host_open(char *ws, size_t size, const char *toml, const char *plugin_dir,
                   int env_profile);
/* host_close() and remove the workspace.  Returns 0 or -1. */
int test_host_close(const char *ws);

#endif
