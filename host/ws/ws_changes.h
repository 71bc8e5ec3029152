/* What a call changed in the workspace, found from the workspace itself
 * rather than from what the call said it would touch (its path
 * subjects): a command, write_stdin or a plugin tool that declares no
 * path is judged as closely as apply_patch.  The finders, chosen by the
 * caller:
 * - WS_CH_TABLE: the configuration table's rows (ws_conftab.h), stamped
 *   (device, inode, size, modification and change times) before the call
 *   and compared after it: a directory row that appeared, an entry row
 *   that appeared or changed;
 * - WS_CH_LINKS: symbolic links the call made (from the workspace
 *   index's change log) that lead to a directory outside the workspace
 *   where git finds a repository (the directory, a .git in it, or a
 *   directory above it): the user's `git -C link ...` would run that
 *   repository's config;
 * - WS_CH_GITDIRS: directories the change log names (made, or holding a
 *   written HEAD, config, config.worktree, commondir or hooks entry) that
 *   git takes for a git directory and that either were not a repository
 *   the index knew before the call or had what git runs things from
 *   written;
 * - WS_CH_HOOKS: entries the change log names inside a hook directory or
 *   an included config file that a repository's configuration names
 *   (ws_gitconf.h), except what the call named as a path subject (the
 *   permission engine asked for those);
 * - WS_CH_ARMED: git directories the index knew before whose config,
 *   config.worktree, commondir or hooks were changed (ws_armed.h): the
 *   index does not look inside git directories.
 * The finders only find; the after-call check (ws_after.c) sets aside
 * and neutralises, and names everything in the call's result. */
#ifndef VTHOST_WS_CHANGES_H
#define VTHOST_WS_CHANGES_H

#include <vthost/plugin.h>

enum ws_changes_what {
    WS_CH_TABLE = 1,
    WS_CH_LINKS = 2,
    WS_CH_GITDIRS = 4,
    WS_CH_HOOKS = 8,
    WS_CH_ARMED = 16
};
enum ws_found_kind {
    WS_FOUND_ASIDE = 1, /* set aside the entry at `abs`, because `why` */
    WS_FOUND_GITDIR = 2 /* neutralise the git directory at `abs` */
};

typedef struct ws_changes ws_changes;

/* Before the call: the baseline of `what` (enum ws_changes_what) in the
 * workspace `root` (borrowed for the call's length).  Table rows and
 * hook paths that `exempt` (may be NULL) names as path subjects were
 * asked for by the permission engine and are left to that answer; the
 * subjects are resolved now, so that a link the call makes cannot carry
 * one onto another path.  *out is NULL when there is nothing to find. */
int ws_changes_begin(const char *root, int what, const vt_subjects *exempt, ws_changes **out);

/* As ws_changes_begin, for a caller that resolved the path subjects
 * below `root` already (paths_resolve, flags 0): `exempt` (a
 * NULL-terminated array of malloc'd paths, or NULL) is taken, even when
 * this fails. */
int ws_changes_begin_resolved(const char *root, int what, char **exempt, ws_changes **out);

/* Who the reasons name as having made the changes (static; "the call"
 * unless set). */
void ws_changes_set_writer(ws_changes *c, const char *writer);

/* 1 when a row of the table (WS_CH_TABLE) is not as stamped at the
 * start: worth judging now. */
int ws_changes_table_moved(ws_changes *c);

typedef void (*ws_found_fn)(void *ctx, int kind, const char *abs, const char *why);

/* After the call: every finding to `fn`; frees `c` (may be NULL).
 * *note (static, or NULL) says what could not be followed exactly. */
void ws_changes_end(ws_changes *c, ws_found_fn fn, void *ctx, const char **note);

/* 1 when git, started in `dir` (canonical), finds a repository there or
 * above (a git directory, or a .git entry of any kind). */
int ws_changes_git_reaches(const char *dir);

/* The finding WS_CH_LINKS makes of the entry `abs`: a link, made by
 * whoever, to a directory outside `root` where git finds a repository
 * (the reason is static), else NULL. */
const char *ws_changes_link_outside(const char *root, const char *abs);

#endif
