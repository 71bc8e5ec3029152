/* vtcode.toml reader: TOML -> cJSON, error positions, key lines.  Every
 * test reads real files written to a fresh temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <vthost/plugin.h>

#include "toml_reader.h"

static char tmpdir[256];

static int make_tmpdir(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/vthost-toml-XXXXXX", base && *base ? base : "/tmp");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Writes `text` to TMPDIR/name; returns the path (static buffer). */
static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
    assert_int_equal(fclose(f), 0);
    return path;
}

static cJSON *read_ok(const char *path)
{
    cJSON *out = NULL;
    char *err = NULL;
    int rc = toml_read_file(path, &out, &err);
    if (rc)
        fail_msg("%s: %d %s", path, rc, err ? err : "");
    assert_null(err);
    assert_non_null(out);
    return out;
}

static const cJSON *at(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v)
        fail_msg("missing key %s", k);
    return v;
}

static void assert_json(const cJSON *v, const char *json)
{
    char *p = cJSON_PrintUnformatted(v);
    assert_non_null(p);
    if (strcmp(p, json))
        fail_msg("\n  want %s\n  got  %s", json, p);
    cJSON_free(p);
}

static void test_nested_tables_and_types(void **state)
{
    (void)state;
    const char *path = write_file("types.toml",
        "# shared with other tools\n"
        "title = \"vt\"\n"
        "[tools]\n"
        "profile = \"advanced\"\n"
        "zeta = 1\n"
        "alpha = -2.5\n"
        "on = true\n"
        "off = false\n"
        "hex = 0xff\n"
        "under = 1_000\n"
        "big = 9007199254740992\n"
        "[a.b.c]\n"
        "x = 1\n"
        "d.e = 'lit\\eral'\n"
        "[dates]\n"
        "odt = 1979-05-27T07:32:00Z\n"
        "off = 1979-05-27T00:32:00-07:00\n"
        "ldt = 1979-05-27T07:32:00\n"
        "ld = 1979-05-27\n"
        "lt = 07:32:00\n"
        "frac = 07:32:00.999999\n"
        "half = 1979-05-27T00:32:00.5+05:30\n"
        "west = 0099-01-02T03:04:05.000000001-00:30\n"
        "[inline]\n"
        "pt = { x = 1, y = [2, 3], z = { w = \"\" } }\n");
    cJSON *o = read_ok(path);
    /* members keep the file's order, not toml++'s sorted order */
    assert_json(at(o, "tools"), "{\"profile\":\"advanced\",\"zeta\":1,\"alpha\":-2.5,\"on\":true,"
                                "\"off\":false,\"hex\":255,\"under\":1000,\"big\":9.00719925474099e+15}");
    /* the number itself is exact up to 2^53 (cJSON prints 15 digits) */
    assert_true(at(at(o, "tools"), "big")->valuedouble == 9007199254740992.0);
    assert_string_equal(at(o, "title")->valuestring, "vt");
    assert_json(at(o, "a"), "{\"b\":{\"c\":{\"x\":1,\"d\":{\"e\":\"lit\\\\eral\"}}}}");
    const cJSON *d = at(o, "dates");
    assert_string_equal(at(d, "odt")->valuestring, "1979-05-27T07:32:00Z");
    assert_string_equal(at(d, "off")->valuestring, "1979-05-27T00:32:00-07:00");
    assert_string_equal(at(d, "ldt")->valuestring, "1979-05-27T07:32:00");
    assert_string_equal(at(d, "ld")->valuestring, "1979-05-27");
    assert_string_equal(at(d, "lt")->valuestring, "07:32:00");
    /* as toml++ prints them: fractions without trailing zeros, a year
     * padded to four digits, an offset under an hour with "00" */
    assert_string_equal(at(d, "frac")->valuestring, "07:32:00.999999");
    assert_string_equal(at(d, "half")->valuestring, "1979-05-27T00:32:00.5+05:30");
    assert_string_equal(at(d, "west")->valuestring, "0099-01-02T03:04:05.000000001-00:30");
    assert_json(at(at(o, "inline"), "pt"), "{\"x\":1,\"y\":[2,3],\"z\":{\"w\":\"\"}}");
    cJSON_Delete(o);
}

static void test_arrays_of_tables(void **state)
{
    (void)state;
    const char *path = write_file("aot.toml",
        "[[hooks]]\n"
        "name = \"one\"\n"
        "[[hooks]]\n"
        "name = \"two\"\n"
        "[[hooks.steps]]\n"
        "run = \"make\"\n"
        "[[hooks]]\n");
    cJSON *o = read_ok(path);
    assert_json(o, "{\"hooks\":[{\"name\":\"one\"},{\"name\":\"two\",\"steps\":[{\"run\":\"make\"}]},{}]}");
    cJSON_Delete(o);
}

