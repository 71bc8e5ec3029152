/*
 * vthost/plugin.h — the one header a vthost plugin includes.
 *
 * A plugin is a shared object that exports one function, vt_plugin_v1(),
 * returning a constant descriptor (vt_plugin).  The host reads and checks
 * the descriptor before it runs any other plugin code, then calls
 * init() with the host API table (vt_host_api), through which the plugin
 * reaches every host service.
 *
 * Memory rules, everywhere in this header:
 *   - Anything the host passes INTO a hook (arguments, the call handle,
 *     strings) is borrowed: valid until the hook returns, never freed by
 *     the plugin.
 *   - Anything a host function hands OUT as `char *` or `void *` is owned
 *     by the caller and released with api->free().  cJSON trees handed out
 *     are released with cJSON_Delete() (host and plugins share the
 *     system libcjson).
 *   - Anything a plugin hands to the host through an out-parameter
 *     (`cJSON **result`, `char **errmsg`) becomes the host's: allocate it
 *     with cJSON or api->alloc()/api->strdup(), never free it yourself.
 *   - The descriptor, its tools array and every string in them are
 *     static data of the plugin and must stay valid until fini() returns.
 *
 * Errors: functions return 0 (VT_OK) or a negative vt_status.
 *
 * ABI: the major version is in the entry symbol's name.  Within a major,
 * structs only grow at the end; the host accepts a plugin built against
 * an older minor, refuses a newer minor, and accepts a larger descriptor
 * only when the extra tail is all zero.  Test for host table members newer
 * than the minor you built against with VT_HAS(api, member).
 */
#ifndef VTHOST_PLUGIN_H
#define VTHOST_PLUGIN_H

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VT_ABI_MAJOR 1
#define VT_ABI_MINOR 13

#if defined(__GNUC__)
#define VT_EXPORT __attribute__((visibility("default")))
#define VT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define VT_EXPORT
#define VT_PRINTF(a, b)
#endif

/* Status codes: 0 or negative. */
typedef enum vt_status {
    VT_OK = 0,
    VT_ERR_INVALID = -1,   /* bad arguments or input */
    VT_ERR_NOT_FOUND = -2, /* no such file, session, tool, service */
    VT_ERR_DENIED = -3,    /* refused by policy or permissions */
    VT_ERR_IO = -4,        /* an operating-system call failed */
    VT_ERR_NOMEM = -5,
    VT_ERR_EXISTS = -6,  /* target already exists */
    VT_ERR_OUTSIDE = -7, /* path resolves outside the workspace */
    VT_ERR_UNSUPPORTED = -8,
    VT_ERR_BUSY = -9,       /* limit reached, try later */
    VT_ERR_CANCELLED = -10, /* the client cancelled the call */
    VT_ERR_INTERNAL = -11
} vt_status;

/* What a tool does, declared once; drives MCP annotations, the
 * permission engine's fixed exceptions and anti-blind-editing. */
enum vt_effect {
    VT_EFFECT_READ_ONLY = 1u << 0,
    VT_EFFECT_MUTATES_WORKSPACE = 1u << 1,
    VT_EFFECT_EXECUTES = 1u << 2,
    VT_EFFECT_NETWORK = 1u << 3,
    VT_EFFECT_IDEMPOTENT = 1u << 4
};

enum vt_tool_flag {
    /* Not listed until search_tools finds it.  Tools of plugins outside
     * the active profile are deferred whatever this flag says. */
    VT_TOOL_DEFERRED = 1u << 0,
    /* Callable only when a profile lists it publicly (code_search). */
    VT_TOOL_PROFILE_GATED = 1u << 1,
    /* Added in 1.2.  The tool runs command text: permission rules on it
     * take command patterns (`tool(git push *)`, matched against the
     * commands its subjects hook reports), and a rule granting the tool
     * outright counts as broad (see drop_broad_allow_rules).  Rules on
     * other tools take path patterns. */
    VT_TOOL_COMMAND_RULES = 1u << 2
};

enum vt_log_level {
    VT_LOG_DEBUG = 0,
    VT_LOG_INFO = 1,
    VT_LOG_NOTICE = 2,
    VT_LOG_WARNING = 3,
    VT_LOG_ERROR = 4
};

