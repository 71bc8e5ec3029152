/* Policy files: the configuration that decides permissions (the
 * workspace's vtcode.toml and .vtcode/, the user's vtcode directory, the
 * --config file).  A tool call that would change one always asks, with a
 * prompt that names the file; no rule or setting approves it. */
#ifndef VTHOST_PERM_PROTECT_H
#define VTHOST_PERM_PROTECT_H

#include <stddef.h>
#include "perm_types.h"

/* Protect `path` (absolute; a file or a directory and all below it).
 * Both its lexical and its resolved form are kept. */
int perm_policy_add(perm_settings *st, const char *path);

/* The protected policy path (borrowed from st) that `lex` or `res` equals
 * or lies below, also after case folding (a case-insensitive filesystem
 * sees one file there), or whose file `res` is a hard link of; or NULL. */
const char *perm_policy_hit(const perm_settings *st, const char *lex, const char *res);

/* One shell word as the splitter renders it, read by the splitter itself
 * (the service vt_splitter_v1.words; without it only a word of plain
 * characters is literal): *literal (malloc'd) is its text after quote
 * removal; returns 1 when the word is literal, 0 when the shell would
 * expand it (parameters, command substitution, globs, braces, a leading
 * tilde, ANSI-C $'..' quoting) or it is not one word: an opaque path;
 * VT_ERR_NOMEM. */
int perm_shell_word(const char *raw, char **literal);

/* A simple command of an executing tool that is a known writer (tee, cp,
 * mv, sed -i, dd of=, install, ln, truncate, ...): *hit is the policy path
 * one of its file arguments names (borrowed from st, or NULL), *opaque is
 * set when a file argument is opaque.  `cwd` is the command's directory. */
int perm_command_writes(const perm_settings *st, const char *cwd, const char *cmd, const char **hit,
                        int *opaque);

#endif
