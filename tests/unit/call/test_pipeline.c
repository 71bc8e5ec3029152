/* The call pipeline's stages and the registry under them, with a fake
 * module registered directly (no dlopen): each stage's refusal, a run,
 * the response shapes, and explain stopping at the same stages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "call_ops.h"
#include "loader.h"
#include "permission.h"
#include "pipeline.h"
#include "registry.h"

static int echo_run(vt_call *call, const cJSON *args, cJSON **out)
{
    (void)call;
    *out = cJSON_CreateObject();
    cJSON_AddStringToObject(*out, "text",
                            cJSON_GetObjectItemCaseSensitive(args, "text")->valuestring);
    return 0;
}
static int refuse_preflight(vt_call *call, const cJSON *args)
{
    (void)args;
    return call_error(call, VT_ERR_INVALID, "no thanks");
}
static int blind_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call, (void)args, (void)out;
    return VT_ERR_INTERNAL;
}
static int plain_run(vt_call *call, const cJSON *args, cJSON **out)
{
    (void)call, (void)args;
    *out = cJSON_CreateNumber(42);
    return 0;
}
static int failing_run(vt_call *call, const cJSON *args, cJSON **out)
{
    (void)args, (void)out;
    return call_error(call, VT_ERR_IO, "disk on fire");
}

#define OBJ "{\"type\":\"object\",\"properties\":{}}"
static const vt_tool tools[] = {
    {.name = "echo", .description = "echo", .effects = VT_EFFECT_READ_ONLY, .run = echo_run,
     .input_schema = "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                     "\"required\":[\"text\"]}"},
    {.name = "refuse", .description = "refuse", .effects = VT_EFFECT_READ_ONLY,
     .input_schema = OBJ, .preflight = refuse_preflight, .run = plain_run},
    {.name = "blind", .description = "blind", .effects = VT_EFFECT_READ_ONLY,
     .input_schema = OBJ, .subjects = blind_subjects, .run = plain_run},
    {.name = "plain", .description = "plain", .effects = VT_EFFECT_READ_ONLY,
     .input_schema = OBJ, .run = plain_run},
    {.name = "failing", .description = "failing", .effects = VT_EFFECT_READ_ONLY,
     .input_schema = OBJ, .run = failing_run},
    {0},
};
static const vt_plugin desc = {.struct_size = sizeof(vt_plugin),
                               .sizeof_tool = sizeof(vt_tool),
                               .abi_major = VT_ABI_MAJOR,
                               .abi_minor = VT_ABI_MINOR,
                               .name = "fake",
                               .tools = tools};
static plugin_module mod = {.stem = "fake", .desc = &desc, .state = PLUGIN_LOADED,
                            .in_profile = 1, .initialized = 1};
static char ws[] = "/tmp/vthost-pipeline-XXXXXX";

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(ws))
        return -1;
    char *err = NULL;
    if (registry_add_module(&mod, &err) != VT_OK)
        return -1;
    const char *pub[] = {"echo", "refuse", "blind", "plain", "failing"};
    if (registry_set_public(pub, 5, &err) != VT_OK)
        return -1;
    /* echo, plain, failing allowed; anything else would ask, and with
     * no frontend to ask, be denied. */
    cJSON *config = cJSON_Parse("{\"permissions\":{\"allow\":[\"echo\",\"plain\","
                                "\"failing\"]}}");
    int rc = permission_init_with(config, NULL, NULL, ws, &err);
    cJSON_Delete(config);
    free(err);
    call_set_workspace(ws);
    return rc;
}

static int teardown(void **state)
{
    (void)state;
    permission_fini();
    registry_clear();
    call_set_workspace(NULL);
    rmdir(ws);
    return 0;
}

/* Run tool with args (JSON text or NULL) through `fn`. */
static call_result go(int (*fn)(const call_request *, call_result *), const char *tool,
                      const char *args)
{
    cJSON *a = args ? cJSON_Parse(args) : NULL;
    call_request req = {.tool = tool, .args = a};
    call_result r;
    assert_int_equal(fn(&req, &r), VT_OK);
    cJSON_Delete(a);
    return r;
}

static const char *str(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void test_lookup(void **state)
{
    (void)state;
    call_request none = {0};
    call_result r;
    pipeline_call(&none, &r);
    assert_int_equal(r.status, CALL_INVALID);
    assert_string_equal(r.message, "no tool name given");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.response, "success")));
    assert_string_equal(str(r.response, "error"), r.message);
    call_result_free(&r);

    r = go(pipeline_call, "ehco", "{}");
    assert_int_equal(r.status, CALL_UNKNOWN);
    assert_non_null(strstr(r.message, "Unknown tool: ehco."));
    assert_non_null(strstr(r.message, "Did you mean 'echo'?"));
    call_result_free(&r);
}

