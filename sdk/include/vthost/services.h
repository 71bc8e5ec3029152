/*
 * vthost/services.h — the versioned contracts of every named service the
 * host or a plugin publishes for others, published and looked up through
 * api->service_publish() / api->service_lookup().  plugin.h includes
 * this header.
 *
 * Rules: the major version is in the type's name; a contract only grows
 * at the end, and a consumer checks `struct_size` covers the members it
 * calls.  The interface pointer is borrowed from the publisher and valid
 * until the publisher's fini.  Memory rules are those of plugin.h: what
 * a service hands out is the caller's (cJSON trees: cJSON_Delete(); other
 * memory: api->free()), what it is given is borrowed for the call.
 */
#ifndef VTHOST_SDK_SERVICES_H
#define VTHOST_SDK_SERVICES_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <vthost/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The auto reviewer (a reviewer plugin publishes it): answers the
 * permission engine's `auto` decisions; the host consumes it. */
#define VT_REVIEWER_SERVICE "permissions.reviewer"

typedef struct vt_reviewer_v1 {
    uint32_t struct_size; /* sizeof(vt_reviewer_v1) of the publisher */
    /* 1 for ALLOW, 0 for BLOCK, negative when it cannot decide.
     * `request` is borrowed; *reason (may stay NULL) is allocated with
     * api->strdup() and freed by the host.  `ud` is the member below. */
    int (*review)(void *ud, const cJSON *request, char **reason);
    void *ud;
} vt_reviewer_v1;

/* A command splitter (the exec plugin publishes one; write_stdin of the
 * stdin plugin consumes it): shell text into the simple commands the
 * shell would run. */
#define VT_SPLITTER_SERVICE "exec.command_splitter"

typedef struct vt_splitter_v1 {
    uint32_t struct_size; /* sizeof(vt_splitter_v1) of the publisher */
    /* *out: a new JSON array of {"command": "<normalised simple command>",
     * "opaque": true|false, "writes": ["<redirection target>", ...]}
     * ("writes" only when the command redirects into files; redirections
     * with no command after them get an entry with command ""); the caller frees
     * it with cJSON_Delete().  `cmd` is borrowed.  Thread-safe. */
    int (*split)(const char *cmd, cJSON **out);
    /* ---- added with ABI 1.8 (check struct_size) ---- */
    /* The words of `text` (borrowed): shell words separated by blanks,
     * such as a "command" or a "writes" entry of split().  *out: a new
     * JSON array of {"text": the word after quote removal, "literal":
     * false when the shell would expand it (parameters, command
     * substitution, $'...', globs, braces, a leading ~)}; the caller
     * frees it with cJSON_Delete().  VT_ERR_INVALID when `text` is not
     * plain words (an operator, an unclosed quote).  Thread-safe. */
    int (*words)(const char *text, cJSON **out);
} vt_splitter_v1;

/* Live command sessions (the exec plugin publishes them; write_stdin
 * reaches them only through this service). */
#define VT_SESSIONS_SERVICE "exec.sessions"

typedef struct vt_sessions_v1 {
    uint32_t struct_size; /* sizeof(vt_sessions_v1) of the publisher */
    /* Send `len` bytes of `chars` (borrowed) to session `id`'s stdin, then
     * wait up to yield_ms for output and exit, exactly as the command
     * tool waits: output goes to the call's spool, and *result receives
     * the same response object as the command tool builds (the host takes
     * it).  `len` 0 only polls.  A lone "\x03" interrupts the session's
     * foreground process group (SIGINT) instead of being written.
     * Returns 0, or the status of api->call_error(): VT_ERR_NOT_FOUND for
     * an unknown or released session, VT_ERR_BUSY when another call is
     * waiting on it, VT_ERR_CANCELLED when the call was cancelled (the
     * session lives on), VT_ERR_IO when the bytes could not be written.
     * May be called from any thread. */
    int (*write_and_wait)(vt_call *call, int64_t id, const char *chars, size_t len, int yield_ms,
                          cJSON **result);
    /* Number of live sessions.  Thread-safe. */
    int (*live_count)(void);
    /* ---- added with ABI 1.5 (check struct_size) ---- */
    /* The client session `client` (vt_host_api.call_client_id) ended: end
     * the process groups of its sessions (TERM, a grace period, KILL) and
     * release them.  Thread-safe. */
    void (*end_client)(uint64_t client);
    /* ---- added with ABI 1.9 (check struct_size) ---- */
    /* Sessions of client `client` still held (running, or finished with
     * output not yet read).  Thread-safe. */
    int (*client_count)(uint64_t client);
} vt_sessions_v1;

