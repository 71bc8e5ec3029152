/* Dynamic tools: entries built from a plugin's vt_tool at run time, with
 * every string copied (the plugin may free its own right after), inserted
 * into the registry under its lock.  Removed entries are never freed
 * before exit because registry_find hands out borrowed pointers. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "loader.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "schema.h"
#include "strutil.h"

typedef struct demand_hook {
    plugin_module *module;
    void (*fn)(void *ud, const char *tool);
    void *ud;
} demand_hook;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static demand_hook *hooks;
static size_t nhooks, hooks_cap;
static void (*listed_fn)(void *ud);
static void *listed_ud;
/* registry_dynamic_demand calls under way (they run hooks outside mu) */
static int inflight;
static pthread_cond_t inflight_done = PTHREAD_COND_INITIALIZER;

/* The listener runs under `mu`, so that once on_listed_change(NULL)
 * returns no call into the old listener is still running (the front end
 * frees its server next).  Listeners must not call back into this file. */
static void listed_changed(void)
{
    pthread_mutex_lock(&mu);
    if (listed_fn)
        listed_fn(listed_ud);
    pthread_mutex_unlock(&mu);
}

/* The schema the host validates with.  A schema the validator's subset
 * cannot express is listed as given (plus max_output_tokens) and checked
 * here only as an object: the tool validates it, nothing is weakened
 * silently into a wrong "valid". */
static int prepare_schema(tool_entry *e, const char *text)
{
    char *why = NULL;
    if (schema_prepare(text, &e->schema, &why) == VT_OK)
        return VT_OK;
    free(why);
    cJSON *given = cJSON_Parse(text);
    if (!cJSON_IsObject(given)) {
        cJSON_Delete(given);
        return VT_ERR_INVALID;
    }
    cJSON *props = cJSON_GetObjectItemCaseSensitive(given, "properties");
    if (!props)
        props = cJSON_AddObjectToObject(given, "properties");
    if (cJSON_IsObject(props) && !cJSON_GetObjectItemCaseSensitive(props, "max_output_tokens")) {
        cJSON *m = cJSON_AddObjectToObject(props, "max_output_tokens");
        cJSON_AddStringToObject(m, "type", "integer");
        cJSON_AddNumberToObject(m, "minimum", 1);
        cJSON_AddNumberToObject(m, "maximum", SCHEMA_MAX_OUTPUT_TOKENS_MAX);
        cJSON_AddStringToObject(m, "description", "Token budget for this call's output.");
    }
    e->shown_schema = given;
    return schema_prepare("{\"type\":\"object\",\"additionalProperties\":true}", &e->schema,
                          &why) == VT_OK
               ? VT_OK
               : (free(why), VT_ERR_INVALID);
}

int registry_dynamic_add(const char *plugin, const vt_tool *tool, size_t sizeof_tool,
                         const char *annotations_json)
{
    plugin_module *m = plugin ? loader_find(plugin) : NULL;
    if (!m || !tool || sizeof_tool == 0)
        return VT_ERR_INVALID;
    tool_entry *e = calloc(1, sizeof *e);
    if (!e)
        return VT_ERR_NOMEM;
    memcpy(&e->t, tool, sizeof_tool < sizeof(vt_tool) ? sizeof_tool : sizeof(vt_tool));
    e->t.describe = NULL; /* a dynamic tool's description is the one given */
    e->module = m;
    e->dynamic = 1;
    int rc = VT_ERR_INVALID;
    /* typed tools are a load-time feature; a dynamic tool is a JSON tool */
    if (!e->t.name || !registry_name_valid(e->t.name) || !e->t.run || !e->t.input_schema ||
        e->t.signature)
        goto fail;
    e->own_name = strdup(e->t.name);
    e->own_description = strdup(e->t.description ? e->t.description : "");
    e->own_schema_text = strdup(e->t.input_schema);
    rc = VT_ERR_NOMEM;
    if (!e->own_name || !e->own_description || !e->own_schema_text)
        goto fail;
    e->t.name = e->own_name;
    e->t.description = e->own_description;
    e->t.input_schema = e->own_schema_text;
    e->t.signature = NULL;
    e->t.typed_fn = NULL;
    if ((rc = prepare_schema(e, e->own_schema_text)) != VT_OK)
        goto fail;
    if (annotations_json) {
        e->annotations = cJSON_Parse(annotations_json);
        rc = VT_ERR_INVALID;
        if (!cJSON_IsObject(e->annotations))
            goto fail;
    }
    int was_listed = 0;
    if ((rc = registry_dyn_put(e, &was_listed)) != VT_OK)
        goto fail;
    if (was_listed)
        listed_changed();
    return VT_OK;
fail:
    registry_entry_free(e);
    return rc;
}

int registry_dynamic_remove(const char *plugin, const char *name)
{
    plugin_module *m = plugin ? loader_find(plugin) : NULL;
    if (!m || !name)
        return VT_ERR_INVALID;
    int was_listed = 0;
    int rc = registry_dyn_drop(name, m, &was_listed);
    if (rc == VT_OK && was_listed)
        listed_changed();
    return rc;
}

int registry_dynamic_on_demand(const char *plugin, void (*fn)(void *ud, const char *tool), void *ud)
{
    plugin_module *m = plugin ? loader_find(plugin) : NULL;
    if (!m || !fn)
        return VT_ERR_INVALID;
    pthread_mutex_lock(&mu);
    int grown = VT_GROW(&hooks, &hooks_cap, nhooks + 1) == 0;
    if (grown)
        hooks[nhooks++] = (demand_hook){m, fn, ud};
    pthread_mutex_unlock(&mu);
    return grown ? VT_OK : VT_ERR_NOMEM;
}

void registry_dynamic_demand(const char *tool)
{
    /* Copy the hooks out: a hook may take long, and may add tools. */
    pthread_mutex_lock(&mu);
    size_t n = nhooks;
    demand_hook *copy = n ? malloc(n * sizeof *copy) : NULL;
    if (copy)
        memcpy(copy, hooks, n * sizeof *copy);
    inflight++;
    pthread_mutex_unlock(&mu);
    for (size_t i = 0; copy && i < n; i++)
        if (copy[i].module->state == PLUGIN_LOADED)
            copy[i].fn(copy[i].ud, tool);
    free(copy);
    pthread_mutex_lock(&mu);
    inflight--;
    pthread_cond_broadcast(&inflight_done);
    pthread_mutex_unlock(&mu);
}

void registry_dynamic_quiesce(void)
{
    pthread_mutex_lock(&mu);
    while (inflight)
        pthread_cond_wait(&inflight_done, &mu);
    pthread_mutex_unlock(&mu);
}

void registry_dynamic_on_listed_change(void (*fn)(void *ud), void *ud)
{
    pthread_mutex_lock(&mu);
    listed_fn = fn;
    listed_ud = ud;
    pthread_mutex_unlock(&mu);
}

void registry_dynamic_reset(void)
{
    pthread_mutex_lock(&mu);
    free(hooks);
    hooks = NULL;
    nhooks = hooks_cap = 0;
    listed_fn = NULL;
    listed_ud = NULL;
    pthread_mutex_unlock(&mu);
}
