/* Tool-argument preflight: schema_prepare, schema_validate and the shared
 * max_output_tokens rule, checked against exact error texts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <vthost/plugin.h>

#include "schema.h"

#define PFX "Invalid arguments for tool 'exec_command': "

static const char *const EXEC_SCHEMA =
    "{\"type\":\"object\",\"properties\":{"
    "\"cmd\":{\"type\":\"string\",\"minLength\":1},"
    "\"workdir\":{\"type\":\"string\"},"
    "\"tty\":{\"type\":\"boolean\"},"
    "\"yield_time_ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":30000}},"
    "\"required\":[\"cmd\"]}";

/* One property per keyword of the supported subset. */
static const char *const ALL_SCHEMA =
    "{\"type\":\"object\",\"properties\":{"
    "\"a\":{\"type\":\"string\"},"
    "\"b\":{\"type\":\"string\"},"
    "\"detail_level\":{\"type\":\"string\",\"enum\":[\"name\",\"name_description\",\"full\"]},"
    "\"lit\":{\"enum\":[1,\"one\",true,null]},"
    "\"file_types\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":3,"
    "\"items\":{\"type\":\"string\",\"maxLength\":4}},"
    "\"ratio\":{\"type\":\"number\",\"exclusiveMinimum\":0,\"exclusiveMaximum\":1},"
    "\"temp\":{\"type\":\"number\",\"minimum\":-1.5},"
    "\"count\":{\"type\":\"integer\",\"maximum\":10},"
    "\"opt\":{\"type\":[\"string\",\"null\"]},"
    "\"nothing\":{\"type\":\"null\"},"
    "\"name\":{\"type\":\"string\",\"minLength\":2,\"maxLength\":3},"
    "\"one\":{\"type\":\"string\",\"maxLength\":1},"
    "\"opts\":{\"type\":\"object\",\"properties\":{\"depth\":{\"type\":\"integer\",\"minimum\":1},"
    "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":"
    "{\"k\":{\"type\":\"string\"}},\"required\":[\"k\"],\"additionalProperties\":false}}},"
    "\"required\":[\"depth\"],\"additionalProperties\":false},"
    "\"env\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"string\"}},"
    "\"free\":{\"type\":\"object\"},"
    "\"any\":{},"
    "\"mode\":{\"const\":\"fast\"}"
    "},\"required\":[\"a\",\"b\"]}";

typedef struct {
    const char *schema;
    const char *args; /* JSON text; NULL = no arguments at all */
    const char *err;  /* NULL: valid; else the exact message after PFX */
} vcase;

