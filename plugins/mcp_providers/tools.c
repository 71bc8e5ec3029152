/* Provider tools as host tools.  The host copies what tool_add is given,
 * so this table keeps only what a call and a re-registration need. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include "naming.h"
#include "tools.h"

typedef struct ptool {
    provider *p;
    char vt_name[MCPP_NAME_MAX + 1];
    char *tool;      /* the provider's name */
    cJSON *def;      /* the provider's Tool object */
    int seen;        /* in the latest list */
    int unavailable; /* registered with the unavailable mark */
} ptool;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static ptool *g_tools;
static size_t g_n, g_cap;

static uint32_t effects_of(const cJSON *ann)
{
    uint32_t fx = 0;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ann, "readOnlyHint")))
        fx |= VT_EFFECT_READ_ONLY;
    if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ann, "idempotentHint")))
        fx |= VT_EFFECT_IDEMPOTENT;
    if (!cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ann, "openWorldHint")))
        fx |= VT_EFFECT_NETWORK;
    return fx;
}

/* Register one tool.  Caller holds g_mu. */
static void add_locked(const ptool *t, const char *unavailable)
{
    const cJSON *def = t->def;
    const char *desc = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "description"));
    const cJSON *schema = cJSON_GetObjectItemCaseSensitive(def, "inputSchema");
    const cJSON *ann = cJSON_GetObjectItemCaseSensitive(def, "annotations");
    const char *title = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "title"));
    char *schema_text =
        cJSON_IsObject(schema) ? cJSON_PrintUnformatted(schema) : strdup("{\"type\":\"object\"}");
    char *ann_text = cJSON_IsObject(ann) ? cJSON_PrintUnformatted(ann) : NULL;
    /* the provider's name is part of what search_tools ranks */
    size_t len = (desc ? strlen(desc) : 0) + (title ? strlen(title) : 0) + strlen(t->p->name) +
                 (unavailable ? strlen(unavailable) : 0) + 96;
    char *full = malloc(len);
    if (full && schema_text) {
        snprintf(full, len, "%s%s%s%s%s%s%s(MCP server %s)", unavailable ? "[unavailable: " : "",
                 unavailable ? unavailable : "", unavailable ? "] " : "", title ? title : "",
                 title ? ". " : "", desc ? desc : "", desc && *desc ? " " : "", t->p->name);
        vt_tool vt = {.name = t->vt_name,
                      .description = full,
                      .input_schema = schema_text,
                      .effects = effects_of(ann),
                      .flags = VT_TOOL_DEFERRED,
                      .subjects = mcpp_subjects,
                      .run = mcpp_run};
        int rc = mcpp_api->tool_add(MCPP_PLUGIN, &vt, sizeof vt, ann_text);
        if (rc != VT_OK && ann_text) /* annotations the host cannot show */
            rc = mcpp_api->tool_add(MCPP_PLUGIN, &vt, sizeof vt, NULL);
        if (rc != VT_OK)
            mcpp_api->log(VT_LOG_WARNING, MCPP_PLUGIN,
                          "%s: tool '%s' not registered (status %d: bad name or schema)",
                          t->p->name, t->tool, rc);
    }
    free(full);
    free(schema_text);
    free(ann_text);
}

static ptool *find_locked(const char *vt_name)
{
    for (size_t i = 0; i < g_n; i++)
        if (strcmp(g_tools[i].vt_name, vt_name) == 0)
            return &g_tools[i];
    return NULL;
}

static void drop_locked(size_t i)
{
    mcpp_api->tool_remove(MCPP_PLUGIN, g_tools[i].vt_name);
    free(g_tools[i].tool);
    cJSON_Delete(g_tools[i].def);
    g_tools[i] = g_tools[--g_n];
}

/* The mapped names (no suffix) of the list's tools, and whether each
 * must carry the hash suffix: mapping changed it into the name of
 * another tool of the list.  A name the mapping left alone keeps it, so
 * the outcome never depends on the order tools are listed in. */
typedef struct mapped {
    const char *tool;
    char base[MCPP_NAME_MAX + 1];
    int changed, suffix;
} mapped;

static mapped *map_list(const provider *p, const cJSON *tools, size_t *n)
{
    size_t cap = (size_t)cJSON_GetArraySize(tools);
    mapped *m = calloc(cap ? cap : 1, sizeof *m);
    *n = 0;
    const cJSON *def;
    cJSON_ArrayForEach(def, tools)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "name"));
        if (!m || !name || !*name || *n == cap)
            continue;
        m[*n].tool = name;
        m[*n].changed = naming_tool(p->name, name, 0, 0, m[*n].base);
        (*n)++;
    }
    for (size_t i = 0; m && i < *n; i++)
        for (size_t j = 0; m[i].changed && !m[i].suffix && j < *n; j++)
            m[i].suffix =
                j != i && strcmp(m[i].base, m[j].base) == 0 && strcmp(m[i].tool, m[j].tool) != 0;
    return m;
}

static int needs_suffix(const mapped *m, size_t n, const char *tool)
{
    for (size_t i = 0; m && i < n; i++)
        if (strcmp(m[i].tool, tool) == 0)
            return m[i].suffix;
    return 0;
}

