/* Dynamic tools (host/plugin/registry_dynamic.c) in an in-process host
 * with the catalog fixture plugin loaded, whose name the tools are added
 * under: add, replace, remove, refusals, the catalog epoch, the listener
 * told when listed tools change, on-demand hooks, and adds and removes
 * racing a reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "registry_dynamic.h"
#include "test_host.h"

#define OWNER "catalog_fixture"

static char ws[4096];

static int run_dyn(vt_call *c, const cJSON *a, cJSON **r)
{
    (void)c;
    (void)a;
    *r = cJSON_CreateObject();
    return 0;
}

static vt_tool tool(const char *name, const char *desc, const char *schema)
{
    vt_tool t = {.name = name, .description = desc, .input_schema = schema,
                 .effects = VT_EFFECT_NETWORK, .flags = VT_TOOL_DEFERRED, .run = run_dyn};
    return t;
}

static int add(const char *name, const char *desc)
{
    vt_tool t = tool(name, desc, "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"}}}");
    return registry_dynamic_add(OWNER, &t, sizeof t, NULL);
}

static atomic_int listed_calls;
static void on_listed(void *ud)
{
    (void)ud;
    atomic_fetch_add(&listed_calls, 1);
}

static void test_add_find_remove(void **state)
{
    (void)state;
    uint64_t e0 = registry_epoch();
    assert_int_equal(add("dyn_one", "first text"), VT_OK);
    uint64_t e1 = registry_epoch();
    assert_true(e1 > e0);
    const tool_entry *t = registry_find("dyn_one");
    assert_non_null(t);
    assert_true(t->dynamic);
    assert_string_equal(t->t.description, "first text");
    assert_true(registry_is_deferred(t)); /* not listed until a search */

    /* replacing keeps the old entry readable (a call may still hold it) */
    assert_int_equal(add("dyn_one", "second text"), VT_OK);
    assert_true(registry_epoch() > e1);
    const tool_entry *t2 = registry_find("dyn_one");
    assert_ptr_not_equal(t2, t);
    assert_string_equal(t2->t.description, "second text");
    assert_string_equal(t->t.description, "first text");

    uint64_t e2 = registry_epoch();
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_one"), VT_OK);
    assert_null(registry_find("dyn_one"));
    assert_true(registry_epoch() > e2);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_one"), VT_ERR_NOT_FOUND);
}

static void test_refusals(void **state)
{
    (void)state;
    uint64_t e0 = registry_epoch();
    assert_int_equal(add("has space", "x"), VT_ERR_INVALID);
    assert_int_equal(add("", "x"), VT_ERR_INVALID);
    char longname[70];
    memset(longname, 'a', 65);
    longname[65] = 0;
    assert_int_equal(add(longname, "x"), VT_ERR_INVALID);
    longname[64] = 0;
    assert_int_equal(add(longname, "x"), VT_OK); /* 64 is the limit */
    assert_int_equal(registry_dynamic_remove(OWNER, longname), VT_OK);
    e0 = registry_epoch();

    vt_tool t = tool("dyn_bad", "x", "{\"type\":\"object\"}");
    t.run = NULL;
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, NULL), VT_ERR_INVALID);
    t = tool("dyn_bad", "x", NULL);
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, NULL), VT_ERR_INVALID);
    t = tool("dyn_bad", "x", "not json");
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, NULL), VT_ERR_INVALID);
    t = tool("dyn_bad", "x", "{\"type\":\"object\"}");
    t.signature = "int64 f(int64 a)"; /* typed tools are load-time only */
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, NULL), VT_ERR_INVALID);
    t.signature = NULL;
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, "[1,2]"), VT_ERR_INVALID);
    assert_int_equal(registry_dynamic_add("no_such_plugin", &t, sizeof t, NULL), VT_ERR_INVALID);
    assert_int_equal(registry_dynamic_add(NULL, &t, sizeof t, NULL), VT_ERR_INVALID);
    assert_null(registry_find("dyn_bad"));
    /* a descriptor's tool is not anyone's to replace or remove */
    assert_int_equal(add("github_create_issue", "hijack"), VT_ERR_EXISTS);
    assert_int_equal(registry_dynamic_remove(OWNER, "github_create_issue"), VT_ERR_DENIED);
    assert_non_null(registry_find("github_create_issue"));
    assert_int_equal(registry_epoch(), e0); /* nothing refused changed the catalog */
}

