/* BM25 ranking over catalogs: the fixture plugin's tools and small
 * hand-made catalogs whose scores can be worked out by hand. */
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <vthost/plugin.h>
#include "catalog.h"
#include "opened_lib.h"
#include "lazy_lib.h"
#include "stem.h"

extern const vt_tool catalog_fixture_tools[];

/* The catalog the host would hand out for the fixture plugin, in the
 * given order (reverse to show the index sorts by itself). */
static cJSON *fixture_catalog(int reverse)
{
    cJSON *arr = cJSON_CreateArray();
    size_t n = 0;
    while (catalog_fixture_tools[n].name)
        n++;
    for (size_t k = 0; k < n; k++) {
        const vt_tool *t = &catalog_fixture_tools[reverse ? n - 1 - k : k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", t->name);
        cJSON_AddStringToObject(e, "description", t->description);
        cJSON *schema = cJSON_Parse(t->input_schema);
        assert_non_null(schema);
        cJSON_AddItemToObject(e, "input_schema", schema);
        cJSON_AddItemToArray(arr, e);
    }
    return arr;
}

static cJSON *entry(const char *name, const char *desc, const char *schema)
{
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "name", name);
    if (desc)
        cJSON_AddStringToObject(e, "description", desc);
    if (schema)
        cJSON_AddItemToObject(e, "input_schema", cJSON_Parse(schema));
    return e;
}

static catalog_index *build(cJSON *catalog)
{
    catalog_index *ci = NULL;
    assert_int_equal(catalog_index_build(catalog, &ci), 0);
    return ci;
}

static size_t search(const catalog_index *ci, const char *q, size_t limit, bm25_hit *hits)
{
    size_t n = 99;
    assert_int_equal(catalog_index_search(ci, q, limit, hits, &n, NULL), 0);
    assert_true(n <= limit);
    return n;
}

static void pull_request_review_ranks_pull_request_tools_first(void **state)
{
    (void)state;
    catalog_index *ci = build(fixture_catalog(0));
    bm25_hit h[25];
    size_t n = search(ci, "GitHub pull request review", 5, h);
    assert_int_equal(n, 5);
    assert_string_equal(catalog_index_name(ci, h[0].doc), "github_review_pull_request");
    for (size_t i = 1; i < 4; i++)
        assert_non_null(strstr(catalog_index_name(ci, h[i].doc), "_pull_request"));
    for (size_t i = 1; i < n; i++)
        assert_true(h[i - 1].score >= h[i].score);
    catalog_index_free(ci);
}

