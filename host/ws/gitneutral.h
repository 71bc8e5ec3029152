/* Neutralising a git repository that a tool call made: nothing in it may
 * start a program when the user later runs git there.  Hooks (other than
 * the *.sample files git init ships) are moved aside, and the
 * configuration keeps only an allow-list of keys that never name a
 * program (core.fsmonitor, core.hooksPath, core.pager, aliases, filters,
 * include.path, credential helpers, transport helpers... all go, and so
 * does any key git adds later).  The repository stays usable: what git
 * init, clone and commit write is on the allow-list. */
#ifndef VTHOST_WS_GITNEUTRAL_H
#define VTHOST_WS_GITNEUTRAL_H

#include <stddef.h>
#include <stdint.h>

/* Filter the text of a git config file.  Returns 1 when something was
 * removed (*out is then the configuration to write, canonical form,
 * malloc'd; *removed names what went, malloc'd, comma-separated), 0 when
 * nothing needs to change (*out and *removed NULL), or a negative
 * vt_status.  A file outside the subset of git's syntax this reads
 * (continuation lines, a key on a section's line, dotted section names,
 * unknown escapes, NUL bytes) is replaced whole by a minimal
 * configuration: what is not understood is not kept. */
int gitneutral_config(const char *text, size_t len, char **out, char **removed);

/* Every key of a git config file's text, in order, to `fn`: the
 * section lower-cased, the subsection as written (or NULL), the key
 * lower-cased and the value as git reads it (NULL for a bare key).
 * VT_ERR_INVALID when the text leaves the subset of git's syntax this
 * reads (the keys before that point were given), else 0. */
typedef void (*gitneutral_key_fn)(void *ctx, const char *section, const char *sub, const char *key,
                                  const char *value);
int gitneutral_each(const char *text, size_t len, gitneutral_key_fn fn, void *ctx);

/* A digest of the keys of the git config file at `path` that the
 * allow-list would remove (the ones that name programs), with their
 * values, in order: 0 or VT_ERR_INVALID (unreadable, too large or
 * outside the subset this reads), VT_ERR_NOMEM; *out is 0 for a
 * missing file.  Two digests that differ mean a program git runs may
 * have changed. */
int gitneutral_run_digest(const char *path, uint64_t *out);

/* Neutralise the git directory open at `gitfd` (a directory; borrowed):
 * hooks moved and config files (config, config.worktree) rewritten, the
 * originals moved into the directory open at `asidefd` (borrowed) under
 * names starting with `prefix`.  `label` names the repository in the
 * report.  *out (malloc'd) says what was done, or is NULL when the
 * repository had nothing to neutralise.  Returns 0, 1 when a step
 * failed and left something git would still run (said in *out), or
 * a negative vt_status.  `asidefd` may be `gitfd` itself: the originals
 * then stay in the git directory under `prefix` names git never reads. */
int gitneutral_dir(int gitfd, int asidefd, const char *prefix, const char *label, char **out);

/* Move the entry `name` of the directory `fromfd` to `newname` in the
 * directory `asidefd` (never followed: a symlink moves as a symlink).
 * On another filesystem a regular file is copied, then removed.
 * Returns 0 or -errno. */
int gitneutral_move_aside(int fromfd, const char *name, int asidefd, const char *newname);

#endif
