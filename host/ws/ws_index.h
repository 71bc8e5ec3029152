/* The workspace index: the directories of the workspace, its
 * repositories (.git directories, gitfiles and links, nested ones
 * included) and its policy files (vtcode.toml, .vtcode/), so that no
 * call walks the whole tree.
 *
 * Live (`vthost serve`): built once in the background, then kept current
 * by inotify on every directory (a new directory is watched as it
 * appears and its subtree read, which closes the race with what was made
 * in it before the watch).  One-shot (`vthost call`): loaded from
 * $XDG_CACHE_HOME/vthost/wsindex/, only directories whose mtime moved are
 * read again, and events are watched from the first refresh until the
 * process ends (each directory watched before its mtime is checked).  Whenever events may have been lost
 * (queue overflow, the watch limit, no inotify) the next refresh walks
 * the whole tree instead, says so once in the log and reports it to the
 * caller: never a silent miss.
 *
 * Every change seen by events goes into a bounded log with a sequence
 * number; a mark taken before a command and the changes since it are
 * how the guard counts what a command changed. */
#ifndef VTHOST_WS_INDEX_H
#define VTHOST_WS_INDEX_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ws_index ws_index;

enum ws_index_mode {
    WS_INDEX_ONE_SHOT = 0, /* cache + events for this process's duration */
    WS_INDEX_LIVE = 1,     /* background build, inotify, a draining thread */
};

/* A point in the change log.  `seq` counts every change, `project`
 * only those outside tools' and build directories (ws_index_noise). */
typedef struct ws_mark {
    uint64_t seq, project;
} ws_mark;

/* Open the index of `root` (canonical, absolute; copied).  Live: the
 * build starts on a thread at once.  One-shot: nothing is read until the
 * first refresh.  *out is freed with ws_index_close. */
int ws_index_open(const char *root, int mode, ws_index **out);
/* Stop watching; a one-shot index that was loaded is saved first. */
void ws_index_close(ws_index *ix);

/* The host's index for its workspace (set by the host at open), or NULL. */
void ws_index_set_current(ws_index *ix);
ws_index *ws_index_current(void);

/* `fn` (NULL: none) is called on the draining thread of a live index,
 * without the index's lock, after events added changes to the log. */
void ws_index_on_change(void (*fn)(void));

/* Bring the index up to date: apply the events queued so far (live, and
 * one-shot once watching), or load and validate (one-shot, first use).
 * `watch`: the caller needs events from now on (the guard's commands); a
 * one-shot index watches from its first refresh either way.
 * *fell_back (may be NULL) receives NULL, or a static sentence saying
 * why this refresh had to walk the whole workspace.  Thread-safe. */
int ws_index_refresh(ws_index *ix, int watch, const char **fell_back);

/* 1 when every change since the index was built reached it by an event:
 * marks and changes are then exact.  0 while degraded (no inotify, the
 * watch limit reached, a one-shot index not watching). */
int ws_index_event_driven(ws_index *ix);

ws_mark ws_index_mark(ws_index *ix);

/* Where the index stands, for a caller that keeps what it last saw of
 * the workspace (ws_tabview.h): which index, its change sequence and
 * its rebuilds.  Events the kernel queued before the
 * call are applied first.  Two epochs are the same only when both are
 * exact (event-driven, no change lost) and no change was logged
 * and no rebuild happened in between: then no entry was made, removed,
 * renamed, written or changed in any directory the index watches (every
 * one but a repository's insides). */
typedef struct ws_index_epoch {
    uint64_t id, seq, builds;
    int exact;
} ws_index_epoch;
/* Not exact unless `ix` is the index of `root`. */
ws_index_epoch ws_index_epoch_now(ws_index *ix, const char *root);
int ws_index_epoch_same(ws_index_epoch a, ws_index_epoch b);
/* 1 when the index has an inotify watch on the workspace ("") or on its
 * top-level directory `name`: a directory it could not watch (unreadable
 * to the host) gives no events. */
int ws_index_watched(ws_index *ix, const char *name);

/* The changes since `m`: their number (each path once; with
 * `project_only`, only paths outside tools' and build directories) and
 * up to `max_names` workspace-relative paths in names[] (malloc'd, the
 * caller frees).  *complete is 0 when some were lost from the log (the
 * count is then a lower bound: the project counter's difference). */
size_t ws_index_changes(ws_index *ix, ws_mark m, int project_only, char **names, size_t max_names,
                        int *complete);

/* A new JSON array: {"path": workspace-relative, "kind": "create" |
 * "write" | "delete" | "rename" | "attrib", "dir": bool, "repo": bool,
 * "policy": bool} for each path changed since m.seq (last kind wins);
 * *complete as above.  The caller frees it. */
cJSON *ws_index_changes_json(ws_index *ix, uint64_t since, int *complete);

/* A new JSON array of the repositories: {"path": absolute .git path,
 * "kind": "dir" | "gitfile" | "link"}.  *complete is 0 when the tree was
 * too deep to index entirely.  The caller frees it. */
cJSON *ws_index_repositories(ws_index *ix, int *complete);
/* A new JSON array of the policy files: {"path": absolute, "kind":
 * "toml" | "dir"}. */
cJSON *ws_index_policy_files(ws_index *ix);

/* Figures for the benchmark: directories indexed, bytes held, watches,
 * milliseconds the last full build took. */
typedef struct ws_index_stats {
    size_t dirs, bytes, watches;
    double build_ms;
    int live, degraded;
} ws_index_stats;
void ws_index_get_stats(ws_index *ix, ws_index_stats *out);

/* 1 for a directory name whose contents are not the project's own files
 * (.git, .vtcode, node_modules, build output, caches). */
int ws_index_noise(const char *name);

/* Where host data for `root` is kept: a new string
 * "$XDG_CACHE_HOME/vthost" or "$XDG_STATE_HOME/vthost" (with the
 * usual defaults under $HOME), or NULL without a home. */
char *ws_index_cache_dir(void);
char *ws_index_state_dir(void);
/* A stable file name for `root`: 16 hex digits of its hash (buf >= 17). */
void ws_index_key(const char *root, char buf[17]);

#endif
