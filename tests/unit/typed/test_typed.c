/* Typed tools: signature parsing and errors, derived schemas, and real C
 * functions called through libffi with JSON arguments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "schema.h"
#include "typed.h"

/* ---- the C functions under test ---- */
static int64_t add(int64_t a, int64_t b) { return a + b; }
static double scale(double x, double factor) { return x * factor; }
static bool is_even(int64_t n) { return n % 2 == 0; }
static char *greet(const char *name, bool shout)
{
    char *s = malloc(strlen(name) + 16);
    sprintf(s, shout ? "HELLO, %s!" : "hello, %s", name);
    return s;
}
static char *nothing_string(void) { return NULL; }
static char g_seen[64];
static void remember(const char *s) { snprintf(g_seen, sizeof g_seen, "%s", s); }
static int64_t count_keys(const cJSON *obj) { return cJSON_GetArraySize(obj); }
static cJSON *wrap(const cJSON *v, int64_t times)
{
    cJSON *a = cJSON_CreateArray();
    for (int64_t i = 0; i < times; i++)
        cJSON_AddItemToArray(a, cJSON_Duplicate(v, 1));
    return a;
}
static const cJSON *echo_json(const cJSON *v) { return v; }
/* More arguments than registers, of every kind, in mixed order. */
static double mix(int64_t a, double b, bool c, const char *d, int64_t e, double f,
                  bool g, int64_t h, double i, int64_t j, const cJSON *k)
{
    return (double)a + b + (c ? 100 : 0) + (double)strlen(d) + (double)e + f +
           (g ? 1000 : 0) + (double)h + i + (double)j + cJSON_GetArraySize(k);
}

#define FN(f) ((void (*)(void))(f))

static struct typed_tool *prepare(const char *name, const char *sig, void (*fn)(void),
                                  cJSON **schema)
{
    vt_tool t = {.name = name, .signature = sig, .typed_fn = fn};
    struct typed_tool *tt = NULL;
    char *text = NULL, *err = NULL;
    int rc = typed_tool_prepare(&t, &tt, &text, &err);
    if (rc != VT_OK)
        fail_msg("prepare '%s': %s", sig, err ? err : "?");
    assert_null(err);
    if (schema) {
        *schema = cJSON_Parse(text);
        assert_non_null(*schema);
    }
    free(text);
    return tt;
}

/* Calls with `json` arguments; returns the printed "result" value. */
static char *call(struct typed_tool *tt, const char *json)
{
    cJSON *args = cJSON_Parse(json);
    assert_non_null(args);
    cJSON *res = NULL;
    char *err = NULL;
    int rc = typed_tool_call(tt, args, &res, &err);
    if (rc != VT_OK)
        fail_msg("call %s: %s", json, err ? err : "?");
    char *out = cJSON_PrintUnformatted(cJSON_GetObjectItem(res, "result"));
    assert_int_equal(cJSON_GetArraySize(res), 1);
    cJSON_Delete(res);
    cJSON_Delete(args);
    return out;
}

static void expect_result(struct typed_tool *tt, const char *args, const char *want)
{
    char *got = call(tt, args);
    assert_string_equal(got, want);
    free(got);
}

static void integers_and_booleans(void **state)
{
    (void)state;
    struct typed_tool *tt = prepare("add", "int64 add(int64 a, int64 b)", FN(add), NULL);
    expect_result(tt, "{\"a\":40,\"b\":2}", "42");
    expect_result(tt, "{\"a\":-5000000000,\"b\":1}", "-4999999999");
    typed_tool_free(tt);
    tt = prepare("is_even", " bool  is_even ( int64 n ) ", FN(is_even), NULL);
    expect_result(tt, "{\"n\":10}", "true");
    expect_result(tt, "{\"n\":7}", "false");
    typed_tool_free(tt);
}