/* The reason vtcode.toml is not read with inih: multi-line arrays and
 * values containing " ;" must arrive exactly as written. */
static void test_multiline_arrays_and_semicolons(void **state)
{
    (void)state;
    const char *path = write_file("perm.toml",
        "[permissions]\n"
        "deny = [\n"
        "  \"exec_command(ls ; rm -rf *)\",   # a comment after an element\n"
        "  'exec_command(echo \"a ; b\" # not a comment)',\n"
        "\n"
        "  \"\"\"exec_command(x ;\n"
        "y)\"\"\",\n"
        "]\n"
        "allow = [\"exec_command(git status) ;\"]\n");
    cJSON *o = read_ok(path);
    const cJSON *deny = at(at(o, "permissions"), "deny");
    assert_int_equal(cJSON_GetArraySize(deny), 3);
    assert_string_equal(cJSON_GetArrayItem(deny, 0)->valuestring, "exec_command(ls ; rm -rf *)");
    assert_string_equal(cJSON_GetArrayItem(deny, 1)->valuestring,
                        "exec_command(echo \"a ; b\" # not a comment)");
    assert_string_equal(cJSON_GetArrayItem(deny, 2)->valuestring, "exec_command(x ;\ny)");
    assert_json(at(at(o, "permissions"), "allow"), "[\"exec_command(git status) ;\"]");
    cJSON_Delete(o);

    /* ";" is not a TOML comment: after a value it is an error, not ignored */
    cJSON *out = NULL;
    char *err = NULL;
    assert_int_equal(toml_read_string("[p]\nallow = [\"a\"] ; b\n", "s.toml", &out, &err),
                     VT_ERR_INVALID);
    assert_null(out);
    assert_true(strncmp(err, "s.toml:2:", 9) == 0);
    free(err);
}