static const vcase cases[] = {
    /* exec-like schema: required, types, ranges */
    {EXEC_SCHEMA, "{\"cmd\":\"ls\"}", NULL},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"workdir\":\"src\",\"tty\":true,\"yield_time_ms\":0}", NULL},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"yield_time_ms\":30000}", NULL},
    {EXEC_SCHEMA, "{}", "cmd: required property is missing"},
    {EXEC_SCHEMA, "{\"tty\":1}", "cmd: required property is missing"},
    {EXEC_SCHEMA, "{\"cmd\":\"\"}", "cmd: must be a string of at least 1 character, got 0 characters"},
    {EXEC_SCHEMA, "{\"cmd\":[\"ls\"]}", "cmd: must be a string of at least 1 character, got an array"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"tty\":\"true\"}",
     "tty: must be a boolean (true or false), got \"true\" (a string)"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"tty\":1}", "tty: must be a boolean (true or false), got 1"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"tty\":null}", "tty: must be a boolean (true or false), got null"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"yield_time_ms\":-1}",
     "yield_time_ms: must be an integer from 0 to 30000, got -1"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"yield_time_ms\":30001}",
     "yield_time_ms: must be an integer from 0 to 30000, got 30001"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"yield_time_ms\":{}}",
     "yield_time_ms: must be an integer from 0 to 30000, got an object"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"foo\":1}",
     "foo: unknown property; allowed: cmd, workdir, tty, yield_time_ms, max_output_tokens"},
    {EXEC_SCHEMA, "{\"cmd\":\"ls\",\"a b\":1}",
     "[\"a b\"]: unknown property; allowed: cmd, workdir, tty, yield_time_ms, max_output_tokens"},
    /* deterministic order: the arguments' order decides between two bad
     * properties; a missing required property comes before both */
    {EXEC_SCHEMA, "{\"tty\":0,\"foo\":1,\"cmd\":\"ls\"}",
     "tty: must be a boolean (true or false), got 0"},
    {EXEC_SCHEMA, "{\"foo\":1,\"tty\":0,\"cmd\":\"ls\"}",
     "foo: unknown property; allowed: cmd, workdir, tty, yield_time_ms, max_output_tokens"},
    {EXEC_SCHEMA, "{\"foo\":1,\"tty\":0}", "cmd: required property is missing"},
    {ALL_SCHEMA, "{}", "a: required property is missing"},
    {ALL_SCHEMA, "{\"a\":\"x\"}", "b: required property is missing"},
    {ALL_SCHEMA, "{\"b\":\"x\"}", "a: required property is missing"},
    /* the whole arguments value */
    {EXEC_SCHEMA, "[]", "root: must be an object, got an array"},
    {EXEC_SCHEMA, "\"ls\"", "root: must be an object, got \"ls\" (a string)"},
    {EXEC_SCHEMA, NULL, "root: must be an object, got nothing"},
    /* enum */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"detail_level\":\"full\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"detail_level\":\"x\"}",
     "detail_level: must be one of \"name\", \"name_description\", \"full\", got \"x\""},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"detail_level\":\"FULL\"}",
     "detail_level: must be one of \"name\", \"name_description\", \"full\", got \"FULL\""},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"lit\":null}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"lit\":1.0}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"lit\":true}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"lit\":false}",
     "lit: must be one of 1, \"one\", true, null, got false"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"lit\":\"1\"}",
     "lit: must be one of 1, \"one\", true, null, got \"1\""},
    /* arrays: counts, items, element paths */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":[\"c\",\"h\",\"rs\"]}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":[]}",
     "file_types: must be an array of 1 to 3 items, got 0 items"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":[\"a\",\"b\",\"c\",\"d\"]}",
     "file_types: must be an array of 1 to 3 items, got 4 items"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":[\"c\",\"h\",7]}",
     "file_types[2]: must be a string of at most 4 characters, got 7"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":[\"c\",\"pyrex\"]}",
     "file_types[1]: must be a string of at most 4 characters, got 5 characters"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"file_types\":\"c\"}",
     "file_types: must be an array of 1 to 3 items, got \"c\" (a string)"},
    /* numbers and exclusive bounds */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"ratio\":0.5}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"ratio\":0}", "ratio: must be a number > 0 and < 1, got 0"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"ratio\":1}", "ratio: must be a number > 0 and < 1, got 1"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"ratio\":\"0.5\"}",
     "ratio: must be a number > 0 and < 1, got \"0.5\" (a string)"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"temp\":-1.5}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"temp\":-1.75}", "temp: must be a number >= -1.5, got -1.75"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"count\":1e1}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"count\":-1e3}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"count\":11}", "count: must be an integer <= 10, got 11"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"count\":2.5}", "count: must be an integer <= 10, got 2.5"},
    /* type lists and null */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opt\":null}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opt\":\"x\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opt\":5}", "opt: must be a string or null, got 5"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"nothing\":null}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"nothing\":false}",
     "nothing: must be null, got false (a boolean)"},
    /* lengths count code points, not bytes */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"name\":\"h\xc3\xa9\xc3\xa9\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"name\":\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"name\":\"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9ex\"}",
     "name: must be a string of 2 to 3 characters, got 4 characters"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"name\":\"\xf0\x9f\x98\x80\"}",
     "name: must be a string of 2 to 3 characters, got 1 character"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"one\":\"\\u00e9\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"one\":\"a\xff\"}",
     "one: must be valid UTF-8 text, got an invalid byte at offset 1"},
    /* nested objects, arrays of objects */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{\"depth\":2,\"tags\":[{\"k\":\"v\"}]}}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{}}", "opts.depth: required property is missing"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{\"depth\":0}}",
     "opts.depth: must be an integer >= 1, got 0"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{\"depth\":1,\"x\":1}}",
     "opts.x: unknown property; allowed: depth, tags"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{\"depth\":1,\"tags\":[{\"k\":\"v\"},{}]}}",
     "opts.tags[1].k: required property is missing"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"opts\":{\"depth\":1,\"tags\":[{\"k\":\"v\",\"z\":1}]}}",
     "opts.tags[0].z: unknown property; allowed: k"},
    /* schema-valued and absent additionalProperties */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"env\":{\"PATH\":\"/bin\",\"HOME\":\"/root\"}}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"env\":{\"PATH\":\"/bin\",\"N\":1}}",
     "env.N: must be a string, got 1"},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"free\":{\"anything\":[1,{}]}}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"any\":[1,\"x\",null]}", NULL},
    {ALL_SCHEMA, "{\"a\":1,\"b\":\"\"}", "a: must be a string, got 1"},
    /* const */
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"mode\":\"fast\"}", NULL},
    {ALL_SCHEMA, "{\"a\":\"\",\"b\":\"\",\"mode\":\"slow\"}", "mode: must be \"fast\", got \"slow\""},
};

