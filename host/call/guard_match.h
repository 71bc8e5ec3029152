/* What the anti-blind-editing guard recognises in a program's argv:
 * verification runs (the configurable rules), programs that neither
 * verify nor spoil a verification (output filters such as tail), and the
 * known writers refused while verification is required. */
#ifndef VTHOST_GUARD_MATCH_H
#define VTHOST_GUARD_MATCH_H

#include <stddef.h>

typedef struct guard_rules guard_rules;

/* An empty rule set; *out owned by the caller (guard_rules_free). */
int guard_rules_new(guard_rules **out);
void guard_rules_free(guard_rules *r);

/* Add a rule: a command prefix in words ("cargo test"; the program may
 * be given as a path), or "re:<PCRE2 pattern>" matched against the
 * program's words joined by blanks.  VT_ERR_INVALID with *err (malloc'd,
 * naming the rule) when the pattern does not compile or the rule is
 * empty. */
int guard_rules_add(guard_rules *r, const char *text, char **err);

/* One program run: 1 a verification run, 0 neutral (verifies nothing,
 * spoils nothing: tail, grep, a --version or dry run of anything), -1
 * anything else.  argv[0] is the program (name or path); wrappers such
 * as env, nice, timeout and stdbuf are looked through.  `cwd` is where
 * it ran (a make without a build file there verifies nothing), or NULL. */
int guard_classify(const guard_rules *r, char *const *argv, size_t argc, const char *cwd);

/* 1 when the program writes files by its nature (rm, cp, mv, touch,
 * tee FILE, sed -i, git checkout, ...); *what names it (static). */
int guard_known_writer(char *const *argv, size_t argc, const char **what);

/* Split on blanks; returns the count, *out malloc'd (guard_free_words). */
size_t guard_split_words(const char *s, char ***out);
void guard_free_words(char **v, size_t n);

#endif
