/* The decision step.  Order (docs/permissions.md):
 *   global deny > global ask (unless the agent denies) > agent deny > agent
 *   ask > agent auto > agent allow > [embedded agent only: global allow] >
 *   agent default; then an untrusted workspace's ask rules, protected
 *   edits and require_escalated turn allow and auto into ask.
 * deny and ask rules match when ANY subject matches (wrappers looked
 * through); allow and auto rules must cover EVERY subject. */
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_match.h"
#include "perm_protect.h"
#include "perm_rules.h"
#include "strbuf.h"
#include "subjects.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/grow.h>

const char *perm_decision_name(perm_decision d)
{
    switch (d) {
    case PERM_ALLOW: return "allow";
    case PERM_ASK: return "ask";
    case PERM_AUTO: return "auto";
    case PERM_DENY: return "deny";
    }
    return "deny";
}

static void step(perm_eval *ev, const char *layer, const perm_rule *r, const char *subject,
                 const char *note)
{
    if (VT_GROW(&ev->steps, &ev->capsteps, ev->nsteps + 1) != 0)
        return; /* the trace is best effort; the decision is not */
    ev->steps[ev->nsteps++] = (perm_step){layer, r, subject, note};
}

/* ---- matching --------------------------------------------------------- */

/* A pattern that cannot finish (match limit on a pathological subject)
 * counts as a match for deny and ask and as no match for allow and auto:
 * the engine fails closed either way. */
static int hit(perm_eval *ev, const perm_rule *r, const char *s)
{
    /* Match data on the first pattern matched: an evaluation that meets
     * none (most, under the default policy) never needs PCRE2. */
    if (!ev->md)
        ev->md = rx_match_data_create(1);
    int m = ev->md ? perm_regex_match(r->re, s, ev->md) : -1;
    return m > 0 || (m < 0 && ev->fail_closed);
}

static const perm_rule *cmd_match(perm_eval *ev, const perm_ruleset *set, const char *text)
{
    perm_rule *const *v;
    size_t n;
    size_t w = strcspn(text, " ");
    if (perm_ruleset_has(set, PIDX_CMD)) {
        perm_ruleset_lookup(set, PIDX_CMD, ev->tool, text, w, &v, &n);
        for (size_t i = 0; i < n; i++)
            if (hit(ev, v[i], text))
                return v[i];
    }
    if (!perm_ruleset_has(set, PIDX_CMD_ANY))
        return NULL;
    perm_ruleset_lookup(set, PIDX_CMD_ANY, ev->tool, "", 0, &v, &n);
    for (size_t i = 0; i < n; i++)
        if (hit(ev, v[i], text))
            return v[i];
    return NULL;
}

/* The first rule of index `idx` with a literal key of `path`'s first
 * `len` bytes or of an ancestor's that matches `path`. */
static const perm_rule *ancestor_match(perm_eval *ev, const perm_ruleset *set, int idx,
                                       const char *path, size_t len)
{
    perm_rule *const *v;
    size_t n;
    for (int more = perm_ruleset_has(set, idx); more;) {
        n = 0;
        if (perm_ruleset_maybe(set, idx, len))
            perm_ruleset_lookup(set, idx, ev->tool, path, len, &v, &n);
        for (size_t i = 0; i < n; i++)
            if (hit(ev, v[i], path))
                return v[i];
        if (len == 0)
            break;
        while (len > 0 && path[len - 1] != '/')
            len--;
        if (len > 0)
            len--;
    }
    return NULL;
}

/* A path rule matching `abs` (or `rel`, below the call's directory):
 * every ancestor of the path is a possible literal key of a rule. */
