/* search_tools: ranks the host's tool catalog (deferred tools and those
 * already listed) against a query and expands the strong deferred
 * matches so they are listed from the next request on.
 *
 * The BM25 index is built once per catalog and cached: the catalog only
 * changes when the host's catalog epoch does.  Expansions this plugin
 * makes itself are applied to the cached index in place (the expanded
 * tools are marked listed), so a run of searches does not rebuild it;
 * any other epoch change rebuilds it from api->catalog_list(). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>
#include "catalog.h"
#include "client_names.h"
#include "lazy_lib.h"
#include "stem.h"
#include "tokenize.h"

#define LIMIT_MIN 1
#define LIMIT_MAX 25
#define LIMIT_DEFAULT 5
/* Only matches scoring at least this fraction of the best match are
 * expanded (listed); weaker ones are returned, marked not listed, so a
 * broad query does not flood the tool list (docs/tools.md). */
#define EXPAND_FRACTION 0.5

enum detail { DETAIL_NAME, DETAIL_NAME_DESCRIPTION, DETAIL_FULL };

static VT_PLUGIN_API(g_api);

/* The index of the catalog the calling client sees and the epoch it
 * reflects; g_mu guards them and serialises searches (one search is well
 * under a millisecond).
 *
 * Each client of an HTTP server sees a catalog of its own (what its
 * searches expanded), with an epoch of its own: one cached index rebuilt
 * whenever the epoch changed was rebuilt on nearly every call once
 * clients took turns (8 clients: 0.06x the calls per second of stdio).
 * The indexes of the last CACHE_SLOTS epochs are kept; g_index is the
 * current one's. */
#define CACHE_SLOTS 16
static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static struct slot {
    catalog_index *ci;
    uint64_t epoch;
    uint64_t used;
} g_cache[CACHE_SLOTS];
static uint64_t g_clock;
static struct slot *g_cur;
static catalog_index *g_index;
static uint64_t g_epoch;

static const char *arg_string(const cJSON *args, const char *key)
{
    return cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, key));
}

static int parse_detail(const char *s, enum detail *out)
{
    if (!s || strcmp(s, "name_description") == 0)
        *out = DETAIL_NAME_DESCRIPTION;
    else if (strcmp(s, "name") == 0)
        *out = DETAIL_NAME;
    else if (strcmp(s, "full") == 0)
        *out = DETAIL_FULL;
    else
        return VT_ERR_INVALID;
    return 0;
}

/* Pure: checks the arguments only.  The schema already enforces types
 * and ranges; this catches what a schema cannot say (blank query) and
 * keeps the tool safe behind a host that skipped the schema. */
static int st_preflight(vt_call *call, const cJSON *args)
{
    const char *q = arg_string(args, "query");
    if (!q)
        return g_api->call_error(call, VT_ERR_INVALID, "'query' must be a string");
    if (tok_is_blank(q, strlen(q)))
        return g_api->call_error(call, VT_ERR_INVALID,
                                 "'query' is empty; give words to look for in tool "
                                 "names and descriptions, e.g. \"GitHub pull request review\"");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(args, "limit");
    if (limit && (!cJSON_IsNumber(limit) || limit->valuedouble != (double)limit->valueint ||
                  limit->valueint < LIMIT_MIN || limit->valueint > LIMIT_MAX))
        return g_api->call_error(call, VT_ERR_INVALID, "'limit' must be an integer from %d to %d",
                                 LIMIT_MIN, LIMIT_MAX);
    const cJSON *detail = cJSON_GetObjectItemCaseSensitive(args, "detail_level");
    enum detail d;
    if (detail && parse_detail(cJSON_GetStringValue(detail), &d) != 0)
        return g_api->call_error(
            call, VT_ERR_INVALID,
            "'detail_level' must be \"name\", \"name_description\" or \"full\"");
    return 0;
}

