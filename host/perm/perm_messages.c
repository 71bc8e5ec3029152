/* The words of the permission step: why a call was refused and what rule
 * would allow it, the question a prompt asks, the untrusted-workspace
 * note.  Pure: each function builds text (malloc'd) from the evaluation. */
#include "perm_config.h"
#include "perm_match.h"
#include "perm_messages.h"
#include "perm_rules.h"
#include "strbuf.h"
#include "strutil.h"
#include "text_escape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The file a policy change names, and the policy path it reaches when
 * that is another name (a case variant, a hard link).  malloc'd; NULL
 * when the call changes no policy file (or out of memory). */
static char *policy_words(const perm_eval *ev)
{
    const char *f = ev->protected_path, *p = ev->policy_path;
    if (!ev->policy_hit || !f)
        return NULL;
    if (!p || perm_path_within(p, f))
        return str_printf("%s", f);
    return str_printf("%s (another name of the policy path %s)", f, p);
}

/* "rule \"X\" (file:line)" for messages. */
char *perm_msg_rule_ref(const perm_rule *r)
{
    if (!r)
        return strdup("no rule");
    char *src = perm_rule_source(r);
    char *s = str_printf("rule \"%s\" (%s)", r->text, src ? src : r->source);
    free(src);
    return s;
}

static const char *subject_words(const perm_eval *ev) { return ev->subject ? ev->subject : ""; }

char *perm_msg_deny(const perm_eval *ev)
{
    char *ref = perm_msg_rule_ref(ev->rule), *m;
    const char *file = ev->agent->path ? ev->agent->path : "the agent spec";
    if (strcmp(ev->layer, "global.deny") == 0)
        m = str_printf(
            "Permission denied: %s%s%s matches the global deny %s. Global deny rules "
            "of every configuration layer are a hard ceiling: remove or narrow that rule "
            "in the [permissions] deny of the file named to allow this call.",
            ev->tool, ev->subject ? " " : "", subject_words(ev), ref);
    else if (strcmp(ev->layer, "agent.deny") == 0)
        m = str_printf("Permission denied: %s%s%s matches the %s agent's deny %s. Remove or "
                       "narrow it in permissions.deny of %s to allow this call.",
                       ev->tool, ev->subject ? " " : "", subject_words(ev), ev->agent->name, ref,
                       file);
    else {
        char *sug = perm_eval_suggest(ev);
        m = str_printf("Permission denied: the %s agent's default decision for %s is deny. Add "
                       "%s to permissions.allow in %s to allow it.",
                       ev->agent->name, ev->tool, sug ? sug : ev->tool, file);
        free(sug);
    }
    free(ref);
    return m;
}

/* The asks only an interactive approval answers: more sandbox rights,
 * escalation, a policy file, a protected path. */
static int unapprovable(const perm_eval *ev)
{
    return ev->extends_sandbox || ev->escalated || ev->policy_hit || ev->protected_hit;
}