static const perm_rule *path_match(perm_eval *ev, const perm_ruleset *set, const char *abs,
                                   const char *rel)
{
    const perm_rule *r =
        ancestor_match(ev, set, PIDX_ABS, abs, strcmp(abs, "/") == 0 ? 0 : strlen(abs));
    if (r || !rel)
        return r;
    if ((r = ancestor_match(ev, set, PIDX_CWD, rel, strlen(rel))))
        return r;
    perm_rule *const *v;
    size_t n;
    /* "*.ext" and "name" at any depth: looked up per path component */
    int ext = perm_ruleset_has(set, PIDX_EXT), name = perm_ruleset_has(set, PIDX_NAME);
    for (const char *c = rel; (ext || name) && *c;) {
        size_t cl = strcspn(c, "/");
        if (name && perm_ruleset_maybe(set, PIDX_NAME, cl)) {
            perm_ruleset_lookup(set, PIDX_NAME, ev->tool, c, cl, &v, &n);
            for (size_t i = 0; i < n; i++)
                if (hit(ev, v[i], rel))
                    return v[i];
        }
        for (size_t k = 1; ext && k < cl; k++) {
            if (c[k - 1] != '.' || !perm_ruleset_maybe(set, PIDX_EXT, cl - k))
                continue;
            perm_ruleset_lookup(set, PIDX_EXT, ev->tool, c + k, cl - k, &v, &n);
            for (size_t i = 0; i < n; i++)
                if (hit(ev, v[i], rel))
                    return v[i];
        }
        c += cl;
        while (*c == '/')
            c++;
    }
    return NULL;
}

static const perm_rule *domain_match(perm_eval *ev, const perm_ruleset *set, const char *host)
{
    perm_rule *const *v;
    size_t n;
    perm_ruleset_domains(set, &v, &n);
    for (size_t i = 0; i < n; i++)
        if (perm_rule_tool_matches(v[i], ev->tool) && perm_domain_match(v[i]->domain, host))
            return v[i];
    return NULL;
}

static const perm_rule *any_match_in(perm_eval *ev, const perm_ruleset *set, const char **subject);

/* deny / ask: the first rule matching the tool or any subject, looking
 * through wrappers and both path forms. */
static const perm_rule *any_match(perm_eval *ev, const perm_ruleset *set, const char **subject)
{
    *subject = NULL;
    if (!set->count)
        return NULL;
    ev->fail_closed = 1;
    const perm_rule *r = any_match_in(ev, set, subject);
    ev->fail_closed = 0;
    return r;
}

static const perm_rule *any_match_in(perm_eval *ev, const perm_ruleset *set, const char **subject)
{
    const perm_rule *r = perm_ruleset_bare(set, ev->tool);
    if (r)
        return r;
    for (size_t i = 0; i < ev->nsubj; i++) {
        perm_subj *d = &ev->subj[i];
        *subject = d->raw;
        if (d->kind == VT_SUBJECT_COMMAND) {
            if ((r = cmd_match(ev, set, d->norm)))
                return r;
            for (size_t j = 0; j < d->nvariants; j++)
                if ((r = cmd_match(ev, set, d->variants[j])))
                    return r;
        } else if (perm_kind_is_path(d->kind)) {
            if ((r = path_match(ev, set, d->lex, d->rel_lex)))
                return r;
            if (strcmp(d->lex, d->res) != 0 && (r = path_match(ev, set, d->res, d->rel_res)))
                return r;
        } else if (d->kind == VT_SUBJECT_DOMAIN) {
            if ((r = domain_match(ev, set, d->raw)))
                return r;
        }
    }
    *subject = NULL;
    return NULL;
}

/* allow / auto: does `set` cover subject d?  *rule is the covering rule
 * (NULL for an exec redirect inside the workspace).  Returns -1 when the
 * subject needs no coverage, 1 covered, 0 not. */
static int covers(perm_eval *ev, const perm_ruleset *set, const perm_subj *d,
                  const perm_rule **rule)
{
    *rule = NULL;
    if (d->opaque)
        return 0; /* no rule can approve a path nobody can see yet */
    switch (d->kind) {
    case VT_SUBJECT_COMMAND: return (*rule = cmd_match(ev, set, d->norm)) != NULL;
    case VT_SUBJECT_OPAQUE: return 0; /* nothing can approve what nobody can see into */
    case VT_SUBJECT_DOMAIN: return (*rule = domain_match(ev, set, d->raw)) != NULL;
    case VT_SUBJECT_PATH_READ:
    case VT_SUBJECT_PATH_EDIT:
    case VT_SUBJECT_PATH_CREATE:
    case VT_SUBJECT_PATH_DELETE:
        if (ev->is_exec)
            return d->inside; /* a command's redirect: the workspace bounds it */
        *rule = path_match(ev, set, d->lex, d->rel_lex);
        if (!*rule)
            return 0;
        return strcmp(d->lex, d->res) == 0 || path_match(ev, set, d->res, d->rel_res) != NULL;
    default: return -1;
    }
}

