/* Typed tools inside a real host: loaded by the registry, listed in the
 * catalog with their derived schema, validated and called through the
 * pipeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "host.h"
#include "pipeline.h"
#include "registry.h"
#include "test_host.h"

static char g_ws[256] = "/tmp/vthost-typed-XXXXXX";

static int setup(void **state)
{
    (void)state;
    /* Read-only tools still ask by default: allow the fixture's. */
    return test_host_open(g_ws, sizeof g_ws,
                          "[permissions]\nallow = [\"word_count\", \"object_keys\", "
                          "\"shout_text\"]\n",
                          TYPED_FIXTURE_DIR, 0);
}

static int teardown(void **state)
{
    (void)state;
    return test_host_close(g_ws);
}

static char *call(const char *tool, const char *json, call_status want)
{
    cJSON *args = cJSON_Parse(json);
    call_request req = {.tool = tool, .args = args};
    call_result r = {0};
    assert_int_equal(pipeline_call(&req, &r), 0);
    if (r.status != want)
        fail_msg("%s %s: status %d (want %d): %s", tool, json, r.status, want,
                 r.message ? r.message : "");
    char *out = want == CALL_OK
        ? cJSON_PrintUnformatted(cJSON_GetObjectItem(r.response, "result"))
        : strdup(r.message ? r.message : "");
    call_result_free(&r);
    cJSON_Delete(args);
    return out;
}

static void expect(const char *tool, const char *json, const char *want)
{
    char *got = call(tool, json, CALL_OK);
    assert_string_equal(got, want);
    free(got);
}

static void typed_tools_are_called_with_converted_arguments(void **state)
{
    (void)state;
    expect("word_count", "{\"text\":\"to be or not to be\"}", "6");
    expect("word_count", "{\"text\":\"to be or not to be\",\"unique\":true}", "4");
    expect("object_keys", "{\"obj\":{\"b\":1,\"a\":2}}", "[\"b\",\"a\"]");
    expect("shout_text", "{\"text\":\"hi there\"}", "\"HI THERE\"");
}

static void derived_schema_is_enforced(void **state)
{
    (void)state;
    char *m = call("word_count", "{}", CALL_INVALID);
    assert_non_null(strstr(m, "text"));
    free(m);
    m = call("word_count", "{\"text\":\"x\",\"unique\":\"yes\"}", CALL_INVALID);
    assert_non_null(strstr(m, "unique"));
    free(m);
    m = call("word_count", "{\"text\":\"x\",\"other\":1}", CALL_INVALID);
    free(m);
}

static void typed_tools_are_in_the_catalog(void **state)
{
    (void)state;
    const tool_entry *e = registry_find("word_count");
    assert_non_null(e);
    assert_non_null(e->typed);
    assert_true(registry_is_deferred(e));
    cJSON *cat = host_api()->catalog_list();
    const cJSON *it, *found = NULL;
    cJSON_ArrayForEach(it, cat)
        if (strcmp(cJSON_GetObjectItem(it, "name")->valuestring, "word_count") == 0)
            found = it;
    assert_non_null(found);
    const cJSON *props = cJSON_GetObjectItem(cJSON_GetObjectItem(found, "input_schema"),
                                             "properties");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "text"), "type")->valuestring,
                        "string");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "unique"), "type")->valuestring,
                        "boolean");
    cJSON_Delete(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(typed_tools_are_called_with_converted_arguments),
        cmocka_unit_test(derived_schema_is_enforced),
        cmocka_unit_test(typed_tools_are_in_the_catalog),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
