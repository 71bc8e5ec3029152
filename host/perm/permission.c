/* The permission step as a list of stages, like the call pipeline:
 * prepare (the agent and the evaluation), decide (the policy's answer,
 * and for auto the review), settle (a prompt for ask, the denial
 * counters), record (the audit line).  permission_explain runs the same
 * list dry: no prompt, no sampling, no counter, no audit, so check and
 * explain differ only in side effects.  The settings, agents and
 * counters are perm_state.c's. */
#include "log.h"
#include "perm_audit.h"
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_messages.h"
#include "perm_review.h"
#include "perm_state.h"
#include "permission.h"
#include "services.h"
#include "strutil.h"

#include <stdlib.h>
#include <string.h>

/* ---- one decision, as stages ---- */

/* How a call was settled, by name: each name is written here once. */
typedef enum { VIA_NONE, VIA_RULE, VIA_PROMPT, VIA_REVIEW, VIA_NON_INTERACTIVE } perm_via;
static const char *const via_names[] = {NULL, "rule", "prompt", "review", "non_interactive"};
/* The prompt's answer (PROMPT_*), "unavailable" when none was possible. */
static const char *const prompt_names[] = {"denied", "approved", "declined", "cancelled"};
/* How the auto decision's review came out: a fixed exception, the denial
 * limit (a person decides), or the reviewer's answer. */
typedef enum { AUTO_NONE, AUTO_EXCEPTION, AUTO_LIMIT, AUTO_REVIEWED } auto_stage;

static const char *review_outcome_name(int outcome)
{
    return outcome == PREVIEW_ALLOW ? "allow" : outcome == PREVIEW_BLOCK ? "block" : "ask";
}

/* One permission decision on its way through the stages. */
typedef struct perm_ctx {
    const perm_request *req;
    const perm_settings *st;
    int dry; /* explain: nothing leaves the process, nothing changes */
    const perm_agent *agent;
    perm_eval ev; /* freed by ctx_release whatever happens */
    int rc;       /* prepare failed: its error, */
    char *err;    /* and why (malloc'd) */
    /* decide */
    auto_stage review_stage;
    const char *exception;   /* AUTO_EXCEPTION: its static reason */
    perm_review review;      /* AUTO_REVIEWED */
    long consecutive, total; /* the denial counters the review was judged on */
    int ask;                 /* settle asks a person */
    char *ask_reason;        /* ... for this reason */
    int strict;              /* ... and only a person may approve */
    /* the outcome */
    int allowed;
    perm_via via;
    const char *prompt;
    char *message;    /* a refusal's words */
    cJSON *explained; /* dry: the decision as explain shows it */
} perm_ctx;

/* A stage returns 0 to go on, 1 when the decision is complete. */
typedef int (*perm_stage)(perm_ctx *c);

static int stage_prepare(perm_ctx *c)
{
    if (!(c->st = perm_state_settings())) {
        c->err = strdup("the permission engine is not initialised");
        c->rc = VT_ERR_INTERNAL;
        return 1;
    }
    const tool_entry *t = c->req->tool;
    c->rc = perm_state_agent(c->req->agent, &c->agent, &c->err);
    if (c->rc == 0)
        c->rc = perm_eval_prepare(&c->ev, c->st, c->agent, t->t.name, t->t.effects,
                                  c->req->subjects, c->req->args);
    if (c->rc < 0)
        return 1;
    perm_eval_run(&c->ev);
    return 0;
}

/* The review of an auto decision.  Dry, the client's model is not asked
 * (that is a request to the user's side, like a prompt). */
static void review_auto(perm_ctx *c)
{
    perm_state_counters(&c->consecutive, &c->total);
    c->via = VIA_REVIEW;
    if (perm_review_exception(&c->ev, &c->exception)) {
        c->review_stage = AUTO_EXCEPTION;
        c->allowed = 1;
    } else if (c->consecutive >= c->st->max_consecutive_denials ||
               c->total >= c->st->max_total_denials) {
        /* After repeated reviewer denials a person decides. */
        c->review_stage = AUTO_LIMIT;
        c->via = VIA_NONE;
        c->strict = c->ask = 1;
        c->ask_reason = strdup("auto review reached its denial limit");
    } else {
        c->review_stage = AUTO_REVIEWED;
        const vt_reviewer_v1 *rv = services_lookup("permissions.reviewer");
        cJSON *request = perm_review_request(&c->ev, c->req->args);
        perm_review_run(&c->ev, request, rv, free, c->req->fe, c->dry, &c->review);
        cJSON_Delete(request);
        if (c->review.outcome == PREVIEW_ALLOW)
            c->allowed = 1;
        else if (c->review.outcome == PREVIEW_BLOCK)
            c->message = perm_msg_blocked(&c->ev, &c->review);
        else
            c->ask = 1, c->ask_reason = perm_msg_undecided(&c->review);
    }
}