static void test_schema_and_annotations(void **state)
{
    (void)state;
    vt_tool t = tool("dyn_anyof", "beyond the subset",
                     "{\"type\":\"object\",\"properties\":{\"v\":{\"anyOf\":[{\"type\":"
                     "\"string\"},{\"type\":\"number\"}]}},\"required\":[\"v\"]}");
    assert_int_equal(registry_dynamic_add(OWNER, &t, sizeof t, "{\"readOnlyHint\":true}"),
                     VT_OK);
    const tool_entry *e = registry_find("dyn_anyof");
    assert_non_null(e);
    /* listed as given (plus max_output_tokens); checked only as an object */
    assert_non_null(e->shown_schema);
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(e->shown_schema, "properties");
    assert_non_null(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(props, "v"), "anyOf"));
    assert_non_null(cJSON_GetObjectItemCaseSensitive(props, "max_output_tokens"));
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e->annotations, "readOnlyHint")));
    cJSON *d = registry_describe(e, "mcp");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(d, "annotations"), "readOnlyHint")));
    cJSON_Delete(d);
    /* a smaller vt_tool (an older plugin) is read only as far as it goes */
    vt_tool small = tool("dyn_small", "old plugin", "{\"type\":\"object\"}");
    small.title = "must not be read";
    assert_int_equal(registry_dynamic_add(OWNER, &small, offsetof(vt_tool, title), NULL), VT_OK);
    assert_null(registry_find("dyn_small")->t.title);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_small"), VT_OK);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_anyof"), VT_OK);
}

static void test_list_changed(void **state)
{
    (void)state;
    atomic_store(&listed_calls, 0);
    registry_dynamic_on_listed_change(on_listed, NULL);
    assert_int_equal(add("dyn_listed", "v1"), VT_OK);
    assert_int_equal(atomic_load(&listed_calls), 0); /* deferred: nothing listed changed */
    const char *names[] = {"dyn_listed"};
    uint64_t epoch = 0;
    assert_int_equal(registry_expand(names, 1, &epoch), VT_OK);
    assert_int_equal(epoch, registry_epoch());
    assert_false(registry_is_deferred(registry_find("dyn_listed")));
    /* a listed tool replaced stays listed, and the client is told */
    assert_int_equal(add("dyn_listed", "v2"), VT_OK);
    assert_int_equal(atomic_load(&listed_calls), 1);
    assert_false(registry_is_deferred(registry_find("dyn_listed")));
    assert_string_equal(registry_find("dyn_listed")->t.description, "v2");
    /* another deferred tool coming and going changes no listed tool */
    assert_int_equal(add("dyn_quiet", "q"), VT_OK);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_quiet"), VT_OK);
    assert_int_equal(atomic_load(&listed_calls), 1);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_listed"), VT_OK);
    assert_int_equal(atomic_load(&listed_calls), 2);
    char *listed = registry_listed_names();
    assert_null(strstr(listed, "dyn_listed"));
    free(listed);
    registry_dynamic_on_listed_change(NULL, NULL);
    assert_int_equal(add("dyn_listed", "v3"), VT_OK);
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_listed"), VT_OK);
    assert_int_equal(atomic_load(&listed_calls), 2);
}

static atomic_int demands_all, demands_named;
static void on_demand(void *ud, const char *name)
{
    assert_ptr_equal(ud, &demands_all);
    if (!name) {
        atomic_fetch_add(&demands_all, 1);
        return;
    }
    atomic_fetch_add(&demands_named, 1);
    if (strcmp(name, "dyn_lazy") == 0)
        add("dyn_lazy", "arrives on demand"); /* hooks may add tools */
}

static void test_on_demand(void **state)
{
    (void)state;
    assert_int_equal(registry_dynamic_on_demand("no_such_plugin", on_demand, NULL),
                     VT_ERR_INVALID);
    assert_int_equal(registry_dynamic_on_demand(OWNER, on_demand, &demands_all), VT_OK);
    registry_dynamic_demand(NULL);
    assert_int_equal(atomic_load(&demands_all), 1);
    assert_null(registry_find("dyn_lazy"));
    registry_dynamic_demand("dyn_lazy");
    assert_int_equal(atomic_load(&demands_named), 1);
    assert_non_null(registry_find("dyn_lazy"));
    assert_int_equal(registry_dynamic_remove(OWNER, "dyn_lazy"), VT_OK);
}

