/* The permission step: policy decision (perm_engine), then prompts for
 * ask, the reviewer pipeline for auto, denial counters, audit and the
 * messages that say which rule would allow a refused call.  Settings and
 * agents are immutable after loading; the agent cache and the counters
 * are guarded by one mutex (calls run concurrently in the MCP server). */
#include "permission.h"
#include "log.h"
#include "perm_agent.h"
#include "perm_commands.h"
#include "perm_audit.h"
#include "perm_config.h"
#include "perm_engine.h"
#include "perm_match.h"
#include "perm_protect.h"
#include "perm_review.h"
#include "perm_rules.h"
#include "services.h"
#include "strutil.h"
#include "text_escape.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct cached_agent {
    char *spec;
    perm_agent *agent;
} cached_agent;

static struct {
    int ready;
    perm_settings st;
    perm_agent *embedded;
    perm_agent *primary; /* --agent, or the embedded one */
    char *primary_spec;  /* the --agent value (a name or a CLI path) */
    int check_tools;     /* plugins are loaded: check agents' tool names */
    perm_tool_decls tools;       /* what st.tools points at */
    perm_tool_decl *owned_tools; /* built from the registry */
    cached_agent *cache;
    size_t ncache;
    long consecutive, total; /* auto-review denials */
} P;

static pthread_mutex_t P_lock = PTHREAD_MUTEX_INITIALIZER;

static perm_tool_decls declared; /* permission_declare_tools */
static const char *const *embedded_policy[3]; /* permission_set_embedded_policy */

void permission_set_embedded_policy(const char *const *const lists[3])
{
    for (int i = 0; i < 3; i++)
        embedded_policy[i] = lists ? lists[i] : NULL;
}

void permission_declare_tools(const perm_tool_decl *decls, size_t n)
{
    declared = (perm_tool_decls){decls, decls ? n : 0};
}

/* The declarations of the registered tools (or the declared ones). */
static int collect_tools(void)
{
    if (declared.items) {
        P.tools = declared;
        return 0;
    }
    const tool_entry **v = NULL;
    size_t n = 0;
    if (registry_all(&v, &n) != VT_OK)
        return VT_ERR_NOMEM;
    P.owned_tools = calloc(n ? n : 1, sizeof *P.owned_tools);
    if (!P.owned_tools) {
        free(v);
        return VT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        P.owned_tools[i] = (perm_tool_decl){v[i]->t.name,
                                            (v[i]->t.flags & VT_TOOL_COMMAND_RULES) != 0,
                                            v[i]->t.rule_aliases};
    free(v);
    P.tools = (perm_tool_decls){P.owned_tools, n};
    return 0;
}

/* The user's vtcode directory: $XDG_CONFIG_HOME/vtcode, else
 * ~/.config/vtcode.  malloc'd, or NULL. */
static char *user_dir(const char *home)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    if (xdg && xdg[0] == '/')
        return str_printf("%s/vtcode", xdg);
    return home ? str_printf("%s/.config/vtcode", home) : NULL;
}

static char *absolute(const char *p)
{
    char cwd[4096];
    if (p[0] == '/' || !getcwd(cwd, sizeof cwd))
        return perm_path_lexical("/", p);
    return perm_path_lexical(cwd, p);
}

/* Settings every layer shares; the policy files of this workspace. */
static int init_common(const char *workspace, int trusted, const char *reason)
{
    perm_settings_defaults(&P.st);
    if (collect_tools() < 0)
        return VT_ERR_NOMEM;
    P.st.tools = &P.tools;
    for (int i = 0; i < 3; i++)
        P.st.embedded_allow[i] = embedded_policy[i];
    const char *home = getenv("HOME");
    P.st.workspace = strdup(workspace ? workspace : "/");
    P.st.home = home && *home ? strdup(home) : NULL;
    P.st.user_dir = user_dir(P.st.home);
    P.st.workspace_trusted = trusted;
    P.st.trust_reason = reason;
    P.st.layers = cJSON_CreateArray();
    if (!P.st.workspace || !P.st.layers)
        return VT_ERR_NOMEM;
    char *wsfile = str_printf("%s/vtcode.toml", P.st.workspace);
    char *wsdir = str_printf("%s/.vtcode", P.st.workspace);
    char *homedir = P.st.home ? str_printf("%s/.config/vtcode", P.st.home) : NULL;
    int rc = 0;
    if (!wsfile || !wsdir)
        rc = VT_ERR_NOMEM;
    if (rc == 0)
        rc = perm_policy_add(&P.st, wsfile);
    if (rc == 0)
        rc = perm_policy_add(&P.st, wsdir);
    if (rc == 0 && P.st.user_dir)
        rc = perm_policy_add(&P.st, P.st.user_dir);
    if (rc == 0 && homedir)
        rc = perm_policy_add(&P.st, homedir);
    free(wsfile);
    free(wsdir);
    free(homedir);
    return rc;
}

