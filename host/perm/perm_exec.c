/* Run-time command enforcement: one decision per execve.
 *
 * Deny rules (global and the agent's) hold for every program of the
 * command's process tree.  Allow, ask and auto apply to the programs the
 * command text runs itself (by_shell): each is covered by an allow rule,
 * or by the approval the call as a whole received (a person or the
 * reviewer approved that text), or it is asked now through the live
 * call's prompter, and refused when nobody can be asked.  Everything
 * here only reads the immutable policy, so decide() runs from any thread. */
#include "call.h"
#include "perm_audit.h"
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_exec.h"
#include "perm_exec_mask.h"
#include "perm_match.h"
#include "permission.h"
#include "strbuf.h"
#include "strutil.h"
#include "subjects.h"

#include <stdlib.h>
#include <string.h>

typedef struct exec_policy {
    vt_exec_policy pub;
    const tool_entry *tool;
    char *agent;   /* per-call agent, copied, or NULL */
    int approved;  /* the call ran on an approval, not on allow rules */
    cJSON *args;   /* an empty argument object for the engine */
    char **denied; /* pub.denied_programs (perm_exec_mask.c) */
    size_t ndenied;
    /* The tool as the domain decisions see it: a name no rule can spell,
     * so that only rules on domains (WebFetch(domain:...)) decide, never
     * a bare allow of the command tool. */
    tool_entry net_tool;
} exec_policy;

/* A byte the shell takes literally outside quotes: the same set the
 * exec plugin's splitter leaves unquoted when it renders the command
 * text, so a word reads the same in the call's text and at its execve. */
static int plain_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_@%+=:,./-~^]", c));
}

/* One argv word as the command text would spell it: single-quoted when
 * it holds anything but plain bytes (a blank above all: `-C 'a b'` is one
 * word, and must not shift which word the matcher reads as the
 * subcommand), control bytes as blanks. */
static void put_word(vt_strbuf *b, const char *w)
{
    int plain = w[0] != 0;
    for (const char *c = w; *c && plain; c++)
        plain = plain_char((unsigned char)*c);
    if (plain) {
        strbuf_append(b, w, strlen(w));
        return;
    }
    strbuf_append(b, "'", 1);
    for (const char *c = w; *c; c++) {
        if (*c == '\'')
            strbuf_append(b, "'\\''", 4);
        else
            strbuf_append(b, (unsigned char)*c < 0x20 || *c == 0x7f ? " " : c, 1);
    }
    strbuf_append(b, "'", 1);
}

char *perm_exec_subject(const vt_exec_program *prog)
{
    vt_strbuf b = {0};
    put_word(&b, prog->name);
    for (const char *const *a = prog->args; a && *a; a++) {
        strbuf_append(&b, " ", 1);
        put_word(&b, *a);
    }
    return strbuf_take(&b);
}

static void audit_refusal(const perm_eval *ev, const vt_exec_program *prog, const char *why)
{
    if (!ev->st || !ev->st->audit_enabled)
        return;
    cJSON *o = cJSON_CreateObject();
    cJSON *argv = o ? cJSON_AddArrayToObject(o, "argv") : NULL;
    if (!argv) {
        cJSON_Delete(o);
        return;
    }
    cJSON_AddItemToArray(argv, cJSON_CreateString(prog->name));
    for (const char *const *a = prog->args; a && *a; a++)
        cJSON_AddItemToArray(argv, cJSON_CreateString(*a));
    cJSON_AddStringToObject(o, "tool", ev->tool);
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddStringToObject(o, "event", "execve");
    cJSON_AddStringToObject(o, "program", prog->path);
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev->decision));
    cJSON_AddStringToObject(o, "outcome", "deny");
    cJSON_AddStringToObject(o, "reason", why);
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(ev));
    (void)perm_audit_append(ev->st->workspace, o);
    cJSON_Delete(o);
}

static int decide(vt_exec_policy *self, vt_call *live, const vt_exec_program *prog, char **reason)
{
    exec_policy *p = (exec_policy *)self;
    *reason = NULL;
    char *text = perm_exec_subject(prog);
    vt_subjects subj;
    subjects_init(&subj);
    if (!text || subjects_add(&subj, VT_SUBJECT_COMMAND, text) != VT_OK) {
        free(text);
        subjects_free(&subj);
        *reason = strdup("out of memory");
        return VT_ERR_DENIED;
    }
    perm_request req = {p->tool, p->args, p->agent, &subj, NULL};
    perm_eval ev;
    char *err = NULL;
    int rc = permission_evaluate(&req, &ev, &err);
    if (rc < 0) {
        *reason = err ? err : strdup("the permission policy cannot be evaluated");
        goto done;
    }
    err = NULL;
    int by_rule = ev.decision == PERM_DENY && ev.layer &&
                  (!strcmp(ev.layer, "global.deny") || !strcmp(ev.layer, "agent.deny"));
    if (by_rule) {
        char *src = ev.rule ? perm_rule_source(ev.rule) : NULL;
        *reason = str_printf("matches the %s rule \"%s\"%s%s%s",
                             !strcmp(ev.layer, "global.deny") ? "global deny" : "agent's deny",
                             ev.rule ? ev.rule->text : "?", src ? " (" : "", src ? src : "",
                             src ? ")" : "");
        free(src);
        audit_refusal(&ev, prog, *reason ? *reason : "deny rule");
        rc = VT_ERR_DENIED;
    } else if (!prog->by_shell || p->approved || ev.decision == PERM_ALLOW) {
        rc = VT_OK;
    } else {
        /* ask / auto / a default deny: the engine's own path prompts
         * through the live call, runs the reviewer and audits. */
        req.fe = live ? live->fe : NULL;
        char *msg = NULL;
        rc = permission_check(&req, &msg) == 0 ? VT_OK : VT_ERR_DENIED;
        if (rc != VT_OK)
            *reason = msg ? msg : strdup("not allowed, and nobody can be asked");
        else
            free(msg);
    }
done:
    perm_eval_free(&ev);
    subjects_free(&subj);
    free(text);
    return rc;
}