typedef struct cover_set {
    const perm_ruleset *set;
    const char *layer;
} cover_set;

/* Every subject covered by one of sets[0..n)?  Records the steps when
 * `record`.  `which` (optional) receives, per set, whether it alone
 * covered everything. */
static int cover_all(perm_eval *ev, const cover_set *sets, size_t nsets, int record)
{
    for (size_t k = 0; k < nsets; k++) {
        const perm_rule *bare = perm_ruleset_bare(sets[k].set, ev->tool);
        if (bare) {
            if (record)
                step(ev, sets[k].layer, bare, NULL, NULL);
            return 1;
        }
    }
    size_t relevant = 0, mark = ev->nsteps;
    for (size_t i = 0; i < ev->nsubj; i++) {
        const perm_subj *d = &ev->subj[i];
        int got = 0;
        for (size_t k = 0; k < nsets && !got; k++) {
            const perm_rule *r;
            int c = covers(ev, sets[k].set, d, &r);
            if (c < 0) {
                got = -1;
                break;
            }
            if (c) {
                got = 1;
                if (record && r)
                    step(ev, sets[k].layer, r, d->raw, NULL);
            }
        }
        if (got == 0) {
            ev->nsteps = mark; /* not covered: forget the partial steps */
            return 0;
        }
        if (got > 0)
            relevant++;
    }
    if (!relevant)
        ev->nsteps = mark;
    return relevant > 0;
}

static void decide(perm_eval *ev, perm_decision d, const char *layer, const perm_rule *r,
                   const char *subject)
{
    ev->decision = d;
    ev->layer = layer;
    ev->rule = r;
    ev->subject = subject;
    step(ev, layer, r, subject, NULL);
}

static int empty_set(const perm_ruleset *s) { return s->count == 0; }

/* The deny and ask rules, global then the agent's: 1 when they decided
 * (a deny is final), 0 when the allow side decides. */
static int run_deny_ask(perm_eval *ev)
{
    const perm_settings *st = ev->st;
    const perm_agent *ag = ev->agent;
    const perm_rule *r;
    const char *subj;
    if ((r = any_match(ev, &st->global[PB_DENY], &subj))) {
        decide(ev, PERM_DENY, "global.deny", r, subj);
        return 1; /* a hard ceiling: nothing below can change it */
    }
    if ((r = any_match(ev, &st->global[PB_ASK], &subj))) {
        const perm_rule *ad;
        const char *as;
        if ((ad = any_match(ev, &ag->sets[PB_DENY], &as))) {
            step(ev, "global.ask", r, subj, "overridden by the agent's deny");
            decide(ev, PERM_DENY, "agent.deny", ad, as);
            return 1;
        }
        ev->global_ask = 1;
        decide(ev, PERM_ASK, "global.ask", r, subj);
    } else if ((r = any_match(ev, &ag->sets[PB_DENY], &subj))) {
        decide(ev, PERM_DENY, "agent.deny", r, subj);
    } else if ((r = any_match(ev, &ag->sets[PB_ASK], &subj))) {
        decide(ev, PERM_ASK, "agent.ask", r, subj);
    } else {
        return 0;
    }
    return 1;
}

/* Rules an untrusted workspace wrote: shown in the trace, never applied. */
static void note_ignored(perm_eval *ev)
{
    const perm_settings *st = ev->st;
    const perm_agent *ag = ev->agent;
    cover_set ign_ws[] = {{&st->ignored_allow, "global.allow"}};
    cover_set ign_ag[] = {{&ag->ignored, "agent.allow"}};
    size_t mark = ev->nsteps;
    if (ag->embedded && !empty_set(&st->ignored_allow) && cover_all(ev, ign_ws, 1, 1))
        for (size_t i = mark; i < ev->nsteps; i++)
            ev->steps[i].note = "not applied: the workspace is not trusted (vthost trust)";
    mark = ev->nsteps;
    if (!empty_set(&ag->ignored) && cover_all(ev, ign_ag, 1, 1))
        for (size_t i = mark; i < ev->nsteps; i++)
            ev->steps[i].note = "not applied: the workspace is not trusted (vthost trust)";
}

/* No deny or ask rule matched: auto or allow rules covering every
 * subject, else the agent's default. */