static void doubles_and_defaults(void **state)
{
    (void)state;
    cJSON *schema;
    struct typed_tool *tt = prepare("scale", "double scale(double x, double factor = 2.5)",
                                    FN(scale), &schema);
    expect_result(tt, "{\"x\":4}", "10");
    expect_result(tt, "{\"x\":4,\"factor\":0.5}", "2");
    const cJSON *f = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "factor");
    assert_string_equal(cJSON_GetObjectItem(f, "type")->valuestring, "number");
    assert_true(cJSON_GetObjectItem(f, "default")->valuedouble == 2.5);
    const cJSON *req = cJSON_GetObjectItem(schema, "required");
    assert_int_equal(cJSON_GetArraySize(req), 1);
    assert_string_equal(cJSON_GetArrayItem(req, 0)->valuestring, "x");
    cJSON_Delete(schema);
    typed_tool_free(tt);
}

static void strings_in_and_out(void **state)
{
    (void)state;
    struct typed_tool *tt = prepare("greet", "string greet(string name, bool shout = false)",
                                    FN(greet), NULL);
    expect_result(tt, "{\"name\":\"ada\"}", "\"hello, ada\"");
    expect_result(tt, "{\"name\":\"ada\",\"shout\":true}", "\"HELLO, ada!\"");
    typed_tool_free(tt);
    tt = prepare("nothing", "string nothing()", FN(nothing_string), NULL);
    expect_result(tt, "{}", "null");
    typed_tool_free(tt);
    tt = prepare("remember", "void remember(string s = \"dflt\")", FN(remember), NULL);
    expect_result(tt, "{\"s\":\"given\"}", "null");
    assert_string_equal(g_seen, "given");
    expect_result(tt, "{}", "null");
    assert_string_equal(g_seen, "dflt");
    typed_tool_free(tt);
}

static void json_in_and_out(void **state)
{
    (void)state;
    cJSON *schema;
    struct typed_tool *tt = prepare("count_keys", "int64 count_keys(json obj)",
                                    FN(count_keys), &schema);
    expect_result(tt, "{\"obj\":{\"a\":1,\"b\":[2],\"c\":null}}", "3");
    /* json parameters accept any value: no "type" in the schema. */
    const cJSON *o = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "obj");
    assert_null(cJSON_GetObjectItem(o, "type"));
    cJSON_Delete(schema);
    typed_tool_free(tt);
    tt = prepare("wrap", "json wrap(json v, int64 times = 2)", FN(wrap), NULL);
    expect_result(tt, "{\"v\":{\"k\":true}}", "[{\"k\":true},{\"k\":true}]");
    expect_result(tt, "{\"v\":\"s\",\"times\":0}", "[]");
    typed_tool_free(tt);
    /* A function that hands back its argument does not cause a double
     * free (ASan would catch one). */
    tt = prepare("echo_json", "json echo_json(json v = {\"d\":1})", FN(echo_json), NULL);
    expect_result(tt, "{\"v\":[1,2]}", "[1,2]");
    expect_result(tt, "{}", "{\"d\":1}");
    typed_tool_free(tt);
}

static void many_arguments_of_every_kind(void **state)
{
    (void)state;
    struct typed_tool *tt = prepare("mix",
        "double mix(int64 a, double b, bool c, string d, int64 e, double f, bool g, "
        "int64 h, double i, int64 j, json k)", FN(mix), NULL);
    /* 1 + 0.5 + 100 + 3 + 5 + 0.25 + 0 + 7 + 0.125 + 9 + 2 */
    expect_result(tt, "{\"a\":1,\"b\":0.5,\"c\":true,\"d\":\"abc\",\"e\":5,\"f\":0.25,"
                      "\"g\":false,\"h\":7,\"i\":0.125,\"j\":9,\"k\":[1,2]}", "127.875");
    typed_tool_free(tt);
}