/* Why such an ask could not be approved: no rule or setting can. */
static char *unapprovable_message(const perm_eval *ev, const char *why)
{
    char *pw = policy_words(ev), *m;
    if (ev->extends_sandbox)
        m = str_printf("Permission denied: %s asks to run %s and %s. Additional sandbox "
                       "permissions need an interactive approval every time; no rule or setting "
                       "approves them.",
                       ev->tool,
                       ev->justification ? ev->justification : "with additional permissions", why);
    else if (ev->escalated)
        m = str_printf(
            "Permission denied: %s asks to run outside the sandbox (require_escalated%s%s)%s%s "
            "and %s. Escalation needs an interactive approval every time; no rule "
            "or setting approves it.",
            ev->tool, ev->justification ? ": " : "", ev->justification ? ev->justification : "",
            ev->policy_hit ? " and would change the protected policy file " : "", pw ? pw : "",
            why);
    else if (ev->policy_hit)
        m = str_printf("Permission denied: %s would change the protected policy file %s and %s. "
                       "Policy files (the workspace's vtcode.toml and .vtcode/, the user's vtcode "
                       "configuration directory, the --config file) decide what tools may do, so a "
                       "change needs an interactive approval that names the file; no rule or "
                       "setting approves it. Edit the file yourself, or approve the call when "
                       "asked (vthost call: --yes).",
                       ev->tool, pw ? pw : ev->protected_path, why);
    else
        m = str_printf("Permission denied: %s edits the protected path %s and %s. Edits to "
                       ".git/, .vtcode/ and IDE or agent configuration (.vscode/, .idea/, "
                       ".claude/, .cursor/, .codex/, .gemini/, .roo/, .zed/, .mcp.json, "
                       "opencode.json and the rest of docs/permissions.md's list) and to the hook "
                       "directories and included config files a repository's configuration "
                       "names need an interactive approval; no rule or setting approves them.",
                       ev->tool, ev->protected_path, why);
    free(pw);
    return m;
}

/* Why an ask a rule or the agent's default made could not be approved,
 * and the rule that would allow it. */
static char *rule_ask_message(const perm_eval *ev, const char *why, int approval)
{
    char *sug = perm_eval_suggest(ev), *ref = perm_msg_rule_ref(ev->rule), *m;
    const char *where = ev->agent->embedded
                            ? "[permissions] allow in vtcode.toml (or the active agent's "
                              "permissions.allow)"
                            : NULL;
    char *agent_where =
        ev->agent->path ? str_printf("permissions.allow in %s", ev->agent->path) : NULL;
    if (!where)
        where = agent_where ? agent_where : "the agent's permissions.allow";
    if (ev->global_ask)
        m = str_printf("Permission denied: %s%s%s matches the global ask %s and %s. Approve it "
                       "interactively (or with --yes), or narrow that rule in [permissions] ask.",
                       ev->tool, ev->subject ? " " : "", subject_words(ev), ref, why);
    else if (ev->rule && strcmp(ev->layer, "agent.ask") == 0)
        m = str_printf("Permission denied: %s%s%s matches the %s agent's ask %s and %s. Approve "
                       "it interactively (or with --yes), or replace that rule with %s in "
                       "permissions.allow.",
                       ev->tool, ev->subject ? " " : "", subject_words(ev), ev->agent->name, ref,
                       why, sug ? sug : ev->tool);
    else if (ev->agent->embedded)
        m = str_printf(
            "Permission denied: %s needs approval (approval preset %s: the default "
            "agent asks) and %s. To allow it, add %s to %s, or approve it when asked "
            "(vthost call: --yes).%s",
            ev->tool, perm_approval_name(approval), why, sug ? sug : ev->tool, where,
            approval == 0
                ? " For a client that cannot prompt, --approval sandboxed (or [permissions] "
                  "approval = \"sandboxed\") runs commands and workspace edits inside the "
                  "sandbox without asking."
                : "");
    else
        m = str_printf(
            "Permission denied: %s needs approval (the %s agent's default is %s) and %s. "
            "To allow it, add %s to %s, or approve it when asked (vthost call: --yes).",
            ev->tool, ev->agent->name, perm_decision_name(ev->agent->def), why,
            sug ? sug : ev->tool, where);
    free(agent_where);
    free(sug);
    free(ref);
    return m;
}

/* Why an ask could not be approved, and what would allow it. */
static char *ask_message(const perm_eval *ev, const char *why, int approval)
{
    return unapprovable(ev) ? unapprovable_message(ev, why) : rule_ask_message(ev, why, approval);
}

/* What the call touches, for a person: one line per subject (at most
 * 20).  malloc'd. */