/* What a call would touch, as reported by a tool's subjects hook. */
typedef enum vt_subject_kind {
    VT_SUBJECT_COMMAND = 1, /* one simple command, normalised text */
    VT_SUBJECT_OPAQUE = 2,  /* a command the hook could not see into */
    VT_SUBJECT_PATH_READ = 3,
    VT_SUBJECT_PATH_EDIT = 4, /* modified in place, or a redirect target */
    VT_SUBJECT_PATH_CREATE = 5,
    VT_SUBJECT_PATH_DELETE = 6,
    VT_SUBJECT_DOMAIN = 7,     /* network host name */
    VT_SUBJECT_CWD = 8,        /* directory relative subjects start from */
    VT_SUBJECT_ESCALATION = 9, /* asks to run outside the sandbox; value
                                  is the justification */
    /* ---- added in 1.3: MCP tool calls ---- */
    /* The call is a tools/call to another MCP server: the server's name
     * (VT_SUBJECT_MCP_SERVER) and the tool's own name on that server
     * (VT_SUBJECT_MCP_TOOL), as the server spells them.  Reported
     * together; the auto reviewer is then given the call as an MCP
     * request (kind "mcp_tool_call": server, tool, arguments).  A 1.2
     * host refuses them (subject_add returns VT_ERR_INVALID). */
    VT_SUBJECT_MCP_SERVER = 10,
    VT_SUBJECT_MCP_TOOL = 11
} vt_subject_kind;

/* ---- added in 1.3: what the client accepts (client_capabilities) ---- */
enum vt_client_capability {
    VT_CLIENT_ELICITATION = 1u << 0,     /* elicitation/create, form mode */
    VT_CLIENT_ELICITATION_URL = 1u << 1, /* elicitation/create, url mode */
    VT_CLIENT_SAMPLING = 1u << 2,        /* sampling/createMessage */
    VT_CLIENT_ROOTS = 1u << 3,           /* roots/list */
    /* Only with call == NULL: an MCP client is being served but has not
     * sent initialize yet, so what it accepts is not known. */
    VT_CLIENT_PENDING = 1u << 8
};

/* Notes a plugin leaves for the host's guards (anti-blind-editing). */
typedef enum vt_note_kind {
    /* The call changed `value` workspace files (value > 0). */
    VT_NOTE_MUTATION = 1,
    /* A command finished: detail = command text, value = exit code. */
    VT_NOTE_COMMAND_EXIT = 2,
    /* ---- added in 1.2: the programs a finished command ran ---- */
    /* A command finished; value = exit code (128+N: ended by signal N);
     * detail = a JSON object (text, borrowed):
     *   "command":  the command text,
     *   "programs": [[argv0, arg1, ...], ...] the programs its own shell
     *               (or a subshell) executed, in order, argv0 the name
     *               rules match; absent when nothing watched the execs,
     *   "complete": false when more programs ran than are listed,
     *   "refused":  the number of execs the run-time checks refused.
     * Sent instead of VT_NOTE_COMMAND_EXIT by plugins that watch what
     * their commands execute; the guard judges verification from it.
     * Since 1.11 a plugin reports this with api->command_ran() and a
     * vt_command_ran struct instead; the text form is still read for
     * plugins built before 1.11, and tools/check_calls.sh refuses it in
     * the tree. */
    VT_NOTE_COMMAND_RAN = 3
} vt_note_kind;

/* Flags for vt_host_api.resolve_path. */
enum vt_resolve_flag {
    VT_RESOLVE_MUST_EXIST = 1u << 0,  /* the target must exist */
    VT_RESOLVE_NO_SYMLINKS = 1u << 1, /* refuse any symlink on the way */
    VT_RESOLVE_DIRECTORY = 1u << 2    /* the target must be a directory */
};

/*
 * What a finished command ran (added in 1.11), for api->command_ran():
 * the guard judges from it whether the command was a verification run.
 * Every pointer is borrowed for the duration of the call.  Grows only at
 * the end; the host reads no member beyond the sender's struct_size.
 */
typedef struct vt_command_ran {
    uint32_t struct_size; /* sizeof(vt_command_ran) of the sender */
    const char *command;  /* the command text */
    long exit_code;       /* 128+N: ended by signal N */
    /* The programs the command's own shell (or a subshell) executed, in
     * order: each an argv array ended by NULL, argv[0] the name rules
     * match; the list itself ends with NULL.  NULL when nothing watched
     * the execs: the guard then reads the command text alone. */
    const char *const *const *programs;
    int complete;   /* 0: more programs ran than are listed */
    size_t refused; /* execs the run-time checks refused */
} vt_command_ran;