static void test_case_table(void **state)
{
    (void)state;
    int n = (int)(sizeof cases / sizeof *cases);
    assert_true(n >= 40);
    for (int i = 0; i < n; i++) {
        const vcase *c = &cases[i];
        cJSON *schema = NULL;
        char *err = NULL;
        assert_int_equal(schema_prepare(c->schema, &schema, &err), 0);
        assert_null(err);
        cJSON *args = NULL;
        if (c->args) {
            args = cJSON_Parse(c->args);
            if (!args)
                fail_msg("case %d: test JSON does not parse: %s", i, c->args);
        }
        int rc = schema_validate(schema, args, "exec_command", &err);
        if (!c->err) {
            if (rc != 0)
                fail_msg("case %d (%s): expected valid, got %d: %s", i, c->args, rc,
                         err ? err : "(no message)");
            assert_null(err);
        } else {
            if (rc != VT_ERR_INVALID)
                fail_msg("case %d (%s): expected invalid, got %d", i, c->args, rc);
            assert_non_null(err);
            char want[1024];
            snprintf(want, sizeof want, PFX "%s", c->err);
            if (strcmp(err, want) != 0)
                fail_msg("case %d (%s):\n  want %s\n  got  %s", i, c->args, want, err);
        }
        free(err);
        cJSON_Delete(args);
        cJSON_Delete(schema);
    }
}

/* ---- max_output_tokens --------------------------------------------------- */

typedef struct {
    const char *value; /* JSON for max_output_tokens; NULL = omitted */
    const char *got;   /* NULL = accepted; else the "got ..." text */
    int effective;
} mot_case;

static const mot_case mot_cases[] = {
    {"\"100\"", "\"100\" (a string)", 0},
    {"1.5", "1.5", 0},
    {"0", "0", 0},
    {"-1", "-1", 0},
    {"50001", "50001", 0},
    {"true", "true (a boolean)", 0},
    {"false", "false (a boolean)", 0},
    {"null", "null", 0},
    {"[100]", "an array", 0},
    {"1e300", "1.0000000000000001e+300", 0},
    {"50000", NULL, 50000},
    {"1", NULL, 1},
    {"3.0", NULL, 3},
    {"100", NULL, 100},
    {NULL, NULL, 10000},
};

static void test_max_output_tokens(void **state)
{
    (void)state;
    cJSON *schema = NULL;
    char *err = NULL;
    assert_int_equal(schema_prepare(EXEC_SCHEMA, &schema, &err), 0);
    for (size_t i = 0; i < sizeof mot_cases / sizeof *mot_cases; i++) {
        const mot_case *c = &mot_cases[i];
        char json[256];
        if (c->value)
            snprintf(json, sizeof json, "{\"cmd\":\"ls\",\"max_output_tokens\":%s}", c->value);
        else
            snprintf(json, sizeof json, "{\"cmd\":\"ls\"}");
        cJSON *args = cJSON_Parse(json);
        assert_non_null(args);
        int rc = schema_validate(schema, args, "exec_command", &err);
        if (c->got) {
            char want[512];
            snprintf(want, sizeof want,
                     PFX "max_output_tokens: must be an integer from 1 to 50000, got %s", c->got);
            assert_int_equal(rc, VT_ERR_INVALID);
            assert_non_null(err);
            if (strcmp(err, want))
                fail_msg("%s:\n  want %s\n  got  %s", json, want, err);
            free(err);
            /* an invalid value never leaks through as an effective limit */
            assert_int_equal(schema_max_output_tokens(args), SCHEMA_MAX_OUTPUT_TOKENS_DEFAULT);
        } else {
            if (rc)
                fail_msg("%s rejected: %s", json, err);
            assert_int_equal(schema_max_output_tokens(args), c->effective);
        }
        cJSON_Delete(args);
    }
    cJSON_Delete(schema);
    assert_int_equal(schema_max_output_tokens(NULL), 10000);
}

/* A tool that declares max_output_tokens itself keeps it, with the shared
 * bounds forced on it. */
