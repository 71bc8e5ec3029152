/* Provider tool names: mcp__<provider>__<tool>, sanitised to
 * [A-Za-z0-9_] (what every client can call), at most 64 characters with a
 * hash suffix when cut, and collisions (two provider names, or two tool
 * names, that map to one) told apart by a hash, stably across re-listing.  tools.c
 * registers through a fake host API that records what it is given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "naming.h"
#include "provider.h"
#include "tools.h"

/* ---- what tools.c needs from the rest of the plugin ---- */
const vt_host_api *mcpp_api;
int mcpp_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    (void)args;
    (void)result;
    return 0;
}

/* ---- a fake host: the registered names ---- */
#define MAXREG 64
static char registered[MAXREG][MCPP_NAME_MAX + 1];
static int nreg, adds;

static int fake_tool_add(const char *plugin, const vt_tool *t, size_t size, const char *ann)
{
    (void)ann;
    assert_string_equal(plugin, "mcp_providers");
    assert_int_equal(size, sizeof(vt_tool));
    assert_non_null(t->subjects);
    adds++;
    for (int i = 0; i < nreg; i++)
        if (strcmp(registered[i], t->name) == 0)
            return VT_OK; /* a replacement */
    assert_true(nreg < MAXREG);
    snprintf(registered[nreg++], sizeof registered[0], "%s", t->name);
    return VT_OK;
}

static int fake_tool_remove(const char *plugin, const char *name)
{
    (void)plugin;
    for (int i = 0; i < nreg; i++)
        if (strcmp(registered[i], name) == 0) {
            memmove(registered[i], registered[i + 1], (size_t)(nreg - i - 1) * sizeof registered[0]);
            nreg--;
            return VT_OK;
        }
    return VT_ERR_NOT_FOUND;
}

static void fake_log(int level, const char *plugin, const char *fmt, ...)
{
    (void)level;
    (void)plugin;
    (void)fmt;
}

static vt_host_api fake = {
    .struct_size = sizeof(vt_host_api),
    .tool_add = fake_tool_add,
    .tool_remove = fake_tool_remove,
    .log = fake_log,
};

static int is_registered(const char *name)
{
    for (int i = 0; i < nreg; i++)
        if (strcmp(registered[i], name) == 0)
            return 1;
    return 0;
}

static void well_formed(const char *name)
{
    regex_t re;
    assert_int_equal(regcomp(&re, "^mcp__[A-Za-z0-9_]+$", REG_EXTENDED | REG_NOSUB), 0);
    if (regexec(&re, name, 0, NULL, 0) != 0)
        fail_msg("not a well-formed tool name: '%s'", name);
    regfree(&re);
    assert_true(strlen(name) <= MCPP_NAME_MAX);
}

static void test_sanitize(void **state)
{
    (void)state;
    char out[64];
    naming_sanitize("odd.name/with spaces", out);
    assert_string_equal(out, "odd_name_with_spaces");
    naming_sanitize("no-Dash_and_9", out);
    assert_string_equal(out, "no_Dash_and_9");
    naming_sanitize("caf\xc3\xa9", out); /* every byte of a UTF-8 letter */
    assert_string_equal(out, "caf__");
    naming_sanitize("", out);
    assert_string_equal(out, "");
    char *prefix = naming_prefix("my.server");
    assert_string_equal(prefix, "mcp__my_server__");
    free(prefix);
}

static void test_short_names(void **state)
{
    (void)state;
    char out[MCPP_NAME_MAX + 1];
    assert_int_equal(naming_tool("github", "create_issue", 0, 0, out), 0);
    assert_string_equal(out, "mcp__github__create_issue");
    /* changed by mapping, colliding with nothing: no suffix */
    assert_int_equal(naming_tool("my server", "do.it/now", 0, 0, out), 1);
    assert_string_equal(out, "mcp__my_server__do_it_now");
    assert_int_equal(naming_tool("everything", "get-sum", 0, 0, out), 1);
    assert_string_equal(out, "mcp__everything__get_sum");
    /* colliding: the hash of the original names follows */
    naming_tool("my server", "do.it/now", 0, 1, out);
    assert_int_equal(strncmp(out, "mcp__my_server__do_it_now_", 26), 0);
    assert_int_equal(strlen(out), 26 + 8);
    well_formed(out);
    /* a tool's own "__" is never a separator */
    assert_int_equal(naming_tool("a", "b__c", 0, 0, out), 1);
    assert_string_equal(out, "mcp__a__b_c");
}