static int init_finish(const char *default_agent, char **err)
{
    int rc = 0;
    for (int i = 0; rc == 0 && i < PB_COUNT; i++)
        rc = perm_ruleset_seal(&P.st.global[i]);
    if (rc == 0)
        rc = perm_ruleset_seal(&P.st.ignored_allow);
    if (rc == 0)
        rc = perm_agent_embedded(&P.st, &P.embedded);
    if (rc == 0 && default_agent) {
        rc = perm_agent_load(default_agent, &P.st, &P.primary, err);
        if (rc == 0 && !(P.primary_spec = strdup(default_agent)))
            rc = VT_ERR_NOMEM;
    }
    if (rc < 0) {
        permission_fini();
        if (!*err)
            *err = str_printf("cannot load the permission settings (error %d)", rc);
        return rc;
    }
    if (!P.primary)
        P.primary = P.embedded;
    P.ready = 1;
    return 0;
}

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

static int approval_override = -1; /* --approval, or -1 */

int permission_set_approval(const char *preset)
{
    approval_override = preset ? perm_approval_parse(preset) : -1;
    return preset && approval_override < 0 ? VT_ERR_INVALID : 0;
}

const char *permission_approval(void)
{
    return perm_approval_name(P.st.approval);
}

int permission_init_layers(const perm_layer *layers, size_t n, const char *default_agent,
                           const char *workspace, int workspace_trusted,
                           const char *trust_reason, char **err)
{
    permission_fini();
    *err = NULL;
    int rc = init_common(workspace, workspace_trusted, trust_reason);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const perm_layer *l = &layers[i];
        if (l->path) {
            char *abs = absolute(l->path);
            rc = abs ? perm_policy_add(&P.st, abs) : VT_ERR_NOMEM;
            free(abs);
            free(P.st.config_path);
            P.st.config_path = strdup(l->path); /* the last (strongest) layer */
        }
        if (rc == 0)
            rc = perm_config_load_layer(&P.st, l->tree, l->path, l->name, l->trusted, err);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddStringToObject(o, "layer", l->name);
            if (l->path)
                cJSON_AddStringToObject(o, "file", l->path);
            cJSON_AddBoolToObject(o, "trusted", l->trusted);
            cJSON_AddItemToArray(P.st.layers, o);
        }
    }
    if (rc < 0) {
        permission_fini();
        if (!*err)
            *err = str_printf("cannot load the permission settings (error %d)", rc);
        return rc;
    }
    if (approval_override >= 0)
        P.st.approval = approval_override; /* the command line wins */
    return init_finish(default_agent, err);
}

int permission_init_with(const cJSON *config, const char *config_path,
                         const char *default_agent, const char *workspace, char **err)
{
    perm_layer l = {"config", config_path, config, 1};
    return permission_init_layers(&l, 1, default_agent, workspace, 1,
                                  "named by --config", err);
}

/* ---- tool names ---------------------------------------------------------- */

static char *const *closed_tools;
static size_t nclosed_tools;

void permission_set_closed_tools(char *const *names, size_t n)
{
    closed_tools = n ? names : NULL;
    nclosed_tools = n;
}


/* Warnings already given (source and text), so that each is given once
 * per process however often its rules are checked. */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char **warned;
static size_t nwarned;

static void warn_once(const char *text)
{
    pthread_mutex_lock(&warned_lock);
    for (size_t i = 0; i < nwarned; i++) {
        if (strcmp(warned[i], text) == 0) {
            pthread_mutex_unlock(&warned_lock);
            return;
        }
    }
    char **grown = realloc(warned, (nwarned + 1) * sizeof *warned);
    if (grown) {
        warned = grown;
        warned[nwarned] = strdup(text);
        if (warned[nwarned])
            nwarned++;
    }
    pthread_mutex_unlock(&warned_lock);
    host_log(VT_LOG_WARNING, NULL, "%s", text);
}

/* `bucket` is the set's PB_* (deny rules are worded as such), or -1. */
static int check_set(const perm_ruleset *set, int bucket, const char *const *names, size_t n,
                     char **err)
{
    for (size_t i = 0; i < set->count; i++) {
        char *why = NULL;
        int rc = perm_rule_check_tool(set->rules[i], names, n, P.st.tools, bucket == PB_DENY,
                                      &why);
        if (rc == PERM_TOOL_ABSENT) {
            char *src = perm_rule_source(set->rules[i]);
            char *text = str_printf("%s: %s", src ? src : set->rules[i]->source, why);
            if (text)
                warn_once(text);
            free(text);
            free(src);
            free(why);
            continue;
        }
        if (rc < 0) {
            char *src = perm_rule_source(set->rules[i]);
            *err = str_printf("%s: %s", src ? src : set->rules[i]->source,
                              why ? why : "unknown tool");
            free(src);
            free(why);
            return rc;
        }
    }
    return 0;
}

