/* Fixture plugins for the loader's rules.  One source, built once per
 * variant (FIXTURE_<NAME> defined), each breaking exactly one rule; the
 * "ok" variant provides tools the host tests call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>

/* Set by the host through .api_slot before any hook runs: no fixture
 * has an init that only stores it. */
__attribute__((unused)) static VT_PLUGIN_API(api);

#if defined(FIXTURE_OK)
static int echo_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    *result = cJSON_CreateObject();
    cJSON_AddBoolToObject(*result, "success", 1);
    cJSON_AddItemToObject(*result, "args", cJSON_Duplicate(args, 1));
    return VT_OK;
}

/* Writes `bytes` bytes of a repeating pattern through the spool (or as a
 * plain "output" string with "plain": true).  The pattern is ASCII, or
 * "€" (3 bytes, so budget cuts land inside characters) with
 * "multibyte": true. */
static int output_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(args, "bytes");
    size_t n = (size_t)b->valuedouble;
    int mb = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "multibyte"));
    int plain = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(args, "plain"));
    static const char euro[] = "\xE2\x82\xAC";
    char chunk[4095];
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = mb ? euro[i % 3] : (char)('a' + i % 26);
    *result = cJSON_CreateObject();
    cJSON_AddBoolToObject(*result, "success", 1);
    if (plain) {
        char *s = malloc(n + 1);
        for (size_t i = 0; i < n; i++)
            s[i] = chunk[i % sizeof chunk];
        s[n] = '\0';
        cJSON_AddStringToObject(*result, "output", s);
        free(s);
        return VT_OK;
    }
    vt_spool *sp = api->spool_open(call);
    for (size_t done = 0; done < n;) {
        size_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
        if (api->spool_write(sp, chunk, k) != VT_OK)
            return api->call_error(call, VT_ERR_IO, "spool write failed");
        done += k;
    }
    return VT_OK;
}

static int fail_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)args;
    (void)result;
    return api->call_error(call, VT_ERR_NOT_FOUND, "fixture failure: %s", "as asked");
}

/* The 1.2 string helpers: "text" repeated "n" times through the string
 * builder, then wrapped by api->format. */
static int format_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(args, "text");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(args, "n");
    vt_strbuf b = VT_STRBUF_INIT;
    for (int i = 0; i < (cJSON_IsNumber(n) ? n->valueint : 1); i++)
        api->strbuf_printf(&b, "%s%d;", cJSON_IsString(t) ? t->valuestring : "", i);
    api->strbuf_append(&b, "end", 3);
    char *built = api->strbuf_take(&b);
    char *s = built ? api->format("[%s] %zu", built, strlen(built)) : NULL;
    api->free(built);
    if (!s)
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    *result = cJSON_CreateObject();
    cJSON_AddStringToObject(*result, "text", s);
    api->free(s);
    return VT_OK;
}

/* A third-party command tool: it declares (1.2) that its rules take
 * command patterns and that rules may call it "fxsh"; the host knows no
 * more of it than that.  Reports "cmd" as one command; runs nothing. */
static int cmd_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(args, "cmd");
    return api->subject_add(out, VT_SUBJECT_COMMAND, cJSON_IsString(c) ? c->valuestring : "");
}

static const char *const cmd_aliases[] = {"fxsh", NULL};

static int picky_preflight(vt_call *call, const cJSON *args)
{
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(args, "word");
    if (cJSON_IsString(w) && strcmp(w->valuestring, "please") != 0)
        return api->call_error(call, VT_ERR_INVALID, "word: say 'please'");
    return VT_OK;
}

/* ABI 1.7: a description that depends on the host (its reading of
 * [agent] shell_prompt_profile), given after init; the descriptor's own
 * text is never shown. */
static const char *picky_describe(const char *tool)
{
    if (strcmp(tool, "fx_picky") != 0)
        return NULL;
    return strcmp(api->shell_profile(), "powershell") == 0
               ? "Preflight wants the word please (shell profile powershell)."
               : "Preflight wants the word please (shell profile unix_like).";
}