static void other_queries_find_their_tools(void **state)
{
    (void)state;
    catalog_index *ci = build(fixture_catalog(0));
    bm25_hit h[25];
    struct { const char *q, *top; } cases[] = {
        {"take a screenshot of the web page", "browser_screenshot"},
        {"SQL query postgres", "postgres_query"},
        {"move jira ticket to done", "jira_transition_ticket"},
        {"post to slack channel", "slack_post_message"},
        {"kubernetes pods", "kubernetes_get_pods"},
        {"sqlite_execute", "sqlite_execute"},
        {"GitLab merge request comment", "gitlab_comment_merge_request"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = search(ci, cases[i].q, 3, h);
        assert_true(n >= 1);
        if (strcmp(catalog_index_name(ci, h[0].doc), cases[i].top) != 0)
            fail_msg("query '%s': got %s, want %s", cases[i].q,
                     catalog_index_name(ci, h[0].doc), cases[i].top);
    }
    catalog_index_free(ci);
}

static void no_match_returns_nothing(void **state)
{
    (void)state;
    catalog_index *ci = build(fixture_catalog(0));
    bm25_hit h[25];
    size_t terms = 9, n = 9;
    assert_int_equal(catalog_index_search(ci, "xylophone zebra", 25, h, &n, &terms), 0);
    assert_int_equal(n, 0);
    assert_int_equal(terms, 2);
    assert_int_equal(catalog_index_search(ci, "a ? b !", 25, h, &n, &terms), 0);
    assert_int_equal(n, 0);
    assert_int_equal(terms, 0);
    catalog_index_free(ci);
}

/* Run first: nothing has stemmed yet in this process. */
static void empty_catalog_counts_words_without_opening_the_stemmer(void **state)
{
    (void)state;
    assert_null(dlopen(VTHOST_STEMMER_SONAME, RTLD_NOW | RTLD_NOLOAD));
    catalog_index *ci = build(cJSON_CreateArray());
    bm25_hit h[5];
    size_t terms = 9, n = 9;
    assert_int_equal(catalog_index_search(ci, "running dogs", 5, h, &n, &terms), 0);
    assert_int_equal(n, 0);
    assert_int_equal(terms, 2);
    assert_int_equal(catalog_index_search(ci, "a ? b !", 5, h, &n, &terms), 0);
    assert_int_equal(terms, 0);
    assert_null(dlopen(VTHOST_STEMMER_SONAME, RTLD_NOW | RTLD_NOLOAD));
    catalog_index_free(ci);
    /* a catalog with an entry does stem (and so opens the library) */
    cJSON *one = cJSON_CreateArray();
    cJSON_AddItemToArray(one, entry("run_tests", "Runs the test suite", NULL));
    ci = build(one);
    assert_int_equal(catalog_index_search(ci, "running", 5, h, &n, &terms), 0);
    assert_int_equal(n, 1);
    void *h2 = dlopen(VTHOST_STEMMER_SONAME, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h2);
    dlclose(h2);
    catalog_index_free(ci);
}

static void limit_bounds_results(void **state)
{
    (void)state;
    catalog_index *ci = build(fixture_catalog(0));
    bm25_hit h[25];
    assert_int_equal(search(ci, "github", 1, h), 1);
    /* Six tools mention GitHub; a larger limit returns exactly them. */
    assert_int_equal(search(ci, "github", 25, h), 6);
    assert_int_equal(search(ci, "github", 0, h), 0);
    catalog_index_free(ci);
}

static void results_do_not_depend_on_input_order(void **state)
{
    (void)state;
    catalog_index *a = build(fixture_catalog(0));
    catalog_index *b = build(fixture_catalog(1));
    const char *queries[] = {"GitHub pull request review", "database table",
                             "browser", "list", "create"};
    for (size_t q = 0; q < sizeof queries / sizeof queries[0]; q++) {
        bm25_hit ha[25], hb[25];
        size_t na = search(a, queries[q], 25, ha);
        size_t nb = search(b, queries[q], 25, hb);
        assert_int_equal(na, nb);
        assert_true(na > 0);
        for (size_t i = 0; i < na; i++) {
            assert_string_equal(catalog_index_name(a, ha[i].doc),
                                 catalog_index_name(b, hb[i].doc));
            assert_true(ha[i].score == hb[i].score);
        }
    }
    catalog_index_free(a);
    catalog_index_free(b);
}

static void ties_are_ordered_by_name(void **state)
{
    (void)state;
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, entry("gamma_tool", "frobnicate the widget", NULL));
    cJSON_AddItemToArray(cat, entry("alpha_tool", "frobnicate the widget", NULL));
    cJSON_AddItemToArray(cat, entry("beta_tool", "frobnicate the widget", NULL));
    cJSON_AddItemToArray(cat, entry("delta_tool", "something else", NULL));
    catalog_index *ci = build(cat);
    bm25_hit h[25];
    assert_int_equal(search(ci, "widget", 25, h), 3);
    assert_string_equal(catalog_index_name(ci, h[0].doc), "alpha_tool");
    assert_string_equal(catalog_index_name(ci, h[1].doc), "beta_tool");
    assert_string_equal(catalog_index_name(ci, h[2].doc), "gamma_tool");
    assert_true(h[0].score == h[2].score);
    catalog_index_free(ci);
}

static void name_match_counts_double(void **state)
{
    (void)state;
    /* Same length, same term frequency: only the field differs. */
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, entry("zeta_one", "omega", NULL));
    cJSON_AddItemToArray(cat, entry("omega_one", "zeta", NULL));
    cJSON_AddItemToArray(cat, entry("unrelated_tool", "nothing here", NULL));
    catalog_index *ci = build(cat);
    bm25_hit h[25];
    assert_int_equal(search(ci, "omega", 25, h), 2);
    assert_string_equal(catalog_index_name(ci, h[0].doc), "omega_one");
    assert_true(fabs(h[0].score - 2.0 * h[1].score) < 2e-6);
    catalog_index_free(ci);
}

static void score_matches_bm25_formula(void **state)
{
    (void)state;
    /* Two documents of 3 terms each ("xx", "yy", "xx_yy"): for "xx",
     * N = 2, df = 1, dl = avgdl, tf = 1, so the score is
     * idf * 1 * 2.5 / (1 + 1.5) * 2 (name) = 2 * ln 2. */
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, entry("xx_yy", NULL, NULL));
    cJSON_AddItemToArray(cat, entry("zz_ww", NULL, NULL));
    catalog_index *ci = build(cat);
    bm25_hit h[25];
    assert_int_equal(search(ci, "xx", 25, h), 1);
    assert_true(fabs(h[0].score - 2.0 * log(2.0)) < 1e-6);
    /* A repeated query term counts once. */
    assert_int_equal(search(ci, "xx XX xx", 25, h), 1);
    assert_true(fabs(h[0].score - 2.0 * log(2.0)) < 1e-6);
    catalog_index_free(ci);
}

