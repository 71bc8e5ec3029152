/* The permission step: one decision per call, after preflight, before run.
 * The decision is permission.c's; the loading calls are perm_state.c's,
 * the tool declarations perm_tools.c's. */
#ifndef VTHOST_PERMISSION_H
#define VTHOST_PERMISSION_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "call_types.h"
#include "perm_types.h"
#include "registry.h"
#include "subjects.h"

typedef struct perm_request {
    const tool_entry *tool;
    const cJSON *args;
    const char *agent;           /* per-call agent name/path, or NULL */
    const vt_subjects *subjects; /* what the tool's subjects hook reported */
    const frontend *fe;          /* for prompts and sampling; may be NULL */
} perm_request;

/* What the engine knows of each tool besides its name (rules with command
 * patterns, rule aliases) comes from the tools' descriptors: init reads
 * it from the registry, so descriptors are read before init.  A driver or
 * test without plugins declares the tools here instead: `decls` is
 * borrowed until the next call; NULL goes back to the registry. */
void permission_declare_tools(const perm_tool_decl *decls, size_t n);

/* The embedded default agent's allow rules under each approval preset
 * (ask, sandboxed, read-only), from the profile: NULL-terminated lists,
 * borrowed until the next call or permission_fini's caller frees them. */
void permission_set_embedded_policy(const char *const *const lists[3]);

/* Load agent specs and [permissions] from the configuration.  *err is a
 * malloc'd message naming file and line/key on failure. */
int permission_init(const cJSON *config, const char *config_path, const char *default_agent,
                    char **err);
void permission_fini(void);

/* 0 when the call may run; VT_ERR_DENIED with a malloc'd *message saying
 * why and what rule would allow it. */
int permission_check(const perm_request *req, char **message);

/* 1 when a deny rule (global, or the agent's) matches `tool` with one
 * path subject of `kind`; for paths a tool discovers while running. */
int permission_path_denied(const tool_entry *tool, const char *agent, vt_subject_kind kind,
                           const char *path);

/* The decision with its trace: permission_check's stages run dry (no
 * prompt, no sampling, no denial count, no audit record), so the two
 * differ only in side effects.  {"decision": ..., "trace": [...]}. */
int permission_explain(const perm_request *req, cJSON **out);

/* Load agent specs and [permissions] from one trusted configuration
 * (`workspace` is the root rules resolve against); for drivers and tests
 * that run without host_open.  *err is a malloc'd message naming file and
 * line/key on failure. */
int permission_init_with(const cJSON *config, const char *config_path, const char *default_agent,
                         const char *workspace, char **err);

/* The policy's decision for `req` without prompting, reviewing or
 * auditing (perm_eval, see perm_engine.h).  `ev` is freed by the caller
 * with perm_eval_free whatever the result; *err is malloc'd on failure. */
struct perm_eval;
int permission_evaluate(const perm_request *req, struct perm_eval *ev, char **err);

/* One configuration layer, lowest precedence first: "user", "workspace",
 * "config" (the --config file). */
typedef struct perm_layer {
    const char *name;
    const char *path; /* the file, for messages and traces */
    const cJSON *tree;
    int trusted; /* its allow rules and auto settings apply */
} perm_layer;

/* Load every layer: deny and ask rules of all are in force; allow rules,
 * non_interactive = "allow" and [permissions.auto] only from trusted
 * layers.  `workspace_trusted` also decides whether the workspace's agent
 * specs may grant; `trust_reason` (static) is shown by explain. */
int permission_init_layers(const perm_layer *layers, size_t n, const char *default_agent,
                           const char *workspace, int workspace_trusted, const char *trust_reason,
                           char **err);

/* Once plugins are loaded: every rule's tool is an installed tool, an
 * alias, an mcp__ pattern or WebFetch(domain:...).  *err names file, line
 * and the closest valid spelling.  Per-call agents are checked on load
 * from then on. */
int permission_validate_tools(char **err);
/* Tools of modules the profile leaves closed are still real tools: a rule
 * naming one of the `n` `names` (their tool names and rule aliases;
 * borrowed) is valid.  Set before permission_validate_tools; n = 0
 * clears it. */
void permission_set_closed_tools(char *const *names, size_t n);

/* One line for the log when an untrusted workspace's allow rules or
 * settings are ignored (malloc'd), or NULL. */
char *permission_untrusted_note(void);

/* The protected policy paths (each as written and resolved), ended by
 * NULL; borrowed until permission_fini. */
const char *const *permission_policy_paths(void);

/* --approval PRESET (ask, sandboxed, read-only), applied over the
 * configuration's [permissions] approval at the next init; NULL clears.
 * VT_ERR_INVALID for an unknown preset. */
int permission_set_approval(const char *preset);
/* The active preset's name ("ask" until init). */
const char *permission_approval(void);

/* Zero the auto-review denial counters (consecutive and total). */
void permission_reset_counters(void);

#endif