typedef struct vt_call vt_call;         /* one tool call (opaque) */
typedef struct vt_subjects vt_subjects; /* subject sink (opaque) */
typedef struct vt_spool vt_spool;       /* output spool (opaque) */
typedef struct vt_host_api vt_host_api;
/* A symbol api->open_library looks up (added in 1.4): its name, and where
 * its address goes. */
typedef struct vt_library_symbol {
    const char *name;
    void **slot;
} vt_library_symbol;

/*
 * A growing string (added in 1.2), filled with api->strbuf_append() and
 * api->strbuf_printf().  Start from VT_STRBUF_INIT (all zero).  `data`
 * is NUL-terminated when not NULL and owned by the builder until
 * api->strbuf_take(); read it, never free or realloc it yourself.
 */
typedef struct vt_strbuf {
    char *data;
    size_t len; /* bytes in data, without the NUL */
    size_t cap; /* bytes allocated */
    int failed; /* an allocation failed: the contents are incomplete */
} vt_strbuf;
#define VT_STRBUF_INIT                                                                             \
    {                                                                                              \
        NULL, 0, 0, 0                                                                              \
    }

/*
 * Run-time command enforcement (added in 1.1).  A plugin that watches
 * the programs a command executes (the exec plugin's supervisor traps
 * every execve) asks the permission policy about each one through a
 * vt_exec_policy obtained from api->exec_policy().
 */
typedef struct vt_exec_program {
    uint32_t struct_size; /* sizeof(vt_exec_program) */
    /* The name rules match: the base name of the executable (or its path
     * when it lies where the command can write).  Borrowed. */
    const char *name;
    /* Absolute path of the executable as the process named it.  Borrowed. */
    const char *path;
    /* argv[1..] as passed to execve; NULL-terminated.  Borrowed. */
    const char *const *args;
    /* 1: the command text's own shell (or a subshell of it) runs this
     * program, so allow/ask rules apply; 0: a program started by an
     * already approved program runs it, so only deny rules apply. */
    int by_shell;
} vt_exec_program;

typedef struct vt_exec_policy vt_exec_policy;
struct vt_exec_policy {
    uint32_t struct_size; /* sizeof(vt_exec_policy) of the host */
    /* 0 when `prog` may run, VT_ERR_DENIED when it may not; *reason
     * (allocated, free with api->free(); may be NULL) says why.  `live`
     * is a call of the same client in progress through which the user
     * can be asked, or NULL (then what needs asking is refused).
     * Thread-safe: may be called from any thread, concurrently. */
    int (*decide)(vt_exec_policy *self, vt_call *live, const vt_exec_program *prog, char **reason);
    /* Release the policy; no decide() may be running or follow. */
    void (*release)(vt_exec_policy *self);
    /* ---- added in 1.4 (test struct_size) ---- */
    /* The programs the call's deny rules refuse whatever their arguments
     * (`rm`, `rm *`, `Bash(rm:*)`), as base names, NULL-terminated, or
     * NULL.  A sandbox can make them unrunnable for the whole session
     * (no race with the per-execve decide()).  Borrowed: valid until
     * release(). */
    const char *const *denied_programs;
    /* ---- added in 1.12 (test struct_size) ---- */
    /* 0 when a sandboxed command of the call may reach network host
     * `host` through the sandbox's filtering proxy, VT_ERR_DENIED when it
     * may not; *reason (allocated, free with api->free(); may be NULL)
     * says why.  `listed`: the sandbox's allowed_domains names it.  A deny
     * rule on the domain (WebFetch(domain:HOST) or the tool's own) refuses
     * it even when listed; an allow rule on the domain admits it even when
     * not; an unlisted domain that the policy would ask about is asked
     * through `live` (a call of the same client in progress, or NULL: then
     * refused).  Every refusal is audited.  Thread-safe. */
    int (*decide_domain)(vt_exec_policy *self, vt_call *live, const char *host, int listed,
                         char **reason);
};

/*
 * A tool.  Arrays of tools end with an all-zero entry.  The host steps
 * through the array with the descriptor's sizeof_tool, so a plugin built
 * against an older, smaller vt_tool stays readable.
 */