/* The workspace index (the host publishes it, before any plugin's init):
 * the repositories and policy files of the workspace and the changes
 * made in it, kept current by inotify while serving and persisted for
 * one-shot calls, so that nothing has to walk the whole tree.  Every
 * function first brings the index up to date; when events may have been
 * lost (queue overflow, the watch limit, no inotify) that means a full
 * walk, and the host then adds a warning to `call` (may be NULL) and logs
 * one line.  Thread-safe. */
#define VT_WSINDEX_SERVICE "host.workspace_index"

typedef struct vt_wsindex_v1 {
    uint32_t struct_size; /* sizeof(vt_wsindex_v1) of the publisher */
    /* *out: a new object {"repositories": [{"path": absolute path of the
     * .git entry, "kind": "dir" | "gitfile" | "link"}, ...], "complete":
     * false when part of the tree was too deep to index}; nested
     * repositories included, nothing inside a .git directory.  Since
     * 1.13 also the bare repositories in subdirectories (directories git
     * takes for a git directory by its own rules, see git_dir): "kind"
     * "dir" and "path" the directory itself.  The caller frees it with
     * cJSON_Delete(). */
    int (*repositories)(vt_call *call, cJSON **out);
    /* *out: a new array [{"path": absolute, "kind": "toml" | "dir"}] of
     * every vtcode.toml and .vtcode directory, nested ones included.
     * The caller frees it with cJSON_Delete(). */
    int (*policy_files)(vt_call *call, cJSON **out);
    /* The index's change sequence now: pass it to changes_since later. */
    uint64_t (*mark)(vt_call *call);
    /* *out: a new object {"changes": [{"path": workspace-relative, "kind":
     * "create" | "write" | "delete" | "rename" | "attrib", "dir": bool,
     * "repo": bool (a .git entry or inside one), "policy": bool
     * (vtcode.toml, .vtcode or inside it)}], "complete": bool, "mark":
     * the new mark}, each path once.  "complete" is false when changes
     * may be missing (events lost, the log's bound passed, an index not
     * kept by events): re-list what matters.  The caller frees it. */
    int (*changes_since)(vt_call *call, uint64_t mark, cJSON **out);
    /* Absolute directories where vthost keeps its own data about this
     * workspace (the persisted index, the guard's state), ended by NULL:
     * a command sandbox keeps them read-only.  Borrowed until the host
     * closes. */
    const char *const *(*host_data_paths)(void);
    /* ---- what a call left behind (check struct_size) ---- */
    /* 1 when git takes the directory `dir` (borrowed) for a git directory
     * by its own rules, else 0: a HEAD as git's validate_headref reads it
     * ("ref:", optional whitespace and "refs/"; a symbolic link to
     * refs/...; an object name), objects/ and refs/ in it or in the
     * common directory its commondir file names.  *common (may be NULL)
     * receives that common directory, canonical (malloc'd, api->free()),
     * or NULL. */
    int (*git_dir)(const char *dir, char **common);
    /* Make the git directory open at `gitfd` (borrowed) inert: hooks
     * moved aside, config and config.worktree rewritten to keys that
     * never name a program, the originals moved to the workspace's
     * .vtcode/set-aside/, or, when that cannot be used (a file, a link,
     * not the user's), kept in the git directory under names git never
     * reads.  `label` names it in *report (malloc'd, api->free(); NULL
     * when there was nothing to do).  0, 1 when something could not be
     * made inert (named in *report), or a negative status. */
    int (*neutralise)(int gitfd, const char *label, char **report);
    /* Set aside the entry `name` of the directory open at `dirfd` (never
     * followed), named `label`, because it `why`: moved to
     * .vtcode/set-aside/, or renamed beside it when that cannot be used.
     * *report and the result as for neutralise (0 also when it is gone). */
    int (*set_aside)(int dirfd, const char *name, const char *label, const char *why,
                     char **report);
    /* ---- added later (check struct_size) ---- */
    /* *out: a new array [{"path": absolute, canonical where it exists,
     * "kind": "hooks" | "include"}]: the hook directories (core.hooksPath)
     * and included config files (include.path, includeIf.*.path) that
     * the workspace's repositories' configuration (and the user's global
     * one) names, existing or not, wherever they are.  Git runs or reads
     * them, so a command sandbox keeps those it could write read-only.
     * The caller frees it with cJSON_Delete(). */
    int (*git_config_paths)(vt_call *call, cJSON **out);
    /* ---- a command sandbox's part (ABI 1.10; check struct_size) ---- */
    /* The names at the workspace root that programs outside a sandbox
     * open and run from (vthost's policy directory and file, IDE and
     * agent configuration), NULL-ended: a sandbox keeps those that exist
     * read-only, and the host sets aside those a call makes.  Borrowed
     * until the host closes. */
    const char *const *(*protected_names)(void);
    /* Make the workspace's policy directory (where the host keeps set-aside
     * files and spooled output) when it is missing, so that a sandbox can
     * mount it read-only before the first command runs.  *dir receives
     * its absolute path (malloc'd, api->free()).  0, or a negative status
     * and *err (malloc'd, api->free()) saying why it cannot be made (*dir
     * is still set). */
    int (*prepare)(char **dir, char **err);
    /* A sandbox that lets commands write declares its writable roots
     * (absolute, NULL-ended; copied; the workspace among them): from then
     * on the host judges, after every call of a tool that can write and
     * when a session raises VT_EVENT_SESSION_ENDED, what commands left
     * below them (new repositories, configuration the protected names
     * cover, a late vtcode.toml).  0 or a negative status. */
    int (*arm)(const char *const *roots);
    /* The spooled output of client `client` (vt_host_api.call_client_id,
     * not 0): its directory made when missing (never through a link), in
     * *own, and the directory that holds every client's, in *all (both
     * absolute, malloc'd, api->free()), so that a sandbox can hide the
     * others' from that client's commands.  0 or a negative status. */
    int (*spool_view)(uint64_t client, char **all, char **own);
    /* ---- ABI 1.13 (check struct_size) ---- */
    /* *out: a new object of the shape `repositories` gives,
     * {"repositories": [{"path", "kind"}, ...], "complete": bool}, for
     * the .git entries below the directory `dir` (absolute, borrowed;
     * any directory, in the workspace or not, nested repositories
     * included) and the bare repositories below it (not `dir` itself;
     * "kind" "dir", "path" the directory), found by the host's walk:
     * links never followed, never into a .git (a bare repository is left
     * once its HEAD is read, so entries inside it read before may be
     * listed too), to a depth of 16 and 50,000 directories per call;
     * "complete" is false when the walk stopped at either bound, and a
     * caller then treats what lies past it as holding repositories it
     * does not know.  A directory that does not exist or cannot be
     * opened holds none.  The caller frees *out with cJSON_Delete().  0,
     * VT_ERR_INVALID (`dir` not absolute) or VT_ERR_NOMEM. */
    int (*repositories_below)(const char *dir, cJSON **out);
} vt_wsindex_v1;

