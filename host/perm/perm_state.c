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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vthost/grow.h>

typedef struct cached_agent {
    char *spec;
    perm_agent *agent;
} cached_agent;

static struct engine_state {
    int ready;
    perm_settings st;
    perm_agent *embedded;
    perm_agent *primary;         /* --agent, or the embedded one */
    char *primary_spec;          /* the --agent value (a name or a CLI path) */
    int check_tools;             /* plugins are loaded: check agents' tool names */
    perm_tool_decls tools;       /* what st.tools points at */
    perm_tool_decl *owned_tools; /* built from the registry */
    cached_agent *cache;
    size_t ncache, capcache;
    long consecutive, total; /* auto-review denials */
} engine_state;

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
    perm_settings_defaults(&engine_state.st);
    if (perm_tools_collect(&engine_state.tools, &engine_state.owned_tools) < 0)
        return VT_ERR_NOMEM;
    engine_state.st.tools = &engine_state.tools;
    for (int i = 0; i < 3; i++)
        engine_state.st.embedded_allow[i] = embedded_policy[i];
    const char *home = getenv("HOME");
    engine_state.st.workspace = strdup(workspace ? workspace : "/");
    engine_state.st.home = home && *home ? strdup(home) : NULL;
    /* the user's vtcode directory: $XDG_CONFIG_HOME/vtcode, else
     * ~/.config/vtcode */
    engine_state.st.user_dir = paths_xdg_dir("XDG_CONFIG_HOME", ".config", "vtcode");
    engine_state.st.workspace_trusted = trusted;
    engine_state.st.trust_reason = reason;
    engine_state.st.layers = cJSON_CreateArray();
    if (!engine_state.st.workspace || !engine_state.st.layers)
        return VT_ERR_NOMEM;
    char *wsfile = str_printf("%s/vtcode.toml", engine_state.st.workspace);
    char *wsdir = str_printf("%s/.vtcode", engine_state.st.workspace);
    char *homedir =
        engine_state.st.home ? str_printf("%s/.config/vtcode", engine_state.st.home) : NULL;
    int rc = 0;
    if (!wsfile || !wsdir)
        rc = VT_ERR_NOMEM;
    if (rc == 0)
        rc = perm_policy_add(&engine_state.st, wsfile);
    if (rc == 0)
        rc = perm_policy_add(&engine_state.st, wsdir);
    if (rc == 0 && engine_state.st.user_dir)
        rc = perm_policy_add(&engine_state.st, engine_state.st.user_dir);
    if (rc == 0 && homedir)
        rc = perm_policy_add(&engine_state.st, homedir);
    free(wsfile);
    free(wsdir);
    free(homedir);
    return rc;
}

static int init_finish(const char *default_agent, char **err)
{
    int rc = 0;
    for (int i = 0; rc == 0 && i < PB_COUNT; i++)
        rc = perm_ruleset_seal(&engine_state.st.global[i]);
    if (rc == 0)
        rc = perm_ruleset_seal(&engine_state.st.ignored_allow);
    if (rc == 0)
        rc = perm_ruleset_seal(&engine_state.st.untrusted_ask);
    if (rc == 0)
        rc = perm_agent_embedded(&engine_state.st, &engine_state.embedded);
    if (rc == 0 && default_agent) {
        rc = perm_agent_load(default_agent, &engine_state.st, &engine_state.primary, err);
        if (rc == 0 && !(engine_state.primary_spec = strdup(default_agent)))
            rc = VT_ERR_NOMEM;
    }
    if (rc < 0) {
        permission_fini();
        if (!*err)
            *err = str_printf("cannot load the permission settings (error %d)", rc);
        return rc;
    }
    if (!engine_state.primary)
        engine_state.primary = engine_state.embedded;
    engine_state.ready = 1;
    return 0;
}

static int approval_override = -1; /* --approval, or -1 */

int permission_set_approval(const char *preset)
{
    approval_override = preset ? perm_approval_parse(preset) : -1;
    return preset && approval_override < 0 ? VT_ERR_INVALID : 0;
}