typedef struct vt_tool {
    const char *name;        /* [a-zA-Z0-9_.-], unique across plugins */
    const char *description; /* shown to the model */
    /* JSON Schema text of the arguments (type object).  The host adds
     * max_output_tokens.  NULL for a typed tool (see signature). */
    const char *input_schema;
    uint32_t effects; /* enum vt_effect bits */
    uint32_t flags;   /* enum vt_tool_flag bits */

    /* Optional.  Pure validation beyond the schema: no I/O, no side
     * effects.  Return 0, or report with api->call_error() and return
     * its result (VT_ERR_INVALID). */
    int (*preflight)(vt_call *call, const cJSON *args);

    /* Optional.  The permission hook: report every command, path and
     * domain the call would touch with api->subject_add().  Must not
     * touch the filesystem beyond reading it. */
    int (*subjects)(vt_call *call, const cJSON *args, vt_subjects *out);

    /* Required unless typed.  Runs the tool.  On success store a new
     * cJSON object in *result (the host takes it) and return 0.  On
     * failure return api->call_error(...).  A tool whose output is large
     * writes it to api->spool_open(call) instead of putting it in the
     * result: the host fills "output" from the spool under the budget. */
    int (*run)(vt_call *call, const cJSON *args, cJSON **result);

    /* Typed tool (see docs/sdk.md): a C signature such as
     * "int64 word_count(string path, bool unique)" and the function it
     * describes.  The host derives the schema and calls fn via libffi.
     * Leave both NULL for a JSON tool. */
    const char *signature;
    void (*typed_fn)(void);

    /* ---- added in 1.2: title and output schema ---- */
    /* Optional.  A short human-readable name ("Run a shell command"),
     * shown by clients as the tool's title.  NULL: none. */
    const char *title;
    /* Optional.  JSON Schema text (type object) of the result object the
     * run hook returns on success: its "properties" and "required".  The
     * host adds the fields it sets itself (output budget, warnings) and
     * the shape of a failed call ({"success": false, "error": ...}), and
     * lists the result as MCP outputSchema.  NULL: no output schema
     * (typed tools get one derived from their return type). */
    const char *output_schema;
    /* ---- added in 1.2: permission rule names ---- */
    /* Other names permission rules may give this tool (e.g. "bash" for a
     * command tool, so rules written for other agents read the same),
     * NULL-terminated, or NULL.  Static data, like the name.  An alias
     * already claimed by another tool is refused at load. */
    const char *const *rule_aliases;
    /* ---- added in 1.3: whole-response output budget ---- */
    /* Optional, for a tool whose result is structured rather than one
     * "output" text.  When the result's JSON text (cJSON_Print) is longer
     * than max_output_tokens (4 bytes a token) and run wrote nothing to
     * the spool itself, the host writes that text whole to the call's
     * spool and keeps only the top-level members named here (small ones
     * the model needs to go on); "output" then holds the spool's head and
     * tail, with "truncated", "original_token_count" and "spool_path".
     * NULL-terminated static data, like the name; NULL: not applied. */
    const char *const *budget_keep;
    /* ---- added in 1.7: a description that depends on init ---- */
    /* Optional.  The description to show when it depends on what init
     * read (the configured shell, say): called once after init succeeds,
     * on the loading thread; returns static data of the plugin, valid
     * until fini, or NULL to keep `description`.  The descriptor itself
     * stays constant: never rewrite it.  Not used by api->tool_add (a
     * dynamic tool passes its description there). */
    const char *(*describe)(const char *tool);
} vt_tool;

