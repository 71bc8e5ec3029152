/* The permission engine's state: the settings of every configuration
 * layer, the agents (the primary one and per-call ones, loaded once and
 * cached), the auto-review denial counters.  Settings and agents are
 * immutable after loading; the agent cache and the counters are guarded
 * by one mutex (calls run concurrently in the MCP server). */
#include "paths.h"
#include "perm_agent.h"
#include "perm_commands.h"
#include "perm_config.h"
#include "perm_match.h"
#include "perm_messages.h"
#include "perm_protect.h"
#include "perm_rules.h"
#include "perm_state.h"
#include "perm_tools.h"
#include "strutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    perm_agent *primary;         /* --agent, or the embedded one */
    char *primary_spec;          /* the --agent value (a name or a CLI path) */
    int check_tools;             /* plugins are loaded: check agents' tool names */
    perm_tool_decls tools;       /* what st.tools points at */
    perm_tool_decl *owned_tools; /* built from the registry */
    cached_agent *cache;
    size_t ncache;
    long consecutive, total; /* auto-review denials */
} P;

static pthread_mutex_t P_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const *embedded_policy[3]; /* permission_set_embedded_policy */

void permission_set_embedded_policy(const char *const *const lists[3])
{
    for (int i = 0; i < 3; i++)
        embedded_policy[i] = lists ? lists[i] : NULL;
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
    if (perm_tools_collect(&P.tools, &P.owned_tools) < 0)
        return VT_ERR_NOMEM;
    P.st.tools = &P.tools;
    for (int i = 0; i < 3; i++)
        P.st.embedded_allow[i] = embedded_policy[i];
    const char *home = getenv("HOME");
    P.st.workspace = strdup(workspace ? workspace : "/");
    P.st.home = home && *home ? strdup(home) : NULL;
    /* the user's vtcode directory: $XDG_CONFIG_HOME/vtcode, else
     * ~/.config/vtcode */
    P.st.user_dir = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
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
        rc = perm_ruleset_seal(&P.st.untrusted_ask);
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

static int approval_override = -1; /* --approval, or -1 */

int permission_set_approval(const char *preset)
{
    approval_override = preset ? perm_approval_parse(preset) : -1;
    return preset && approval_override < 0 ? VT_ERR_INVALID : 0;
}

const char *permission_approval(void) { return perm_approval_name(P.st.approval); }

int permission_init_layers(const perm_layer *layers, size_t n, const char *default_agent,
                           const char *workspace, int workspace_trusted, const char *trust_reason,
                           char **err)
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

int permission_init_with(const cJSON *config, const char *config_path, const char *default_agent,
                         const char *workspace, char **err)
{
    perm_layer l = {"config", config_path, config, 1};
    return permission_init_layers(&l, 1, default_agent, workspace, 1, "named by --config", err);
}

const char *const *permission_policy_paths(void)
{
    static const char *const none[] = {NULL};
    return P.ready && P.st.policy ? (const char *const *)P.st.policy : none;
}

char *permission_untrusted_note(void)
{
    return P.ready ? perm_msg_untrusted(&P.st, P.primary) : NULL;
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

const perm_settings *perm_state_settings(void) { return P.ready ? &P.st : NULL; }

void perm_state_counters(long *consecutive, long *total)
{
    pthread_mutex_lock(&P_lock);
    *consecutive = P.consecutive;
    *total = P.total;
    pthread_mutex_unlock(&P_lock);
}

void perm_state_count_review(int allowed)
{
    pthread_mutex_lock(&P_lock);
    if (allowed) {
        P.consecutive = 0;
    } else {
        P.consecutive++;
        P.total++;
    }
    pthread_mutex_unlock(&P_lock);
}

/* The agent of a call: the per-call one (loaded once, then cached), or
 * the process's primary agent. */
int perm_state_agent(const char *spec, const perm_agent **out, char **err)
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
    if (rc == 0 && P.check_tools && (rc = perm_tools_check_agent(&P.st, a, err)) < 0) {
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

int permission_validate_tools(char **err)
{
    int rc = perm_tools_check(&P.st, P.primary, err);
    if (rc == 0)
        P.check_tools = 1;
    return rc;
}
