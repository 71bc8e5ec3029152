/* Matching primitives of the permission engine: command patterns,
 * gitignore-style path patterns (both compiled to PCRE2 once), path
 * normalisation, wrapper look-through and domain matching. */
#ifndef VTHOST_PERM_MATCH_H
#define VTHOST_PERM_MATCH_H

#include "perm_types.h"

/* Compile a command pattern (`*` any run; a trailing ` *` also matches the
 * bare command).  *key is the literal first word (malloc'd) or NULL when
 * the pattern starts with a wildcard.  *err is malloc'd on failure. */
int perm_compile_command(const char *pat, pcre2_code **re, char **key, char **err);

/* Compile a path pattern with its prefix (//abs, ~/home, /workspace,
 * ./cwd or bare cwd).  ABS patterns match absolute paths; CWD patterns
 * match paths relative to the call's directory.  *key is the literal
 * leading directory (malloc'd, "" for none). */
int perm_compile_path(const char *spec, const char *workspace, const char *home,
                      perm_path_base *base, pcre2_code **re, char **key, char **err);

/* For a relative pattern without a slash: 'E' and *key = "pem" for
 * "*.pem" (matched by file-name suffix), 'N' and *key = the name for a
 * literal name, else 0. */
int perm_path_floating_key(const char *spec, char **key);

/* Full match of `s` against an anchored pattern: 1, 0, or -1 when the
 * match could not finish within the work limits (the caller decides
 * which way that fails). */
int perm_regex_match(const pcre2_code *re, const char *s, pcre2_match_data *md);

/* `p` joined to `base` when relative and lexically normalised ("." and
 * ".." folded, no trailing slash; the root is "/").  malloc'd. */
char *perm_path_lexical(const char *base, const char *p);
/* The same path resolved through symlinks: the longest existing prefix
 * is resolved with realpath(3), the rest appended lexically.  malloc'd. */
char *perm_path_resolved(const char *base, const char *p);
/* 1 when `abs` equals `root` or lies below it (both normalised). */
int perm_path_within(const char *root, const char *abs);
/* The part of `abs` below `root` ("" for root itself), or NULL when it is
 * not within.  Points into `abs`. */
const char *perm_path_below(const char *root, const char *abs);

/* The commands a deny or ask rule also sees through: `cmd` without its
 * leading VAR=value words and known wrappers (env, timeout, nice, nohup,
 * time, command, stdbuf, flagless xargs, ...), and with an absolute
 * command path reduced to its base name, step by step.  *out receives a
 * malloc'd array of malloc'd strings (not including `cmd` itself). */
int perm_command_variants(const char *cmd, char ***out, size_t *count);
void perm_strings_free(char **v, size_t count);

/* The text of `cmd` with unquoted runs of blanks collapsed to one space
 * and trimmed (malloc'd). */
char *perm_command_normalise(const char *cmd);

/* The first word of a normalised command, copied into buf (truncated). */
void perm_first_word(const char *cmd, char *buf, size_t size);

/* Host `host` equals `domain` or is a subdomain of it, ignoring case. */
int perm_domain_match(const char *domain, const char *host);

#endif