/* Makes g_index current for the host's epoch.  Caller holds g_mu. */
static int refresh_index(vt_call *call)
{
    /* Read the epoch before the list: if the catalog changes in between,
     * the stored epoch is already stale and the next call rebuilds. */
    uint64_t epoch = g_api->catalog_epoch();
    struct slot *lru = &g_cache[0];
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        struct slot *sl = &g_cache[i];
        if (sl->ci && sl->epoch == epoch) {
            sl->used = ++g_clock;
            g_cur = sl;
            g_index = sl->ci;
            g_epoch = epoch;
            return 0;
        }
        if (!sl->ci || (lru->ci && sl->used < lru->used))
            lru = sl;
    }
    cJSON *list = g_api->catalog_list();
    if (!list)
        return g_api->call_error(call, VT_ERR_INTERNAL,
                                 "search_tools: the host returned no tool catalog");
    /* The model is using this tool already: never a result. */
    for (cJSON *e = list->child; e; e = e->next) {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
        if (name && strcmp(name, "search_tools") == 0) {
            cJSON_Delete(cJSON_DetachItemViaPointer(list, e));
            break;
        }
    }
    catalog_index *ci;
    int rc = catalog_index_build(list, &ci);
    if (rc != 0)
        return g_api->call_error(call, rc, "search_tools: cannot index the tool catalog");
    catalog_index_free(lru->ci);
    *lru = (struct slot){ci, epoch, ++g_clock};
    g_cur = lru;
    g_index = ci;
    g_epoch = epoch;
    return 0;
}

static int hit_listed(const bm25_hit *h)
{
    return cJSON_IsTrue(
        cJSON_GetObjectItemCaseSensitive(catalog_index_entry(g_index, h->doc), "listed"));
}

/* The longest tool name the clients that prefix are known to take whole;
 * what one does with a longer name (shorten it, refuse it) is its own, so
 * none is given past it. */
#define CLIENT_NAME_MAX 64

static cJSON *describe_hit(const bm25_hit *h, enum detail detail, int listed,
                           const client_naming *cn)
{
    const cJSON *e = catalog_index_entry(g_index, h->doc);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    const char *name = catalog_index_name(g_index, h->doc);
    cJSON_AddStringToObject(o, "name", name);
    char shown[CLIENT_NAME_MAX + 1];
    if (cn && client_naming_apply(cn, CLIENT_NAMES_SERVER, name, shown, sizeof shown) == 0)
        cJSON_AddStringToObject(o, "client_name", shown);
    cJSON_AddNumberToObject(o, "score", h->score);
    cJSON_AddBoolToObject(o, "listed", listed);
    if (detail != DETAIL_NAME) {
        const char *d = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "description"));
        cJSON_AddStringToObject(o, "description", d ? d : "");
    }
    if (detail == DETAIL_FULL) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(e, "input_schema");
        cJSON_AddItemToObject(o, "parameters", s ? cJSON_Duplicate(s, 1) : cJSON_CreateObject());
    }
    return o;
}

/* Ranks, describes and expands.  Caller holds g_mu. */
static int search_locked(vt_call *call, const char *query, size_t limit, enum detail detail,
                         const client_naming *cn, cJSON *tools, cJSON *expanded,
                         uint64_t *next_epoch)
{
    int rc = refresh_index(call);
    if (rc != 0)
        return rc;
    bm25_hit hits[LIMIT_MAX];
    size_t n = 0, terms = 0;
    rc = catalog_index_search(g_index, query, limit, hits, &n, &terms);
    if (rc == VT_ERR_UNSUPPORTED)
        return g_api->call_error(call, rc,
                                 "search_tools: cannot open %s, the C math library that "
                                 "scores the matches (reinstall Debian's libc6)",
                                 VTHOST_LIBM_SONAME);
    if (rc != 0)
        return g_api->call_error(call, rc, "search_tools: search failed");
    if (terms == 0)
        g_api->call_warn(call, "the query has no searchable words (words of "
                               "two or more letters or digits)");
    /* Which deferred matches to expand: those close to the best. */
    const char *names[LIMIT_MAX];
    uint32_t docs[LIMIT_MAX];
    int expand[LIMIT_MAX];
    size_t nexp = 0;
    double best = n ? hits[0].score : 0;
    for (size_t i = 0; i < n; i++) {
        expand[i] = !hit_listed(&hits[i]) && hits[i].score >= EXPAND_FRACTION * best;
        if (expand[i]) {
            names[nexp] = catalog_index_name(g_index, hits[i].doc);
            docs[nexp++] = hits[i].doc;
        }
    }
    *next_epoch = g_epoch;
    int expanded_ok = 0;
    uint64_t epoch = 0;
    if (nexp) {
        rc = g_api->catalog_expand(names, nexp, &epoch);
        if (rc != 0) {
            g_api->call_warn(call,
                             "the matches could not be expanded (status %d); "
                             "they are not listed",
                             rc);
        } else {
            expanded_ok = 1;
            for (size_t i = 0; i < nexp; i++)
                cJSON_AddItemToArray(expanded, cJSON_CreateString(names[i]));
        }
    }
    for (size_t i = 0; i < n; i++) {
        int listed = hit_listed(&hits[i]) || (expand[i] && expanded_ok);
        cJSON *o = describe_hit(&hits[i], detail, listed, cn);
        if (!o || !cJSON_AddItemToArray(tools, o))
            return g_api->call_error(call, VT_ERR_NOMEM, "search_tools: out of memory");
    }
    if (expanded_ok) {
        /* The expanded tools are listed now; the cached index follows
         * without a rebuild. */
        for (size_t i = 0; i < nexp; i++)
            catalog_index_mark_listed(g_index, docs[i]);
        g_epoch = epoch;
        g_cur->epoch = epoch;
        *next_epoch = epoch;
    }
    return 0;
}

