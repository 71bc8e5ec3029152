/* The code_search plugin: schema, argument checks, permission subjects and
 * the JSON response around the search core (cs_search). */
#include "cs.h"
#include "cs_lex.h"
#include "cs_types.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

static VT_PLUGIN_API(api);

/* A literal longer than this is not a code search. */
#define MAX_QUERY 1024

static const char *const CAT_NAMES[CS_NCAT] = {"definition", "usage", "text", "path"};

static const char SCHEMA[] =
    "{\"type\":\"object\",\"additionalProperties\":false,"
    "\"required\":[\"query\"],"
    "\"properties\":{"
    "\"query\":{\"type\":\"string\",\"minLength\":1,"
    "\"description\":\"Searched literally (never a regex). All lower-case: "
    "case-insensitive; any upper-case letter: case-sensitive.\"},"
    "\"path\":{\"type\":\"string\",\"description\":\"One workspace file or "
    "directory to limit the search to.\"},"
    "\"file_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"Language names (rust, python, javascript, typescript, "
    "tsx, go, java, c, cpp, csharp, ruby, php, kotlin, swift, lua, bash, sql, scala, "
    "elixir, dart, zig, proto, haskell, nix, solidity, hcl, dockerfile, md, css, html, "
    "json, yaml, toml) or extensions (rs, .h, tf).\"},"
    "\"result_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\","
    "\"enum\":[\"definition\",\"usage\",\"text\",\"path\"]},"
    "\"description\":\"Categories to return; omitted: all four.\"},"
    "\"max_results\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100,"
    "\"default\":20,\"description\":\"Results to return (1-100).\"}"
    "}}";

/* Canonical language mask of file_types; on an unknown name *bad is it. */
static int types_mask(const cJSON *ft, uint64_t *mask, const char **bad)
{
    *mask = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, ft)
    {
        int l = cJSON_IsString(it) ? cs_lang_lookup(it->valuestring) : -1;
        if (l < 0) {
            *bad = cJSON_IsString(it) ? it->valuestring : "(not a string)";
            return VT_ERR_INVALID;
        }
        *mask |= (uint64_t)1 << l;
    }
    return 0;
}

static int cats_of(const cJSON *rt, unsigned *cats)
{
    *cats = 0;
    if (!rt)
        return (*cats = CS_CAT_ALL), 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, rt)
    {
        int found = 0;
        for (int c = 0; c < CS_NCAT; c++)
            if (cJSON_IsString(it) && strcmp(it->valuestring, CAT_NAMES[c]) == 0) {
                *cats |= 1u << c;
                found = 1;
            }
        if (!found)
            return VT_ERR_INVALID;
    }
    if (!*cats)
        *cats = CS_CAT_ALL;
    return 0;
}

static int cs_preflight(vt_call *call, const cJSON *args)
{
    const cJSON *q = cJSON_GetObjectItemCaseSensitive(args, "query");
    if (!cJSON_IsString(q) || !q->valuestring[0])
        return api->call_error(call, VT_ERR_INVALID, "query must be a non-empty string");
    if (strlen(q->valuestring) > MAX_QUERY)
        return api->call_error(call, VT_ERR_INVALID, "query is longer than %d bytes", MAX_QUERY);
    const cJSON *ft = cJSON_GetObjectItemCaseSensitive(args, "file_types");
    uint64_t mask;
    const char *bad = NULL;
    if (ft && types_mask(ft, &mask, &bad) < 0) {
        char *known = cs_lang_known();
        int rc = api->call_error(call, VT_ERR_INVALID,
                                 "unknown file type '%s'; known types: %s "
                                 "(or one of their extensions, such as rs or .h)",
                                 bad, known ? known : "?");
        free(known);
        return rc;
    }
    unsigned cats;
    if (cats_of(cJSON_GetObjectItemCaseSensitive(args, "result_types"), &cats) < 0)
        return api->call_error(call, VT_ERR_INVALID,
                               "result_types items must be definition, usage, text or path");
    return 0;
}

/* Workspace-relative form of an absolute path inside the root ("." for
 * the root itself); NULL when it is not inside. */
static const char *relative(const char *abs)
{
    const char *root = api->workspace_root();
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    if (strncmp(abs, root, n) != 0)
        return NULL;
    if (abs[n] == '\0')
        return ".";
    if (abs[n] == '/' && abs[n + 1])
        return abs + n + 1;
    return n == 1 && root[0] == '/' ? abs + 1 : NULL;
}