static void test_arguments(void **state)
{
    (void)state;
    call_result r = go(pipeline_call, "echo", "[1]");
    assert_int_equal(r.status, CALL_INVALID);
    assert_string_equal(r.message,
                        "Invalid arguments for tool 'echo': root: must be a JSON object");
    call_result_free(&r);
    r = go(pipeline_call, "echo", NULL); /* {} misses "text" */
    assert_int_equal(r.status, CALL_INVALID);
    assert_non_null(strstr(r.message, "Invalid arguments for tool 'echo'"));
    assert_non_null(strstr(r.message, "text"));
    call_result_free(&r);
}

static void test_hooks(void **state)
{
    (void)state;
    call_result r = go(pipeline_call, "refuse", "{}");
    assert_int_equal(r.status, CALL_INVALID);
    assert_string_equal(r.message, "Invalid arguments for tool 'refuse': no thanks");
    call_result_free(&r);
    r = go(pipeline_call, "blind", "{}");
    assert_int_equal(r.status, CALL_INVALID);
    assert_string_equal(r.message, "tool 'blind' could not describe what the call touches");
    call_result_free(&r);
}

static void test_run(void **state)
{
    (void)state;
    call_result r = go(pipeline_call, "echo", "{\"text\":\"hi\"}");
    assert_int_equal(r.status, CALL_OK);
    assert_null(r.message);
    assert_string_equal(str(r.response, "text"), "hi");
    assert_false(r.list_changed);
    call_result_free(&r);

    r = go(pipeline_call, "plain", "{}"); /* not an object: wrapped */
    assert_int_equal(r.status, CALL_OK);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(r.response, "result")->valueint, 42);
    call_result_free(&r);

    r = go(pipeline_call, "failing", "{}");
    assert_int_equal(r.status, CALL_TOOL_FAILED);
    assert_string_equal(r.message, "disk on fire");
    call_result_free(&r);
}

/* explain runs the same stages up to the decision: the same refusals,
 * then the decision instead of a run. */
static void test_explain(void **state)
{
    (void)state;
    call_result r = go(pipeline_explain, "refuse", "{}");
    assert_int_equal(r.status, CALL_INVALID);
    assert_string_equal(r.message, "Invalid arguments for tool 'refuse': no thanks");
    call_result_free(&r);
    r = go(pipeline_explain, "echo", "[]");
    assert_int_equal(r.status, CALL_INVALID);
    call_result_free(&r);

    r = go(pipeline_explain, "failing", "{}"); /* never run */
    assert_int_equal(r.status, CALL_OK);
    assert_string_equal(str(r.response, "tool"), "failing");
    assert_non_null(str(r.response, "decision"));
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r.response, "trace")));
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(r.response, "subjects")));
    assert_null(cJSON_GetObjectItemCaseSensitive(r.response, "error"));
    call_result_free(&r);
}

static void test_registry(void **state)
{
    (void)state;
    const tool_entry *e = registry_find("echo");
    assert_non_null(e);
    assert_ptr_equal(e->module, &mod);
    /* the schema gained the shared max_output_tokens property */
    assert_non_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(e->schema, "properties"), "max_output_tokens"));
    assert_null(registry_find("nope"));

    const tool_entry **v;
    size_t n;
    assert_int_equal(registry_listed(&v, &n), VT_OK);
    assert_int_equal(n, 5); /* profile order */
    assert_string_equal(v[0]->t.name, "echo");
    assert_string_equal(v[4]->t.name, "failing");
    free(v);
    char *names = registry_listed_names();
    assert_string_equal(names, "echo, refuse, blind, plain, failing");
    free(names);
    assert_string_equal(registry_suggest("plian"), "plain");

    /* a second module with a taken name is refused whole */
    static const vt_tool dup[] = {
        {.name = "fresh", .description = "x", .input_schema = OBJ, .run = plain_run},
        {.name = "echo", .description = "x", .input_schema = OBJ, .run = plain_run},
        {0}};
    static const vt_plugin d2 = {.struct_size = sizeof(vt_plugin),
                                 .sizeof_tool = sizeof(vt_tool),
                                 .abi_major = VT_ABI_MAJOR,
                                 .abi_minor = VT_ABI_MINOR,
                                 .name = "other",
                                 .tools = dup};
    plugin_module m2 = {.stem = "other", .desc = &d2, .state = PLUGIN_LOADED};
    char *err = NULL;
    assert_int_not_equal(registry_add_module(&m2, &err), VT_OK);
    assert_non_null(strstr(err, "duplicate tool name 'echo'"));
    free(err);
    assert_null(registry_find("fresh"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),  cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_hooks),   cmocka_unit_test(test_run),
        cmocka_unit_test(test_explain), cmocka_unit_test(test_registry),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
