/* The tool registry: every tool of every loaded plugin, and which of them
 * the model sees (public, expanded) or may discover (deferred). */
#ifndef VTHOST_REGISTRY_H
#define VTHOST_REGISTRY_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>
#include <vthost/plugin.h>

struct plugin_module;
struct typed_tool;

typedef struct tool_entry {
    vt_tool t;                    /* full-size copy of the plugin's entry */
    struct plugin_module *module; /* owning plugin */
    cJSON *schema;                /* parsed schema incl. max_output_tokens */
    struct typed_tool *typed;     /* non-NULL for typed (libffi) tools */
    int is_public;                /* listed by the active profile */
    int is_expanded;              /* listed after a catalog search found it */
    /* ---- dynamic tools (registry_dynamic.c); zero for descriptor tools ---- */
    int dynamic; /* added after init: strings below owned */
    char *own_name, *own_description, *own_schema_text;
    cJSON *annotations;  /* MCP annotations shown as given, or NULL */
    cJSON *shown_schema; /* schema listed when it is beyond the
                                      validator's subset (then `schema` checks
                                      only the object shape), else NULL */
    char *output_text;   /* its output schema (checked at load,
                                      completed when listed), or NULL */
} tool_entry;

/* Lookup by exact name; NULL when unknown.  Entries live until host_close. */
const tool_entry *registry_find(const char *name);
/* Listed now: profile tools in profile order, then expanded ones (with
 * registry_list_all, every other tool not gated out) by name.
 * *out is malloc'd (free it); the entries are borrowed. */
int registry_listed(const tool_entry ***out, size_t *count);
/* Every registered tool, sorted by name (same ownership as above). */
int registry_all(const tool_entry ***out, size_t *count);
/* Callable: listed, or deferred (not gated outside its profile) unless
 * registry_require_search is on. */
int registry_callable(const tool_entry *e);
/* On: a deferred tool is callable only once a catalog search expanded it (the
 * MCP server; the CLI names its tools explicitly and leaves this off). */
void registry_require_search(int on);
/* On: list every tool that is not gated out up front (no deferral), for
 * clients that never re-list after notifications/tools/list_changed.
 * Bumps the epoch when it changes. */
void registry_list_all(int on);
int registry_listing_all(void);
/* Deferred, and not callable until a catalog search finds it. */
int registry_needs_search(const tool_entry *e);
/* Deferred and discoverable (not listed, not gated). */
int registry_is_deferred(const tool_entry *e);
/* Listed now (what tools/list shows). */
int registry_is_listed(const tool_entry *e);
/* Mark deferred tools listed; returns the new epoch in *epoch. */
int registry_expand(const char *const *names, size_t count, uint64_t *epoch);
uint64_t registry_epoch(void);
/* Names of listed tools joined by ", " (malloc'd). */
char *registry_listed_names(void);
/* The closest callable tool name to `name` by edit distance, or NULL. */
const char *registry_suggest(const char *name);

/* Tool description as JSON: {"name","title","description","inputSchema",
 * "outputSchema","annotations"} (title and outputSchema when the tool has
 * them); format "mcp" or "openai". */
cJSON *registry_describe(const tool_entry *e, const char *format);

/* ---- for the loader and host_open ---- */
/* 1 when `name` may name a tool: 1 to 64 of [a-zA-Z0-9_.-] (descriptor
 * tools and dynamic ones alike). */
int registry_name_valid(const char *name);
/* Check and register every tool of a loaded module, all or nothing.
 * On refusal *err (malloc'd) says which tool and why. */
int registry_add_module(struct plugin_module *m, char **err);
/* Re-read descriptions after init: a tool's describe() (ABI 1.7), else
 * the descriptor's text (a plugin before 1.7 may have rewritten it). */
void registry_refresh_descriptions(struct plugin_module *m);
/* Mark the profile's public tools, in order; *err names a missing one. */
int registry_set_public(const char *const *names, size_t count, char **err);
/* Drop a module's tools again (its init failed). */
void registry_remove_module(struct plugin_module *m);
void registry_clear(void);

/* ---- dynamic tools (used by registry_dynamic.c) ---- */
/* Insert `fresh`, or replace the entry of the same name when `fresh->module`
 * owns it (its listed state carries over).  The replaced entry stays
 * allocated until registry_clear: calls in flight may still hold it.
 * *was_listed: the name was listed before.  Bumps the epoch. */
int registry_dyn_put(tool_entry *fresh, int *was_listed);
/* Remove the dynamic tool `name` of module m (kept allocated as above). */
int registry_dyn_drop(const char *name, const struct plugin_module *m, int *was_listed);
/* Free an entry that never made it into the registry. */
void registry_entry_free(tool_entry *e);

#endif
