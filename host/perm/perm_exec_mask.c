/* Which programs are denied outright (see perm_exec_mask.h).  Decided by
 * the engine itself: a candidate (the literal first word of a deny rule)
 * qualifies when the full evaluation denies it bare and under a set of
 * argument probes, so this never disagrees with what the execve check
 * would say about the program. */
#include "perm_engine.h"
#include "perm_exec_mask.h"
#include "perm_match.h"
#include "perm_rules.h"
#include "subjects.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>

/* One evaluation of the command `text`: 1 denied by a deny rule. */
static int denied(const perm_request *base, const char *text, perm_eval *keep)
{
    vt_subjects subj;
    subjects_init(&subj);
    int d = 0;
    if (subjects_add(&subj, VT_SUBJECT_COMMAND, text) == VT_OK) {
        perm_request req = *base;
        req.subjects = &subj;
        perm_eval ev;
        memset(&ev, 0, sizeof ev);
        char *err = NULL;
        if (permission_evaluate(&req, &ev, &err) == 0)
            d = ev.decision == PERM_DENY && ev.layer &&
                (!strcmp(ev.layer, "global.deny") || !strcmp(ev.layer, "agent.deny"));
        free(err);
        if (keep)
            *keep = ev; /* the caller reads st and agent, then frees */
        else
            perm_eval_free(&ev);
    }
    subjects_free(&subj);
    return d;
}

/* Denied bare and with any arguments? */
static int denied_whatever(const perm_request *req, const char *name)
{
    static const char *const probes[] = {
        "", " -rf /tmp/x", " --help", " x", " -c 'a b'", " -- x y", " /dev/null",
    };
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        size_t n = strlen(name) + strlen(probes[i]) + 1;
        char *t = malloc(n);
        if (!t)
            return 0;
        snprintf(t, n, "%s%s", name, probes[i]);
        int d = denied(req, t, NULL);
        free(t);
        if (!d)
            return 0;
    }
    return 1;
}

static int add_candidates(const perm_ruleset *set, const char *tool, char ***v, size_t *n,
                          size_t *cap)
{
    for (size_t i = 0; i < set->count; i++) {
        const perm_rule *r = set->rules[i];
        if (r->spec != PSPEC_COMMAND || !r->key || !r->key[0] || strchr(r->key, '/') ||
            !perm_rule_tool_matches(r, tool))
            continue;
        int dup = 0;
        for (size_t k = 0; k < *n && !dup; k++)
            dup = !strcmp((*v)[k], r->key);
        if (dup)
            continue;
        if (VT_GROW(v, cap, *n + 2) != 0)
            return VT_ERR_NOMEM;
        if (!((*v)[*n] = strdup(r->key)))
            return VT_ERR_NOMEM;
        (*n)++;
    }
    return 0;
}

int perm_exec_denied_programs(const perm_request *req, char ***out, size_t *count)
{
    *out = NULL;
    *count = 0;
    /* An evaluation gives the settings and the agent in force. */
    perm_eval ev;
    memset(&ev, 0, sizeof ev);
    (void)denied(req, "true", &ev);
    char **cand = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    if (ev.st && ev.agent && ev.tool) {
        rc = add_candidates(&ev.st->global[PB_DENY], ev.tool, &cand, &n, &cap);
        if (rc == 0)
            rc = add_candidates(&ev.agent->sets[PB_DENY], ev.tool, &cand, &n, &cap);
    }
    perm_eval_free(&ev);
    size_t kept = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        if (denied_whatever(req, cand[i]))
            cand[kept++] = cand[i];
        else
            free(cand[i]);
    }
    if (rc < 0) {
        perm_strings_free(cand, n);
        return rc;
    }
    if (!cand && !(cand = calloc(1, sizeof *cand)))
        return VT_ERR_NOMEM;
    cand[kept] = NULL;
    *out = cand;
    *count = kept;
    return 0;
}