static void test_provider_names(void **state)
{
    (void)state;
    assert_true(naming_provider_valid("github"));
    assert_true(naming_provider_valid("my-server_2"));
    assert_true(naming_provider_valid("a.b")); /* a_b */
    assert_false(naming_provider_valid("a__b"));
    assert_false(naming_provider_valid("a._b")); /* sanitises to a__b */
    assert_false(naming_provider_valid("a_"));
    assert_false(naming_provider_valid("_a"));
    assert_false(naming_provider_valid("a."));
    assert_false(naming_provider_valid(""));
}

static void test_cap_and_hash(void **state)
{
    (void)state;
    char out[MCPP_NAME_MAX + 1], again[MCPP_NAME_MAX + 1], other[MCPP_NAME_MAX + 1];
    /* exactly 64: kept whole */
    char tool[128];
    memset(tool, 't', 64 - 12);
    tool[64 - 12] = 0; /* "mcp__" + "srv" + "__" + 52 + 2 = 64 */
    tool[0] = 'x';
    naming_tool("srvv", tool, 0, 0, out); /* 5 + 4 + 2 + 52 = 63 */
    assert_int_equal(strlen(out), 63);
    naming_tool("srvvv", tool, 0, 0, out);
    assert_int_equal(strlen(out), 64);
    assert_null(strchr(out + 60, '_'));
    /* 65: cut to 55 characters, "_", 8 hex digits */
    naming_tool("srvvvv", tool, 0, 0, out);
    assert_int_equal(strlen(out), 64);
    well_formed(out);
    regex_t re;
    assert_int_equal(regcomp(&re, "_[0-9a-f]{8}$", REG_EXTENDED | REG_NOSUB), 0);
    assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
    assert_int_equal(strncmp(out, "mcp__srvvvv__x", 14), 0);
    /* stable, and distinct for names that differ only past the cut */
    naming_tool("srvvvv", tool, 0, 0, again);
    assert_string_equal(out, again);
    char tool2[128];
    snprintf(tool2, sizeof tool2, "%sZ", tool);
    naming_tool("srvvvv", tool2, 0, 0, other);
    assert_int_equal(strncmp(out, other, 55), 0);
    assert_string_not_equal(out, other);
    assert_int_equal(regexec(&re, other, 0, NULL, 0), 0);
    /* a very long provider name alone still fits */
    char prov[300];
    memset(prov, 'p', 299);
    prov[299] = 0;
    naming_tool(prov, "t", 0, 0, out);
    well_formed(out);
    assert_int_equal(regexec(&re, out, 0, NULL, 0), 0);
    regfree(&re);
    /* the hash is of the unsanitised names, with a separator */
    naming_tool("p", "a.b", 1, 0, out);
    naming_tool("p", "a_b", 1, 0, other);
    assert_string_not_equal(out, other);
    naming_tool("ab", "c", 1, 0, out);
    naming_tool("a", "bc", 1, 0, other);
    assert_string_not_equal(out + strlen(out) - 8, other + strlen(other) - 8);
    /* a salt changes the hash */
    naming_tool("p", "a.b", 2, 0, again);
    naming_tool("p", "a.b", 1, 0, out);
    assert_string_not_equal(out, again);
}