static void run_allow(perm_eval *ev)
{
    const perm_settings *st = ev->st;
    const perm_agent *ag = ev->agent;
    if (ag->def == PERM_AUTO && ev->is_exec)
        for (size_t i = 0; i < ag->ndropped; i++)
            step(ev, "agent.allow", ag->dropped[i], NULL, "not applied: drop_broad_allow_rules");
    cover_set autos[] = {{&ag->sets[PB_AUTO], "agent.auto"}};
    cover_set allows[] = {{&ag->sets[PB_ALLOW], "agent.allow"},
                          {&st->global[PB_ALLOW], "global.allow"}};
    size_t nallow = ag->embedded ? 2 : 1;
    cover_set mixed[] = {{&ag->sets[PB_AUTO], "agent.auto"},
                         {&ag->sets[PB_ALLOW], "agent.allow"},
                         {&st->global[PB_ALLOW], "global.allow"}};
    if (!empty_set(autos[0].set) && cover_all(ev, autos, 1, 1)) {
        ev->decision = PERM_AUTO;
        ev->layer = "agent.auto";
    } else if (cover_all(ev, allows, nallow, 1)) {
        ev->decision = PERM_ALLOW;
        ev->layer = ev->nsteps && ev->steps[ev->nsteps - 1].layer ? ev->steps[ev->nsteps - 1].layer
                                                                  : "agent.allow";
    } else if (!empty_set(autos[0].set) && cover_all(ev, mixed, ag->embedded ? 3 : 2, 1)) {
        ev->decision = PERM_AUTO;
        ev->layer = "agent.auto";
    } else {
        note_ignored(ev);
        ev->decision = ag->def;
        ev->layer = "agent.default";
        step(ev, "agent.default", NULL, NULL,
             ag->ignored_default ? "ask: the spec says allow or auto, and the workspace is "
                                   "not trusted (vthost trust)"
                                 : perm_decision_name(ag->def));
    }
    if (ev->nsteps)
        ev->rule = ev->steps[ev->nsteps - 1].rule;
}

/* Protected edits are never pre-approved, and an ask about them is
 * never answered by the non-interactive setting. */
static void run_protected(perm_eval *ev)
{
    for (size_t i = 0; i < ev->nsubj; i++) {
        const perm_subj *d = &ev->subj[i];
        if (!d->protect && !d->policy)
            continue;
        ev->protected_hit = 1;
        ev->policy_hit = d->policy != NULL;
        ev->policy_path = d->policy;
        /* the file itself (resolved) for a path; the policy path a
         * writer names for a command */
        ev->protected_path = d->policy && d->res ? d->res : d->policy ? d->policy : d->raw;
        if (ev->decision == PERM_ALLOW || ev->decision == PERM_AUTO) {
            ev->decision = PERM_ASK;
            ev->layer = "protected";
            ev->subject = d->raw;
            step(ev, "protected", NULL, ev->protected_path,
                 d->policy ? "changes to policy files always ask"
                           : "edits to protected paths always ask");
        } else {
            step(ev, "protected", NULL, ev->protected_path, "never approved without a prompt");
        }
        return;
    }
}

/* An untrusted workspace's ask rules only tighten: they turn an allow or
 * an auto into a question, never a deny (a rule's or an agent's default)
 * into one, since where [permissions] non_interactive = "allow" answers
 * questions that would run what the user's policy refuses.  Over an auto
 * only a person answers (strict): the review it replaces judged the
 * call, and non_interactive must not skip that judgement. */
static void run_untrusted_ask(perm_eval *ev)
{
    const char *subj;
    const perm_rule *r = any_match(ev, &ev->st->untrusted_ask, &subj);
    if (!r)
        return;
    /* an agent's default ask stays ask: the rule names why */
    int default_ask = ev->decision == PERM_ASK && !ev->rule;
    if (ev->decision != PERM_ALLOW && ev->decision != PERM_AUTO && !default_ask) {
        step(ev, "global.ask", r, subj,
             ev->decision == PERM_DENY
                 ? "not applied: an untrusted workspace's ask never outranks a deny"
                 : "not applied: the call asks already");
        return;
    }
    ev->strict_ask = ev->decision == PERM_AUTO;
    ev->global_ask = 1;
    ev->decision = PERM_ASK;
    ev->layer = "global.ask";
    ev->rule = r;
    ev->subject = subj;
    step(ev, "global.ask", r, subj,
         ev->strict_ask ? "an untrusted workspace's ask over auto: only a person answers" : NULL);
}

