/* The texts a refused or failed call gets, in one place (malloc'd; NULL
 * only when out of memory). */
#ifndef VTHOST_CALL_MESSAGES_H
#define VTHOST_CALL_MESSAGES_H

/* No tool, a removed legacy name, a deferred or gated tool, or an unknown
 * one with the closest listed name. */
char *msg_unknown_tool(const char *name);
/* What the active profile says about deferred and gated tools, set by the
 * core when it opens a profile: `deferred_hint` (borrowed; NULL: none)
 * ends the deferred-tool message; `listing(tool)` names an embedded
 * profile that lists a gated tool, or NULL. */
void msg_set_profile_hints(const char *deferred_hint, const char *(*listing)(const char *tool));
char *msg_args_not_object(const char *tool);
/* The tool's preflight refused; `why` is its call_error text or NULL. */
char *msg_preflight(const char *tool, const char *why);
/* The subjects hook failed; `why` is its call_error text or NULL. */
char *msg_subjects(const char *tool, const char *why);
char *msg_denied(const char *tool);
/* The guard blocked without a hint of its own. */
char *msg_blocked(void);
/* The tool failed with status `rc`; `why` is its call_error text or NULL. */
char *msg_tool_failed(const char *tool, const char *why, int rc);
/* A call that left behind something that could not be made inert
 * (ws_after.h); `report` names it. */
char *msg_left_live(const char *tool, const char *report);

#endif