/* The naming of the call's client when it is known to prefix a server's
 * tools; NULL for any other client, the CLI, or an older host. */
static const client_naming *calling_client(const vt_call *call)
{
    const char *name = NULL;
    if (!VT_HAS(g_api, call_client_info) || g_api->call_client_info(call, &name, NULL) != 0)
        return NULL;
    return client_naming_for(name);
}

/* Says once what each result's client_name is, and on what it rests:
 * the server name is the user's choice, unknown here. */
static void add_client_note(cJSON *res, const client_naming *cn)
{
    char *note = g_api->format(
        "%s shows this server's tools as mcp__<server>__<name>, <server> being the name it was "
        "added under; each client_name is that name if added as `%s` (as docs/clients.md "
        "does). Call a tool by the name %s shows; vthost takes the name without the prefix.",
        client_naming_label(cn), CLIENT_NAMES_SERVER, client_naming_label(cn));
    if (note)
        cJSON_AddStringToObject(res, "client_names", note);
    g_api->free(note);
}

static int st_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *query = arg_string(args, "query");
    const cJSON *jl = cJSON_GetObjectItemCaseSensitive(args, "limit");
    size_t limit = cJSON_IsNumber(jl) ? (size_t)jl->valueint : LIMIT_DEFAULT;
    enum detail detail;
    if (!query || limit < LIMIT_MIN || limit > LIMIT_MAX ||
        parse_detail(arg_string(args, "detail_level"), &detail) != 0)
        return g_api->call_error(call, VT_ERR_INVALID, "search_tools: invalid arguments");

    cJSON *res = cJSON_CreateObject();
    cJSON *tools = cJSON_CreateArray();
    cJSON *expanded = cJSON_CreateArray();
    if (!res || !tools || !expanded) {
        cJSON_Delete(res);
        cJSON_Delete(tools);
        cJSON_Delete(expanded);
        return g_api->call_error(call, VT_ERR_NOMEM, "search_tools: out of memory");
    }
    const client_naming *cn = calling_client(call);
    uint64_t next_epoch = 0;
    pthread_mutex_lock(&g_mu);
    int rc = search_locked(call, query, limit, detail, cn, tools, expanded, &next_epoch);
    pthread_mutex_unlock(&g_mu);

    cJSON_AddStringToObject(res, "query", query);
    if (cn)
        add_client_note(res, cn);
    cJSON_AddNumberToObject(res, "count", cJSON_GetArraySize(tools));
    cJSON_AddItemToObject(res, "tools", tools);
    cJSON_AddItemToObject(res, "expanded_for_next_segment", expanded);
    cJSON_AddNumberToObject(res, "next_catalog_epoch", (double)next_epoch);
    if (rc != 0) {
        cJSON_Delete(res);
        return rc;
    }
    *result = res;
    return 0;
}