/* The host's own data (the host publishes it, before any plugin's init):
 * the files and directories of vthost itself that no command may read,
 * wherever they are: its configuration, state and cache directories
 * ($XDG_CONFIG_HOME/vthost, $XDG_STATE_HOME/vthost, $XDG_CACHE_HOME/vthost,
 * with their defaults under $HOME), the user's vtcode directory that
 * holds the trust list, and what a front end adds when it starts (the
 * HTTP server's token file, TLS and OAuth key files, access log).  A
 * command sandbox masks them.  The list can grow while the host runs:
 * read it for each command.  Thread-safe. */
#define VT_HOST_DATA_SERVICE "host.own_data"

typedef struct vt_host_data_v1 {
    uint32_t struct_size; /* sizeof(vt_host_data_v1) of the publisher */
    /* *out: a new array [{"path": absolute, "kind": "dir" | "file"}].
     * A "dir" may not exist yet: the host makes it (0700) before anything
     * is written there, so a sandbox may make it first and mask it.  The
     * caller frees it with cJSON_Delete(). */
    int (*paths)(cJSON **out);
    /* Added later (test struct_size): the host's cache directory
     * ($XDG_CACHE_HOME/vthost, else ~/.cache/vthost), made 0700 when
     * missing, in *out (absolute; the caller frees it with free()).
     * VT_ERR_NOT_FOUND when neither variable gives an absolute path,
     * VT_ERR_IO when it cannot be made. */
    int (*cache_dir)(char **out);
} vt_host_data_v1;

