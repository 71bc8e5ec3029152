/* What the permission engine knows of the tools: their declarations
 * (command rules, rule aliases) from the registry or a driver, and the
 * check that every rule names an installed tool.  A rule naming no
 * installed tool warns once and is inert; a near miss is an error. */
#include "log.h"
#include "perm_config.h"
#include "perm_rules.h"
#include "perm_tools.h"
#include "registry.h"
#include "strutil.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>

static perm_tool_decls declared; /* permission_declare_tools */
static char *const *closed_tools;
static size_t nclosed_tools;

void permission_declare_tools(const perm_tool_decl *decls, size_t n)
{
    declared = (perm_tool_decls){decls, decls ? n : 0};
}

/* The declarations of the registered tools (or the declared ones). */
int perm_tools_collect(perm_tool_decls *tools, perm_tool_decl **owned)
{
    *owned = NULL;
    if (declared.items) {
        *tools = declared;
        return 0;
    }
    const tool_entry **v = NULL;
    size_t n = 0;
    if (registry_all(&v, &n) != VT_OK)
        return VT_ERR_NOMEM;
    perm_tool_decl *d = calloc(n ? n : 1, sizeof *d);
    if (!d) {
        free(v);
        return VT_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        d[i] = (perm_tool_decl){v[i]->t.name, (v[i]->t.flags & VT_TOOL_COMMAND_RULES) != 0,
                                v[i]->t.rule_aliases};
    free(v);
    *owned = d;
    *tools = (perm_tool_decls){d, n};
    return 0;
}

void permission_set_closed_tools(char *const *names, size_t n)
{
    closed_tools = n ? names : NULL;
    nclosed_tools = n;
}

/* Warnings already given (source and text), so that each is given once
 * per process however often its rules are checked. */
static pthread_mutex_t warned_lock = PTHREAD_MUTEX_INITIALIZER;
static char **warned;
static size_t nwarned, capwarned;

static void warn_once(const char *text)
{
    pthread_mutex_lock(&warned_lock);
    for (size_t i = 0; i < nwarned; i++) {
        if (strcmp(warned[i], text) == 0) {
            pthread_mutex_unlock(&warned_lock);
            return;
        }
    }
    if (VT_GROW(&warned, &capwarned, nwarned + 1) == 0) {
        warned[nwarned] = strdup(text);
        if (warned[nwarned])
            nwarned++;
    }
    pthread_mutex_unlock(&warned_lock);
    host_log(VT_LOG_WARNING, NULL, "%s", text);
}

/* `bucket` is the set's PB_* (deny rules are worded as such), or -1. */
static int check_set(const perm_settings *st, const perm_ruleset *set, int bucket,
                     const char *const *names, size_t n, char **err)
{
    for (size_t i = 0; i < set->count; i++) {
        char *why = NULL;
        int rc = perm_rule_check_tool(set->rules[i], names, n, st->tools, bucket == PB_DENY, &why);
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
            *err =
                str_printf("%s: %s", src ? src : set->rules[i]->source, why ? why : "unknown tool");
            free(src);
            free(why);
            return rc;
        }
    }
    return 0;
}

static int check_agent(const perm_settings *st, const perm_agent *a, const char *const *names,
                       size_t n, char **err)
{
    int rc = check_set(st, &a->ignored, -1, names, n, err);
    for (int b = 0; rc == 0 && b < PB_COUNT; b++)
        rc = check_set(st, &a->sets[b], b, names, n, err);
    for (size_t i = 0; rc == 0 && i < a->ndropped; i++) {
        perm_ruleset one = {.rules = &a->dropped[i], .count = 1};
        rc = check_set(st, &one, -1, names, n, err);
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

int perm_tools_check_agent(const perm_settings *st, const perm_agent *a, char **err)
{
    if (a->embedded)
        return 0;
    size_t n;
    const char **names = tool_names(&n);
    if (!names)
        return VT_ERR_NOMEM;
    int rc = check_agent(st, a, names, n, err);
    free(names);
    return rc;
}

int perm_tools_check(const perm_settings *st, const perm_agent *primary, char **err)
{
    *err = NULL;
    size_t n;
    const char **names = tool_names(&n);
    if (!names)
        return VT_ERR_NOMEM;
    int rc = check_set(st, &st->ignored_allow, -1, names, n, err);
    if (rc == 0)
        rc = check_set(st, &st->untrusted_ask, PB_ASK, names, n, err);
    for (int b = 0; rc == 0 && b < PB_COUNT; b++)
        rc = check_set(st, &st->global[b], b, names, n, err);
    if (rc == 0 && primary && !primary->embedded)
        rc = check_agent(st, primary, names, n, err);
    free(names);
    return rc;
}