static void test_syntax_error_position(void **state)
{
    (void)state;
    struct {
        const char *text;
        const char *pos; /* ":LINE:COLUMN: " expected after the path */
    } bad[] = {
        {"[tools]\nprofile = \"x\"\nbad = = 3\n", ":3:7: "},
        {"a = 1\na = 2\n", ":2:5: "},
        {"[t]\nx = \"unterminated\n", ":2:"},
        {"x = [1,\n2\n", ":2:3: "},
        {"[t]\n[t]\n", ":2:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *path = write_file("bad.toml", bad[i].text);
        cJSON *out = (cJSON *)1;
        char *err = NULL;
        assert_int_equal(toml_read_file(path, &out, &err), VT_ERR_INVALID);
        assert_null(out);
        assert_non_null(err);
        char want[600];
        snprintf(want, sizeof want, "%s%s", path, bad[i].pos);
        if (strncmp(err, want, strlen(want)))
            fail_msg("case %zu: want prefix %s, got %s", i, want, err);
        /* a description follows the position */
        assert_true(strlen(err) > strlen(want) + 5);
        free(err);
    }
    /* the named source for text in memory */
    cJSON *out = NULL;
    char *err = NULL;
    assert_int_equal(toml_read_string("ok = 1\n\n  x = [", "--config", &out, &err), VT_ERR_INVALID);
    assert_non_null(err);
    assert_true(strncmp(err, "--config:3:", 11) == 0);
    free(err);
    /* without a name, messages still say where */
    assert_int_equal(toml_read_string("x = ", NULL, &out, &err), VT_ERR_INVALID);
    assert_true(strncmp(err, "<string>:1:", 11) == 0);
    free(err);
    assert_int_equal(toml_read_string(NULL, "n", &out, &err), VT_ERR_INVALID);
    assert_null(out);
    /* invalid UTF-8 is a syntax error too */
    const char *path = write_file("utf8.toml", "x = \"a\xff\"\n");
    assert_int_equal(toml_read_file(path, &out, &err), VT_ERR_INVALID);
    assert_non_null(err);
    free(err);
}

static void test_missing_and_unreadable(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/none.toml", tmpdir);
    cJSON *out = (cJSON *)1;
    char *err = NULL;
    assert_int_equal(toml_read_file(path, &out, &err), VT_ERR_NOT_FOUND);
    assert_null(out);
    char want[600];
    snprintf(want, sizeof want, "%s: no such file", path);
    assert_string_equal(err, want);
    free(err);
    /* a directory is there but cannot be read as a file */
    assert_int_equal(toml_read_file(tmpdir, &out, &err), VT_ERR_IO);
    assert_non_null(err);
    free(err);
    assert_int_equal(toml_read_file(NULL, &out, &err), VT_ERR_INVALID);
    /* an empty file is an empty document */
    cJSON *o = read_ok(write_file("empty.toml", ""));
    assert_json(o, "{}");
    cJSON_Delete(o);
}

/* A C string would cut at U+0000 and change what a rule means. */
static void test_nul_rejected(void **state)
{
    (void)state;
    cJSON *out = NULL;
    char *err = NULL;
    assert_int_equal(toml_read_string("[p]\n\ndeny = [\"rm\\u0000 -rf\"]\n", "c.toml", &out, &err),
                     VT_ERR_INVALID);
    assert_null(out);
    assert_non_null(err);
    assert_true(strncmp(err, "c.toml:3:", 9) == 0);
    assert_non_null(strstr(err, "U+0000"));
    free(err);
    cJSON *o = NULL;
    assert_int_equal(toml_read_string("\"a\\u0000b\" = 1\n", "k.toml", &o, &err), VT_ERR_INVALID);
    assert_true(strncmp(err, "k.toml:1:", 9) == 0);
    free(err);
}

static void test_key_lines(void **state)
{
    (void)state;
    const char *path = write_file("lines.toml",
        "# top\n"                             /* 1 */
        "[tools]\n"                           /* 2 */
        "profile = \"advanced\"\n"            /* 3 */
        "\n"                                  /* 4 */
        "[permissions]\n"                     /* 5 */
        "deny = [\n"                          /* 6 */
        "  \"a\",\n"                          /* 7 */
        "  # gap\n"                           /* 8 */
        "  \"exec_command(ls ; rm -rf *)\",\n" /* 9 */
        "]\n"                                 /* 10 */
        "[[hooks]]\n"                         /* 11 */
        "name = \"one\"\n"                    /* 12 */
        "[[hooks]]\n"                         /* 13 */
        "name = \"two\"\n"                    /* 14 */
        "[a.b]\n"                             /* 15 */
        "c.d = 1\n");                         /* 16 */
    int line = -1;
    assert_int_equal(toml_key_line(path, "tools.profile", &line), 0);
    assert_int_equal(line, 3);
    assert_int_equal(toml_key_line(path, "permissions", &line), 0);
    assert_int_equal(line, 5);
    assert_int_equal(toml_key_line(path, "permissions.deny", &line), 0);
    assert_int_equal(line, 6);
    assert_int_equal(toml_key_line(path, "hooks[1].name", &line), 0);
    assert_int_equal(line, 14);
    assert_int_equal(toml_key_line(path, "a.b.c.d", &line), 0);
    assert_int_equal(line, 16);
    assert_int_equal(toml_array_item_line(path, "permissions.deny", 0, &line), 0);
    assert_int_equal(line, 7);
    assert_int_equal(toml_array_item_line(path, "permissions.deny", 1, &line), 0);
    assert_int_equal(line, 9);
    assert_int_equal(toml_array_item_line(path, "hooks", 1, &line), 0);
    assert_int_equal(line, 13);

    line = -1;
    assert_int_equal(toml_key_line(path, "tools.nope", &line), VT_ERR_NOT_FOUND);
    assert_int_equal(toml_key_line(path, "nope", &line), VT_ERR_NOT_FOUND);
    assert_int_equal(toml_array_item_line(path, "permissions.deny", 2, &line), VT_ERR_NOT_FOUND);
    assert_int_equal(toml_array_item_line(path, "tools.profile", 0, &line), VT_ERR_NOT_FOUND);
    assert_int_equal(toml_array_item_line(path, "permissions.deny", -1, &line), VT_ERR_INVALID);
    assert_int_equal(line, -1);

    char missing[512];
    snprintf(missing, sizeof missing, "%s/none.toml", tmpdir);
    assert_int_equal(toml_key_line(missing, "tools", &line), VT_ERR_NOT_FOUND);
    const char *bad = write_file("badlines.toml", "x = = 1\n");
    assert_int_equal(toml_key_line(bad, "x", &line), VT_ERR_INVALID);
    assert_int_equal(toml_array_item_line(bad, "x", 0, &line), VT_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_tables_and_types),
        cmocka_unit_test(test_arrays_of_tables),
        cmocka_unit_test(test_multiline_arrays_and_semicolons),
        cmocka_unit_test(test_syntax_error_position),
        cmocka_unit_test(test_missing_and_unreadable),
        cmocka_unit_test(test_nul_rejected),
        cmocka_unit_test(test_key_lines),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