static int check_agent(const perm_agent *a, const char *const *names, size_t n, char **err)
{
    int rc = check_set(&a->ignored, -1, names, n, err);
    for (int b = 0; rc == 0 && b < PB_COUNT; b++)
        rc = check_set(&a->sets[b], b, names, n, err);
    for (size_t i = 0; rc == 0 && i < a->ndropped; i++) {
        perm_ruleset one = {.rules = &a->dropped[i], .count = 1};
        rc = check_set(&one, -1, names, n, err);
    }
    return rc;
}

/* Installed tool names (every loaded module's, deferred ones included),
 * and those of modules the profile left closed. */
static const char **tool_names(size_t *n)
{
    const tool_entry **v = NULL;
    size_t loaded = 0;
    *n = 0;
    if (registry_all(&v, &loaded) != VT_OK)
        return NULL;
    const char **names = calloc(loaded + nclosed_tools + 1, sizeof *names);
    for (size_t i = 0; names && i < loaded; i++)
        names[(*n)++] = v[i]->t.name;
    for (size_t i = 0; names && i < nclosed_tools; i++)
        names[(*n)++] = closed_tools[i];
    free(v);
    return names;
}

static int validate_agent(const perm_agent *a, char **err)
{
    if (!P.check_tools || a->embedded)
        return 0;
    size_t n;
    const char **names = tool_names(&n);
    if (!names)
        return VT_ERR_NOMEM;
    int rc = check_agent(a, names, n, err);
    free(names);
    return rc;
}

int permission_validate_tools(char **err)
{
    *err = NULL;
    size_t n;
    const char **names = tool_names(&n);
    if (!names)
        return VT_ERR_NOMEM;
    int rc = check_set(&P.st.ignored_allow, -1, names, n, err);
    for (int b = 0; rc == 0 && b < PB_COUNT; b++)
        rc = check_set(&P.st.global[b], b, names, n, err);
    if (rc == 0 && P.primary && !P.primary->embedded)
        rc = check_agent(P.primary, names, n, err);
    free(names);
    if (rc == 0)
        P.check_tools = 1;
    return rc;
}

const char *const *permission_policy_paths(void)
{
    static const char *const none[] = {NULL};
    return P.ready && P.st.policy ? (const char *const *)P.st.policy : none;
}

char *permission_untrusted_note(void)
{
    if (!P.ready || P.st.workspace_trusted)
        return NULL;
    size_t nallow = P.st.ignored_allow.count;
    int agent = P.primary && (P.primary->ignored.count || P.primary->ignored_default);
    if (!nallow && !P.st.ignored_settings && !agent)
        return NULL;
    return str_printf("the workspace %s is not trusted: its %s%s%s%s are ignored (its deny and "
                      "ask rules apply). To trust it, run: vthost trust %s",
                      P.st.workspace, nallow ? "allow rules" : "",
                      nallow && (P.st.ignored_settings || agent) ? " and " : "",
                      P.st.ignored_settings ? "permission settings (non_interactive, "
                                              "[permissions.auto])" : "",
                      agent ? (nallow || P.st.ignored_settings ? " and agent grants"
                                                               : "agent grants") : "",
                      P.st.workspace);
}

void permission_fini(void)
{
    if (P.primary && P.primary != P.embedded)
        perm_agent_free(P.primary);
    perm_agent_free(P.embedded);
    for (size_t i = 0; i < P.ncache; i++) {
        free(P.cache[i].spec);
        perm_agent_free(P.cache[i].agent);
    }
    free(P.cache);
    free(P.primary_spec);
    perm_settings_free(&P.st);
    free(P.owned_tools);
    perm_cmd_clear_wrappers();
    memset(&P, 0, sizeof P);
}

void permission_reset_counters(void)
{
    pthread_mutex_lock(&P_lock);
    P.consecutive = P.total = 0;
    pthread_mutex_unlock(&P_lock);
}

/* The agent of a call: the per-call one (loaded once, then cached), or
 * the process's primary agent. */
