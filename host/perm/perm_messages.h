/* The words of the permission step.  Every function returns a malloc'd
 * string (NULL when out of memory) built from the evaluation alone. */
#ifndef VTHOST_PERM_MESSAGES_H
#define VTHOST_PERM_MESSAGES_H

#include "perm_engine.h"
#include "perm_review.h"

/* "rule \"X\" (file:line)", or "no rule". */
char *perm_msg_rule_ref(const perm_rule *r);
/* A deny decision: which rule or default refused, and what to change. */
char *perm_msg_deny(const perm_eval *ev);
/* Why an ask asks: the rule it matched or the agent's default. */
char *perm_msg_ask_reason(const perm_eval *ev);
/* The prompt's question: the call, its subjects one per line, the reason. */
char *perm_msg_question(const perm_eval *ev, const char *reason);
/* The person at the prompt refused (PROMPT_DENIED). */
char *perm_msg_refused(const perm_eval *ev);
/* An ask nobody decided: `answer` is PROMPT_DECLINED, PROMPT_CANCELLED or
 * negative (no prompt possible); `approval` the active preset. */
char *perm_msg_unanswered(const perm_eval *ev, const char *reason, int answer, int approval);
/* The auto reviewer blocked the call. */
char *perm_msg_blocked(const perm_eval *ev, const perm_review *r);
/* The reviewer could not decide: the reason the call falls back to ask. */
char *perm_msg_undecided(const perm_review *r);
/* The untrusted workspace's ignored grants, or NULL when none. */
char *perm_msg_untrusted(const perm_settings *st, const perm_agent *primary);

#endif