static void test_declared_max_output_tokens_forced(void **state)
{
    (void)state;
    cJSON *schema = NULL;
    char *err = NULL;
    assert_int_equal(schema_prepare("{\"type\":\"object\",\"properties\":{\"max_output_tokens\":"
                                    "{\"type\":\"number\",\"minimum\":0,\"maximum\":1e9,"
                                    "\"description\":\"mine\"}}}",
                                    &schema, &err),
                     0);
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(schema, "properties"), "max_output_tokens");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "type")->valuestring, "integer");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(m, "minimum")->valueint, 1);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(m, "maximum")->valueint, 50000);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(m, "default")->valueint, 10000);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "description")->valuestring, "mine");
    cJSON *args = cJSON_Parse("{\"max_output_tokens\":60000}");
    assert_int_equal(schema_validate(schema, args, "t", &err), VT_ERR_INVALID);
    assert_string_equal(err, "Invalid arguments for tool 't': max_output_tokens: must be an "
                             "integer from 1 to 50000, got 60000");
    free(err);
    cJSON_Delete(args);
    cJSON_Delete(schema);
}

/* ---- schema_prepare ------------------------------------------------------ */

static void test_prepare_adds_shared_parts(void **state)
{
    (void)state;
    cJSON *schema = NULL;
    char *err = NULL;
    /* no "type" at top level but properties: treated as an object schema */
    assert_int_equal(schema_prepare("{\"properties\":{\"q\":{\"type\":\"string\"}}}", &schema, &err), 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(schema, "type")->valuestring, "object");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties")));
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(schema, "properties");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(props, "max_output_tokens");
    assert_non_null(m);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "type")->valuestring, "integer");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(m, "description"));
    cJSON_Delete(schema);

    /* an explicit additionalProperties is kept */
    assert_int_equal(schema_prepare("{\"type\":\"object\",\"additionalProperties\":true}", &schema, &err), 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(schema, "additionalProperties")));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(schema, "properties"), "max_output_tokens"));
    cJSON *args = cJSON_Parse("{\"whatever\":1,\"max_output_tokens\":0}");
    assert_int_equal(schema_validate(schema, args, "t", &err), VT_ERR_INVALID);
    assert_non_null(strstr(err, "max_output_tokens: must be an integer from 1 to 50000"));
    free(err);
    cJSON_Delete(args);
    cJSON_Delete(schema);

    /* draft-4 boolean exclusive bounds become the numeric form */
    assert_int_equal(schema_prepare("{\"type\":\"object\",\"properties\":{\"r\":{\"type\":\"number\","
                                    "\"minimum\":0,\"exclusiveMinimum\":true}}}", &schema, &err), 0);
    args = cJSON_Parse("{\"r\":0}");
    assert_int_equal(schema_validate(schema, args, "t", &err), VT_ERR_INVALID);
    assert_string_equal(err, "Invalid arguments for tool 't': r: must be a number > 0, got 0");
    free(err);
    cJSON_Delete(args);
    cJSON_Delete(schema);
}

typedef struct {
    const char *text;
    const char *err;
} bad_schema;

