/* exec_command's arguments, read and checked (exec_args.c). */
#ifndef VTHOST_EXEC_ARGS_H
#define VTHOST_EXEC_ARGS_H

#include <cjson/cJSON.h>
#include "sandbox.h"

/* args[key] when it is a string (borrowed), else NULL. */
const char *args_str(const cJSON *args, const char *key);

/* 1 when `s` is NULL or holds only blanks. */
int args_blank(const char *s);

/* sandbox_permissions: 0 use_default, 1 with_additional_permissions,
 * 2 require_escalated (or its alias bypass_sandbox), -1 invalid. */
int args_level(const cJSON *args);

/* additional_permissions, checked and resolved: every write path exists
 * and is named by its canonical path (what the prompt shows is what the
 * sandbox opens), relative ones from the workspace root.  0, or
 * VT_ERR_INVALID with *err saying why (malloc'd), or VT_ERR_NOMEM.
 * Free *x with args_extra_free. */
int args_extra_parse(const cJSON *args, sandbox_extra *x, char **err);
void args_extra_free(sandbox_extra *x);

/* What an approval of `x` grants, in words, with the call's
 * justification `why` (malloc'd; NULL when out of memory). */
char *args_extra_describe(const sandbox_extra *x, const char *why);

#endif