static void audit_domain(const perm_eval *ev, const char *host, const char *outcome,
                         const char *why)
{
    if (!ev->st || !ev->st->audit_enabled)
        return;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddStringToObject(o, "tool", ev->tool);
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddStringToObject(o, "event", "network");
    cJSON_AddStringToObject(o, "domain", host);
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev->decision));
    cJSON_AddStringToObject(o, "outcome", outcome);
    cJSON_AddStringToObject(o, "reason", why);
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(ev));
    (void)perm_audit_append(ev->st->workspace, o);
    cJSON_Delete(o);
}

/* A domain through the sandbox's proxy: deny rules on the domain first,
 * then allow rules on the domain, then the sandbox's list, then a
 * question.  Only rules that name the domain count: a bare allow of the
 * command tool says nothing about where its commands may connect. */
static int decide_domain(vt_exec_policy *self, vt_call *live, const char *host, int listed,
                         char **reason)
{
    exec_policy *p = (exec_policy *)self;
    *reason = NULL;
    vt_subjects subj;
    subjects_init(&subj);
    if (subjects_add(&subj, VT_SUBJECT_DOMAIN, host) != VT_OK) {
        subjects_free(&subj);
        *reason = strdup("out of memory");
        return VT_ERR_DENIED;
    }
    perm_request req = {&p->net_tool, p->args, p->agent, &subj, NULL};
    perm_eval ev;
    char *err = NULL;
    int rc = permission_evaluate(&req, &ev, &err);
    int on_domain = rc == 0 && ev.rule && ev.rule->spec == PSPEC_DOMAIN;
    if (rc < 0) {
        *reason = err ? err : strdup("the permission policy cannot be evaluated");
        rc = VT_ERR_DENIED;
    } else if (ev.decision == PERM_DENY && on_domain) {
        *reason = str_printf("matches the deny rule \"%s\"", ev.rule->text);
        audit_domain(&ev, host, "deny", *reason ? *reason : "deny rule");
        rc = VT_ERR_DENIED;
    } else if ((ev.decision == PERM_ALLOW && on_domain) || listed) {
        rc = VT_OK;
    } else if (live && (ev.decision == PERM_ASK || ev.decision == PERM_AUTO)) {
        req.fe = live->fe;
        char *msg = NULL;
        rc = permission_check(&req, &msg) == 0 ? VT_OK : VT_ERR_DENIED;
        if (rc != VT_OK)
            *reason = msg ? msg : strdup("not in allowed_domains, and not approved");
        else
            free(msg);
    } else {
        *reason = strdup("not in allowed_domains");
        audit_domain(&ev, host, "deny", "not in allowed_domains");
        rc = VT_ERR_DENIED;
    }
    perm_eval_free(&ev);
    subjects_free(&subj);
    return rc;
}

static void release(vt_exec_policy *self)
{
    exec_policy *p = (exec_policy *)self;
    if (!p)
        return;
    free(p->agent);
    cJSON_Delete(p->args);
    perm_strings_free(p->denied, p->ndenied);
    free(p);
}

/* Whether the call ran on an approval: its own subjects decided again,
 * without prompting.  Anything but a plain allow means a person, the
 * reviewer or the non-interactive setting let it through. */
static int call_approved(vt_call *call)
{
    const tool_entry *e = call->tool;
    if (!e->t.subjects)
        return 0;
    vt_subjects subj;
    subjects_init(&subj);
    int approved = 0;
    if (e->t.subjects(call, call->args, &subj) == VT_OK) {
        perm_request req = {e, call->args, call->agent, &subj, NULL};
        perm_eval ev;
        char *err = NULL;
        if (permission_evaluate(&req, &ev, &err) == 0)
            approved = ev.decision != PERM_ALLOW && ev.decision != PERM_DENY;
        free(err);
        perm_eval_free(&ev);
    }
    subjects_free(&subj);
    return approved;
}

int perm_exec_policy(vt_call *call, vt_exec_policy **out)
{
    *out = NULL;
    if (!call || !call->tool)
        return VT_ERR_INVALID;
    exec_policy *p = calloc(1, sizeof *p);
    if (!p)
        return VT_ERR_NOMEM;
    p->pub.struct_size = sizeof(vt_exec_policy);
    p->pub.decide = decide;
    p->pub.release = release;
    p->pub.decide_domain = decide_domain;
    p->tool = call->tool;
    p->net_tool = *call->tool;
    p->net_tool.t.name = "sandbox network";
    p->args = cJSON_CreateObject();
    p->agent = call->agent ? strdup(call->agent) : NULL;
    if (!p->args || (call->agent && !p->agent)) {
        release(&p->pub);
        return VT_ERR_NOMEM;
    }
    p->approved = call_approved(call);
    perm_request req = {p->tool, p->args, p->agent, NULL, NULL};
    if (perm_exec_denied_programs(&req, &p->denied, &p->ndenied) != 0) {
        release(&p->pub);
        return VT_ERR_NOMEM;
    }
    p->pub.denied_programs = (const char *const *)p->denied;
    *out = &p->pub;
    return VT_OK;
}