/* The scope as a path subject: a file as itself, the whole workspace as
 * ".", and a directory as its path followed by a slash and two stars:
 * everything the search may read below it.  So an allow rule for
 * everything below src covers path "src", and a deny rule for everything
 * below secret refuses path "secret". */
static int cs_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(args, "path");
    if (!cJSON_IsString(p) || !p->valuestring[0])
        return api->subject_add(out, VT_SUBJECT_PATH_READ, ".");
    char *abs = NULL;
    const char *rel = NULL;
    if (api->resolve_path(p->valuestring, 0, &abs) == 0)
        rel = relative(abs);
    int rc;
    struct stat st;
    if (!rel) { /* reported as given: the policy judges it, run refuses it */
        rc = api->subject_add(out, VT_SUBJECT_PATH_READ, p->valuestring);
    } else if (strcmp(rel, ".") == 0) {
        rc = api->subject_add(out, VT_SUBJECT_PATH_READ, ".");
    } else if (stat(abs, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(rel) + 4;
        char *s = malloc(n);
        if (!s) {
            api->free(abs);
            return VT_ERR_NOMEM;
        }
        snprintf(s, n, "%s/**", rel);
        rc = api->subject_add(out, VT_SUBJECT_PATH_READ, s);
        free(s);
    } else {
        rc = api->subject_add(out, VT_SUBJECT_PATH_READ, rel);
    }
    api->free(abs);
    return rc;
}

/* A deny rule on a subtree holds inside a search of a wider scope.  A
 * directory is left out (and not entered) when it, or everything in it,
 * is denied: DIR followed by a slash and a star stands for any entry, so
 * a rule on all of secret/ prunes "secret", while a rule on only its .key
 * files leaves the walk to check each file. */
static int denied_path(void *ud, const char *rel, int is_dir)
{
    if (api->path_denied(ud, VT_SUBJECT_PATH_READ, rel))
        return 1;
    if (!is_dir)
        return 0;
    char *any = api->alloc(strlen(rel) + 3);
    if (!any)
        return 1;
    strcpy(any, rel);
    strcat(any, "/*");
    int denied = api->path_denied(ud, VT_SUBJECT_PATH_READ, any);
    api->free(any);
    return denied;
}

static int cancelled(void *ud) { return api->call_cancelled(ud); }

static cJSON *filters_json(const char *path, uint64_t mask, unsigned cats, int max)
{
    cJSON *f = cJSON_CreateObject();
    cJSON_AddStringToObject(f, "path", path);
    cJSON *ft = cJSON_AddArrayToObject(f, "file_types");
    for (int l = 0; l < cs_lang_count(); l++)
        if (mask & ((uint64_t)1 << l))
            cJSON_AddItemToArray(ft, cJSON_CreateString(cs_lang_name(l)));
    cJSON *rt = cJSON_AddArrayToObject(f, "result_types");
    for (int c = 0; c < CS_NCAT; c++)
        if (cats & (1u << c))
            cJSON_AddItemToArray(rt, cJSON_CreateString(CAT_NAMES[c]));
    cJSON_AddNumberToObject(f, "max_results", max);
    return f;
}

static cJSON *result_json(const cs_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "result_type", CAT_NAMES[r->cat]);
    cJSON_AddStringToObject(o, "path", r->path);
    if (r->cat != CS_PATH) {
        cJSON_AddNumberToObject(o, "line", r->line);
        cJSON_AddNumberToObject(o, "column", r->col);
        cJSON_AddStringToObject(o, "snippet", r->snippet ? r->snippet : "");
    }
    if (r->name)
        cJSON_AddStringToObject(o, "name", r->name);
    return o;
}

/* "html, xml" (malloc'd): the languages in mask without `what` support;
 * NULL when there are none. */
static char *unsupported(uint64_t mask, unsigned what)
{
    char *s = NULL;
    size_t len = 0, cap = 0;
    for (int l = 0; l < cs_lang_count(); l++) {
        if (!(mask & ((uint64_t)1 << l)) || (cs_lang_support(l) & what))
            continue;
        const char *name = cs_lang_name(l);
        if (VT_GROW(&s, &cap, len + strlen(name) + 3) != 0)
            break;
        len += (size_t)sprintf(s + len, "%s%s", len ? ", " : "", name);
    }
    return s;
}

/* A hint naming the languages `names` (taken and freed; NULL: none to
 * name, no hint). */
