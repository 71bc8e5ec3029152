/* search_tools inside a real host: the default profile plus the catalog
 * fixture plugin, calls through pipeline_call, expansion checked in the
 * registry (what `vthost tools` and MCP tools/list print) and in the
 * catalog the plugin sees. */
#include <pthread.h>
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

static char g_ws[256] = "/tmp/vthost-search-expand-XXXXXX";

static int setup(void **state)
{
    (void)state;
    return test_host_open(g_ws, sizeof g_ws, NULL, CATALOG_FIXTURE_DIR, 0);
}

static int teardown(void **state)
{
    (void)state;
    return test_host_close(g_ws);
}

/* One search_tools call from the client `fe` describes (NULL: none, as
 * the CLI); the response is the caller's. */
static cJSON *search_from(const char *json, const frontend *fe, call_status want,
                          int *list_changed)
{
    cJSON *args = cJSON_Parse(json);
    assert_non_null(args);
    call_request req = {.tool = "search_tools", .args = args, .fe = fe};
    call_result r = {0};
    assert_int_equal(pipeline_call(&req, &r), 0);
    if (r.status != want)
        fail_msg("status %d (want %d): %s", r.status, want, r.message ? r.message : "");
    if (list_changed)
        *list_changed = r.list_changed;
    cJSON *resp = r.response;
    r.response = NULL;
    call_result_free(&r);
    cJSON_Delete(args);
    return resp;
}

static cJSON *search(const char *json, call_status want, int *list_changed)
{
    return search_from(json, NULL, want, list_changed);
}

static int listed_has(const char *name, size_t *pos)
{
    const tool_entry **v;
    size_t n;
    assert_int_equal(registry_listed(&v, &n), 0);
    int found = 0;
    for (size_t i = 0; i < n && !found; i++)
        if (strcmp(v[i]->t.name, name) == 0) {
            found = 1;
            if (pos)
                *pos = i;
        }
    free(v);
    return found;
}

/* In the catalog, and deferred (not marked listed). */
static int catalog_has(const char *name)
{
    cJSON *cat = host_api()->catalog_list();
    assert_non_null(cat);
    int found = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cat)
        if (strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name) == 0)
            found = !cJSON_IsTrue(cJSON_GetObjectItem(e, "listed"));
    cJSON_Delete(cat);
    return found;
}

/* In the catalog, marked listed. */
static int catalog_has_listed(const char *name)
{
    cJSON *cat = host_api()->catalog_list();
    assert_non_null(cat);
    int found = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, cat)
        if (strcmp(cJSON_GetObjectItem(e, "name")->valuestring, name) == 0)
            found = cJSON_IsTrue(cJSON_GetObjectItem(e, "listed"));
    cJSON_Delete(cat);
    return found;
}

