/* The permission step: one decision per call, after preflight, before run. */
#ifndef VTHOST_PERMISSION_H
#define VTHOST_PERMISSION_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "pipeline.h"
#include "registry.h"
#include "subjects.h"

typedef struct perm_request {
    const tool_entry *tool;
    const cJSON *args;
    const char *agent;            /* per-call agent name/path, or NULL */
    const vt_subjects *subjects;  /* what the tool's subjects hook reported */
    const frontend *fe;           /* for prompts and sampling; may be NULL */
} perm_request;

/* Load agent specs and [permissions] from the configuration.  *err is a
 * malloc'd message naming file and line/key on failure. */
int permission_init(const cJSON *config, const char *config_path,
                    const char *default_agent, char **err);
void permission_fini(void);

/* 0 when the call may run; VT_ERR_DENIED with a malloc'd *message saying
 * why and what rule would allow it. */
int permission_check(const perm_request *req, char **message);

/* 1 when a deny rule (global, or the agent's) matches `tool` with one
 * path subject of `kind`; for paths a tool discovers while running. */
int permission_path_denied(const tool_entry *tool, const char *agent,
                           vt_subject_kind kind, const char *path);

/* The decision with its trace, without prompting or reviewing side
 * effects on counters: {"decision": ..., "trace": [...]}. */
int permission_explain(const perm_request *req, cJSON **out);

/* permission_init with an explicit workspace root (the host passes
 * host_workspace()); for drivers and tests that run without host_open. */
int permission_init_with(const cJSON *config, const char *config_path,
                         const char *default_agent, const char *workspace, char **err);

/* The policy's decision for `req` without prompting, reviewing or
 * auditing (perm_eval, see perm_engine.h).  `ev` is freed by the caller
 * with perm_eval_free whatever the result; *err is malloc'd on failure. */
struct perm_eval;
int permission_evaluate(const perm_request *req, struct perm_eval *ev, char **err);

/* Zero the auto-review denial counters (consecutive and total). */
void permission_reset_counters(void);

#endif