static void add_hint(cJSON *h, const char *pre, char *names, const char *post)
{
    if (!names)
        return;
    char *m = malloc(strlen(pre) + strlen(names) + strlen(post) + 1);
    if (m) {
        sprintf(m, "%s%s%s", pre, names, post);
        cJSON_AddItemToArray(h, cJSON_CreateString(m));
        free(m);
    }
    free(names);
}

static cJSON *hints_json(const cs_output *res, unsigned cats, uint64_t mask)
{
    cJSON *h = cJSON_CreateArray();
    if (cats & (1u << CS_DEF))
        add_hint(h, "Definitions are unavailable for ", unsupported(mask, CS_SUPPORT_DEF),
                 ": those files give text, usage (where the language has them) and path "
                 "results.");
    if (cats & (1u << CS_USE))
        add_hint(h, "Usages are unavailable for ", unsupported(mask, CS_SUPPORT_USE),
                 " (data or markup): a matching name is a definition (a declared key or "
                 "heading) or text.");
    cJSON_AddItemToArray(
        h, cJSON_CreateString(
               res->insensitive
                   ? "The query is all lower-case, so it matched case-insensitively; "
                     "include an upper-case letter for a case-sensitive search."
                   : "The query has an upper-case letter, so it matched case-sensitively."));
    if (cats & (1u << CS_USE))
        cJSON_AddItemToArray(
            h, cJSON_CreateString(
                   "Usages are syntactic identifier matches, not resolved references: an "
                   "unrelated identifier with the same spelling may appear."));
    if (res->truncated)
        cJSON_AddItemToArray(
            h, cJSON_CreateString(
                   "More results may exist beyond this bounded search: narrow path, file_types "
                   "or result_types, or raise max_results (up to 100)."));
    if (res->n == 0)
        cJSON_AddItemToArray(
            h, cJSON_CreateString(
                   "No matches: check the spelling, the path and file_types; the search skips "
                   "ignored, hidden-by-.gitignore, binary and .env files."));
    return h;
}

/* Bytes of r's JSON text in the results array. */
static size_t result_size(const cs_result *r)
{
    cJSON *j = result_json(r);
    char *txt = j ? cJSON_PrintUnformatted(j) : NULL;
    size_t n = txt ? strlen(txt) + 1 : 0;
    free(txt);
    cJSON_Delete(j);
    return n;
}

/* Every result found, one a line, to the call's spool: the host keeps it
 * whole in a file under .vtcode/context/tool_outputs/ and names it in
 * "spool_path".  A line is "path:line:column: result_type name: snippet"
 * (a path result is "path: path"); a snippet's own line breaks, if any,
 * are written as \n so one result stays one line.  0, or a negative
 * vt_status when nothing could be spooled. */
static int spool_all(vt_call *call, const cs_output *res)
{
    vt_spool *sp = api->spool_open(call);
    if (!sp)
        return VT_ERR_NOMEM;
    int rc = 0;
    for (size_t i = 0; i < res->n && rc == 0; i++) {
        const cs_result *r = &res->v[i];
        const char *snip = r->snippet ? r->snippet : "";
        size_t cap = strlen(r->path) + strlen(snip) * 2 + (r->name ? strlen(r->name) : 0) + 64;
        char *line = malloc(cap);
        if (!line)
            return VT_ERR_NOMEM;
        int k = r->cat == CS_PATH ? snprintf(line, cap, "%s: path", r->path)
                                  : snprintf(line, cap, "%s:%u:%u: %s%s%s: ", r->path,
                                             (unsigned)r->line, (unsigned)r->col, CAT_NAMES[r->cat],
                                             r->name ? " " : "", r->name ? r->name : "");
        size_t len = k > 0 ? (size_t)k : 0;
        if (r->cat != CS_PATH)
            for (const char *c = snip; *c; c++) {
                if (*c == '\n' || *c == '\r') {
                    line[len++] = '\\';
                    line[len++] = *c == '\n' ? 'n' : 'r';
                } else {
                    line[len++] = *c;
                }
            }
        line[len++] = '\n';
        rc = api->spool_write(sp, line, len);
        free(line);
    }
    return rc;
}

/* A code_search call's arguments, checked (schema defaults applied). */
typedef struct cs_request {
    const char *query;
    const char *path; /* "." when not given */
    uint64_t mask;    /* file_types as languages */
    unsigned cats;    /* result_types */
    int max;          /* max_results */
} cs_request;