/* The constant descriptor returned by vt_plugin_v1(). */
typedef struct vt_plugin {
    uint32_t struct_size; /* sizeof(vt_plugin) the plugin was built with */
    uint32_t sizeof_tool; /* sizeof(vt_tool) the plugin was built with */
    uint16_t abi_major;   /* VT_ABI_MAJOR */
    uint16_t abi_minor;   /* VT_ABI_MINOR */
    const char *name;     /* module name, e.g. "exec" */
    const char *version;  /* plugin's own version string */
    const char *license;  /* SPDX identifier */
    /* NULL-terminated list, or NULL.  "NAME" needs plugin NAME loaded
     * first; "service:NAME" needs a service published by then. */
    const char *const *requires;
    const vt_tool *tools; /* ended by an all-zero entry */
    /* Optional.  Called once after the checks pass.  On failure return a
     * negative status and set *errmsg to a message allocated with
     * api->strdup() (or leave it NULL): VT_ERR_INVALID when the settings
     * it read from api->config() are wrong (the CLI then exits 2, a
     * configuration mistake), another status when the system fails it
     * (exit 1).  `api` stays valid until fini. */
    int (*init)(const vt_host_api *api, char **errmsg);
    /* Optional.  Called once at host exit, in reverse load order. */
    void (*fini)(void);

    /* ---- added in 1.2: API pointer and cJSON version ---- */
    /* Optional.  Where the host stores its API table before init (and
     * before any other hook runs): point it at the variable declared with
     * VT_PLUGIN_API.  With it, init is needed only for real set-up work.
     * The stored pointer stays valid until fini returns. */
    const vt_host_api **api_slot;
    /* The cJSON the plugin was compiled against (VT_CJSON_VERSION, set by
     * VT_PLUGIN_HEADER).  Host and plugin exchange cJSON trees, so the
     * host refuses a plugin built against another cJSON major; 0 (a
     * plugin older than 1.2) is not checked. */
    uint32_t cjson_version;
} vt_plugin;

/* A cJSON version as recorded in vt_plugin.cjson_version (added in 1.2). */
#define VT_CJSON_VERSION_OF(major, minor, patch)                                                   \
    ((uint32_t)(major) << 16 | (uint32_t)(minor) << 8 | (uint32_t)(patch))
#define VT_CJSON_VERSION                                                                           \
    VT_CJSON_VERSION_OF(CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR, CJSON_VERSION_PATCH)

/* Initialise a descriptor's header fields (the cJSON version since 1.2). */
#define VT_PLUGIN_HEADER                                                                           \
    .struct_size = sizeof(vt_plugin), .sizeof_tool = sizeof(vt_tool), .abi_major = VT_ABI_MAJOR,   \
    .abi_minor = VT_ABI_MINOR, .cjson_version = VT_CJSON_VERSION

/*
 * The plugin's API pointer, SQLite-style (added in 1.2).  Declare it once
 * and name it in the descriptor; the host fills it before init:
 *
 *     static VT_PLUGIN_API(api);
 *     static const vt_plugin desc = { VT_PLUGIN_HEADER, .api_slot = &api,
 *                                     ... };
 *
 * Drop `static` to share it between the plugin's files (declare it
 * `extern const vt_host_api *api;` in a private header).
 */
#define VT_PLUGIN_API(var) const vt_host_api *var = NULL

/* The entry symbol.  Define it with VT_PLUGIN_ENTRY. */
typedef const vt_plugin *(*vt_plugin_entry_fn)(void);
#define VT_PLUGIN_ENTRY_SYMBOL "vt_plugin_v1"
#define VT_PLUGIN_ENTRY(desc)                                                                      \
    VT_EXPORT const vt_plugin *vt_plugin_v1(void) { return &(desc); }

/*
 * The host API table.  Append-only: new members go at the end and bump
 * VT_ABI_MINOR.  Test for a member newer than your build's minor with
 * VT_HAS(api, member) before calling it.
 */
