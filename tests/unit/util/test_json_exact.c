/* The JSON boundary: numbers keep their exact text; integer literals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "json_exact.h"

static cJSON *parse(const char *s)
{
    return json_parse_exact(s, strlen(s), NULL);
}

static void test_lexemes_in_document_order(void **state)
{
    (void)state;
    cJSON *v = parse("{\"a\":9007199254740993,\"s\":\"-1 2e5 \\\" 7\",\"b\":[1.0,{\"c\":-0}],"
                     "\"d\":1e300,\"e\":1E+2}");
    assert_non_null(v);
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(v, "a")), "9007199254740993");
    cJSON *b = cJSON_GetObjectItem(v, "b");
    assert_string_equal(json_number_lexeme(cJSON_GetArrayItem(b, 0)), "1.0");
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(cJSON_GetArrayItem(b, 1), "c")), "-0");
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(v, "d")), "1e300");
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(v, "e")), "1E+2");
    assert_null(json_number_lexeme(cJSON_GetObjectItem(v, "s")));
    /* copies print exactly; duplicates keep the text too */
    cJSON *c = json_copy_exact(cJSON_GetObjectItem(v, "a"));
    char *t = cJSON_PrintUnformatted(c);
    assert_string_equal(t, "9007199254740993");
    cJSON_free(t);
    cJSON_Delete(c);
    cJSON *d = cJSON_Duplicate(v, 1);
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(d, "d")), "1e300");
    cJSON_Delete(d);
    cJSON_Delete(v);
}

/* A top-level string id holding \u0000 (cut at the NUL by cJSON) is kept
 * as sent; the same text elsewhere, and keys with digits, change nothing. */
static void test_nul_string_id_kept_whole(void **state)
{
    (void)state;
    cJSON *v = parse("{\"12\":3,\"id\":\"a\\u0000b\",\"p\":{\"id\":\"c\\u0000d\",\"n\":-4}}");
    assert_non_null(v);
    cJSON *id = cJSON_GetObjectItem(v, "id");
    assert_true(cJSON_IsRaw(id));
    char *t = cJSON_PrintUnformatted(id);
    assert_string_equal(t, "\"a\\u0000b\"");
    cJSON_free(t);
    cJSON *p = cJSON_GetObjectItem(v, "p");
    assert_true(cJSON_IsString(cJSON_GetObjectItem(p, "id")));
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(p, "n")), "-4");
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(v, "12")), "3");
    cJSON_Delete(v);
}

/* A document without numbers skips the pass that attaches lexemes: the
 * top-level "id" holding \u0000 is still kept whole, and a number behind
 * a long string with escaped quotes still gets its own text. */
static void test_number_free_documents(void **state)
{
    (void)state;
    cJSON *v = parse("{\"id\":\"a\\u0000b\",\"p\":[\"x\",true,null]}");
    assert_non_null(v);
    assert_true(cJSON_IsRaw(cJSON_GetObjectItem(v, "id")));
    cJSON_Delete(v);
    v = parse("{\"s\":\"1 \\\" 2\",\"t\":{\"u\":[false,\"3\"]}}");
    assert_non_null(v);
    assert_string_equal(cJSON_GetObjectItem(v, "s")->valuestring, "1 \" 2");
    cJSON_Delete(v);
    size_t n = 100000;
    char *doc = malloc(n + 64);
    assert_non_null(doc);
    strcpy(doc, "{\"s\":\"");
    size_t at = strlen(doc);
    for (size_t i = 0; i < n; i += 4, at += 4)
        memcpy(doc + at, i % 8 ? "\\\"7 " : "9.5 ", 4);
    strcpy(doc + at, "\",\"n\":1.0}");
    v = parse(doc);
    assert_non_null(v);
    assert_string_equal(json_number_lexeme(cJSON_GetObjectItem(v, "n")), "1.0");
    cJSON_Delete(v);
    strcpy(doc + at, "\",\"n\":01}");
    assert_null(parse(doc));
    free(doc);
}

static void test_integer_literals(void **state)
{
    (void)state;
    static const char *const yes[] = {"0", "1", "-1", "50000", "9007199254740993"};
    static const char *const no[] = {"1.0", "1e3", "-0", "1E0", "0.5", "-0.0", "1e-2"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        cJSON *v = parse(yes[i]);
        assert_true(json_is_integer_literal(v));
        cJSON_Delete(v);
    }
    for (size_t i = 0; i < sizeof no / sizeof *no; i++) {
        cJSON *v = parse(no[i]);
        assert_non_null(v);
        assert_false(json_is_integer_literal(v));
        cJSON_Delete(v);
    }
    /* built in memory: whole and not negative zero */
    cJSON *m = cJSON_CreateNumber(3);
    assert_true(json_is_integer_literal(m));
    cJSON_SetNumberValue(m, -0.0);
    assert_false(json_is_integer_literal(m));
    cJSON_Delete(m);
}

static void test_not_json_numbers_refused(void **state)
{
    (void)state;
    /* cJSON (strtod) alone would take these */
    static const char *const bad[] = {"[01]", "[1.]", "{\"a\":-01}", "[1.e5]", "[.5]", "[+1]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_null(parse(bad[i]));
}

/* json_parse_document: the whole text is one JSON value, as the MCP
 * fronts (stdio lines, HTTP bodies) require. */
static void test_whole_document(void **state)
{
    (void)state;
    static const char *const bad[] = {"{\"a\":1} x", "{\"a\":01}", "{\"a\":1.}", "{} {}",
                                      "", "   ", "{\"a\":1}\v", "\f{}", " \v[1]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_null(json_parse_document(bad[i], strlen(bad[i])));
    static const char nul[] = "{\"a\":1}\0";
    assert_null(json_parse_document(nul, sizeof nul - 1));
    static const char *const good[] = {"{\"a\":1}", " {\"a\":1}\r\n", "\t[1, 2.5e3]\n"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        cJSON *v = json_parse_document(good[i], strlen(good[i]));
        assert_non_null(v);
        cJSON_Delete(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lexemes_in_document_order),
        cmocka_unit_test(test_integer_literals),
        cmocka_unit_test(test_nul_string_id_kept_whole),
        cmocka_unit_test(test_number_free_documents),
        cmocka_unit_test(test_not_json_numbers_refused),
        cmocka_unit_test(test_whole_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