static const bad_schema bad_schemas[] = {
    {"", "input schema is not valid JSON near byte 0"},
    {"{\"type\":\"object\",", "input schema is not valid JSON near byte 17"},
    {"{\"type\":\"object\"} x", "input schema is not valid JSON near byte 18"},
    {"[]", "input schema must be a JSON object, got an array"},
    {"\"object\"", "input schema must be a JSON object, got \"object\" (a string)"},
    {"{}", "input schema: no \"type\": \"object\" and no \"properties\""},
    {"{\"type\":\"string\"}", "input schema: type must be \"object\", got \"string\""},
    {"{\"type\":[\"object\"]}", "input schema: type must be \"object\", got an array"},
    {"{\"properties\":[]}", "input schema: properties is not an object"},
    {"{\"properties\":{\"foo\":1}}", "input schema: properties.foo is not an object"},
    {"{\"properties\":{\"foo\":true}}", "input schema: properties.foo is not an object"},
    {"{\"properties\":{\"a\":{}},\"required\":\"a\"}",
     "input schema: required is not an array of property names"},
    {"{\"properties\":{\"a\":{}},\"required\":[\"a\",1]}", "input schema: required[1] is not a string"},
    {"{\"properties\":{\"a\":{}},\"required\":[\"b\"]}",
     "input schema: required[0] names \"b\", which is not in properties"},
    {"{\"properties\":{\"a\":{\"type\":\"strin\"}}}",
     "input schema: properties.a.type: unknown type \"strin\""},
    {"{\"properties\":{\"a\":{\"type\":[]}}}",
     "input schema: properties.a.type: must be a type name or a list of them"},
    {"{\"properties\":{\"a\":{\"type\":[\"string\",\"x\"]}}}",
     "input schema: properties.a.type: not a list of known type names"},
    {"{\"properties\":{\"a\":{\"enum\":[]}}}", "input schema: properties.a.enum: must be a non-empty array"},
    {"{\"properties\":{\"a\":{\"minimum\":\"1\"}}}", "input schema: properties.a.minimum: must be a number"},
    {"{\"properties\":{\"a\":{\"maxLength\":-1}}}",
     "input schema: properties.a.maxLength: must be a non-negative integer"},
    {"{\"properties\":{\"a\":{\"minItems\":1.5}}}",
     "input schema: properties.a.minItems: must be a non-negative integer"},
    {"{\"properties\":{\"a\":{\"items\":[]}}}", "input schema: properties.a.items is not an object"},
    {"{\"properties\":{\"a\":{\"items\":{\"type\":\"x\"}}}}",
     "input schema: properties.a.items.type: unknown type \"x\""},
    {"{\"properties\":{\"a\":{\"properties\":{\"b\":{\"properties\":{\"c\":2}}}}}}",
     "input schema: properties.a.properties.b.properties.c is not an object"},
    {"{\"properties\":{\"a\":{}},\"additionalProperties\":1}",
     "input schema: additionalProperties must be true, false or a schema object"},
    {"{\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"^x\"}}}",
     "input schema: properties.a.pattern: keyword not supported (supported: type, properties, "
     "required, additionalProperties, enum, const, minimum, maximum, exclusiveMinimum, "
     "exclusiveMaximum, minLength, maxLength, items, minItems, maxItems)"},
    {"{\"type\":\"object\",\"anyOf\":[]}",
     "input schema: anyOf: keyword not supported (supported: type, properties, "
     "required, additionalProperties, enum, const, minimum, maximum, exclusiveMinimum, "
     "exclusiveMaximum, minLength, maxLength, items, minItems, maxItems)"},
    {"{\"type\":\"object\",\"exclusiveMinimum\":true}",
     "input schema: exclusiveMinimum: true needs a numeric minimum"},
};

static void test_prepare_rejects_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_schemas / sizeof *bad_schemas; i++) {
        cJSON *schema = (cJSON *)1;
        char *err = NULL;
        int rc = schema_prepare(bad_schemas[i].text, &schema, &err);
        if (rc != VT_ERR_INVALID)
            fail_msg("schema %s: expected VT_ERR_INVALID, got %d", bad_schemas[i].text, rc);
        assert_null(schema);
        assert_non_null(err);
        if (strcmp(err, bad_schemas[i].err))
            fail_msg("schema %s:\n  want %s\n  got  %s", bad_schemas[i].text, bad_schemas[i].err, err);
        free(err);
    }
    char *err = NULL;
    cJSON *schema = NULL;
    assert_int_equal(schema_prepare(NULL, &schema, &err), VT_ERR_INVALID);
    assert_non_null(err);
    free(err);
}

/* Long values and keys are quoted shortened, cut on a character boundary. */
static void test_long_values_are_shortened(void **state)
{
    (void)state;
    cJSON *schema = NULL;
    char *err = NULL;
    assert_int_equal(schema_prepare(EXEC_SCHEMA, &schema, &err), 0);
    char big[400];
    /* 'a' then 2-byte characters: byte 80 falls inside one */
    strcpy(big, "a");
    for (int i = 0; i < 100; i++)
        strcat(big, "\xc3\xa9");
    cJSON *args = cJSON_CreateObject();
    cJSON_AddStringToObject(args, "cmd", "ls");
    cJSON_AddStringToObject(args, "max_output_tokens", big);
    assert_int_equal(schema_validate(schema, args, "exec_command", &err), VT_ERR_INVALID);
    char want[512];
    strcpy(want, PFX "max_output_tokens: must be an integer from 1 to 50000, got \"a");
    for (int i = 0; i < 39; i++)
        strcat(want, "\xc3\xa9");
    strcat(want, "\"... (a string)");
    assert_string_equal(err, want);
    free(err);
    cJSON_Delete(args);
    cJSON_Delete(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_table),
        cmocka_unit_test(test_max_output_tokens),
        cmocka_unit_test(test_declared_max_output_tokens_forced),
        cmocka_unit_test(test_prepare_adds_shared_parts),
        cmocka_unit_test(test_prepare_rejects_malformed),
        cmocka_unit_test(test_long_values_are_shortened),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