void tools_sync(provider *p, cJSON *tools)
{
    size_t nmapped = 0;
    mapped *map = map_list(p, tools, &nmapped);
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_n; i++)
        if (g_tools[i].p == p)
            g_tools[i].seen = 0;
    cJSON *def;
    cJSON_ArrayForEach(def, tools)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(def, "name"));
        if (!cJSON_IsObject(def) || !name || !*name)
            continue;
        /* the same provider tool keeps its name; a clash gets a salted hash */
        ptool *t = NULL;
        char vt[MCPP_NAME_MAX + 1];
        for (unsigned salt = 0; salt < 16; salt++) {
            naming_tool(p->name, name, salt, needs_suffix(map, nmapped, name), vt);
            ptool *have = find_locked(vt);
            if (!have || (have->p == p && strcmp(have->tool, name) == 0 && !have->seen)) {
                t = have;
                break;
            }
            if (have->p == p && strcmp(have->tool, name) == 0) { /* listed twice */
                vt[0] = '\0';
                break;
            }
        }
        if (!vt[0])
            continue;
        if (!t) {
            if (VT_GROW(&g_tools, &g_cap, g_n + 1) != 0)
                break;
            t = &g_tools[g_n++];
            memset(t, 0, sizeof *t);
            t->p = p;
            memcpy(t->vt_name, vt, sizeof vt);
            t->tool = strdup(name);
        }
        t->seen = 1;
        /* unchanged: keep the registered entry (every replacement stays
         * allocated in the host until exit) */
        if (t->def && !t->unavailable && cJSON_Compare(t->def, def, 1))
            continue;
        cJSON_Delete(t->def);
        t->def = cJSON_Duplicate(def, 1);
        t->unavailable = 0;
        add_locked(t, NULL);
    }
    for (size_t i = g_n; i-- > 0;)
        if (g_tools[i].p == p && !g_tools[i].seen)
            drop_locked(i);
    pthread_mutex_unlock(&g_mu);
    free(map);
    cJSON_Delete(tools);
}

void tools_mark(provider *p, int available)
{
    pthread_mutex_lock(&p->mu);
    char *why = strdup(p->reason ? p->reason : "the provider is not running");
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_n; i++)
        if (g_tools[i].p == p && g_tools[i].unavailable == available) {
            add_locked(&g_tools[i], available ? NULL : why);
            g_tools[i].unavailable = !available;
        }
    pthread_mutex_unlock(&g_mu);
    free(why);
}

provider *tools_lookup(const char *vt_name, char **tool)
{
    pthread_mutex_lock(&g_mu);
    ptool *t = vt_name ? find_locked(vt_name) : NULL;
    provider *p = t ? t->p : NULL;
    *tool = t ? strdup(t->tool) : NULL;
    pthread_mutex_unlock(&g_mu);
    return p;
}

int tools_task_only(const char *vt_name)
{
    pthread_mutex_lock(&g_mu);
    ptool *t = vt_name ? find_locked(vt_name) : NULL;
    const cJSON *exec = t ? cJSON_GetObjectItemCaseSensitive(t->def, "execution") : NULL;
    const char *ts = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(exec, "taskSupport"));
    int only = ts && strcmp(ts, "required") == 0;
    pthread_mutex_unlock(&g_mu);
    return only;
}

/* The call is a tools/call to server p->name: the permission engine
 * hands it to the auto reviewer as an MCP request (server, tool,
 * arguments).  A host older than 1.3 refuses these kinds; nothing else
 * depends on them. */
int mcpp_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)args;
    char *tool = NULL;
    provider *p = tools_lookup(mcpp_api->call_tool(call), &tool);
    if (p && tool && mcpp_api->subject_add(out, VT_SUBJECT_MCP_SERVER, p->name) == VT_OK)
        mcpp_api->subject_add(out, VT_SUBJECT_MCP_TOOL, tool);
    free(tool);
    return VT_OK;
}

size_t tools_count(const provider *p)
{
    size_t n = 0;
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_n; i++)
        n += g_tools[i].p == p;
    pthread_mutex_unlock(&g_mu);
    return n;
}

cJSON *tools_describe(const provider *p)
{
    cJSON *arr = cJSON_CreateArray();
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_n; i++)
        if (g_tools[i].p == p) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "name", g_tools[i].vt_name);
            cJSON_AddStringToObject(o, "tool", g_tools[i].tool);
            const char *d = cJSON_GetStringValue(
                cJSON_GetObjectItemCaseSensitive(g_tools[i].def, "description"));
            cJSON_AddStringToObject(o, "description", d ? d : "");
            cJSON_AddItemToArray(arr, o);
        }
    pthread_mutex_unlock(&g_mu);
    return arr;
}

void tools_clear(void)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < g_n; i++) {
        free(g_tools[i].tool);
        cJSON_Delete(g_tools[i].def);
    }
    free(g_tools);
    g_tools = NULL;
    g_n = g_cap = 0;
    pthread_mutex_unlock(&g_mu);
}
