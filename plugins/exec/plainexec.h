/* Running a command of plain words without the shell: when `$SHELL -c`
 * could not change what such a command does (no expansion, no builtin,
 * no start-up file, no imported function), the session leader runs the
 * program itself, found on PATH the way the shell finds it
 * (docs/tools.md, exec_command).  Pure host-side decisions; the search
 * and the exec are in spawn_child.c. */
#ifndef VTHOST_EXEC_PLAINEXEC_H
#define VTHOST_EXEC_PLAINEXEC_H

#include <stddef.h>

/* The words of `cmd` (a malloc'd NULL-terminated array of malloc'd
 * strings, *argv) when it is plain words the shell would run as one
 * external program: only the bytes [A-Za-z0-9_./:=,+@%^-] and blanks,
 * the first word no keyword, builtin (shell_words.h) or assignment
 * (`true` and `false` only without arguments).  0 and *argv NULL
 * otherwise (or when out of memory: the shell then runs it). */
int plain_words(const char *cmd, char ***argv);
void plain_words_free(char **argv);

/* Which shell's start-up the direct run stands in for. */
typedef enum plain_shell { PLAIN_NONE = 0, PLAIN_BASH = 1, PLAIN_DASH = 2 } plain_shell;

/* PLAIN_BASH or PLAIN_DASH when the file `shell_path` leads to (links
 * followed: /bin/sh is dash or bash by what it links to) is bash or
 * dash, and its -c would read no start-up file and import no function
 * or option from `env` (no BASH_ENV, ENV, BASH_FUNC_*, SHELLOPTS,
 * BASHOPTS, EXECIGNORE) and `env` has a PATH to search; else PLAIN_NONE. */
plain_shell plain_shell_of(const char *shell_path, char *const *env);

/* What the shell exports to a program it runs, set in *env (a
 * NULL-terminated env_build array, reallocated): PWD (kept when it
 * names `workdir` already, else `workdir`); for bash also SHLVL as bash
 * passes it on when it execs its last command, OLDPWD only when it names
 * a directory, and "_" (the program's path, which only the search
 * knows: a slot of PLAIN_UNDER_BYTES, returned in *under, that spawn_child.c
 * fills).  0 or VT_ERR_NOMEM. */
#define PLAIN_UNDER_BYTES 4200
int plain_env(plain_shell sh, const char *workdir, char ***env, char **under);

/* All of the above for one call (on Linux 6.14 and later, where a
 * program run from its descriptor keeps its own name in ps): when `cmd`
 * may run without the shell
 * `shell_path`, *argv gets its words and *env what that shell would have
 * passed on (*under: see plain_env); else *argv stays NULL and *env as
 * it was.  0 or VT_ERR_NOMEM. */
int plain_prepare(const char *cmd, const char *shell_path, const char *workdir, char ***env,
                  char ***argv, char **under);

/* In the session leader or supervisor (spawn_child.c), after confinement, in
 * the command's working directory, async-signal-safe: `argv[0]` found
 * as the shell finds a program (a word with a slash as a path from the
 * working directory, else the first executable regular file along
 * `path`).  Returns 1 when it is an ELF program, opened at `fd_at`
 * (close-on-exec), its path as found in `given` and absolute in `abs`
 * (each of `cap` bytes); 0 when the shell must run the text: nothing
 * found (the shell says so, in its own words), not readable, a script
 * (the shell runs one without "#!" itself), a name too long. */
int plain_find(const char *word, const char *path, const char *workdir, int fd_at, char *given,
               char *abs, size_t cap);

/* strerror's words for what an exec can fail with, without its locale
 * machinery (for the vfork child that reports a failed exec). */
const char *plain_exec_error(int e);

#endif