static void expansion_lists_found_tools_from_the_next_request(void **state)
{
    (void)state;
    assert_false(listed_has("github_review_pull_request", NULL));
    assert_true(catalog_has("github_review_pull_request"));
    uint64_t before = registry_epoch();

    int changed = 0;
    cJSON *r = search("{\"query\":\"GitHub pull request review\",\"limit\":3}",
                      CALL_OK, &changed);
    assert_true(changed);
    const cJSON *exp = cJSON_GetObjectItem(r, "expanded_for_next_segment");
    /* the three pull-request tools all score close to the best */
    assert_int_equal(cJSON_GetArraySize(exp), 3);
    assert_string_equal(cJSON_GetArrayItem(exp, 0)->valuestring, "github_review_pull_request");
    uint64_t epoch = (uint64_t)cJSON_GetObjectItem(r, "next_catalog_epoch")->valuedouble;
    assert_true(epoch != before);
    assert_true(epoch == registry_epoch());

    /* Listed now: profile tools first, then the expanded ones by name. */
    const tool_entry **v;
    size_t n;
    assert_int_equal(registry_listed(&v, &n), 0);
    size_t first_expanded = n;
    for (size_t i = 0; i < n; i++)
        if (v[i]->is_expanded && !v[i]->is_public) {
            if (first_expanded == n)
                first_expanded = i;
        } else {
            assert_true(first_expanded == n); /* no profile tool after */
        }
    assert_int_equal(n - first_expanded, 3);
    for (size_t i = first_expanded + 1; i < n; i++)
        assert_true(strcmp(v[i - 1]->t.name, v[i]->t.name) < 0);
    free(v);
    char first[3][64];
    for (int i = 0; i < 3; i++) {
        const char *nm = cJSON_GetArrayItem(exp, i)->valuestring;
        assert_true(listed_has(nm, NULL));
        assert_false(catalog_has(nm));
        assert_true(catalog_has_listed(nm));
        snprintf(first[i], sizeof first[i], "%s", nm);
    }
    cJSON_Delete(r);

    /* Listed tools are still found, marked listed, and not expanded again
     * (the listed set does not change). */
    r = search("{\"query\":\"GitHub pull request review\",\"limit\":3}", CALL_OK, &changed);
    assert_false(changed);
    assert_int_equal(cJSON_GetObjectItem(r, "count")->valueint, 3);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(r, "expanded_for_next_segment")), 0);
    int i = 0;
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tools")) {
        assert_string_equal(cJSON_GetObjectItem(t, "name")->valuestring, first[i++]);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(t, "listed")));
    }
    cJSON_Delete(r);
}

static void no_match_leaves_the_listed_set_alone(void **state)
{
    (void)state;
    uint64_t before = registry_epoch();
    int changed = 1;
    cJSON *r = search("{\"query\":\"xylophone quartet\"}", CALL_OK, &changed);
    assert_false(changed);
    assert_int_equal(cJSON_GetObjectItem(r, "count")->valueint, 0);
    assert_true((uint64_t)cJSON_GetObjectItem(r, "next_catalog_epoch")->valuedouble == before);
    assert_true(registry_epoch() == before);
    cJSON_Delete(r);
}

static void blank_query_is_refused_before_running(void **state)
{
    (void)state;
    uint64_t before = registry_epoch();
    cJSON *r = search("{\"query\":\" \\t \"}", CALL_INVALID, NULL);
    char *text = cJSON_PrintUnformatted(r);
    assert_non_null(strstr(text, "query"));
    free(text);
    cJSON_Delete(r);
    assert_true(registry_epoch() == before);
}

static void code_search_is_never_in_the_default_catalog(void **state)
{
    (void)state;
#ifdef CODE_SEARCH_BUILT
    /* installed, and left closed by the default profile ([profile]
     * unopened): not even registered, let alone listed or discoverable */
    assert_null(registry_find("code_search"));
#endif
    assert_false(catalog_has("code_search"));
    assert_false(listed_has("code_search", NULL));
    cJSON *r = search("{\"query\":\"code_search code search definitions usages\","
                      "\"limit\":25,\"detail_level\":\"name\"}", CALL_OK, NULL);
    const cJSON *t;
    cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tools"))
        assert_string_not_equal(cJSON_GetObjectItem(t, "name")->valuestring, "code_search");
    cJSON_Delete(r);
    assert_false(listed_has("code_search", NULL));
}

/* Concurrent searches share one cached index; every expansion lands.
 * Each thread's arguments are parsed before the threads start: cJSON
 * keeps a parse's error position in a global, so parses on several
 * threads at once race on it (helgrind says so), and the race would be
 * the test's, not the host's. */
static void *searcher(void *arg)
{
    const cJSON *args = arg;
    for (int i = 0; i < 10; i++) {
        call_request req = {.tool = "search_tools", .args = args};
        call_result r = {0};
        int bad = pipeline_call(&req, &r) != 0 || r.status != CALL_OK;
        call_result_free(&r);
        if (bad)
            return (void *)1;
    }
    return NULL;
}

