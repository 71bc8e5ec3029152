/* Which shell runs a command, and the environment it runs in. */
#ifndef VTHOST_EXEC_SHELLENV_H
#define VTHOST_EXEC_SHELLENV_H

#include <cjson/cJSON.h>
#include "envpolicy.h"

/* The shell profile: the host's reading of [agent] shell_prompt_profile
 * (vt_host_api.shell_profile). */
typedef enum shell_profile { SHELL_UNIX_LIKE = 0, SHELL_POWERSHELL = 1 } shell_profile;

typedef struct shell_cmd {
    char *path;    /* absolute path of the shell */
    char *argv[5]; /* shell, flags..., cmd, NULL (argv[k] borrowed but argv[0]) */
} shell_cmd;

/* The shell for `cmd`: `shell` when given (a path, or a name found on
 * PATH), else the profile's (unix_like: $SHELL, then bash, then sh;
 * powershell: pwsh).  `cmd` stays borrowed.  On failure returns
 * VT_ERR_NOT_FOUND and *what names the shell that was looked for. */
int shell_resolve(shell_profile prof, const char *shell, const char *cmd, shell_cmd *out,
                  const char **what);
void shell_cmd_free(shell_cmd *c);

/* 1 when the call's `shell` argument names one of the profile's own
 * shells (unix_like: sh, bash, dash, zsh, ksh, mksh or $SHELL's name;
 * powershell: pwsh, powershell) installed outside every directory in
 * `writable` (NULL-terminated): such a shell needs no rule.  Any other
 * shell (an interpreter, a workspace executable) is a permission subject
 * of its own, "shell:<argument>". */
int shell_is_profile_shell(shell_profile prof, const char *shell, const char *const *writable);

/* The command's environment: the host's as `policy` filters it (NULL:
 * unfiltered; envpolicy.h), with NO_COLOR=1, PAGER=cat, GIT_PAGER=cat,
 * TERM=dumb (xterm on a PTY), LANG=C.UTF-8 when unset, then the
 * policy's `set` entries.  NULL when out of memory; free with env_free. */
char **env_build(int tty, const env_policy *policy);
void env_free(char **env);

#endif