const char *permission_approval(void) { return perm_approval_name(engine_state.st.approval); }

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
            rc = abs ? perm_policy_add(&engine_state.st, abs) : VT_ERR_NOMEM;
            free(abs);
            free(engine_state.st.config_path);
            engine_state.st.config_path = strdup(l->path); /* the last (strongest) layer */
        }
        if (rc == 0)
            rc = perm_config_load_layer(&engine_state.st, l->tree, l->path, l->name, l->trusted,
                                        err);
        cJSON *o = cJSON_CreateObject();
        if (o) {
            cJSON_AddStringToObject(o, "layer", l->name);
            if (l->path)
                cJSON_AddStringToObject(o, "file", l->path);
            cJSON_AddBoolToObject(o, "trusted", l->trusted);
            cJSON_AddItemToArray(engine_state.st.layers, o);
        }
    }
    if (rc < 0) {
        permission_fini();
        if (!*err)
            *err = str_printf("cannot load the permission settings (error %d)", rc);
        return rc;
    }
    if (approval_override >= 0)
        engine_state.st.approval = approval_override; /* the command line wins */
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
    return engine_state.ready && engine_state.st.policy
               ? (const char *const *)engine_state.st.policy
               : none;
}

char *permission_untrusted_note(void)
{
    return engine_state.ready ? perm_msg_untrusted(&engine_state.st, engine_state.primary) : NULL;
}

void permission_fini(void)
{
    if (engine_state.primary && engine_state.primary != engine_state.embedded)
        perm_agent_free(engine_state.primary);
    perm_agent_free(engine_state.embedded);
    for (size_t i = 0; i < engine_state.ncache; i++) {
        free(engine_state.cache[i].spec);
        perm_agent_free(engine_state.cache[i].agent);
    }
    free(engine_state.cache);
    free(engine_state.primary_spec);
    perm_settings_free(&engine_state.st);
    free(engine_state.owned_tools);
    perm_cmd_clear_wrappers();
    memset(&engine_state, 0, sizeof engine_state);
}

void permission_reset_counters(void)
{
    pthread_mutex_lock(&P_lock);
    engine_state.consecutive = engine_state.total = 0;
    pthread_mutex_unlock(&P_lock);
}

const perm_settings *perm_state_settings(void)
{
    return engine_state.ready ? &engine_state.st : NULL;
}

void perm_state_counters(long *consecutive, long *total)
{
    pthread_mutex_lock(&P_lock);
    *consecutive = engine_state.consecutive;
    *total = engine_state.total;
    pthread_mutex_unlock(&P_lock);
}

void perm_state_count_review(int allowed)
{
    pthread_mutex_lock(&P_lock);
    if (allowed) {
        engine_state.consecutive = 0;
    } else {
        engine_state.consecutive++;
        engine_state.total++;
    }
    pthread_mutex_unlock(&P_lock);
}

/* The agent of a call: the per-call one (loaded once, then cached), or
 * the process's primary agent. */
int perm_state_agent(const char *spec, const perm_agent **out, char **err)
{
    if (!spec || !*spec ||
        (engine_state.primary_spec && strcmp(spec, engine_state.primary_spec) == 0)) {
        *out = engine_state.primary;
        return 0;
    }
    int rc = 0;
    pthread_mutex_lock(&P_lock);
    for (size_t i = 0; i < engine_state.ncache; i++)
        if (strcmp(engine_state.cache[i].spec, spec) == 0) {
            *out = engine_state.cache[i].agent;
            pthread_mutex_unlock(&P_lock);
            return 0;
        }
    perm_agent *a = NULL;
    /* a per-call agent is a name, never a path */
    rc = perm_agent_load_name(spec, &engine_state.st, &a, err);
    if (rc == 0 && engine_state.check_tools &&
        (rc = perm_tools_check_agent(&engine_state.st, a, err)) < 0) {
        perm_agent_free(a);
        a = NULL;
    }
    if (rc == VT_ERR_NOT_FOUND && strcmp(spec, "default") == 0) {
        free(*err);
        *err = NULL;
        *out = engine_state.embedded;
        pthread_mutex_unlock(&P_lock);
        return 0;
    }
    if (rc == 0) {
        int grown = VT_GROW(&engine_state.cache, &engine_state.capcache, engine_state.ncache + 1);
        char *s = strdup(spec);
        if (grown != 0 || !s) {
            free(s);
            perm_agent_free(a);
            rc = VT_ERR_NOMEM;
        } else {
            engine_state.cache[engine_state.ncache++] = (cached_agent){s, a};
            *out = a;
        }
    }
    pthread_mutex_unlock(&P_lock);
    return rc;
}

int permission_validate_tools(char **err)
{
    int rc = perm_tools_check(&engine_state.st, engine_state.primary, err);
    if (rc == 0)
        engine_state.check_tools = 1;
    return rc;
}
