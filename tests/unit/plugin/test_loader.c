/* Descriptor checks, run on descriptors built in memory (the fixture
 * plugins under tests/plugins/loader cover the same rules end to end). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "legacy.h"
#include "loader.h"

static int run(vt_call *c, const cJSON *a, cJSON **r)
{
    (void)c; (void)a; (void)r;
    return 0;
}

static const vt_tool tools[] = {
    {.name = "t", .input_schema = "{}", .run = run},
    {0},
};

static vt_plugin good(void)
{
    vt_plugin d = {VT_PLUGIN_HEADER, .name = "p", .tools = tools};
    return d;
}

static void expect_refusal(const vt_plugin *d, const char *needle)
{
    char *why = loader_check_descriptor(d);
    assert_non_null(why);
    assert_non_null(strstr(why, needle));
    free(why);
}

static void test_good(void **st)
{
    (void)st;
    vt_plugin d = good();
    assert_null(loader_check_descriptor(&d));
    /* an older minor is fine */
    d.abi_minor = 0;
    assert_null(loader_check_descriptor(&d));
}

static void test_abi(void **st)
{
    (void)st;
    vt_plugin d = good();
    d.abi_major = 2;
    expect_refusal(&d, "ABI major version 2");
    d = good();
    d.abi_minor = VT_ABI_MINOR + 1;
    expect_refusal(&d, "newer than this host's");
    expect_refusal(NULL, "returned NULL");
}

/* The cJSON major a plugin was built against must be the host's. */
static void test_cjson(void **st)
{
    (void)st;
    vt_plugin d = good();
    assert_int_equal(d.cjson_version, VT_CJSON_VERSION); /* set by VT_PLUGIN_HEADER */
    d.cjson_version = VT_CJSON_VERSION_OF(CJSON_VERSION_MAJOR + 1, 0, 4);
    expect_refusal(&d, "built against cJSON ");
    expect_refusal(&d, ".0.4, but this host uses cJSON ");
    d.cjson_version = VT_CJSON_VERSION_OF(CJSON_VERSION_MAJOR - 1, 7, 0);
    expect_refusal(&d, "rebuild the plugin against cJSON");
    /* another minor or patch of the same major is fine */
    d.cjson_version = VT_CJSON_VERSION_OF(CJSON_VERSION_MAJOR, CJSON_VERSION_MINOR + 1, 0);
    assert_null(loader_check_descriptor(&d));
    /* 0: a plugin that records nothing */
    d.cjson_version = 0;
    assert_null(loader_check_descriptor(&d));
    /* a 1.1 descriptor ends before the field: whatever lies there is not read */
    d.cjson_version = VT_CJSON_VERSION_OF(99, 0, 0);
    d.struct_size = (uint32_t)offsetof(vt_plugin, api_slot);
    d.abi_minor = 1;
    assert_null(loader_check_descriptor(&d));
}

static void test_sizes(void **st)
{
    (void)st;
    vt_plugin d = good();
    d.struct_size = 8;
    expect_refusal(&d, "descriptor too small");
    d = good();
    d.sizeof_tool = 8;
    expect_refusal(&d, "tool entry size");
    /* larger descriptor with a zero tail is accepted */
    struct {
        vt_plugin base;
        void *extra[2];
    } big = {good(), {0, 0}};
    big.base.struct_size = sizeof big;
    assert_null(loader_check_descriptor(&big.base));
    big.extra[1] = &big;
    expect_refusal(&big.base, "non-zero fields beyond");
}

static void test_tool_stride(void **st)
{
    (void)st;
    /* tools built with a larger vt_tool: the host steps by sizeof_tool */
    struct big_tool {
        vt_tool t;
        void *future;
    } bt[] = {{{.name = "a", .input_schema = "{}", .run = run}, NULL},
              {{.name = "b", .input_schema = "{}", .run = run}, NULL},
              {{0}, NULL}};
    vt_plugin d = good();
    d.tools = &bt[0].t;
    d.sizeof_tool = sizeof(struct big_tool);
    assert_null(loader_check_descriptor(&d));
    bt[1].future = bt;
    expect_refusal(&d, "tool #1 has non-zero fields");
}

