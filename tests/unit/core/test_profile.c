/* Profiles: parsing with inih, aliases, file lookup, embedded copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "profile.h"

static void test_aliases(void **st)
{
    (void)st;
    assert_string_equal(profile_canonical_name("vt_code"), "default");
    assert_string_equal(profile_canonical_name("advanced_vtcode"), "advanced");
    assert_string_equal(profile_canonical_name("advanced"), "advanced");
    assert_string_equal(profile_canonical_name(NULL), "default");
}

static void test_embedded_default(void **st)
{
    (void)st;
    profile p;
    char *err = NULL;
    assert_int_equal(profile_load("default", NULL, 0, &p, &err), 0);
    assert_int_equal(p.ntools, 4);
    assert_string_equal(p.tools[0], "exec_command");
    assert_string_equal(p.tools[1], "write_stdin");
    assert_string_equal(p.tools[2], "apply_patch");
    assert_string_equal(p.tools[3], "search_tools");
    assert_int_equal(p.nmodules, 5);
    assert_string_equal(p.modules[3], "search_tools");
    assert_string_equal(p.packages[3], "vthost-plugin-search-tools");
    assert_string_equal(p.modules[4], "mcp_providers");
    assert_string_equal(p.packages[4], "vthost-plugin-mcp-providers");
    assert_string_equal(p.source, "(embedded)");
    profile_free(&p);
}

static void test_embedded_advanced_via_alias(void **st)
{
    (void)st;
    profile p;
    char *err = NULL;
    assert_int_equal(profile_load("advanced_vtcode", NULL, 0, &p, &err), 0);
    assert_int_equal(p.ntools, 5);
    assert_string_equal(p.tools[4], "code_search");
    assert_string_equal(p.packages[4], "vthost-plugin-code-search");
    profile_free(&p);
}

static void test_directory_wins(void **st)
{
    (void)st;
    char dir[] = "/tmp/vthost-prof-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char file[256];
    snprintf(file, sizeof file, "%s/default.ini", dir);
    FILE *f = fopen(file, "w");
    fputs("[profile]\nname = default\ntools = a, b\n[module.m]\npackage = pkg-m\n", f);
    fclose(f);
    const char *dirs[] = {dir};
    profile p;
    char *err = NULL;
    assert_int_equal(profile_load("default", dirs, 1, &p, &err), 0);
    assert_int_equal(p.ntools, 2);
    assert_string_equal(p.source, file);
    profile_free(&p);
    unlink(file);
    rmdir(dir);
}

static void test_syntax_error_names_line(void **st)
{
    (void)st;
    profile p;
    char *err = NULL;
    assert_int_not_equal(profile_parse("[profile]\ntools = a\nthis is not ini\n", "x.ini", &p, &err), 0);
    assert_non_null(strstr(err, "x.ini:3:"));
    free(err);
    err = NULL;
    assert_int_not_equal(profile_parse("[profile]\nname = empty\n", "y.ini", &p, &err), 0);
    assert_non_null(strstr(err, "lists no tools"));
    free(err);
}

static void test_unknown_profile(void **st)
{
    (void)st;
    profile p;
    char *err = NULL;
    assert_int_not_equal(profile_load("nosuch", NULL, 0, &p, &err), 0);
    assert_non_null(strstr(err, "unknown profile 'nosuch'"));
    assert_non_null(strstr(err, "advanced"));
    free(err);
    err = NULL;
    assert_int_not_equal(profile_load("../etc", NULL, 0, &p, &err), 0);
    free(err);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_embedded_default),
        cmocka_unit_test(test_embedded_advanced_via_alias),
        cmocka_unit_test(test_directory_wins),
        cmocka_unit_test(test_syntax_error_names_line),
        cmocka_unit_test(test_unknown_profile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