static int agent_for(const char *spec, const perm_agent **out, char **err)
{
    if (!spec || !*spec || (P.primary_spec && strcmp(spec, P.primary_spec) == 0)) {
        *out = P.primary;
        return 0;
    }
    int rc = 0;
    pthread_mutex_lock(&P_lock);
    for (size_t i = 0; i < P.ncache; i++)
        if (strcmp(P.cache[i].spec, spec) == 0) {
            *out = P.cache[i].agent;
            pthread_mutex_unlock(&P_lock);
            return 0;
        }
    perm_agent *a = NULL;
    /* a per-call agent is a name, never a path */
    rc = perm_agent_load_name(spec, &P.st, &a, err);
    if (rc == 0 && (rc = validate_agent(a, err)) < 0) {
        perm_agent_free(a);
        a = NULL;
    }
    if (rc == VT_ERR_NOT_FOUND && strcmp(spec, "default") == 0) {
        free(*err);
        *err = NULL;
        *out = P.embedded;
        pthread_mutex_unlock(&P_lock);
        return 0;
    }
    if (rc == 0) {
        cached_agent *nc = realloc(P.cache, (P.ncache + 1) * sizeof *nc);
        char *s = strdup(spec);
        if (!nc || !s) {
            if (nc)
                P.cache = nc;
            free(s);
            perm_agent_free(a);
            rc = VT_ERR_NOMEM;
        } else {
            P.cache = nc;
            P.cache[P.ncache++] = (cached_agent){s, a};
            *out = a;
        }
    }
    pthread_mutex_unlock(&P_lock);
    return rc;
}

static int prepare(const perm_request *req, const perm_agent **agent, perm_eval *ev,
                   char **err)
{
    *err = NULL;
    memset(ev, 0, sizeof *ev); /* freed by the caller whatever happens */
    if (!P.ready) {
        *err = strdup("the permission engine is not initialised");
        return VT_ERR_INTERNAL;
    }
    int rc = agent_for(req->agent, agent, err);
    if (rc < 0)
        return rc;
    rc = perm_eval_prepare(ev, &P.st, *agent, req->tool->t.name, req->tool->t.effects,
                           req->subjects, req->args);
    if (rc == 0)
        perm_eval_run(ev);
    return rc;
}

int permission_evaluate(const perm_request *req, perm_eval *ev, char **err)
{
    const perm_agent *agent;
    return prepare(req, &agent, ev, err);
}

/* "rule \"X\" (file:line)" for messages. */
static char *rule_ref(const perm_rule *r)
{
    if (!r)
        return strdup("no rule");
    char *src = perm_rule_source(r);
    char *s = str_printf("rule \"%s\" (%s)", r->text, src ? src : r->source);
    free(src);
    return s;
}

static const char *subject_words(const perm_eval *ev)
{
    return ev->subject ? ev->subject : "";
}