static const vt_tool tools[] = {
    {.name = "fx_echo", .description = "Echo the arguments back.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                     "\"n\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10}}}",
     .effects = VT_EFFECT_READ_ONLY, .run = echo_run},
    {.name = "fx_output", .description = "Produce a given amount of output.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"bytes\":{\"type\":\"integer\","
                     "\"minimum\":0},\"multibyte\":{\"type\":\"boolean\"},\"plain\":"
                     "{\"type\":\"boolean\"}},\"required\":[\"bytes\"]}",
     .effects = VT_EFFECT_READ_ONLY, .run = output_run},
    {.name = "fx_fail", .description = "Always fails.",
     .input_schema = "{\"type\":\"object\",\"properties\":{}}", .run = fail_run},
    {.name = "fx_picky", .description = "Not shown: picky_describe gives the description.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"word\":{\"type\":\"string\"}}}",
     .preflight = picky_preflight, .run = echo_run, .describe = picky_describe},
    {.name = "fx_gated", .description = "Only for profiles that list it.",
     .input_schema = "{\"type\":\"object\",\"properties\":{}}",
     .flags = VT_TOOL_PROFILE_GATED, .run = echo_run},
    {.name = "fx_format", .description = "Build a string with the host's string helpers.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"},"
                     "\"n\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":1000}}}",
     .effects = VT_EFFECT_READ_ONLY, .run = format_run},
    {.name = "fx_cmd", .description = "Pretend to run a command.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"cmd\":{\"type\":\"string\"}},"
                     "\"required\":[\"cmd\"]}",
     .flags = VT_TOOL_COMMAND_RULES, .rule_aliases = cmd_aliases,
     .subjects = cmd_subjects, .run = echo_run},
    {.name = "fx_hidden", .description = "A deferred tool.",
     .input_schema = "{\"type\":\"object\",\"properties\":{}}", .run = echo_run},
    {0},
};
static const vt_plugin desc = {VT_PLUGIN_HEADER, .name = "fixture_ok", .version = "1.0",
                               .license = "MIT", .tools = tools, .api_slot = &api};
VT_PLUGIN_ENTRY(desc)

#elif defined(FIXTURE_NOT_A_PLUGIN)
VT_EXPORT int some_other_library_function(void) { return 42; }

#else
static int plain_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    (void)args;
    *result = cJSON_CreateObject();
    return VT_OK;
}
#define SCHEMA "{\"type\":\"object\",\"properties\":{}}"

#if defined(FIXTURE_DUPLICATE)
#define TOOL_NAME "fx_echo"          /* also registered by fixture_ok */
#elif defined(FIXTURE_LEGACY)
#define TOOL_NAME "unified_exec"
#else
#define TOOL_NAME "fx_" FIXTURE_NAME
#endif

#if defined(FIXTURE_BAD_SCHEMA)
#undef SCHEMA
#define SCHEMA "{\"type\":\"object\",\"properties\":{\"x\": 5}"
#endif

static const vt_tool tools[] = {
    {.name = TOOL_NAME, .description = "fixture", .input_schema = SCHEMA, .run = plain_run},
    {0},
};

#if defined(FIXTURE_INIT_FAIL)
static int init_fail(const vt_host_api *a, char **errmsg)
{
    *errmsg = a->strdup("database not reachable");
    return VT_ERR_IO;
}
#define INIT init_fail
#else
#define INIT NULL
#endif

#if defined(FIXTURE_MISSING_PLUGIN)
static const char *const reqs[] = {"no_such_plugin", NULL};
#elif defined(FIXTURE_MISSING_SERVICE)
static const char *const reqs[] = {"service:no.such.service", NULL};
#else
static const char *const reqs[] = {NULL};
#endif

/* A descriptor as a newer SDK would lay it out: extra tail fields. */
static const struct {
    vt_plugin base;
    void *future[2];
} desc = {
    .base = {
        .struct_size = sizeof(vt_plugin)
#if defined(FIXTURE_NONZERO_TAIL)
                       + 2 * sizeof(void *)
#endif
        ,
        .sizeof_tool = sizeof(vt_tool),
#if defined(FIXTURE_ABI_MAJOR)
        .abi_major = VT_ABI_MAJOR + 1,
#else
        .abi_major = VT_ABI_MAJOR,
#endif
#if defined(FIXTURE_NEWER_MINOR)
        .abi_minor = VT_ABI_MINOR + 1,
#else
        .abi_minor = VT_ABI_MINOR,
#endif
        .name = FIXTURE_NAME, .version = "1.0", .license = "MIT",
        .requires = reqs, .tools = tools, .init = INIT, .api_slot = &api,
#if defined(FIXTURE_CJSON_MAJOR)
        /* as if built against the next cJSON major */
        .cjson_version = VT_CJSON_VERSION_OF(CJSON_VERSION_MAJOR + 1, 2, 3),
#else
        .cjson_version = VT_CJSON_VERSION,
#endif
    },
#if defined(FIXTURE_NONZERO_TAIL)
    .future = {(void *)&desc, 0},
#endif
};
VT_EXPORT const vt_plugin *vt_plugin_v1(void) { return &desc.base; }
#endif