struct vt_host_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;

    /* ---- memory: what the host hands out is released with api->free() ---- */
    void *(*alloc)(size_t size);
    void (*free)(void *ptr);
    char *(*strdup)(const char *s);

    /* ---- logging (stderr, or MCP notifications/message) ---- */
    void (*log)(int level, const char *plugin, const char *fmt, ...) VT_PRINTF(3, 4);

    /* ---- calls ---- */
    /* Record the call's error message and return `status` (negative).
     * The host reports it to the model as a failed call. */
    int (*call_error)(vt_call *call, int status, const char *fmt, ...) VT_PRINTF(3, 4);
    /* Host-wide unique id of the call (> 0). */
    uint64_t (*call_id)(const vt_call *call);
    /* The tool name the call was made with.  Borrowed. */
    const char *(*call_tool)(const vt_call *call);
    /* Non-zero once the client cancelled the call; long runs poll it. */
    int (*call_cancelled)(const vt_call *call);
    /* Report progress of a long call (progress grows; message may be
     * NULL).  A no-op when the client asked for none. */
    void (*call_progress)(vt_call *call, double progress, double total, const char *message);
    /* Add a warning string to the call's result ("warnings" array). */
    void (*call_warn)(vt_call *call, const char *fmt, ...) VT_PRINTF(2, 3);

    /* ---- workspace ---- */
    /* Absolute, canonical workspace root.  Borrowed, valid until fini. */
    const char *(*workspace_root)(void);
    /* Resolve `path` (relative to the workspace root, or absolute) to a
     * canonical absolute path inside the workspace.  Returns
     * VT_ERR_OUTSIDE when it (or, with VT_RESOLVE_NO_SYMLINKS, any
     * symlink on the way) leaves the workspace.  *out is allocated;
     * free with api->free(). */
    int (*resolve_path)(const char *path, unsigned flags, char **out);
    /* The host's configuration (vtcode.toml as a cJSON tree), or an
     * empty object.  Borrowed, valid until fini; never modify it. */
    const cJSON *(*config)(void);

    /* ---- output spool ---- */
    /* The call's spool, created on first use; owned by the host, which
     * closes it after run returns.  Everything written is kept
     * (streamed to .vtcode/context/tool_outputs/ when it outgrows the
     * budget) and the host sets the result's "output", "truncated",
     * "original_token_count" and "spool_path" from it.  Memory stays
     * bounded however much is written. */
    vt_spool *(*spool_open)(vt_call *call);
    int (*spool_write)(vt_spool *spool, const void *buf, size_t len);

    /* ---- named services ---- */
    /* Publish `iface` under `name` (unique).  The pointer is borrowed
     * and must stay valid until the publisher's fini. */
    int (*service_publish)(const char *name, void *iface);
    /* The interface published under `name`, or NULL.  Borrowed. */
    void *(*service_lookup)(const char *name);

    /* ---- permission subjects ---- */
    /* Add a subject; `value` is copied. */
    int (*subject_add)(vt_subjects *out, vt_subject_kind kind, const char *value);

    /* ---- guard notes ---- */
    void (*note)(vt_call *call, vt_note_kind kind, const char *detail, long value);

    /* ---- deferred tool catalog (used by search_tools) ---- */
    /* A new JSON array of the tools the model may discover or already
     * sees: [{"name","listed","description","input_schema":{...}}],
     * sorted by name; "listed" is true for tools listed already (the
     * profile's, found ones, or all with `serve --catalog full`) and
     * false for deferred ones.  The caller frees it with cJSON_Delete(). */
    cJSON *(*catalog_list)(void);
    /* Make the named deferred tools listed from the next request on.
     * Unknown names are skipped.  *epoch receives the catalog epoch
     * after expansion (it changes whenever the listed set changes). */
    int (*catalog_expand)(const char *const *names, size_t count, uint64_t *epoch);
    /* The current catalog epoch. */
    uint64_t (*catalog_epoch)(void);

    /* ---- paths found while running ---- */
    /* 1 when a deny rule of the permission policy (global, or the call's
     * agent's) refuses this call's tool `kind` access to `path`
     * (workspace-relative or absolute), else 0.  The subjects hook names
     * what a call asks for; a tool that discovers more paths while it
     * runs (a search walking a directory) checks each here and skips the
     * denied ones, so a deny rule on a subtree holds inside a wider
     * search.  Thread-safe. */
    int (*path_denied)(vt_call *call, vt_subject_kind kind, const char *path);

    /* ---- added in 1.1: run-time command enforcement ---- */
    /* The policy for the programs call `call` (a command-running tool
     * whose permission check passed, from inside its run hook) starts:
     * it remembers the call's tool, agent and whether a person or the
     * reviewer approved the call (that approval covers the programs the
     * command text runs itself).  It stays valid after the call returns
     * (a command may outlive it); *out is owned by the caller and freed
     * with (*out)->release().  Thread-safe. */
    int (*exec_policy)(vt_call *call, vt_exec_policy **out);

    /* ---- added in 1.2: dynamic tools ---- */
    /* Add a tool after init (from init on, any thread), or replace one
     * this plugin added earlier under the same name.  `plugin` is the
     * caller's module name (its file name without .so).  The host copies
     * name, description, input_schema, effects and flags (read through
     * `sizeof_tool`, the caller's sizeof(vt_tool)); the hooks are the
     * plugin's code and must stay valid until its fini.  One run hook may
     * serve many tools: api->call_tool(call) names the one called.
     * `annotations_json` (may be NULL) is a JSON object shown as the
     * tool's MCP annotations instead of those derived from `effects`;
     * copied.  A schema beyond the host's validator subset is still
     * listed as given; the host then checks only that the arguments are
     * an object and the tool's own run hook must validate the rest.
     * The tool is deferred unless a profile lists it.  The catalog epoch
     * changes, and when the name was listed the MCP client is sent
     * notifications/tools/list_changed.  Returns VT_ERR_EXISTS when
     * another plugin (or a descriptor) owns the name, VT_ERR_INVALID for
     * a bad name or schema.  Thread-safe. */
    int (*tool_add)(const char *plugin, const vt_tool *tool, size_t sizeof_tool,
                    const char *annotations_json);
    /* Remove a tool this plugin added.  Calls already running keep a
     * valid tool (the host frees removed tools only at exit).
     * Thread-safe. */
    int (*tool_remove)(const char *plugin, const char *name);
    /* Register `fn`, called when the host needs the plugin's tools now:
     * with tool == NULL before the deferred catalog is searched, with a
     * name when a call names a tool nobody registered (yet).  `fn` runs
     * on the caller's thread with no host lock held, may call tool_add,
     * and should return within a bounded time (a lazily started source
     * waits for its tools there).  `ud` is borrowed until fini. */
    int (*catalog_on_demand)(const char *plugin, void (*fn)(void *ud, const char *tool), void *ud);
    /* ---- added in 1.2: one-shot front ends ---- */
    /* Non-zero when nothing started by `call` can outlive it: the front
     * end exits after this one call (`vthost call`).  A tool that would
     * leave work running past its answer (a command session) runs it to
     * completion instead, polling call_cancelled(), which turns non-zero
     * on the front end's timeout or interrupt. */
    int (*call_one_shot)(const vt_call *call);
    /* ---- added in 1.2: strings ---- */
    /* printf to a new string (free with api->free()); NULL when out of
     * memory. */
    char *(*format)(const char *fmt, ...)VT_PRINTF(1, 2);
    char *(*vformat)(const char *fmt, va_list ap)VT_PRINTF(1, 0);
    /* Append `len` bytes of `s` (borrowed) to `b`.  VT_ERR_NOMEM marks
     * the builder failed: later appends are no-ops and strbuf_take gives
     * NULL, so a sequence of appends needs one check at the end. */
    int (*strbuf_append)(vt_strbuf *b, const char *s, size_t len);
    /* Append printf output to `b`; errors as strbuf_append. */
    int (*strbuf_printf)(vt_strbuf *b, const char *fmt, ...) VT_PRINTF(2, 3);
    /* The built string, handed to the caller (free with api->free()); an
     * empty builder gives "".  NULL after a failure.  `b` is left empty
     * and reusable either way. */
    char *(*strbuf_take)(vt_strbuf *b);
    /* Free what `b` holds and leave it empty. */
    void (*strbuf_reset)(vt_strbuf *b);
    /* ---- added in 1.3: requests to the client ---- */
    /* What the client of `call` accepts: VT_CLIENT_* bits, as it declared
     * them at initialize.  With call == NULL: the MCP client `vthost
     * serve` serves (VT_CLIENT_PENDING until it has initialized).  0 when
     * no client can be asked: the CLI (`vthost call`, `vthost mcp`),
     * other one-shot front ends, or a client that declared nothing.
     * Thread-safe. */
    unsigned (*client_capabilities)(const vt_call *call);
    /* Send the request `method` with `params` (a JSON object or NULL;
     * borrowed, copied) to the client of `call` and wait for its answer,
     * on the calling thread, from inside the call's run hook (or a
     * thread it waits for) while the call runs.  Methods: the requests
     * MCP lets a server send its client: "elicitation/create" (form, or
     * url with params "mode": "url"), "sampling/createMessage",
     * "roots/list", "ping"; each needs the client's capability.
     * The wait ends with the client's answer, after timeout_ms (> 0;
     * 0 or less: no limit of its own), or when the call is cancelled or
     * the server stops; a request given up is withdrawn from the client
     * with notifications/cancelled.
     * Returns 0 and *result (the JSON-RPC "result" object), or a
     * negative status and *error, a JSON-RPC error object {"code",
     * "message"[, "data"]} ready to be passed on as it is:
     *   VT_ERR_IO          the client answered with this error;
     *   VT_ERR_UNSUPPORTED no client can answer `method`: the client did
     *                      not declare the capability, or the front end
     *                      has no client (the CLI, one-shot commands);
     *   VT_ERR_CANCELLED   the call was cancelled (or vthost is stopping);
     *   VT_ERR_BUSY        timeout_ms passed without an answer;
     *   VT_ERR_INVALID     an unknown method, or params not an object.
     * *result and *error are new trees owned by the caller (cJSON_Delete);
     * the one not set is NULL.  Thread-safe: several calls (and several
     * threads of one call) may wait at once. */
    int (*client_request)(vt_call *call, const char *method, const cJSON *params, int timeout_ms,
                          cJSON **result, cJSON **error);
    /* ---- added in 1.3: policy files ---- */
    /* The policy files and directories no tool call may change without
     * an approval naming them (the workspace's vtcode.toml and .vtcode/,
     * the user's vtcode directory, the --config file): absolute paths,
     * each as written and as resolved, ended by NULL.  A command sandbox
     * mounts the existing ones read-only.  Borrowed, valid until fini. */
    const char *const *(*policy_paths)(void);
    /* ---- added in 1.4: libraries opened on first use ---- */
    /* Open the shared library `soname` (for example "libseccomp.so.2";
     * RTLD_NOW | RTLD_LOCAL, never closed) and store the address of each
     * symbol of `syms` (an array ended by an entry with a NULL name;
     * borrowed) in its slot.  For a dependency most starts never need:
     * linked, it is mapped and relocated at every start; opened here, only
     * by the first use.  Call it once (pthread_once), from the process
     * itself, never from a forked child.  Returns 0, or VT_ERR_UNSUPPORTED
     * with every slot NULL and *err (free with api->free()) naming the
     * library and what failed.  A package that opens a library this way
     * must depend on it by name: its binaries do not show it. */
    int (*open_library)(const char *soname, const struct vt_library_symbol *syms, char **err);
    /* ---- added in 1.5: client sessions ---- */
    /* The client session `call` belongs to: 0 for the one client of
     * `vthost serve` on stdio and for the CLI; a number of its own for
     * each session of `vthost serve --http`, which serves many clients at
     * once.  State a tool keeps between calls (a command session) is
     * served only to calls of the client session that made it.
     * Thread-safe. */
    uint64_t (*call_client_id)(const vt_call *call);

    /* ---- added in 1.6 ---- */
    /* Non-zero while `call` is only being explained (`vthost explain`):
     * the subjects hook runs to show the permission decision, and the
     * call will not run.  A hook that refuses what the run would refuse
     * anyway (before the user is asked) may skip that refusal here, so
     * the decision itself stays visible. */
    int (*call_explaining)(const vt_call *call);

    /* ---- added in 1.7 ---- */
    /* The shell profile commands run under: the host's reading of
     * [agent] shell_prompt_profile, "auto" resolved for this platform:
     * "unix_like" or "powershell" (static, never freed).  The host has
     * refused any other value before a plugin's init. */
    const char *(*shell_profile)(void);

    /* ---- added in 1.9 ---- */
    /* Like call_warn, for a warning about the machine or the setup rather
     * than about this call (a limit the machine cannot enforce): each
     * client session is given the same text once, not in every result.
     * What a call did or left behind always goes through call_warn. */
    void (*call_warn_once)(vt_call *call, const char *fmt, ...) VT_PRINTF(2, 3);

    /* ---- added in 1.11 ---- */
    /* A command `call` started finished: what it ran (`ran` borrowed).
     * Replaces VT_NOTE_COMMAND_RAN's JSON text; a plugin that cannot say
     * which programs ran sets programs to NULL.  Thread-safe. */
    void (*command_ran)(vt_call *call, const vt_command_ran *ran);
};

#define VT_HAS(api, member)                                                                        \
    ((api) != NULL &&                                                                              \
     (api)->struct_size >= offsetof(vt_host_api, member) + sizeof((api)->member) &&                \
     (api)->member != NULL)

#ifdef __cplusplus
}
#endif

/* The versioned service contracts (vt_reviewer_v1, vt_splitter_v1, ...):
 * included here so that a plugin written against plugin.h alone keeps
 * compiling; include <vthost/services.h> to name them explicitly. */
#include <vthost/services.h>

#endif /* VTHOST_PLUGIN_H */
