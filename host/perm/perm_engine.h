/* The pure decision step: settings + agent + tool + subjects -> decision
 * and trace.  No prompting, no reviewing, no I/O beyond resolving paths. */
#ifndef VTHOST_PERM_ENGINE_H
#define VTHOST_PERM_ENGINE_H

#include <cjson/cJSON.h>
#include <stdint.h>
#include <vthost/plugin.h>
#include "perm_types.h"

typedef struct perm_subj {
    vt_subject_kind kind;
    const char *raw; /* borrowed from the request */
    char *norm;      /* commands: blanks collapsed */
    char **variants; /* commands: wrapper look-through forms */
    size_t nvariants;
    char *lex, *res;               /* paths: lexical and resolved absolute forms */
    const char *rel_lex, *rel_res; /* below the call's directory, or NULL */
    int inside;                    /* both forms inside the workspace */
    int protect;                   /* an edit of a protected path */
    int opaque;                    /* an exec path (or a writer's file argument)
                             known only after shell expansion */
    const char *policy;            /* the policy file it would change, or NULL */
    char *lit;                     /* exec paths: the word after quote removal */
} perm_subj;

typedef struct perm_step {
    const char *layer;     /* "global.deny", "agent.allow", "protected", ... */
    const perm_rule *rule; /* NULL for a layer without a rule */
    const char *subject;   /* the subject that matched, or NULL */
    const char *note;      /* extra words, or NULL */
} perm_step;

typedef struct perm_eval {
    const perm_settings *st;
    const perm_agent *agent;
    const char *tool;
    uint32_t effects;
    int is_exec;
    perm_subj *subj;
    size_t nsubj;
    char *cwd_lex, *cwd_res;
    int escalated;
    int extends_sandbox; /* with_additional_permissions: the justification
                            names what the sandbox adds */
    const char *justification;
    pcre2_match_data *md;
    int fail_closed; /* matching for deny/ask (see hit()) */
    /* outcome */
    perm_decision decision;
    const char *layer;
    const perm_rule *rule;
    const char *subject;
    int protected_hit;
    const char *protected_path; /* the first protected edit */
    int policy_hit;             /* ... and it is a policy file */
    const char *policy_path;    /* the policy path it reaches (a case variant
                                   or a hard link names it differently) */
    int global_ask;
    int strict_ask; /* only a person may answer the ask (not non_interactive) */
    perm_step *steps;
    size_t nsteps, capsteps;
} perm_eval;

/* A subject that names a path (read, edit, create, delete). */
static inline int perm_kind_is_path(vt_subject_kind k)
{
    return k >= VT_SUBJECT_PATH_READ && k <= VT_SUBJECT_PATH_DELETE;
}

/* Prepare the subjects of one call (normalise, resolve, classify). */
int perm_eval_prepare(perm_eval *ev, const perm_settings *st, const perm_agent *agent,
                      const char *tool, uint32_t effects, const vt_subjects *subjects,
                      const cJSON *args);
/* Decide: fills decision, layer, rule, subject and the steps. */
void perm_eval_run(perm_eval *ev);
void perm_eval_free(perm_eval *ev);

/* The steps as [{"layer","rule","source","subject"}]. */
cJSON *perm_eval_trace(const perm_eval *ev);
/* The request's subjects as [{"kind","value"}]. */
cJSON *perm_eval_subjects(const perm_eval *ev);

const char *perm_decision_name(perm_decision d);
/* A rule that would allow the call (malloc'd), e.g. "tool(git push *)". */
char *perm_eval_suggest(const perm_eval *ev);

#endif