static int stage_decide(perm_ctx *c)
{
    switch (c->ev.decision) {
    case PERM_ALLOW:
        c->allowed = 1;
        c->via = VIA_RULE;
        break;
    case PERM_DENY:
        c->via = VIA_RULE;
        c->message = perm_msg_deny(&c->ev);
        break;
    case PERM_AUTO: review_auto(c); break;
    case PERM_ASK:
        c->ask = 1;
        c->ask_reason = perm_msg_ask_reason(&c->ev);
        c->strict = c->ev.escalated || c->ev.protected_hit || c->ev.strict_ask;
        break;
    }
    return 0;
}

/* The prompter's answer (PROMPT_*), negative when no prompt is possible. */
static int prompt(perm_ctx *c, const char *reason)
{
    const frontend *fe = c->req->fe;
    if (c->dry || !fe || !fe->prompt)
        return -1;
    char *question = perm_msg_question(&c->ev, reason);
    cJSON *r = perm_review_request(&c->ev, c->req->args);
    int answer = -1;
    if (r) {
        char *src = c->ev.rule ? perm_rule_source(c->ev.rule) : NULL;
        if (c->ev.rule)
            cJSON_AddStringToObject(r, "source", src ? src : c->ev.rule->source);
        free(src);
        cJSON_AddStringToObject(r, "decision", "ask");
        cJSON_AddStringToObject(r, "message", question ? question : c->ev.tool);
        answer = fe->prompt(fe->ctx, r);
    }
    cJSON_Delete(r);
    free(question);
    return answer;
}

/* ask: the front end's prompter, else [permissions] non_interactive.
 * `strict` calls (escalation, protected paths, the review fallback) are
 * never approved without a prompt. */
static void settle_ask(perm_ctx *c)
{
    const char *reason = c->ask_reason ? c->ask_reason : "ask";
    int answer = prompt(c, reason);
    if (answer > PROMPT_CANCELLED)
        answer = -1;
    c->via = answer >= 0 ? VIA_PROMPT : VIA_NON_INTERACTIVE;
    c->prompt = answer >= 0 ? prompt_names[answer] : "unavailable";
    if (answer == PROMPT_APPROVED || (answer < 0 && !c->strict && c->st->non_interactive_allow))
        c->allowed = 1;
    else if (answer == PROMPT_DENIED)
        c->message = perm_msg_refused(&c->ev);
    else
        c->message = perm_msg_unanswered(&c->ev, reason, answer, c->st->approval);
}

static int stage_settle(perm_ctx *c)
{
    if (c->review_stage == AUTO_REVIEWED && !c->dry &&
        (c->review.outcome == PREVIEW_ALLOW || c->review.outcome == PREVIEW_BLOCK)) {
        perm_state_count_review(c->review.outcome == PREVIEW_ALLOW);
    }
    if (c->ask)
        settle_ask(c);
    if (!c->allowed && !c->message)
        c->message = strdup("Permission denied.");
    return 0;
}

/* The review's part of an audit record or an explanation. */
static void add_review(const perm_ctx *c, cJSON *r)
{
    const char *stage = c->review.stage, *outcome = review_outcome_name(c->review.outcome);
    const char *reason = c->review.reason;
    if (c->review_stage == AUTO_EXCEPTION)
        stage = "exception", outcome = "allow", reason = c->exception;
    else if (c->review_stage == AUTO_LIMIT)
        stage = "limit", outcome = "ask", reason = "denial limit reached: manual prompts";
    cJSON_AddStringToObject(r, "stage", stage);
    cJSON_AddStringToObject(r, "outcome", outcome);
    if (reason)
        cJSON_AddStringToObject(r, "reason", reason);
}

/* The decision as explain shows it: the evaluation, where the settings
 * came from, the review, the trace. */
static cJSON *explanation(const perm_ctx *c)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const perm_eval *ev = &c->ev;
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev->decision));
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddBoolToObject(o, "workspace_trusted", c->st->workspace_trusted);
    if (c->st->trust_reason)
        cJSON_AddStringToObject(o, "trust", c->st->trust_reason);
    cJSON_AddItemToObject(o, "layers", cJSON_Duplicate(c->st->layers, 1));
    if (ev->agent->path)
        cJSON_AddStringToObject(o, "agent_file", ev->agent->path);
    if (ev->decision == PERM_AUTO) {
        cJSON *r = cJSON_AddObjectToObject(o, "review");
        add_review(c, r);
        cJSON_AddNumberToObject(r, "consecutive_denials", (double)c->consecutive);
        cJSON_AddNumberToObject(r, "total_denials", (double)c->total);
    }
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(ev));
    return o;
}