static void concurrent_searches_are_consistent(void **state)
{
    (void)state;
    const char *qs[] = {"database table sql", "browser page", "slack docker", "jira linear"};
    pthread_t th[4];
    cJSON *args[4];
    for (int i = 0; i < 4; i++) {
        char json[200];
        snprintf(json, sizeof json, "{\"query\":\"%s\",\"limit\":2}", qs[i]);
        args[i] = cJSON_Parse(json);
        assert_non_null(args[i]);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&th[i], NULL, searcher, args[i]), 0);
    for (int i = 0; i < 4; i++) {
        void *ret;
        pthread_join(th[i], &ret);
        assert_null(ret);
        cJSON_Delete(args[i]);
    }
    /* The catalog's marks agree with the listed set. */
    cJSON *cat = host_api()->catalog_list();
    const cJSON *e;
    cJSON_ArrayForEach(e, cat)
        assert_int_equal(listed_has(cJSON_GetObjectItem(e, "name")->valuestring, NULL),
                         cJSON_IsTrue(cJSON_GetObjectItem(e, "listed")));
    cJSON_Delete(cat);
    assert_true(listed_has("mysql_describe_table", NULL));
    assert_true(listed_has("browser_navigate", NULL) || listed_has("browser_screenshot", NULL));
}

/* Every result's client_name for the client `client`: the listed name
 * with the client's prefix; NULL entries where none was given.  Returns
 * the response's client_names note (or NULL), the response in *resp. */
static const char *client_names(const char *client, cJSON **resp)
{
    frontend fe = {.client_name = client, .client_version = client ? "1.0" : NULL};
    *resp = search_from("{\"query\":\"run a shell command\",\"limit\":3,\"detail_level\":\"name\"}",
                        &fe, CALL_OK, NULL);
    return cJSON_GetStringValue(cJSON_GetObjectItem(*resp, "client_names"));
}

static void results_name_tools_as_the_client_shows_them(void **state)
{
    (void)state;
    const vt_host_api *api = host_api();
    assert_true(VT_HAS(api, call_client_info));
    const char *n = "x", *v = "x";
    assert_int_equal(api->call_client_info(NULL, &n, &v), VT_ERR_NOT_FOUND);
    assert_null(n);
    assert_null(v);

    const char *clients[] = {"claude-code", "codex-mcp-client"};
    const char *labels[] = {"Claude Code shows", "Codex shows"};
    for (int k = 0; k < 2; k++) {
        cJSON *r;
        const char *note = client_names(clients[k], &r);
        assert_non_null(note);
        assert_non_null(strstr(note, labels[k]));
        assert_non_null(strstr(note, "if added as `vthost`"));
        const cJSON *t;
        int seen = 0;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tools"))
        {
            char want[128];
            snprintf(want, sizeof want, "mcp__vthost__%s",
                     cJSON_GetStringValue(cJSON_GetObjectItem(t, "name")));
            assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(t, "client_name")), want);
            seen++;
        }
        assert_true(seen > 0);
        cJSON_Delete(r);
    }
    /* a client not known to prefix, and no client at all: names only */
    const char *others[] = {"cursor-vscode", NULL};
    for (int k = 0; k < 2; k++) {
        cJSON *r;
        assert_null(client_names(others[k], &r));
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItem(r, "tools"))
            assert_null(cJSON_GetObjectItem(t, "client_name"));
        cJSON_Delete(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(expansion_lists_found_tools_from_the_next_request),
        cmocka_unit_test(no_match_leaves_the_listed_set_alone),
        cmocka_unit_test(blank_query_is_refused_before_running),
        cmocka_unit_test(code_search_is_never_in_the_default_catalog),
        cmocka_unit_test(concurrent_searches_are_consistent),
        cmocka_unit_test(results_name_tools_as_the_client_shows_them),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