/* The MCP providers' state (the mcp_providers plugin publishes it; the
 * CLI's `vthost mcp list|tools` and `vthost plugins` consume it).
 * Thread-safe. */
#define VT_MCP_PROVIDERS_SERVICE "mcp_providers.status"

typedef struct vt_mcp_providers_v1 {
    uint32_t struct_size; /* sizeof(vt_mcp_providers_v1) of the publisher */
    /* A new array (the caller frees it with cJSON_Delete()) of
     * {"name", "transport" ("stdio" or "http"), "command" (stdio) or
     *  "endpoint" (http), "state", "reason"?, "restarts", "calls",
     *  "tools"}, with "tool_list" [{"name", "tool", "description"}] when
     * `only` (borrowed, may be NULL) names one provider: then only it is
     * listed. */
    cJSON *(*list)(const char *only);
    /* Start the provider `name` (borrowed) now and list its tools.  0, or
     * a negative status and *err, allocated (the caller frees it with
     * api->free()), saying why. */
    int (*start)(const char *name, char **err);
} vt_mcp_providers_v1;

/* Host events (ABI 1.10), in the manner of Redis's server events: a
 * plugin subscribes to what happens in the host instead of the host
 * calling a protocol of entry points.  The host raises
 * VT_EVENT_CALL_ENDED after every tool call (once its after-call check
 * of the workspace ran) and VT_EVENT_WORKSPACE_CHANGED when the
 * workspace index (while serving) saw changes; the plugin that runs
 * command sessions raises VT_EVENT_SESSION_STARTED and
 * VT_EVENT_SESSION_ENDED for each sandboxed session, and the host then
 * runs the after-call check itself.  Callbacks run on the host's
 * threads (a call's, the index's, a session reaper's) with no host lock
 * held but the subscription list's (so that no callback runs once
 * unsubscribe returned): a callback must not block, subscribe or
 * unsubscribe.  Thread-safe. */
#define VT_EVENTS_SERVICE "host.events"

enum {
    VT_EVENT_CALL_ENDED = 1u << 0,        /* a tool call returned */
    VT_EVENT_SESSION_ENDED = 1u << 1,     /* a sandboxed session's process tree ended */
    VT_EVENT_WORKSPACE_CHANGED = 1u << 2, /* the index logged changes (serve only) */
    VT_EVENT_SESSION_STARTED = 1u << 3,   /* a sandboxed session started */
};