static char *deny_message(const perm_eval *ev)
{
    char *ref = rule_ref(ev->rule), *m;
    const char *file = ev->agent->path ? ev->agent->path : "the agent spec";
    if (strcmp(ev->layer, "global.deny") == 0)
        m = str_printf("Permission denied: %s%s%s matches the global deny %s. Global deny rules "
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

/* Why an ask could not be approved, and what would allow it. */
static char *ask_message(const perm_eval *ev, const char *why)
{
    char *sug = perm_eval_suggest(ev), *ref = rule_ref(ev->rule), *m;
    char *pw = policy_words(ev);
    const char *where = ev->agent->embedded
                            ? "[permissions] allow in vtcode.toml (or the active agent's "
                              "permissions.allow)"
                            : NULL;
    char *agent_where = ev->agent->path ? str_printf("permissions.allow in %s", ev->agent->path) : NULL;
    if (!where)
        where = agent_where ? agent_where : "the agent's permissions.allow";
    if (ev->extends_sandbox)
        m = str_printf("Permission denied: %s asks to run %s and %s. Additional sandbox "
                "permissions need an interactive approval every time; no rule or setting "
                "approves them.",
                ev->tool, ev->justification ? ev->justification : "with additional permissions",
                why);
    else if (ev->escalated)
        m = str_printf("Permission denied: %s asks to run outside the sandbox (require_escalated%s%s)%s%s "
                "and %s. Escalation needs an interactive approval every time; no rule "
                "or setting approves it.",
                ev->tool, ev->justification ? ": " : "",
                ev->justification ? ev->justification : "",
                ev->policy_hit ? " and would change the protected policy file " : "",
                pw ? pw : "", why);
    else if (ev->policy_hit)
        m = str_printf("Permission denied: %s would change the protected policy file %s and %s. "
                "Policy files (the workspace's vtcode.toml and .vtcode/, the user's vtcode "
                "configuration directory, the --config file) decide what tools may do, so a "
                "change needs an interactive approval that names the file; no rule or "
                "setting approves it. Edit the file yourself, or approve the call when "
                "asked (vthost call: --yes).",
                ev->tool, pw ? pw : ev->protected_path, why);
    else if (ev->protected_hit)
        m = str_printf("Permission denied: %s edits the protected path %s and %s. Edits to "
                ".git/, .vtcode/ and IDE or agent configuration (.vscode/, .idea/, "
                ".claude/, .cursor/, .codex/, .devcontainer/, .mcp.json) need an "
                "interactive approval; no "
                "rule or setting approves them.",
                ev->tool, ev->protected_path, why);
    else if (ev->global_ask)
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
        m = str_printf("Permission denied: %s needs approval (approval preset %s: the default "
                "agent asks) and %s. To allow it, add %s to %s, or approve it when asked "
                "(vthost call: --yes).%s",
                ev->tool, perm_approval_name(P.st.approval), why, sug ? sug : ev->tool, where,
                P.st.approval == 0
                    ? " For a client that cannot prompt, --approval sandboxed (or [permissions] "
                      "approval = \"sandboxed\") runs commands and workspace edits inside the "
                      "sandbox without asking."
                    : "");
    else
        m = str_printf("Permission denied: %s needs approval (the %s agent's default is %s) and %s. "
                "To allow it, add %s to %s, or approve it when asked (vthost call: --yes).",
                ev->tool, ev->agent->name, perm_decision_name(ev->agent->def), why,
                sug ? sug : ev->tool, where);
    free(agent_where);
    free(sug);
    free(ref);
    free(pw);
    return m;
}

typedef struct outcome {
    int allowed;
    const char *how;      /* "rule", "prompt", "review", "non_interactive" */
    const char *prompt;   /* "approved", "denied", "unavailable", NULL */
    perm_review review;
    int reviewed;
    const char *exception;
    int limit_reached;
} outcome;

static cJSON *prompt_request(const perm_eval *ev, const cJSON *args, const char *message)
{
    cJSON *o = perm_review_request(ev, args);
    if (!o)
        return NULL;
    if (ev->rule) {
        char *src = perm_rule_source(ev->rule);
        cJSON_AddStringToObject(o, "source", src ? src : ev->rule->source);
        free(src);
    }
    cJSON_AddStringToObject(o, "decision", "ask");
    cJSON_AddStringToObject(o, "message", message);
    return o;
}

/* What the call touches, for a person: one line per subject (at most
 * 20).  malloc'd. */
static char *summary(const perm_eval *ev)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
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
            fprintf(f, "  ... and %zu more\n", ev->nsubj - i);
            break;
        }
        /* one subject per line, every byte of it visible */
        char *raw = text_escape(d->raw, 0), *res = text_escape(d->res, 0);
        fprintf(f, "  %s: %s", verb, raw ? raw : "(cannot be shown)");
        if (d->res && strcmp(d->res, d->lex) != 0)
            fprintf(f, " (resolves to %s)", res ? res : "(cannot be shown)");
        fputc('\n', f);
        free(raw);
        free(res);
    }
    fclose(f);
    return buf;
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

/* ask: the front end's prompter, else [permissions] non_interactive.
 * `strict` calls (escalation, protected paths, the review fallback) are
 * never approved without a prompt. */