static provider *new_provider(const char *name)
{
    provider *p = calloc(1, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    p->name = strdup(name);
    return p;
}

static void free_provider(provider *p)
{
    pthread_mutex_destroy(&p->mu);
    free(p->name);
    free(p);
}

static cJSON *tool_list(const char *const *names)
{
    cJSON *a = cJSON_CreateArray();
    for (; *names; names++) {
        cJSON *t = cJSON_CreateObject();
        cJSON_AddStringToObject(t, "name", *names);
        cJSON_AddStringToObject(t, "description", "a tool");
        cJSON_AddItemToArray(a, t);
    }
    return a;
}

static void expect_maps(const char *vt_name, const provider *p, const char *tool)
{
    char *got = NULL;
    provider *owner = tools_lookup(vt_name, &got);
    if (owner != p || !got || strcmp(got, tool) != 0)
        fail_msg("%s maps to %s/%s, want %s/%s", vt_name, owner ? owner->name : "-",
                 got ? got : "-", p->name, tool);
    free(got);
}

static void test_collisions(void **state)
{
    (void)state;
    mcpp_api = &fake;
    nreg = adds = 0;
    provider *a = new_provider("a");
    static const char *const first[] = {"x.y", "x_y", "x y", NULL};
    tools_sync(a, tool_list(first));
    assert_int_equal(nreg, 3);
    /* the name that needed no change keeps it, whatever the order */
    assert_true(is_registered("mcp__a__x_y"));
    expect_maps("mcp__a__x_y", a, "x_y");
    char names[3][MCPP_NAME_MAX + 1];
    for (int i = 0; i < 3; i++) {
        memcpy(names[i], registered[i], sizeof names[i]);
        well_formed(names[i]);
    }
    assert_string_not_equal(names[0], names[2]);
    char *t1 = NULL, *t2 = NULL;
    tools_lookup(names[0], &t1);
    tools_lookup(names[2], &t2);
    assert_string_equal(t1, "x.y");
    assert_string_equal(t2, "x y");
    free(t1);
    free(t2);

    /* listed again in another order: every tool keeps its name */
    static const char *const reordered[] = {"x y", "x_y", "x.y", NULL};
    int before = adds;
    tools_sync(a, tool_list(reordered));
    assert_int_equal(nreg, 3);
    assert_int_equal(adds, before); /* unchanged tools are not registered again */
    for (int i = 0; i < 3; i++)
        assert_true(is_registered(names[i]));
    expect_maps("mcp__a__x_y", a, "x_y");

    /* a fresh listing in the other order gives the same names */
    tools_clear();
    nreg = 0;
    tools_sync(a, tool_list(reordered));
    for (int i = 0; i < 3; i++)
        assert_true(is_registered(names[i]));

    /* providers a + tool b__c and (were it allowed) a__b + tool c stay apart */
    provider *b = new_provider("a.");
    provider *c = new_provider("a_");
    static const char *const one[] = {"t", NULL};
    tools_sync(c, tool_list(one));
    tools_sync(b, tool_list(one));
    assert_true(is_registered("mcp__a___t"));
    expect_maps("mcp__a___t", c, "t"); /* the unchanged name, though it came second */
    assert_int_equal(nreg, 5);
    const char *bname = registered[4];
    well_formed(bname);
    assert_int_equal(strncmp(bname, "mcp__a___t_", 11), 0);
    expect_maps(bname, b, "t");

    /* a tool listed twice is registered once; one that goes is removed */
    static const char *const twice[] = {"x_y", "x_y", NULL};
    tools_sync(a, tool_list(twice));
    assert_int_equal(tools_count(a), 1);
    assert_true(is_registered("mcp__a__x_y"));
    assert_false(is_registered(names[0]));
    assert_false(is_registered(names[2]));
    assert_int_equal(tools_count(b), 1);
    assert_int_equal(tools_count(c), 1);
    tools_clear();
    free_provider(a);
    free_provider(b);
    free_provider(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sanitize),
        cmocka_unit_test(test_short_names),
        cmocka_unit_test(test_provider_names),
        cmocka_unit_test(test_cap_and_hash),
        cmocka_unit_test(test_collisions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