static void derived_schema_is_accepted_and_enforced_by_the_host(void **state)
{
    (void)state;
    vt_tool t = {.name = "greet", .signature = "string greet(string name, bool shout = false)",
                 .typed_fn = FN(greet)};
    struct typed_tool *tt;
    char *text, *err = NULL;
    assert_int_equal(typed_tool_prepare(&t, &tt, &text, &err), VT_OK);
    cJSON *schema = NULL;
    assert_int_equal(schema_prepare(text, &schema, &err), 0);
    cJSON *good = cJSON_Parse("{\"name\":\"x\"}");
    cJSON *bad_type = cJSON_Parse("{\"name\":\"x\",\"shout\":\"yes\"}");
    cJSON *extra = cJSON_Parse("{\"name\":\"x\",\"loud\":true}");
    cJSON *missing = cJSON_Parse("{}");
    assert_int_equal(schema_validate(schema, good, "greet", &err), 0);
    assert_int_not_equal(schema_validate(schema, bad_type, "greet", &err), 0);
    free(err);
    assert_int_not_equal(schema_validate(schema, extra, "greet", &err), 0);
    free(err);
    assert_int_not_equal(schema_validate(schema, missing, "greet", &err), 0);
    free(err);
    cJSON_Delete(good);
    cJSON_Delete(bad_type);
    cJSON_Delete(extra);
    cJSON_Delete(missing);
    cJSON_Delete(schema);
    free(text);
    typed_tool_free(tt);
}

static void bad_arguments_are_refused_at_call(void **state)
{
    (void)state;
    struct typed_tool *tt = prepare("add", "int64 add(int64 a, int64 b)", FN(add), NULL);
    const char *bad[] = {"{\"a\":1}", "{\"a\":1.5,\"b\":1}", "{\"a\":\"1\",\"b\":1}",
                         "{\"a\":1e300,\"b\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *args = cJSON_Parse(bad[i]), *res = NULL;
        char *err = NULL;
        assert_int_equal(typed_tool_call(tt, args, &res, &err), VT_ERR_INVALID);
        assert_null(res);
        assert_non_null(strstr(err, "tool 'add'"));
        free(err);
        cJSON_Delete(args);
    }
    typed_tool_free(tt);
}

static void bad_signatures_name_tool_and_position(void **state)
{
    (void)state;
    static const struct { const char *sig, *want; } cases[] = {
        {"", "character 1: expected a type"},
        {"int64 f(strin x)", "character 9: unknown type 'strin'"},
        {"blah f()", "character 1: unknown type 'blah'"},
        {"int64 (int64 x)", "character 7: expected the function name"},
        {"int64 f int64 x)", "character 9: expected '('"},
        {"int64 f(int64)", "character 14: expected a parameter name"},
        {"int64 f(int64 x", "character 16: expected ',' or ')'"},
        {"int64 f(int64 x int64 y)", "character 17: expected ',' or ')'"},
        {"int64 f(int64 x) extra", "character 18: unexpected text after ')'"},
        {"int64 f(void x)", "character 9: 'void' is only a return type"},
        {"int64 f(int64 x, double x)", "character 25: duplicate parameter name"},
        {"int64 f(int64 n = 1.5)", "character 19: default of int64 parameter 'n' must be a JSON integer"},
        {"int64 f(string s = hello)", "character 20: default of string parameter 's'"},
        {"int64 f(bool b = 1)", "character 18: default of bool parameter 'b' must be a JSON true or false"},
        {"int64 f(int64 max_output_tokens)", "character 15: 'max_output_tokens' is reserved"},
        {"int64 f(int64 a,)", "character 17: expected a type"},
        {"int64 f(int64 x:)", "character 17: expected a description in double quotes"},
        {"int64 f(int64 x: 3)", "character 18: expected a description in double quotes"},
        {"int64 f(int64 x: \"\")", "character 18: expected a description in double quotes"},
        {"int64 f(int64 x: \"a\" \"b\")", "character 22: expected ',' or ')'"},
        {"int64 f(int64 x) : nope", "character 20: expected a description in double quotes"},
        {"int64 f(int64 x: \"n\" = 1)", "character 22: expected ',' or ')'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        vt_tool t = {.name = "sig_tool", .signature = cases[i].sig, .typed_fn = FN(add)};
        struct typed_tool *tt = (void *)1;
        char *text = (void *)1, *err = NULL;
        assert_int_equal(typed_tool_prepare(&t, &tt, &text, &err), VT_ERR_INVALID);
        assert_null(tt);
        assert_null(text);
        assert_non_null(err);
        if (!strstr(err, "tool 'sig_tool'") || !strstr(err, cases[i].want))
            fail_msg("signature \"%s\": got \"%s\", want \"%s\"", cases[i].sig, err,
                     cases[i].want);
        free(err);
    }
    vt_tool nofn = {.name = "nofn", .signature = "void f()"};
    struct typed_tool *tt;
    char *text, *err = NULL;
    assert_int_equal(typed_tool_prepare(&nofn, &tt, &text, &err), VT_ERR_INVALID);
    assert_non_null(strstr(err, "tool 'nofn'"));
    free(err);
}

static void void_parameter_list(void **state)
{
    (void)state;
    cJSON *schema;
    struct typed_tool *tt = prepare("nothing", "string nothing(void)", FN(nothing_string),
                                    &schema);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(schema, "properties")), 0);
    expect_result(tt, "{}", "null");
    cJSON_Delete(schema);
    typed_tool_free(tt);
    typed_tool_free(NULL);
}