static int read_request(vt_call *call, const cJSON *args, cs_request *rq)
{
    int rc = cs_preflight(call, args);
    if (rc < 0)
        return rc;
    rq->query = cJSON_GetObjectItemCaseSensitive(args, "query")->valuestring;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(args, "path");
    rq->path = cJSON_IsString(p) && p->valuestring[0] ? p->valuestring : ".";
    const char *bad;
    types_mask(cJSON_GetObjectItemCaseSensitive(args, "file_types"), &rq->mask, &bad);
    cats_of(cJSON_GetObjectItemCaseSensitive(args, "result_types"), &rq->cats);
    const cJSON *mr = cJSON_GetObjectItemCaseSensitive(args, "max_results");
    rq->max = cJSON_IsNumber(mr) ? mr->valueint : 20;
    if (rq->max < 1 || rq->max > 100)
        return api->call_error(call, VT_ERR_INVALID, "max_results must be 1..100");
    return 0;
}

/* The content index's directory (the host's cache directory; the command
 * sandbox masks it), or NULL: none, or VTHOST_CODE_SEARCH_INDEX=off. */
static char *index_dir(void)
{
    const char *env = getenv("VTHOST_CODE_SEARCH_INDEX");
    if (env && (strcmp(env, "off") == 0 || strcmp(env, "0") == 0))
        return NULL;
    const vt_host_data_v1 *hd = api->service_lookup(VT_HOST_DATA_SERVICE);
    char *dir = NULL;
    if (!hd || hd->struct_size < offsetof(vt_host_data_v1, cache_dir) + sizeof hd->cache_dir ||
        !hd->cache_dir || hd->cache_dir(&dir) != VT_OK)
        return NULL;
    return dir;
}

/* The search in the request's scope, with the call's cancellation and
 * the host's path denials; a failure is the call's error. */
static int search_scope(vt_call *call, const cs_request *rq, cs_output *res)
{
    char *abs = NULL;
    int rc = api->resolve_path(rq->path, VT_RESOLVE_MUST_EXIST, &abs);
    if (rc == VT_ERR_OUTSIDE)
        return api->call_error(call, rc, "path '%s' is outside the workspace", rq->path);
    if (rc < 0)
        return api->call_error(call, rc, "path '%s' does not exist in the workspace", rq->path);
    cs_options opt = {.root = api->workspace_root(),
                      .scope = abs,
                      .query = rq->query,
                      .lang_mask = rq->mask,
                      .categories = rq->cats,
                      .max_results = rq->max,
                      .cancelled = cancelled,
                      .cancel_ud = call,
                      .skip_path = VT_HAS(api, path_denied) ? denied_path : NULL,
                      .skip_ud = call};
    char *ixdir = index_dir();
    opt.index_dir = ixdir;
    char *err = NULL;
    rc = cs_search(&opt, res, &err);
    free(ixdir); /* the host's cache_dir hands out malloc'd memory */
    api->free(abs);
    if (rc < 0) {
        rc = api->call_error(call, rc, "code_search: %s", err ? err : "failed");
        free(err);
    }
    return rc;
}

/* The response is structured, so the results themselves stay within
 * max_output_tokens, estimated like the host does: 4 bytes a token.
 * When they do not fit, the complete list goes to the call's spool
 * (spool_all) and the host adds the head and tail of it as "output"
 * with "spool_path": that preview takes the budget's size, so the
 * results kept here take half of it.  Adds the results that fit to arr;
 * returns how many, *over_budget set when not all of them would. */
static size_t add_results(cJSON *arr, const cs_output *res, const cs_request *rq, size_t budget,
                          int *over_budget)
{
    size_t envelope = 1024 + strlen(rq->query) + strlen(rq->path); /* envelope and hints */
    size_t sizes = envelope;
    for (size_t i = 0; i < res->n; i++)
        sizes += result_size(&res->v[i]);
    *over_budget = sizes > budget;
    size_t keep = *over_budget ? budget / 2 : budget;
    size_t used = envelope;
    size_t returned = 0;
    for (size_t i = 0; i < res->n; i++) {
        size_t n = result_size(&res->v[i]);
        if (returned > 0 && used + n > keep)
            break;
        used += n;
        cJSON_AddItemToArray(arr, result_json(&res->v[i]));
        returned++;
    }
    return returned;
}

/* The response object: query, filters, the results within the budget,
 * returned, truncated and hints; spools the whole list when cut. */