static char *summary(const perm_eval *ev)
{
    vt_strbuf b = VT_STRBUF_INIT;
    size_t shown = 0;
    for (size_t i = 0; i < ev->nsubj; i++) {
        const perm_subj *d = &ev->subj[i];
        const char *verb = NULL;
        switch (d->kind) {
        case VT_SUBJECT_COMMAND: verb = "run"; break;
        case VT_SUBJECT_OPAQUE: verb = "run (opaque)"; break;
        case VT_SUBJECT_PATH_READ: verb = "read"; break;
        case VT_SUBJECT_PATH_EDIT: verb = "edit"; break;
        case VT_SUBJECT_PATH_CREATE: verb = "create"; break;
        case VT_SUBJECT_PATH_DELETE: verb = "delete"; break;
        case VT_SUBJECT_DOMAIN: verb = "connect to"; break;
        default: break;
        }
        if (!verb)
            continue;
        if (++shown > 20) {
            strbuf_printf(&b, "  ... and %zu more\n", ev->nsubj - i);
            break;
        }
        /* one subject per line, every byte of it visible */
        char *raw = text_escape(d->raw, 0), *res = text_escape(d->res, 0);
        strbuf_printf(&b, "  %s: %s", verb, raw ? raw : "(cannot be shown)");
        if (d->res && strcmp(d->res, d->lex) != 0)
            strbuf_printf(&b, " (resolves to %s)", res ? res : "(cannot be shown)");
        strbuf_append(&b, "\n", 1);
        free(raw);
        free(res);
    }
    return strbuf_take(&b);
}

/* What made the prompt strict, in the words of the refusal (malloc'd),
 * or NULL for an ordinary ask. */
static char *asked_because(const perm_eval *ev)
{
    char *pw = policy_words(ev);
    char *r = NULL;
    if (ev->extends_sandbox)
        r = strdup("it asked for additional sandbox permissions");
    else if (ev->escalated)
        r = str_printf("it asked to run outside the sandbox%s%s",
                       ev->policy_hit ? " and would change the policy file " : "",
                       ev->policy_hit ? (pw ? pw : ev->protected_path) : "");
    else if (ev->policy_hit)
        r = str_printf("it would change the policy file %s", pw ? pw : ev->protected_path);
    else if (ev->protected_hit)
        r = str_printf("it edits the protected path %s", ev->protected_path);
    free(pw);
    return r;
}

char *perm_msg_untrusted(const perm_settings *st, const perm_agent *primary)
{
    if (st->workspace_trusted)
        return NULL;
    size_t nallow = st->ignored_allow.count;
    int agent = primary && (primary->ignored.count || primary->ignored_default);
    int keys = st->ignored_keys != NULL;
    if (!nallow && !keys && !agent)
        return NULL;
    char *file = text_escape(st->ignored_file ? st->ignored_file : "vtcode.toml", 0);
    char *ws = text_escape(st->workspace, 0);
    char *what =
        keys ? str_printf("keys %s in %s", st->ignored_keys, file ? file : "vtcode.toml") : NULL;
    char *m = str_printf(
        "the workspace %s is not trusted: its %s%s%s%s are ignored (its deny rules apply, and "
        "its ask rules where the decision would be allow or auto). To trust it, run: vthost "
        "trust %s",
        ws ? ws : "", nallow ? "allow rules" : "", nallow && (keys || agent) ? " and " : "",
        what ? what : "", agent ? (nallow || keys ? " and agent grants" : "agent grants") : "",
        ws ? ws : "");
    free(what);
    free(file);
    free(ws);
    return m;
}