typedef struct vt_event {
    uint32_t struct_size; /* sizeof(vt_event) of the host */
    uint32_t kind;        /* one VT_EVENT_* */
    /* VT_EVENT_CALL_ENDED: the tool's name (borrowed for the callback),
     * the call's id (api->call_id) and whether the tool can write
     * (VT_EFFECT_MUTATES_WORKSPACE or VT_EFFECT_EXECUTES); else NULL, 0,
     * 0. */
    const char *tool;
    uint64_t call_id;
    int writer;
} vt_event;

typedef void (*vt_event_fn)(const vt_event *event, void *user);

typedef struct vt_events_v1 {
    uint32_t struct_size; /* sizeof(vt_events_v1) of the publisher */
    /* Call `fn` with `user` for each event whose kind is in the mask
     * `kinds`.  A positive subscription id, or a negative status.
     * Unsubscribe in fini: the host does not know the plugin's code is
     * gone. */
    int (*subscribe)(uint32_t kinds, vt_event_fn fn, void *user);
    void (*unsubscribe)(int id);
    /* Raise VT_EVENT_SESSION_STARTED or VT_EVENT_SESSION_ENDED.  For an
     * ended session, what the after-call check found goes into the
     * warnings of `call` (may be NULL: then into the next writing call's).
     * 0, or VT_ERR_INVALID for a kind a plugin may not raise. */
    int (*raise)(vt_call *call, uint32_t kind);
} vt_events_v1;

#ifdef __cplusplus
}
#endif
/* JSON Schema of the response write_and_wait builds (the same as the
 * command tool's; both tools list it as their output schema):
 * "sandbox" and "denied_execs" come from exec_command only. */
#define VT_SESSIONS_RESPONSE_SCHEMA                                                                \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"success\":{\"type\":\"boolean\"},"                                                          \
    "\"output\":{\"type\":\"string\",\"description\":\"What the command printed "                  \
    "(stdout and stderr), cut to max_output_tokens.\"},"                                           \
    "\"exit_code\":{\"type\":\"integer\",\"description\":\"Once the command exited.\"},"           \
    "\"session_id\":{\"type\":[\"integer\",\"string\"],\"description\":\"While it still "          \
    "runs: pass it to write_stdin (a string for 2026-07-28 clients).\"},"                          \
    "\"is_exited\":{\"type\":\"boolean\"},"                                                        \
    "\"wall_time\":{\"type\":\"number\",\"description\":\"Seconds this call waited.\"},"           \
    "\"working_directory\":{\"type\":\"string\"},"                                                 \
    "\"backend\":{\"type\":\"string\",\"enum\":[\"pipe\",\"pty\"]},"                               \
    "\"sandbox\":{\"type\":\"string\",\"enum\":[\"workspace-write\",\"read-only\","                \
    "\"none\"]},"                                                                                  \
    "\"sandbox_denied\":{\"type\":\"boolean\"},"                                                   \
    "\"sandbox_hint\":{\"type\":\"string\"},"                                                      \
    "\"denied_execs\":{\"type\":\"array\",\"description\":\"Programs the run-time "                \
    "check refused.\",\"items\":{\"type\":\"object\",\"properties\":{"                             \
    "\"program\":{\"type\":\"string\"},\"path\":{\"type\":\"string\"},"                            \
    "\"reason\":{\"type\":\"string\"}}}},"                                                         \
    "\"network\":{\"type\":\"object\",\"description\":\"With [sandbox.network]: what the "         \
    "filtering proxy carried (sent_bytes, received_bytes, connections) and refused "               \
    "(refused: one line per host).\"}"                                                             \
    "},\"required\":[\"success\",\"is_exited\",\"wall_time\",\"working_directory\","               \
    "\"backend\"]}"

#endif /* VTHOST_SDK_SERVICES_H */