static cJSON *response_json(vt_call *call, const cJSON *args, const cs_request *rq, cs_output *res)
{
    const cJSON *mt = cJSON_GetObjectItemCaseSensitive(args, "max_output_tokens");
    size_t budget = (size_t)(cJSON_IsNumber(mt) && mt->valueint > 0 ? mt->valueint : 10000) * 4;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "query", rq->query);
    cJSON_AddItemToObject(o, "filters", filters_json(rq->path, rq->mask, rq->cats, rq->max));
    cJSON *arr = cJSON_AddArrayToObject(o, "results");
    int over_budget;
    size_t returned = add_results(arr, res, rq, budget, &over_budget);
    int spooled = 0;
    if (over_budget) {
        res->truncated = 1;
        spooled = spool_all(call, res) == 0;
    }
    cJSON_AddNumberToObject(o, "returned", (double)returned);
    cJSON_AddBoolToObject(o, "truncated", res->truncated);
    cJSON *hints = hints_json(res, rq->cats, rq->mask);
    if (over_budget)
        cJSON_AddItemToArray(
            hints,
            cJSON_CreateString(
                spooled ? "Results were cut to fit max_output_tokens; output lists every result "
                          "found, one a line (when that is cut too, its head and tail, and "
                          "spool_path names the file with all of them): read it, raise "
                          "max_output_tokens or narrow the search."
                        : "Results were cut to fit max_output_tokens; raise it or narrow the "
                          "search."));
    cJSON_AddItemToObject(o, "hints", hints);
    return o;
}

static int cs_run(vt_call *call, const cJSON *args, cJSON **result)
{
    cs_request rq;
    int rc = read_request(call, args, &rq);
    if (rc < 0)
        return rc;
    cs_output res;
    rc = search_scope(call, &rq, &res);
    if (rc < 0)
        return rc;
    *result = response_json(call, args, &rq, &res);
    cs_output_free(&res);
    return 0;
}

static void cs_fini(void) { cs_decl_release(); }

static const char OUTPUT_SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"query\":{\"type\":\"string\"},"
    "\"filters\":{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},"
    "\"file_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"result_types\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"max_results\":{\"type\":\"integer\"}}},"
    "\"results\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"result_type\":{\"type\":\"string\",\"enum\":[\"definition\",\"usage\",\"text\","
    "\"path\"]},"
    "\"path\":{\"type\":\"string\"},"
    "\"line\":{\"type\":\"integer\",\"minimum\":1},"
    "\"column\":{\"type\":\"integer\"},"
    "\"snippet\":{\"type\":\"string\"},"
    "\"name\":{\"type\":\"string\"}},"
    "\"required\":[\"result_type\",\"path\"]}},"
    "\"returned\":{\"type\":\"integer\",\"minimum\":0},"
    "\"truncated\":{\"type\":\"boolean\",\"description\":\"more may exist: narrow the "
    "search\"},"
    "\"hints\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}"
    "},\"required\":[\"query\",\"filters\",\"results\",\"returned\",\"truncated\"]}";
/* Rules written for other agents (Claude Code's Read) read the same. */
static const char *const RULE_ALIASES[] = {"read", "Read", NULL};

static const vt_tool TOOLS[] = {
    {
        .name = "code_search",
        .rule_aliases = RULE_ALIASES,
        .description = "Bounded workspace search for a literal query. Returns, in this order, "
                       "definitions (declarations named exactly the query), usages (identifiers "
                       "in code equal to the query, outside comments and strings), text (every "
                       "other match: comments, strings, prose, config, parts of longer names) and "
                       "paths (files and directories whose name contains the query). Respects "
                       ".gitignore and .ignore. truncated:true means more may exist: narrow path, "
                       "file_types or result_types.",
        .input_schema = SCHEMA,
        .title = "Search the workspace's code",
        .output_schema = OUTPUT_SCHEMA,
        .effects = VT_EFFECT_READ_ONLY | VT_EFFECT_IDEMPOTENT,
        .flags = VT_TOOL_PROFILE_GATED,
        .preflight = cs_preflight,
        .subjects = cs_subjects,
        .run = cs_run,
    },
    {0},
};

static const vt_plugin PLUGIN = {
    VT_PLUGIN_HEADER, .name = "code_search", .version = "0.1.0", .license = "MIT",
    .api_slot = &api, .tools = TOOLS,        .fini = cs_fini,
};

VT_PLUGIN_ENTRY(PLUGIN)