/* The audit record; dry, the explanation instead. */
static int stage_record(perm_ctx *c)
{
    const perm_eval *ev = &c->ev;
    if (c->dry)
        c->explained = explanation(c);
    cJSON *o = c->dry || !c->st->audit_enabled ? NULL : cJSON_CreateObject();
    if (!o)
        return 1;
    cJSON_AddStringToObject(o, "tool", ev->tool);
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev->decision));
    cJSON_AddStringToObject(o, "outcome", c->allowed ? "allow" : "deny");
    if (c->via)
        cJSON_AddStringToObject(o, "via", via_names[c->via]);
    if (c->prompt)
        cJSON_AddStringToObject(o, "prompt", c->prompt);
    /* the session that made the call: the only one its prompt went to */
    const frontend *fe = c->req->fe;
    if (fe && fe->session)
        cJSON_AddStringToObject(o, "session", fe->session);
    if (fe && fe->principal)
        cJSON_AddStringToObject(o, "principal", fe->principal);
    if (c->review_stage == AUTO_REVIEWED || c->review_stage == AUTO_EXCEPTION) {
        cJSON *r = cJSON_AddObjectToObject(o, "review");
        add_review(c, r);
        if (c->review_stage == AUTO_REVIEWED)
            perm_review_audit(&c->review, r);
    }
    cJSON_AddItemToObject(o, "subjects", perm_eval_subjects(ev));
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(ev));
    (void)perm_audit_append(c->st->workspace, o); /* a refusal warns, once */
    cJSON_Delete(o);
    return 1;
}

static const perm_stage stages[] = {stage_prepare, stage_decide, stage_settle, stage_record, NULL};

/* Run the stages until one completes the decision; c->rc < 0 when
 * prepare could not evaluate the call. */
static void run_stages(perm_ctx *c)
{
    for (const perm_stage *s = stages; *s && !(*s)(c); s++)
        ;
}

static void ctx_release(perm_ctx *c)
{
    perm_eval_free(&c->ev);
    perm_review_clear(&c->review);
    free(c->err);
    free(c->ask_reason);
    free(c->message);
}

int permission_check(const perm_request *req, char **message)
{
    *message = NULL;
    perm_ctx c = {.req = req};
    run_stages(&c);
    if (c.rc < 0) {
        *message =
            c.err ? str_printf("Permission denied: %s", c.err) : strdup("Permission denied.");
    } else if (!c.allowed) {
        *message = c.message;
        c.message = NULL;
    }
    int allowed = c.allowed;
    ctx_release(&c);
    return allowed ? 0 : VT_ERR_DENIED;
}

int permission_evaluate(const perm_request *req, perm_eval *ev, char **err)
{
    perm_ctx c = {.req = req, .dry = 1};
    stage_prepare(&c);
    *ev = c.ev; /* the caller frees it */
    *err = c.err;
    return c.rc;
}

int permission_explain(const perm_request *req, cJSON **out)
{
    perm_ctx c = {.req = req, .dry = 1};
    run_stages(&c);
    *out = c.explained;
    if (c.rc < 0 && (*out = cJSON_CreateObject())) {
        cJSON_AddStringToObject(*out, "decision", "deny");
        cJSON_AddStringToObject(*out, "error", c.err ? c.err : "cannot evaluate");
        cJSON_AddArrayToObject(*out, "trace");
    }
    ctx_release(&c);
    return *out ? 0 : VT_ERR_NOMEM;
}

static int has_path_rules(const perm_ruleset *rs)
{
    for (size_t i = 0; i < rs->count; i++)
        if (rs->rules[i]->spec == PSPEC_PATH)
            return 1;
    return 0;
}

int permission_path_denied(const tool_entry *tool, const char *agent, vt_subject_kind kind,
                           const char *path)
{
    const perm_settings *st = perm_state_settings();
    if (!st || !tool || !path)
        return 0;
    const perm_agent *a = NULL;
    char *err = NULL;
    if (perm_state_agent(agent, &a, &err) < 0) {
        free(err);
        return 1; /* an agent that does not load decides nothing: fail closed */
    }
    /* Most policies have no path deny rule: nothing to evaluate. */
    if (!has_path_rules(&st->global[PB_DENY]) && !has_path_rules(&a->sets[PB_DENY]))
        return 0;
    vt_subjects subj;
    subjects_init(&subj);
    int denied = 1;
    if (subjects_add(&subj, kind, path) == VT_OK) {
        perm_request req = {.tool = tool, .agent = agent, .subjects = &subj};
        perm_ctx c = {.req = &req, .dry = 1};
        if (!stage_prepare(&c))
            denied = c.ev.decision == PERM_DENY && (strcmp(c.ev.layer, "global.deny") == 0 ||
                                                    strcmp(c.ev.layer, "agent.deny") == 0);
        ctx_release(&c);
    }
    subjects_free(&subj);
    return denied;
}