/* The question for the prompter: what the call would do and why it asks. */
char *perm_msg_question(const perm_eval *ev, const char *reason)
{
    char *what = summary(ev), *question = NULL;
    char *pw_raw = policy_words(ev), *pw = text_escape(pw_raw, 0);
    free(pw_raw);
    /* the model's words in the question stay on their line, visibly */
    char *just = text_escape(ev->justification, 0), *ppath = text_escape(ev->protected_path, 0);
    char *shown_reason = text_escape(reason, 0);
    if (ev->extends_sandbox)
        question = str_printf("%s asks to run %s\n%s", ev->tool,
                              just ? just : "with additional permissions", what ? what : "");
    else if (ev->escalated)
        question =
            str_printf("%s asks to run outside the sandbox: %s%s%s%s\n%s", ev->tool,
                       just ? just : "(no justification)",
                       ev->policy_hit ? "\nIt would change the policy file " : "", pw ? pw : "",
                       ev->policy_hit ? " (permission settings: approve only if you meant "
                                        "to change them)"
                                      : "",
                       what ? what : "");
    else if (ev->policy_hit)
        question = str_printf("%s would change the policy file %s (permission settings: "
                              "approve only if you meant to change them)\n%s",
                              ev->tool, pw ? pw : ppath, what ? what : "");
    else if (ev->protected_hit)
        question = str_printf("%s edits protected path %s\n%s", ev->tool, ppath, what ? what : "");
    else
        question =
            str_printf("%s (%s)\n%s", ev->tool, shown_reason ? shown_reason : "", what ? what : "");
    free(what);
    free(pw);
    free(just);
    free(ppath);
    free(shown_reason);
    return question;
}

char *perm_msg_refused(const perm_eval *ev)
{
    char *sug = perm_eval_suggest(ev);
    char *asked = asked_because(ev);
    int offer = sug && !ev->escalated && !ev->protected_hit;
    char *m =
        str_printf("Permission denied: the user refused %s%s%s%s%s%s.%s%s%s", ev->tool,
                   ev->subject ? " " : "", subject_words(ev), asked ? " (" : "", asked ? asked : "",
                   asked ? ")" : "", offer ? " Rules such as " : "", offer ? sug : "",
                   offer ? " in permissions.allow would allow it without asking." : "");
    free(asked);
    free(sug);
    return m;
}

char *perm_msg_unanswered(const perm_eval *ev, const char *reason, int answer, int approval)
{
    /* A decline is the answer the client's Decline button gives: the
     * user's, though an unattended client gives it too.  A cancel is a
     * dismissed prompt, no decision at all.  Either keeps what the
     * prompt was about.  The reason adds to the message only for auto's
     * fallback; an ask rule or default is already named by ask_message. */
    const char *no_answer =
        answer == PROMPT_DECLINED
            ? "the user declined the approval prompt (a client that runs unattended, such as "
              "codex exec, declines every prompt without asking anyone)"
        : answer == PROMPT_CANCELLED
            ? "the approval prompt was dismissed without a decision (a client that runs "
              "unattended, such as claude -p, dismisses it without asking anyone)"
            : "no prompt is possible here";
    char *why =
        ev->decision == PERM_AUTO ? str_printf("%s; %s", reason, no_answer) : strdup(no_answer);
    char *m = ask_message(ev, why ? why : no_answer, approval);
    free(why);
    return m;
}

char *perm_msg_blocked(const perm_eval *ev, const perm_review *r)
{
    char *sug = perm_eval_suggest(ev);
    char *m = str_printf("Permission denied: the auto reviewer (%s) blocked %s%s%s: %s. To run "
                         "it without review, add %s to permissions.allow.",
                         r->stage, ev->tool, ev->subject ? " " : "", subject_words(ev),
                         r->reason ? r->reason : "no reason", sug ? sug : ev->tool);
    free(sug);
    return m;
}

char *perm_msg_ask_reason(const perm_eval *ev)
{
    char *why = ev->rule ? perm_msg_rule_ref(ev->rule) : NULL;
    char *reason = why ? str_printf("matched %s", why)
                       : str_printf("the %s agent's default is ask", ev->agent->name);
    free(why);
    return reason;
}

char *perm_msg_undecided(const perm_review *r)
{
    return str_printf("auto review could not decide (%s)", r->reason ? r->reason : "no reviewer");
}