static int do_ask(const perm_request *req, const perm_eval *ev, int strict,
                  const char *reason, outcome *oc, char **message)
{
    const frontend *fe = req->fe;
    char *what = summary(ev), *question = NULL;
    char *pw_raw = policy_words(ev), *pw = text_escape(pw_raw, 0);
    free(pw_raw);
    /* the model's words in the question stay on their line, visibly */
    char *just = text_escape(ev->justification, 0), *ppath = text_escape(ev->protected_path, 0);
    char *shown_reason = text_escape(reason, 0);
    if (ev->extends_sandbox)
        question = str_printf("%s asks to run %s\n%s", ev->tool,
                              just ? just : "with additional permissions",
                              what ? what : "");
    else if (ev->escalated)
        question = str_printf("%s asks to run outside the sandbox: %s%s%s%s\n%s", ev->tool,
                       just ? just : "(no justification)",
                       ev->policy_hit ? "\nIt would change the policy file " : "",
                       pw ? pw : "",
                       ev->policy_hit ? " (permission settings: approve only if you meant "
                                        "to change them)" : "",
                       what ? what : "");
    else if (ev->policy_hit)
        question = str_printf("%s would change the policy file %s (permission settings: "
                              "approve only if you meant to change them)\n%s",
                              ev->tool, pw ? pw : ppath, what ? what : "");
    else if (ev->protected_hit)
        question = str_printf("%s edits protected path %s\n%s", ev->tool, ppath,
                       what ? what : "");
    else
        question = str_printf("%s (%s)\n%s", ev->tool, shown_reason ? shown_reason : "", what ? what : "");
    free(what);
    free(pw);
    free(just);
    free(ppath);
    free(shown_reason);
    int answer = -1;
    if (fe && fe->prompt) {
        cJSON *r = prompt_request(ev, req->args, question ? question : ev->tool);
        answer = r ? fe->prompt(fe->ctx, r) : -1;
        cJSON_Delete(r);
    }
    free(question);
    if (answer == PROMPT_APPROVED) {
        oc->allowed = 1;
        oc->how = "prompt";
        oc->prompt = "approved";
        return 0;
    }
    if (answer == PROMPT_DENIED) {
        oc->how = "prompt";
        oc->prompt = "denied";
        char *sug = perm_eval_suggest(ev);
        char *asked = asked_because(ev);
        *message = str_printf("Permission denied: the user refused %s%s%s%s%s%s.%s%s%s", ev->tool,
                       ev->subject ? " " : "", subject_words(ev), asked ? " (" : "",
                       asked ? asked : "", asked ? ")" : "",
                       sug && !ev->escalated && !ev->protected_hit ? " Rules such as " : "",
                       sug && !ev->escalated && !ev->protected_hit ? sug : "",
                       sug && !ev->escalated && !ev->protected_hit
                           ? " in permissions.allow would allow it without asking." : "");
        free(asked);
        free(sug);
        return VT_ERR_DENIED;
    }
    if (answer == PROMPT_DECLINED || answer == PROMPT_CANCELLED) {
        /* No decision was made: an unattended client answers every prompt
         * this way without asking anyone, so the refusal must not say a
         * person refused, and keeps what the prompt was about. */
        oc->how = "prompt";
        oc->prompt = answer == PROMPT_DECLINED ? "declined" : "cancelled";
        const char *no_answer =
            answer == PROMPT_DECLINED
                ? "the client declined the approval prompt without a decision (a client that "
                  "runs unattended, such as codex exec, declines without asking anyone)"
                : "the approval prompt was cancelled without a decision (a client that runs "
                  "unattended, such as claude -p, cancels without asking anyone)";
        char *why = ev->decision == PERM_AUTO ? str_printf("%s; %s", reason, no_answer)
                                              : strdup(no_answer);
        *message = ask_message(ev, why ? why : no_answer);
        free(why);
        return VT_ERR_DENIED;
    }
    oc->prompt = "unavailable";
    if (!strict && P.st.non_interactive_allow) {
        oc->allowed = 1;
        oc->how = "non_interactive";
        return 0;
    }
    oc->how = "non_interactive";
    /* the reason adds to the message only for auto's fallback; an ask
     * rule or default is already named by ask_message */
    char *why = ev->decision == PERM_AUTO ? str_printf("%s; no prompt is possible here", reason)
                                          : strdup("no prompt is possible here");
    *message = ask_message(ev, why ? why : "no prompt is possible here");
    free(why);
    return VT_ERR_DENIED;
}

/* How the auto decision's review came out: a fixed exception, the denial
 * limit (a person decides), or the reviewer's answer. */
typedef enum { AUTO_EXCEPTION, AUTO_LIMIT, AUTO_REVIEWED } auto_stage;

typedef struct auto_review {
    auto_stage stage;
    const char *exception;   /* AUTO_EXCEPTION: its static reason */
    perm_review review;      /* AUTO_REVIEWED; cleared by the caller */
    long consecutive, total; /* the denial counters it was judged on */
} auto_review;

/* The review of an auto decision, the one evaluation permission_check and
 * permission_explain share.  With `no_sampling` the client's model is not
 * asked (explain: that is a request to the user's side, like a prompt).
 * No counter changes here: those are the check's side effects. */
static void review_auto(const perm_request *req, const perm_eval *ev, int no_sampling,
                        auto_review *ar)
{
    memset(ar, 0, sizeof *ar);
    pthread_mutex_lock(&P_lock);
    ar->consecutive = P.consecutive;
    ar->total = P.total;
    pthread_mutex_unlock(&P_lock);
    if (perm_review_exception(ev, &ar->exception)) {
        ar->stage = AUTO_EXCEPTION;
        return;
    }
    if (ar->consecutive >= P.st.max_consecutive_denials || ar->total >= P.st.max_total_denials) {
        ar->stage = AUTO_LIMIT;
        return;
    }
    ar->stage = AUTO_REVIEWED;
    const vt_reviewer_v1 *rv = services_lookup("permissions.reviewer");
    cJSON *request = perm_review_request(ev, req->args);
    perm_review_run(ev, request, rv, free, req->fe, no_sampling, &ar->review);
    cJSON_Delete(request);
}