static void descriptions_in_both_schemas(void **state)
{
    (void)state;
    cJSON *schema = NULL;
    vt_tool t = {.name = "greet",
                 .signature = "string greet(string name: \"Who to greet, \\\"quoted\\\".\", "
                              "bool shout = false: \"Upper case.\", int64 times = 1) "
                              ": \"The greeting.\"",
                 .typed_fn = FN(add)};
    struct typed_tool *tt = NULL;
    char *text = NULL, *err = NULL;
    if (typed_tool_prepare(&t, &tt, &text, &err) != VT_OK)
        fail_msg("prepare: %s", err);
    schema = cJSON_Parse(text);
    free(text);
    const cJSON *props = cJSON_GetObjectItem(schema, "properties");
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "name"), "description")
                            ->valuestring, "Who to greet, \"quoted\".");
    const cJSON *shout = cJSON_GetObjectItem(props, "shout");
    assert_string_equal(cJSON_GetObjectItem(shout, "description")->valuestring, "Upper case.");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(shout, "default")));
    assert_null(cJSON_GetObjectItem(cJSON_GetObjectItem(props, "times"), "description"));
    cJSON_Delete(schema);
    char *out = typed_tool_output_schema(tt);
    schema = cJSON_Parse(out);
    free(out);
    const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "result");
    assert_string_equal(cJSON_GetObjectItem(r, "description")->valuestring, "The greeting.");
    char *type = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "type"));
    assert_string_equal(type, "[\"string\",\"null\"]");
    free(type);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(schema, "required"), 0)->valuestring,
                        "result");
    cJSON_Delete(schema);
    typed_tool_free(tt);
}

static void output_schema_per_return_type(void **state)
{
    (void)state;
    static const struct { const char *sig, *type; } cases[] = {
        {"int64 f()", "\"integer\""}, {"double f()", "\"number\""},
        {"bool f()", "\"boolean\""},  {"void f()", "\"null\""},
        {"json f()", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct typed_tool *tt = prepare("ret", cases[i].sig, FN(add), NULL);
        char *out = typed_tool_output_schema(tt);
        cJSON *schema = cJSON_Parse(out);
        free(out);
        const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(schema, "properties"), "result");
        assert_non_null(r);
        char *type = cJSON_PrintUnformatted(cJSON_GetObjectItem(r, "type"));
        if (cases[i].type)
            assert_string_equal(type, cases[i].type);
        else
            assert_null(type); /* any JSON value */
        free(type);
        assert_null(cJSON_GetObjectItem(r, "description"));
        cJSON_Delete(schema);
        typed_tool_free(tt);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_and_booleans),
        cmocka_unit_test(doubles_and_defaults),
        cmocka_unit_test(strings_in_and_out),
        cmocka_unit_test(json_in_and_out),
        cmocka_unit_test(many_arguments_of_every_kind),
        cmocka_unit_test(derived_schema_is_accepted_and_enforced_by_the_host),
        cmocka_unit_test(bad_arguments_are_refused_at_call),
        cmocka_unit_test(bad_signatures_name_tool_and_position),
        cmocka_unit_test(void_parameter_list),
        cmocka_unit_test(descriptions_in_both_schemas),
        cmocka_unit_test(output_schema_per_return_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