void perm_eval_run(perm_eval *ev)
{
    if (!run_deny_ask(ev))
        run_allow(ev);
    run_untrusted_ask(ev);
    if (ev->decision == PERM_DENY)
        return;
    run_protected(ev);
    if (ev->escalated) {
        ev->decision = PERM_ASK;
        ev->layer = "escalation";
        step(ev, "escalation", NULL, ev->justification,
             ev->extends_sandbox ? "sandbox_permissions with_additional_permissions always asks"
                                 : "sandbox_permissions require_escalated always asks");
    }
}

/* ---- output ----------------------------------------------------------- */

cJSON *perm_eval_trace(const perm_eval *ev)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < ev->nsteps; i++) {
        const perm_step *s = &ev->steps[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "layer", s->layer);
        if (s->rule) {
            cJSON_AddStringToObject(o, "rule", s->rule->text);
            char *src = perm_rule_source(s->rule);
            cJSON_AddStringToObject(o, "source", src ? src : s->rule->source);
            free(src);
            if (s->rule->origin)
                cJSON_AddStringToObject(o, "origin", s->rule->origin);
        } else {
            cJSON_AddNullToObject(o, "rule");
            if (strcmp(s->layer, "agent.default") == 0 && ev->agent->default_source)
                cJSON_AddStringToObject(o, "source", ev->agent->default_source);
        }
        if (s->subject)
            cJSON_AddStringToObject(o, "subject", s->subject);
        if (s->note)
            cJSON_AddStringToObject(o, "note", s->note);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

cJSON *perm_eval_subjects(const perm_eval *ev)
{
    cJSON *a = cJSON_CreateArray();
    for (size_t i = 0; a && i < ev->nsubj; i++) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kind", subject_kind_name(ev->subj[i].kind));
        cJSON_AddStringToObject(o, "value", ev->subj[i].raw);
        if (ev->subj[i].res && strcmp(ev->subj[i].res, ev->subj[i].lex) != 0)
            cJSON_AddStringToObject(o, "resolved", ev->subj[i].res);
        cJSON_AddItemToArray(a, o);
    }
    return a;
}

/* One suggested rule for subject d, or NULL. */
static char *suggest_one(const perm_eval *ev, const perm_subj *d)
{
    char *s = NULL;
    int rc = 0;
    if (d->kind == VT_SUBJECT_COMMAND && ev->is_exec) {
        /* the command's first two words: `git push *` */
        const char *p = d->norm;
        size_t w = strcspn(p, " ");
        if (p[w])
            w += 1 + strcspn(p + w + 1, " ");
        rc = asprintf(&s, "\"%s(%.*s *)\"", ev->tool, (int)w, p);
    } else if (perm_kind_is_path(d->kind) && !ev->is_exec) {
        const char *rel = perm_path_below(ev->st->workspace, d->lex);
        const char *slash = rel ? strrchr(rel, '/') : NULL;
        if (rel && slash)
            rc = asprintf(&s, "\"%s(/%.*s/**)\"", ev->tool, (int)(slash - rel), rel);
        else if (rel)
            rc = asprintf(&s, "\"%s(/%s)\"", ev->tool, rel);
        else
            rc = asprintf(&s, "\"%s(/%s)\"", ev->tool, d->lex);
    } else if (d->kind == VT_SUBJECT_DOMAIN) {
        rc = asprintf(&s, "\"%s(domain:%s)\"", ev->tool, d->raw);
    }
    return rc < 0 ? NULL : s;
}

char *perm_eval_suggest(const perm_eval *ev)
{
    vt_strbuf b = VT_STRBUF_INIT;
    int n = 0;
    for (size_t i = 0; i < ev->nsubj && n < 6; i++) {
        char *one = suggest_one(ev, &ev->subj[i]);
        if (!one)
            continue;
        if (!b.data || !strstr(b.data, one)) {
            strbuf_printf(&b, "%s%s", n ? ", " : "", one);
            n++;
        }
        free(one);
    }
    if (!n)
        strbuf_printf(&b, "\"%s\"", ev->tool);
    return strbuf_take(&b);
}