static int do_auto(const perm_request *req, const perm_eval *ev, outcome *oc,
                   char **message)
{
    auto_review ar;
    review_auto(req, ev, 0, &ar);
    if (ar.stage == AUTO_EXCEPTION) {
        oc->allowed = 1;
        oc->how = "review";
        oc->exception = ar.exception;
        return 0;
    }
    if (ar.stage == AUTO_LIMIT) {
        /* After repeated classifier denials a person decides. */
        oc->limit_reached = 1;
        return do_ask(req, ev, 1, "auto review reached its denial limit", oc, message);
    }
    oc->review = ar.review;
    oc->reviewed = 1;
    if (oc->review.outcome == PREVIEW_ALLOW) {
        pthread_mutex_lock(&P_lock);
        P.consecutive = 0;
        pthread_mutex_unlock(&P_lock);
        oc->allowed = 1;
        oc->how = "review";
        return 0;
    }
    if (oc->review.outcome == PREVIEW_BLOCK) {
        pthread_mutex_lock(&P_lock);
        P.consecutive++;
        P.total++;
        pthread_mutex_unlock(&P_lock);
        oc->how = "review";
        char *sug = perm_eval_suggest(ev);
        *message = str_printf("Permission denied: the auto reviewer (%s) blocked %s%s%s: %s. To run "
                       "it without review, add %s to permissions.allow.",
                       oc->review.stage, ev->tool, ev->subject ? " " : "",
                       subject_words(ev), oc->review.reason ? oc->review.reason : "no reason",
                       sug ? sug : ev->tool);
        free(sug);
        return VT_ERR_DENIED;
    }
    char *r = str_printf("auto review could not decide (%s)",
                  oc->review.reason ? oc->review.reason : "no reviewer");
    int rc = do_ask(req, ev, 0, r ? r : "auto review could not decide", oc, message);
    free(r);
    return rc;
}

static void audit(const perm_request *req, const perm_eval *ev, const outcome *oc, int rc)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    cJSON_AddStringToObject(o, "tool", ev->tool);
    cJSON_AddStringToObject(o, "agent", ev->agent->name);
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev->decision));
    cJSON_AddStringToObject(o, "outcome", rc == 0 ? "allow" : "deny");
    if (oc->how)
        cJSON_AddStringToObject(o, "via", oc->how);
    if (oc->prompt)
        cJSON_AddStringToObject(o, "prompt", oc->prompt);
    if (oc->reviewed || oc->exception) {
        cJSON *r = cJSON_AddObjectToObject(o, "review");
        cJSON_AddStringToObject(r, "stage", oc->exception ? "exception" : oc->review.stage);
        cJSON_AddStringToObject(r, "outcome", oc->exception ? "allow"
                                : oc->review.outcome == PREVIEW_ALLOW ? "allow"
                                : oc->review.outcome == PREVIEW_BLOCK ? "block" : "ask");
        const char *reason = oc->exception ? oc->exception : oc->review.reason;
        if (reason)
            cJSON_AddStringToObject(r, "reason", reason);
        if (!oc->exception)
            perm_review_audit(&oc->review, r);
    }
    cJSON_AddItemToObject(o, "subjects", perm_eval_subjects(ev));
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(ev));
    (void)req;
    if (perm_audit_append(P.st.workspace, o) < 0)
        host_log(VT_LOG_WARNING, "permissions", "cannot append to the audit log "
                 ".vtcode/audit/permissions.jsonl: a symbolic link, a second name of another "
                 "file or something not a directory on the way (never followed); the record "
                 "was not written");
    cJSON_Delete(o);
}

int permission_check(const perm_request *req, char **message)
{
    *message = NULL;
    perm_eval ev;
    const perm_agent *agent = NULL;
    char *err = NULL;
    int rc = prepare(req, &agent, &ev, &err);
    if (rc < 0) {
        perm_eval_free(&ev);
        *message = err ? str_printf("Permission denied: %s", err) : strdup("Permission denied.");
        free(err);
        return VT_ERR_DENIED;
    }
    outcome oc;
    memset(&oc, 0, sizeof oc);
    switch (ev.decision) {
    case PERM_ALLOW:
        oc.allowed = 1;
        oc.how = "rule";
        rc = 0;
        break;
    case PERM_DENY:
        oc.how = "rule";
        *message = deny_message(&ev);
        rc = VT_ERR_DENIED;
        break;
    case PERM_AUTO:
        rc = do_auto(req, &ev, &oc, message);
        break;
    case PERM_ASK: {
        char *why = ev.rule ? rule_ref(ev.rule) : NULL;
        char *reason = why ? str_printf("matched %s", why)
                           : str_printf("the %s agent's default is ask", ev.agent->name);
        rc = do_ask(req, &ev, ev.escalated || ev.protected_hit, reason ? reason : "ask",
                    &oc, message);
        free(why);
        free(reason);
        break;
    }
    }
    if (rc < 0 && !*message)
        *message = strdup("Permission denied.");
    if (P.st.audit_enabled)
        audit(req, &ev, &oc, rc);
    perm_review_clear(&oc.review);
    perm_eval_free(&ev);
    return rc < 0 ? VT_ERR_DENIED : 0;
}

