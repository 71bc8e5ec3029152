/* The reviewer pipeline behind `auto` decisions:
 *   (a) fixed exceptions needing no review (read-only tools; edits inside
 *       the workspace to non-protected paths),
 *   (b) a reviewer: the "permissions.reviewer" service (vt_reviewer_v1),
 *       else the [permissions.auto] command, else the client's model
 *       through sampling,
 *   (c) nobody to ask: the request asks.
 * Counters and the fallback after repeated denials are the caller's. */
#ifndef VTHOST_PERM_REVIEW_H
#define VTHOST_PERM_REVIEW_H

#include <cjson/cJSON.h>
#include "call_types.h"
#include "perm_engine.h"

enum { PREVIEW_BLOCK = 0, PREVIEW_ALLOW = 1, PREVIEW_ASK = -1 };

typedef struct perm_review {
    const char *stage; /* "exception", "reviewer", "command", "probe", "sampling", "none" */
    int outcome;       /* PREVIEW_* */
    char *reason;      /* malloc'd, or NULL */
    /* Sampling with a probe_model: the probe's answer, asked first.  The
     * full model is asked only when the probe is not confident. */
    int probed;        /* 1: the probe model answered */
    int probe_outcome; /* PREVIEW_*; PREVIEW_ASK when unsure */
    int probe_confident;
    char *probe_reason;              /* malloc'd, or NULL */
    const char *probe_model, *model; /* borrowed from the settings */
} perm_review;

/* The fixed exceptions: 1 (and a static reason) when no review is needed. */
int perm_review_exception(const perm_eval *ev, const char **reason);

/* The request a reviewer sees (also the prompt's request): kind
 * ("tool_call", or "mcp_tool_call" with "mcp": {"server", "tool",
 * "arguments"} for a call its tool reports as a tools/call to another MCP
 * server), tool, agent, arguments, subjects, rule, environment,
 * block_rules, allow_exceptions. */
cJSON *perm_review_request(const perm_eval *ev, const cJSON *args);

/* Run (b) and (c).  `reviewer` is the published service or NULL; `fe`
 * may be NULL; with `no_sampling` the client's model is not asked. */
void perm_review_run(const perm_eval *ev, const cJSON *request, const vt_reviewer_v1 *reviewer,
                     void (*reviewer_free)(void *), const frontend *fe, int no_sampling,
                     perm_review *out);
void perm_review_clear(perm_review *r);

/* Parse "ALLOW reason" / "BLOCK reason": PREVIEW_* and *reason (malloc'd). */
int perm_review_parse_answer(const char *text, char **reason);

/* Parse the probe model's answer: "ALLOW HIGH: reason", "BLOCK HIGH:
 * reason" are confident (*confident = 1); "ALLOW LOW", "BLOCK LOW",
 * "UNSURE" and anything else are not.  Returns PREVIEW_*; *reason is
 * malloc'd (may be NULL). */
int perm_review_parse_probe(const char *text, int *confident, char **reason);

/* Add the sampling stages (probe and full model) to an audit record's
 * "review" object. */
void perm_review_audit(const perm_review *r, cJSON *review);

#endif
