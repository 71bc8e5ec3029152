/* What the workspace's repositories' configuration makes git run or
 * read later: the hook directory core.hooksPath names (husky, lefthook,
 * .githooks: git runs every hook there) and the files include.path and
 * includeIf.*.path include (they can set any key, core.fsmonitor
 * included).  When such a path lies where a command or a tool can write,
 * writing it arms the user's repository as surely as writing .git/config:
 * the sandbox keeps the existing ones read-only (vt_wsindex_v1.
 * git_config_paths), the permission engine asks before a tool writes
 * one, and the after-call check sets aside what a call made or changed
 * in them (ws_changes.c).
 *
 * Read are each repository's config, its config.worktree, its common
 * directory's config, the files they include (five levels deep), and the
 * user's global configuration (~/.gitconfig, $XDG_CONFIG_HOME/git/config,
 * whose relative core.hooksPath applies in every work tree).  Relative
 * hooks paths are taken from the work tree (the directory holding the
 * .git entry), relative includes from the including file's directory,
 * "~/" from $HOME and "~user/" from that user's entry in the password
 * database, as git takes them.  includeIf conditions are not evaluated:
 * every target counts (one protected that git would not read costs
 * nothing; one left out would be writable). */
#ifndef VTHOST_WS_GITCONF_H
#define VTHOST_WS_GITCONF_H

#include <cjson/cJSON.h>

/* A new array [{"path": absolute (canonical where it exists), "kind":
 * "hooks" | "include"}] for the repositories `repos` (the index's
 * list: [{"path", "kind"}], borrowed) of the workspace `root`; the
 * caller frees it. */
cJSON *ws_gitconf_paths(const char *root, const cJSON *repos);

/* 1 when `abs` is, or lies inside, a path ws_gitconf_paths gives for the
 * current workspace index, else 0.  The list is kept until the index
 * changes.  Thread-safe. */
int ws_gitconf_protected(const char *abs);

/* Every path ws_gitconf_protected tests `abs` against, now: a new array
 * of strings, or NULL without memory.  For a caller that tests many
 * paths at one moment (the after-call check of a call's changes). */
cJSON *ws_gitconf_protected_paths(void);

/* ws_gitconf_protected against a list ws_gitconf_protected_paths gave:
 * 1 when `abs` is, or lies inside, one of `paths`; with `paths` NULL
 * (taken without memory), asked of ws_gitconf_protected. */
int ws_gitconf_protected_in(const cJSON *paths, const char *abs);

/* The list ws_gitconf_protected uses, for the after-call check: a new
 * array as ws_gitconf_paths gives (empty without an index). */
cJSON *ws_gitconf_current(void);

/* Forget the kept list (the host closing). */
void ws_gitconf_reset(void);

#endif