static int has_path_rules(const perm_ruleset *rs)
{
    for (size_t i = 0; i < rs->count; i++)
        if (rs->rules[i]->spec == PSPEC_PATH)
            return 1;
    return 0;
}

int permission_path_denied(const tool_entry *tool, const char *agent,
                           vt_subject_kind kind, const char *path)
{
    if (!P.ready || !tool || !path)
        return 0;
    const perm_agent *a = NULL;
    char *err = NULL;
    if (agent_for(agent, &a, &err) < 0) {
        free(err);
        return 1; /* an agent that does not load decides nothing: fail closed */
    }
    /* Most policies have no path deny rule: nothing to evaluate. */
    if (!has_path_rules(&P.st.global[PB_DENY]) && !has_path_rules(&a->sets[PB_DENY]))
        return 0;
    vt_subjects subj;
    subjects_init(&subj);
    int denied = 1;
    if (subjects_add(&subj, kind, path) == VT_OK) {
        perm_request req = {.tool = tool, .agent = agent, .subjects = &subj};
        const perm_agent *used;
        perm_eval ev;
        if (prepare(&req, &used, &ev, &err) == 0)
            denied = ev.decision == PERM_DENY &&
                     (strcmp(ev.layer, "global.deny") == 0 || strcmp(ev.layer, "agent.deny") == 0);
        perm_eval_free(&ev);
        free(err);
    }
    subjects_free(&subj);
    return denied;
}

int permission_explain(const perm_request *req, cJSON **out)
{
    *out = NULL;
    perm_eval ev;
    const perm_agent *agent = NULL;
    char *err = NULL;
    int rc = prepare(req, &agent, &ev, &err);
    cJSON *o = cJSON_CreateObject();
    if (!o) {
        perm_eval_free(&ev);
        free(err);
        return VT_ERR_NOMEM;
    }
    if (rc < 0) {
        cJSON_AddStringToObject(o, "decision", "deny");
        cJSON_AddStringToObject(o, "error", err ? err : "cannot evaluate");
        cJSON_AddArrayToObject(o, "trace");
        free(err);
        perm_eval_free(&ev);
        *out = o;
        return 0;
    }
    cJSON_AddStringToObject(o, "decision", perm_decision_name(ev.decision));
    cJSON_AddStringToObject(o, "agent", ev.agent->name);
    cJSON_AddBoolToObject(o, "workspace_trusted", P.st.workspace_trusted);
    if (P.st.trust_reason)
        cJSON_AddStringToObject(o, "trust", P.st.trust_reason);
    cJSON_AddItemToObject(o, "layers", cJSON_Duplicate(P.st.layers, 1));
    if (ev.agent->path)
        cJSON_AddStringToObject(o, "agent_file", ev.agent->path);
    if (ev.decision == PERM_AUTO) {
        cJSON *r = cJSON_AddObjectToObject(o, "review");
        auto_review ar;
        review_auto(req, &ev, 1, &ar);
        long cons = ar.consecutive, total = ar.total;
        if (ar.stage == AUTO_EXCEPTION) {
            cJSON_AddStringToObject(r, "stage", "exception");
            cJSON_AddStringToObject(r, "outcome", "allow");
            cJSON_AddStringToObject(r, "reason", ar.exception);
        } else if (ar.stage == AUTO_LIMIT) {
            cJSON_AddStringToObject(r, "stage", "limit");
            cJSON_AddStringToObject(r, "outcome", "ask");
            cJSON_AddStringToObject(r, "reason", "denial limit reached: manual prompts");
        } else {
            perm_review pr = ar.review;
            cJSON_AddStringToObject(r, "stage", pr.stage);
            cJSON_AddStringToObject(r, "outcome", pr.outcome == PREVIEW_ALLOW ? "allow"
                                                  : pr.outcome == PREVIEW_BLOCK ? "block"
                                                                                : "ask");
            if (pr.reason)
                cJSON_AddStringToObject(r, "reason", pr.reason);
            perm_review_clear(&pr);
        }
        cJSON_AddNumberToObject(r, "consecutive_denials", (double)cons);
        cJSON_AddNumberToObject(r, "total_denials", (double)total);
    }
    cJSON_AddItemToObject(o, "trace", perm_eval_trace(&ev));
    perm_eval_free(&ev);
    *out = o;
    return 0;
}
