/* Git directories recognised as git itself recognises them (git's
 * setup.c is_git_directory, validate_headref and read_gitfile_gently),
 * so that nothing git would take for a repository escapes the checks of
 * what a tool call left behind.  A directory is a git directory when
 * - its HEAD is a symbolic link whose target starts with "refs/", or a
 *   file starting with "ref:", optional whitespace and "refs/", or a file
 *   starting with an object name (40 or 64 hex digits);
 * - the common directory (the directory a `commondir` file names,
 *   relative to the git directory, else the directory itself; or
 *   $GIT_COMMON_DIR) has `objects` (or $GIT_OBJECT_DIRECTORY) and `refs`
 *   that can be entered.
 * Paths are followed as git follows them (a symlinked `objects` counts);
 * only HEAD itself is judged without following it.  The environment
 * variables are read from vthost's own environment: the user's git
 * usually runs with the same one. */
#ifndef VTHOST_WS_GITDIR_H
#define VTHOST_WS_GITDIR_H

/* 1 when the file `path` is a HEAD git accepts, else 0. */
int ws_gitdir_headref(const char *path);

/* 1 when `dir` is a git directory, else 0.  `common` (may be NULL)
 * receives, for a git directory with a `commondir` file (a linked
 * worktree's), the common directory's canonical path (malloc'd; the
 * caller frees it), else NULL. */
int ws_gitdir_judge(const char *dir, char **common);

/* 1 when `path` is a gitfile ("gitdir: DIR", what git reads in a .git
 * file; DIR relative to the file's directory) naming a git directory;
 * `gitdir` (may be NULL) then receives its canonical path (malloc'd).
 * 0 otherwise (no file, a directory, not in that form, not naming a git
 * directory). */
int ws_gitdir_gitfile(const char *path, char **gitdir);

#endif