static void parameters_are_searched(void **state)
{
    (void)state;
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, entry("tool_a", "does things",
        "{\"type\":\"object\",\"properties\":{\"nested\":{\"type\":\"object\","
        "\"properties\":{\"quux\":{\"type\":\"string\",\"description\":\"the flibbertigibbet\"}}}}}"));
    cJSON_AddItemToArray(cat, entry("tool_b", "does other things", NULL));
    catalog_index *ci = build(cat);
    bm25_hit h[25];
    assert_int_equal(search(ci, "quux", 25, h), 1);
    assert_string_equal(catalog_index_name(ci, h[0].doc), "tool_a");
    assert_int_equal(search(ci, "flibbertigibbet", 25, h), 1);
    catalog_index_free(ci);
}

static void host_added_output_budget_is_not_searched(void **state)
{
    (void)state;
    /* The host adds max_output_tokens to every schema it lists. */
    const char *schema =
        "{\"type\":\"object\",\"properties\":{\"max_output_tokens\":{\"type\":"
        "\"integer\",\"description\":\"Output budget in tokens\"}}}";
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, entry("tool_a", "does things", schema));
    cJSON_AddItemToArray(cat, entry("tool_b", "does other things", schema));
    catalog_index *ci = build(cat);
    bm25_hit h[25];
    assert_int_equal(search(ci, "budget", 25, h), 0);
    assert_int_equal(search(ci, "max_output_tokens", 25, h), 0);
    assert_int_equal(search(ci, "things", 25, h), 2);
    catalog_index_free(ci);
}

static void removal_equals_rebuild(void **state)
{
    (void)state;
    catalog_index *full = build(fixture_catalog(0));
    const char *gone[] = {"github_review_pull_request", "postgres_query", "browser_click"};
    cJSON *cat = fixture_catalog(0);
    for (size_t i = 0; i < 3; i++) {
        int64_t d = catalog_index_find(full, gone[i]);
        assert_true(d >= 0);
        catalog_index_remove(full, (uint32_t)d);
        catalog_index_remove(full, (uint32_t)d); /* twice is harmless */
        for (int k = cJSON_GetArraySize(cat) - 1; k >= 0; k--)
            if (strcmp(cJSON_GetObjectItem(cJSON_GetArrayItem(cat, k), "name")->valuestring,
                       gone[i]) == 0)
                cJSON_DeleteItemFromArray(cat, k);
    }
    catalog_index *fresh = build(cat);
    assert_int_equal(catalog_index_size(full), catalog_index_size(fresh));
    const char *queries[] = {"GitHub pull request review", "SQL database query",
                             "browser click page", "list"};
    for (size_t q = 0; q < 4; q++) {
        bm25_hit ha[25], hb[25];
        size_t na = search(full, queries[q], 25, ha);
        size_t nb = search(fresh, queries[q], 25, hb);
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
            assert_string_equal(catalog_index_name(full, ha[i].doc),
                                catalog_index_name(fresh, hb[i].doc));
            assert_true(ha[i].score == hb[i].score);
        }
    }
    catalog_index_free(full);
    catalog_index_free(fresh);
}

static void entries_without_name_are_skipped(void **state)
{
    (void)state;
    cJSON *cat = cJSON_CreateArray();
    cJSON_AddItemToArray(cat, cJSON_CreateString("not an object"));
    cJSON_AddItemToArray(cat, entry("real_tool", "widget", NULL));
    catalog_index *ci = build(cat);
    assert_int_equal(catalog_index_size(ci), 1);
    assert_int_equal(catalog_index_find(ci, "real_tool"), 0);
    assert_int_equal(catalog_index_find(ci, "nope"), -1);
    catalog_index_free(ci);
}

int main(void)
{
    lazy_lib_set_opener(opened_lib_bind); /* what the host gives the plugin */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_catalog_counts_words_without_opening_the_stemmer),
        cmocka_unit_test(pull_request_review_ranks_pull_request_tools_first),
        cmocka_unit_test(other_queries_find_their_tools),
        cmocka_unit_test(no_match_returns_nothing),
        cmocka_unit_test(limit_bounds_results),
        cmocka_unit_test(results_do_not_depend_on_input_order),
        cmocka_unit_test(ties_are_ordered_by_name),
        cmocka_unit_test(name_match_counts_double),
        cmocka_unit_test(score_matches_bm25_formula),
        cmocka_unit_test(parameters_are_searched),
        cmocka_unit_test(host_added_output_budget_is_not_searched),
        cmocka_unit_test(removal_equals_rebuild),
        cmocka_unit_test(entries_without_name_are_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