/* One thread adds and removes (and replaces) tools while others read
 * the registry: every entry a reader sees is whole, and the epoch only
 * grows. */
#define RACE_ROUNDS 400
static atomic_int race_done;

static void *writer(void *arg)
{
    (void)arg;
    char name[32], desc[64];
    for (int i = 0; i < RACE_ROUNDS; i++) {
        snprintf(name, sizeof name, "dyn_race_%d", i % 7);
        snprintf(desc, sizeof desc, "race round %d", i);
        assert_int_equal(add(name, desc), VT_OK);
        if (i % 3 == 0) {
            const char *names[] = {name};
            uint64_t e;
            registry_expand(names, 1, &e);
        }
        if (i % 2)
            assert_int_equal(registry_dynamic_remove(OWNER, name), VT_OK);
    }
    atomic_store(&race_done, 1);
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    uint64_t last = 0;
    long seen = 0;
    while (!atomic_load(&race_done)) {
        uint64_t e = registry_epoch();
        assert_true(e >= last);
        last = e;
        const tool_entry **v = NULL;
        size_t n = 0;
        assert_int_equal(registry_all(&v, &n), VT_OK);
        for (size_t i = 0; i < n; i++) {
            assert_non_null(v[i]->t.name);
            if (strncmp(v[i]->t.name, "dyn_race_", 9) == 0) {
                assert_non_null(strstr(v[i]->t.description, "race round"));
                assert_non_null(v[i]->schema);
                seen++;
            }
        }
        free(v);
        assert_int_equal(registry_listed(&v, &n), VT_OK);
        free(v);
        char name[32];
        snprintf(name, sizeof name, "dyn_race_%ld", seen % 7);
        const tool_entry *t = registry_find(name);
        if (t)
            assert_non_null(strstr(t->t.description, "race round"));
        char *names = registry_listed_names();
        free(names);
    }
    return NULL;
}

static void test_concurrent(void **state)
{
    (void)state;
    registry_dynamic_on_listed_change(on_listed, NULL);
    uint64_t e0 = registry_epoch();
    atomic_store(&race_done, 0);
    pthread_t w, r[2];
    assert_int_equal(pthread_create(&r[0], NULL, reader, NULL), 0);
    assert_int_equal(pthread_create(&r[1], NULL, reader, NULL), 0);
    assert_int_equal(pthread_create(&w, NULL, writer, NULL), 0);
    pthread_join(w, NULL);
    pthread_join(r[0], NULL);
    pthread_join(r[1], NULL);
    registry_dynamic_on_listed_change(NULL, NULL);
    /* every add and every remove moved the epoch */
    assert_true(registry_epoch() >= e0 + RACE_ROUNDS + RACE_ROUNDS / 2);
    /* even rounds' tools remain: the last round of each name decides */
    for (int k = 0; k < 7; k++) {
        char name[32];
        snprintf(name, sizeof name, "dyn_race_%d", k);
        int last = RACE_ROUNDS - 1;
        while (last % 7 != k)
            last--;
        const tool_entry *t = registry_find(name);
        if (last % 2) {
            assert_null(t);
        } else {
            assert_non_null(t);
            char want[64];
            snprintf(want, sizeof want, "race round %d", last);
            assert_string_equal(t->t.description, want);
            assert_int_equal(registry_dynamic_remove(OWNER, name), VT_OK);
        }
    }
}

static int setup(void **state)
{
    (void)state;
    snprintf(ws, sizeof ws, "/tmp/registry_dynamic_XXXXXX");
    return test_host_open(ws, sizeof ws, NULL, CATALOG_FIXTURE_DIR, 0) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return test_host_close(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_find_remove),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_schema_and_annotations),
        cmocka_unit_test(test_list_changed),
        cmocka_unit_test(test_on_demand),
        cmocka_unit_test(test_concurrent),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
