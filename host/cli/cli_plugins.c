/* `vthost plugins`: the modules found, loaded or refused, as text or
 * JSON.  It lists even when the active profile cannot load (the user's
 * first diagnostic), and exits 1 only then. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "host.h"
#include "loader.h"
#include "registry.h"
#include "text_escape.h"

static const char *tool_state(const tool_entry *e)
{
    return e->is_public || e->is_expanded ? "listed"
           : registry_is_deferred(e)      ? "deferred"
                                          : "gated";
}

/* One module as JSON: what the text form says, field by field. */
static cJSON *module_json(const plugin_module *m, const tool_entry **all, size_t n)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "module", m->stem);
    cJSON_AddStringToObject(j, "path", m->path);
    int loaded = m->state == PLUGIN_LOADED;
    cJSON_AddStringToObject(j, "state", loaded ? "loaded" : "refused");
    cJSON_AddBoolToObject(j, "in_profile", m->in_profile);
    if (!loaded) {
        cJSON_AddStringToObject(j, "refusal", m->refusal ? m->refusal : "unknown reason");
        return j;
    }
    cJSON_AddStringToObject(j, "name", m->desc->name);
    if (m->desc->version)
        cJSON_AddStringToObject(j, "version", m->desc->version);
    if (m->desc->license)
        cJSON_AddStringToObject(j, "license", m->desc->license);
    cJSON *tools = cJSON_AddArrayToObject(j, "tools");
    for (size_t k = 0; k < n; k++) {
        if (all[k]->module != m)
            continue;
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", all[k]->t.name);
        cJSON_AddStringToObject(t, "state", tool_state(all[k]));
        if (all[k]->t.rule_aliases) { /* other names permission rules use */
            cJSON *a = cJSON_AddArrayToObject(t, "rule_aliases");
            for (const char *const *r = all[k]->t.rule_aliases; *r; r++)
                cJSON_AddItemToArray(a, cJSON_CreateString(*r));
        }
        cJSON_AddItemToArray(tools, t);
    }
    return j;
}

static void print_text(const tool_entry **all, size_t n, const char *error)
{
    printf("profile: %s%s\n", host_profile_name(), error ? " (cannot load)" : "");
    for (size_t i = 0; i < host_plugin_dir_count(); i++)
        printf("plugin directory: %s\n", host_plugin_dir(i));
    for (size_t i = 0; i < loader_count(); i++) {
        const plugin_module *m = loader_at(i);
        if (m->state != PLUGIN_LOADED) {
            printf("refused  %-14s %s: %s\n", m->stem, m->path,
                   m->refusal ? m->refusal : "unknown reason");
            continue;
        }
        printf("loaded   %-14s %s %s (%s)%s\n", m->stem, m->desc->name,
               m->desc->version ? m->desc->version : "",
               m->desc->license ? m->desc->license : "no license",
               m->in_profile ? " [profile]" : "");
        for (size_t k = 0; k < n; k++)
            if (all[k]->module == m)
                printf("           tool %-24s %s\n", all[k]->t.name, tool_state(all[k]));
    }
    /* "gated" is vthost's own word: say what each state means, once. */
    if (n)
        printf("tool states: listed = in the tool list; deferred = found by search_tools, "
               "then listed; gated = offered only by profiles that list it (--profile), "
               "so here neither listed, found nor callable\n");
    cli_mcp_plugins_text();
    if (error)
        printf("error: %s\n", error);
}

static void print_json(const tool_entry **all, size_t n, const char *error)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "profile", host_profile_name());
    cJSON_AddBoolToObject(j, "profile_loaded", error == NULL);
    if (error)
        cJSON_AddStringToObject(j, "error", error);
    cJSON *dirs = cJSON_AddArrayToObject(j, "plugin_dirs");
    for (size_t i = 0; i < host_plugin_dir_count(); i++)
        cJSON_AddItemToArray(dirs, cJSON_CreateString(host_plugin_dir(i)));
    cJSON *mods = cJSON_AddArrayToObject(j, "modules");
    for (size_t i = 0; i < loader_count(); i++)
        cJSON_AddItemToArray(mods, module_json(loader_at(i), all, n));
    cJSON *providers = cli_mcp_plugins_json();
    if (providers)
        cJSON_AddItemToObject(j, "mcp_providers", providers);
    char *s = cJSON_Print(j);
    if (s)
        printf("%s\n", s);
    free(s);
    cJSON_Delete(j);
}

int cli_plugins(int argc, char **argv, const cli_options *o)
{
    (void)argc;
    (void)argv;
    const char *format = o->format ? o->format : "text";
    if (strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "vthost: unknown format '%s' for plugins (text or json)\n", format);
        return CLI_EXIT_USAGE;
    }
    const tool_entry **all = NULL;
    size_t n = 0;
    if (registry_all(&all, &n) != VT_OK)
        return CLI_EXIT_FAILED;
    if (strcmp(format, "json") == 0)
        print_json(all, n, o->host_error);
    else
        print_text(all, n, o->host_error);
    free(all);
    char *shown = text_escape(o->host_error, TEXT_KEEP_NEWLINES | TEXT_INDENT_LINES);
    if (shown)
        fprintf(stderr, "vthost: %s\n", shown);
    free(shown);
    if (!o->host_error)
        return CLI_EXIT_OK;
    return host_config_failed() ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
}
