/* The stdin plugin: write_stdin feeds and polls the sessions that the exec
 * plugin owns, reached only through the exec.sessions service. */
#include <stdlib.h>
#include <string.h>
#include <vthost/plugin.h>

#include <vthost/services.h>

#define WRITE_YIELD_DEFAULT_MS 250
#define POLL_YIELD_DEFAULT_MS 1000
#define WRITE_YIELD_MAX_MS 30000
#define POLL_YIELD_MAX_MS 300000

static VT_PLUGIN_API(api);
static const vt_sessions_v1 *sessions;
static const vt_splitter_v1 *splitter; /* NULL: the exec plugin has none */

static const char DESCRIPTION[] =
    "Sends input to a live session created by exec_command and returns the output "
    "produced since the last call, with exit_code once the process has exited (the "
    "session is then released). chars (required) is sent verbatim (no newline added); "
    "the empty string only polls; \"\\u0003\" alone interrupts the session (Ctrl-C).\n"
    "Example: {\"session_id\":42,\"chars\":\"q\"}";

static const char SCHEMA[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"session_id\":{\"type\":[\"integer\",\"string\"],\"description\":\"Identifier "
    "returned by a still-running exec_command.\"},"
    "\"chars\":{\"type\":\"string\",\"description\":\"Bytes or text to send, verbatim "
    "(required); the empty string only polls for output.\"},"
    "\"yield_time_ms\":{\"type\":\"integer\",\"minimum\":0,\"description\":\"How long to "
    "wait for output (default 250 after a write, 1000 for an empty poll; at most 30000 "
    "after a write, 300000 for a poll).\"}"
    "},\"required\":[\"session_id\",\"chars\"],\"additionalProperties\":false}";

/* session_id as an integer, or a string of digits; 0 when invalid. */
static long long session_id(const cJSON *args)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, "session_id");
    if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        return d >= 1 && d <= 9007199254740992.0 && d == (double)(long long)d ? (long long)d : 0;
    }
    if (!cJSON_IsString(v) || !v->valuestring[0] || strlen(v->valuestring) > 15)
        return 0;
    for (const char *c = v->valuestring; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    return strtoll(v->valuestring, NULL, 10);
}

static int stdin_preflight(vt_call *call, const cJSON *args)
{
    /* A one-shot front end (`vthost call`) ends every session with its
     * call, so there is never one to write to. */
    if (VT_HAS(api, call_one_shot) && api->call_one_shot(call))
        return api->call_error(call, VT_ERR_UNSUPPORTED,
                               "write_stdin needs a live session, and sessions live only "
                               "in `vthost serve`: `vthost call exec_command` runs its "
                               "command to the end. Give the command its input in the "
                               "command itself, e.g. {\"cmd\":\"printf 'y\\n' | ./setup\"}");
    if (session_id(args) <= 0)
        return api->call_error(call, VT_ERR_INVALID,
                               "session_id: must be a positive integer (or a string of "
                               "digits) returned by exec_command");
    /* The schema already requires it; this also covers callers that skip
     * schema validation, and names the way to poll. */
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(args, "chars")))
        return api->call_error(call, VT_ERR_INVALID,
                               "chars: required string (use \"\" to poll for output)");
    return VT_OK;
}

/* What the text would make a shell in the session run: its simple
 * commands and the files it redirects into, so that the guard (and the
 * protected-path checks) see typed commands as they see exec_command's.
 * Opaque parts are left out: a session's input is no command line of
 * ours, and most of it is answers to prompts. */
static int stdin_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    const char *chars = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "chars"));
    if (!splitter || !chars || !*chars || strcmp(chars, "\x03") == 0)
        return VT_OK;
    cJSON *parts = NULL;
    if (splitter->split(chars, &parts) != VT_OK)
        return VT_OK; /* unsplittable text: judged as before, by the tool alone */
    int rc = VT_OK;
    const cJSON *p;
    cJSON_ArrayForEach(p, parts)
    {
        const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p, "command"));
        if (rc == VT_OK && cmd && *cmd &&
            !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "opaque")))
            rc = api->subject_add(out, VT_SUBJECT_COMMAND, cmd);
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(p, "writes")) if (rc == VT_OK &&
                                                                                 cJSON_IsString(w))
            rc = api->subject_add(out, VT_SUBJECT_PATH_EDIT, w->valuestring);
    }
    cJSON_Delete(parts);
    return rc;
}

static int stdin_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(args, "chars");
    if (!cJSON_IsString(c))
        return api->call_error(call, VT_ERR_INVALID,
                               "chars: required string (use \"\" to poll for output)");
    const char *chars = c->valuestring;
    size_t len = strlen(chars);
    const cJSON *y = cJSON_GetObjectItemCaseSensitive(args, "yield_time_ms");
    double yield =
        cJSON_IsNumber(y) ? y->valuedouble : (len ? WRITE_YIELD_DEFAULT_MS : POLL_YIELD_DEFAULT_MS);
    double max = len ? WRITE_YIELD_MAX_MS : POLL_YIELD_MAX_MS;
    if (yield > max)
        yield = max;
    if (yield < 0)
        yield = 0;
    return sessions->write_and_wait(call, session_id(args), chars, len, (int)yield, result);
}

/* session_id names a running command: a handle (opaque to 2026-07-28
 * clients, which the host gives the plugin's own id back for). */
static const char *const handles[] = {"session_id", NULL};

static const vt_tool tools[] = {{.name = "write_stdin",
                                 .description = DESCRIPTION,
                                 .input_schema = SCHEMA,
                                 .title = "Write to a running command",
                                 .output_schema = VT_SESSIONS_RESPONSE_SCHEMA,
                                 .effects = VT_EFFECT_EXECUTES,
                                 .preflight = stdin_preflight,
                                 .subjects = stdin_subjects,
                                 .run = stdin_run,
                                 .handles = handles},
                                {0}};

static int stdin_init(const vt_host_api *host, char **errmsg)
{
    (void)host; /* the same table as api */
    sessions = api->service_lookup(VT_SESSIONS_SERVICE);
    if (!sessions || sessions->struct_size < sizeof(vt_sessions_v1)) {
        *errmsg =
            api->strdup("the exec plugin's " VT_SESSIONS_SERVICE " service is missing or too old");
        return VT_ERR_NOT_FOUND;
    }
    splitter = api->service_lookup(VT_SPLITTER_SERVICE);
    if (splitter && splitter->struct_size < sizeof(vt_splitter_v1))
        splitter = NULL;
    return VT_OK;
}

static const char *const requires_list[] = {"exec", "service:" VT_SESSIONS_SERVICE, NULL};

static const vt_plugin descriptor = {
    VT_PLUGIN_HEADER,          .name = "stdin",  .version = "0.1.0", .license = "MIT",
    .requires = requires_list, .api_slot = &api, .tools = tools,     .init = stdin_init,
};

VT_PLUGIN_ENTRY(descriptor)