/* Declared configuration keys (1.16): walked by the plugin's entry size,
 * refused with the entry named when malformed. */
static void test_config_keys(void **st)
{
    (void)st;
    vt_config_key keys[] = {
        {"fix", "max", VT_CONFIG_SMALLER, 10, NULL},
        {"fix.sub", "names", VT_CONFIG_SUBSET, 0, NULL},
        {"fix", "style", VT_CONFIG_STRING, 0, "plain"},
        {0},
    };
    vt_plugin d = good();
    d.config_keys = keys;
    assert_int_equal(d.sizeof_config_key, sizeof(vt_config_key)); /* VT_PLUGIN_HEADER */
    assert_null(loader_check_descriptor(&d));
    assert_ptr_equal(loader_config_key_at(&d, 2), &keys[2]);
    assert_null(loader_config_key_at(&d, 3));
    keys[2].fixed = NULL;
    expect_refusal(&d, "#2 (fix.style) is VT_CONFIG_STRING without");
    keys[2].fixed = "plain";
    keys[1].table = "fix..sub";
    expect_refusal(&d, "#1 (fix..sub.names) has a table path");
    keys[1].table = "fix.sub";
    keys[0].key = "a.b";
    expect_refusal(&d, "has a dot in its key");
    keys[0].key = "max";
    keys[0].default_value = -1;
    expect_refusal(&d, "default_value that is not a number >= 0");
    keys[0].default_value = 10;
    keys[0].kind = (vt_config_kind)99;
    expect_refusal(&d, "a kind this host does not know");
    keys[0].kind = VT_CONFIG_SMALLER;
    d.sizeof_config_key = 4;
    expect_refusal(&d, "configuration key size 4");
    /* a plugin older than 1.16 ends before the members: not read */
    d = good();
    d.config_keys = keys;
    d.struct_size = (uint32_t)offsetof(vt_plugin, config_keys);
    d.abi_minor = 12;
    assert_null(loader_check_descriptor(&d));
    assert_null(loader_config_key_at(&d, 0));
}

/* Entries built with a larger vt_config_key: stepped over by its size. */
static void test_config_key_stride(void **st)
{
    (void)st;
    struct big_key {
        vt_config_key k;
        void *future;
    } bk[] = {{{"a", "x", VT_CONFIG_TRUE, 0, NULL}, NULL},
              {{"b", "y", VT_CONFIG_FALSE, 0, NULL}, NULL},
              {{0}, NULL}};
    vt_plugin d = good();
    d.config_keys = &bk[0].k;
    d.sizeof_config_key = sizeof(struct big_key);
    assert_null(loader_check_descriptor(&d));
    assert_ptr_equal(loader_config_key_at(&d, 1), &bk[1].k);
    assert_null(loader_config_key_at(&d, 2));
    bk[1].future = bk;
    expect_refusal(&d, "configuration key #1 has non-zero fields");
}

static void test_legacy_names(void **st)
{
    (void)st;
    assert_non_null(strstr(legacy_replacement("unified_exec"), "exec_command"));
    assert_non_null(strstr(legacy_replacement("unified_exec"), "write_stdin"));
    assert_non_null(strstr(legacy_replacement("unified_file"), "apply_patch"));
    assert_non_null(strstr(legacy_replacement("unified_search"), "code_search"));
    assert_null(legacy_replacement("exec_command"));
    assert_null(legacy_replacement("unified"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good),
        cmocka_unit_test(test_abi),
        cmocka_unit_test(test_cjson),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_tool_stride),
        cmocka_unit_test(test_config_keys),
        cmocka_unit_test(test_config_key_stride),
        cmocka_unit_test(test_legacy_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