static int st_init(const vt_host_api *api, char **errmsg)
{
    if (!VT_HAS(api, catalog_list) || !VT_HAS(api, catalog_expand) || !VT_HAS(api, catalog_epoch)) {
        if (VT_HAS(api, strdup))
            *errmsg = api->strdup("search_tools needs a host with the deferred "
                                  "tool catalog (catalog_list, catalog_expand, "
                                  "catalog_epoch)");
        return VT_ERR_UNSUPPORTED;
    }
    if (VT_HAS(api, open_library)) /* libstemmer and libm, on first use */
        lazy_lib_set_opener(api->open_library);
    return 0;
}

static void st_fini(void)
{
    pthread_mutex_lock(&g_mu);
    for (size_t i = 0; i < CACHE_SLOTS; i++) {
        catalog_index_free(g_cache[i].ci);
        g_cache[i] = (struct slot){0};
    }
    g_cur = NULL;
    g_index = NULL;
    g_epoch = 0;
    pthread_mutex_unlock(&g_mu);
    stem_release();
}

static const char st_schema[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"query\":{\"type\":\"string\","
    "\"description\":\"Words to look for in the names, descriptions and "
    "parameters of the tools, e.g. \\\"GitHub pull request review\\\".\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":25,\"default\":5,"
    "\"description\":\"Most tools to return (1-25, default 5).\"},"
    "\"detail_level\":{\"type\":\"string\","
    "\"enum\":[\"name\",\"name_description\",\"full\"],\"default\":\"name_description\","
    "\"description\":\"name: names only; name_description: names and "
    "descriptions; full: descriptions and each tool's full input schema.\"}"
    "},"
    "\"required\":[\"query\"],"
    "\"additionalProperties\":false}";

static const char st_output_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\"},"
    "\"client_names\":{\"type\":\"string\",\"description\":\"what each client_name is, for "
    "a client known to prefix a server's tools\"},"
    "\"count\":{\"type\":\"integer\",\"minimum\":0},"
    "\"tools\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"name\":{\"type\":\"string\"},"
    "\"client_name\":{\"type\":\"string\",\"description\":\"how the calling client shows "
    "the tool to its model, when it is known to prefix a server's tools (see "
    "client_names)\"},"
    "\"score\":{\"type\":\"number\"},"
    "\"listed\":{\"type\":\"boolean\",\"description\":\"callable directly from the next "
    "request on (listed already, or expanded by this search)\"},"
    "\"description\":{\"type\":\"string\"},"
    "\"parameters\":{\"type\":\"object\",\"description\":\"the tool's input schema "
    "(detail_level full)\"}},"
    "\"required\":[\"name\",\"score\",\"listed\"]}},"
    "\"expanded_for_next_segment\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"tools listed from the next request on\"},"
    "\"next_catalog_epoch\":{\"type\":\"integer\",\"minimum\":0}"
    "},\"required\":[\"query\",\"count\",\"expanded_for_next_segment\","
    "\"next_catalog_epoch\"]}";

/* Over max_output_tokens the host spools the whole response and keeps
 * only these small members the model needs to go on (vt_tool.budget_keep);
 * the tools found are in the spool's preview. */
static const char *const st_budget_keep[] = {"query", "count", "expanded_for_next_segment",
                                             "next_catalog_epoch", NULL};

static const vt_tool st_tools[] = {
    {
        .name = "search_tools",
        .description = "Search the local tool catalog (tools installed but not listed "
                       "yet, and those already listed) by name, description and "
                       "parameters, ranked by BM25. Unlisted tools scoring at least half "
                       "the best match are expanded: from the next request on they are "
                       "listed and can be called directly. Each result says whether it "
                       "is listed. Names are as this server lists them; a client that "
                       "prefixes a server's tools (Claude Code, Codex: "
                       "mcp__<server>__<name>) shows them under that prefix, given in "
                       "each result's client_name when the client is known.",
        .input_schema = st_schema,
        .title = "Find more tools",
        .output_schema = st_output_schema,
        .effects = VT_EFFECT_READ_ONLY,
        .preflight = st_preflight,
        .run = st_run,
        .budget_keep = st_budget_keep,
    },
    {0},
};

static const vt_plugin st_plugin = {
    VT_PLUGIN_HEADER,   .name = "search_tools", .version = "0.1.0", .license = "MIT",
    .api_slot = &g_api, .tools = st_tools,      .init = st_init,    .fini = st_fini,
};

VT_PLUGIN_ENTRY(st_plugin)
