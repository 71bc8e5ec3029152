/* server/discover answered from its kept bytes: the answer follows every
 * move of the instructions' stamp (the catalog epoch, the client's view,
 * the host's generation), also while engines on eight threads discover
 * and the epoch moves under them (as HTTP connection threads do), and is
 * the bytes a fresh build gives. */
#include <inttypes.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "mcp_discover_cache.h"
#include "mcp_server.h"

static atomic_uint_fast64_t epoch = 1, generation = 1;
static atomic_int built; /* how many times the instructions were built */
static _Thread_local uint64_t viewer;

/* The instructions name what they were built from, read after the stamp
 * (as the host's are): a kept answer older than its stamp shows. */
static char *instructions(void)
{
    atomic_fetch_add(&built, 1);
    char *t = NULL;
    if (asprintf(&t, "gen=%" PRIu64 " viewer=%" PRIu64 " epoch=%" PRIu64,
                 (uint64_t)atomic_load(&generation), viewer, (uint64_t)atomic_load(&epoch)) < 0)
        return NULL;
    return t;
}

static void stamp(uint64_t s[MCP_STAMP_WORDS])
{
    s[0] = atomic_load(&generation);
    s[1] = viewer;
    s[2] = atomic_load(&epoch);
}

typedef struct answer {
    char text[2048];
} answer;

static int capture(void *ud, const mcp_out *o)
{
    answer *a = ud;
    assert_true(o->kind == MCP_OUT_RESULT);
    assert_true(o->len < sizeof a->text);
    memcpy(a->text, o->text, o->len);
    a->text[o->len] = '\0';
    return 0;
}

#define DISCOVER                                                                                   \
    "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"server/discover\",\"params\":{\"_meta\":{"        \
    "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","                                  \
    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

/* One stateless request on an engine of its own, as HTTP answers it. */
static void discover(const mcp_ops *ops, int id, answer *a)
{
    mcp_server *s = mcp_server_new_sink(ops, NULL, NULL);
    assert_non_null(s);
    mcp_server_set_output(s, capture, a);
    char msg[512];
    snprintf(msg, sizeof msg, DISCOVER, id);
    struct mcp_call *call = NULL;
    mcp_server_handle_json(s, cJSON_Parse(msg), NULL, NULL, &call);
    assert_null(call);
    mcp_server_end(s);
    mcp_server_free(s);
}

/* The numbers the answer's instructions were built from. */
static void read_answer(const answer *a, int id, uint64_t *gen, uint64_t *who, uint64_t *ep)
{
    cJSON *m = cJSON_Parse(a->text);
    assert_non_null(m);
    assert_int_equal(cJSON_GetObjectItem(m, "id")->valueint, id);
    const cJSON *r = cJSON_GetObjectItem(m, "result");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(r, "resultType")), "complete");
    const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(r, "instructions"));
    assert_non_null(text);
    assert_int_equal(
        sscanf(text, "gen=%" SCNu64 " viewer=%" SCNu64 " epoch=%" SCNu64, gen, who, ep), 3);
    cJSON_Delete(m);
}

static void test_follows_the_stamp(void **st)
{
    (void)st;
    mcp_ops ops = {.instructions = instructions, .instructions_stamp = stamp};
    answer a, b;
    uint64_t g, w, e;
    discover(&ops, 1, &a);
    int after_first = atomic_load(&built);
    discover(&ops, 2, &b);
    assert_int_equal(atomic_load(&built), after_first); /* kept, not rebuilt */
    /* the same bytes but the id */
    assert_string_equal(strstr(a.text, "\"result\""), strstr(b.text, "\"result\""));
    read_answer(&b, 2, &g, &w, &e);
    assert_true(g == 1 && w == 0 && e == 1);

    atomic_store(&epoch, 2); /* a tool registered, a search expanded the list */
    discover(&ops, 3, &a);
    read_answer(&a, 3, &g, &w, &e);
    assert_int_equal(e, 2);

    viewer = 7; /* another client's view of the catalog */
    discover(&ops, 4, &a);
    read_answer(&a, 4, &g, &w, &e);
    assert_int_equal(w, 7);
    viewer = 0;
    discover(&ops, 5, &a);
    read_answer(&a, 5, &g, &w, &e);
    assert_int_equal(w, 0);

    atomic_store(&generation, 2); /* the host reopened on another workspace */
    discover(&ops, 6, &a);
    read_answer(&a, 6, &g, &w, &e);
    assert_int_equal(g, 2);

    /* Without a stamp nothing is kept: built on every request. */
    mcp_ops plain = {.instructions = instructions};
    int before = atomic_load(&built);
    discover(&plain, 7, &a);
    discover(&plain, 8, &a);
    assert_int_equal(atomic_load(&built), before + 2);
    mcp_discover_forget();
}

#define THREADS 8
#define ROUNDS 400

static atomic_int stop_moving, stale;

static void *mover(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_moving))
        atomic_fetch_add(&epoch, 1);
    return NULL;
}

/* Each answer was built at or after the epoch its request saw at its
 * start: a change made before a request is in its answer. */
static void *discoverer(void *arg)
{
    mcp_ops ops = {.instructions = instructions, .instructions_stamp = stamp};
    viewer = (uint64_t)(uintptr_t)arg % 3; /* three clients' views */
    answer *a = malloc(sizeof *a);
    for (int i = 0; a && i < ROUNDS; i++) {
        uint64_t before = atomic_load(&epoch), g, w, e;
        discover(&ops, i + 1, a);
        read_answer(a, i + 1, &g, &w, &e);
        if (e < before || w != viewer)
            atomic_fetch_add(&stale, 1);
    }
    free(a);
    return NULL;
}

static void test_threads_while_the_epoch_moves(void **st)
{
    (void)st;
    pthread_t mv, t[THREADS];
    assert_int_equal(pthread_create(&mv, NULL, mover, NULL), 0);
    for (uintptr_t i = 0; i < THREADS; i++)
        assert_int_equal(pthread_create(&t[i], NULL, discoverer, (void *)i), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    atomic_store(&stop_moving, 1);
    pthread_join(mv, NULL);
    assert_int_equal(atomic_load(&stale), 0);

    /* Still: answers are kept again once the epoch holds. */
    mcp_ops ops = {.instructions = instructions, .instructions_stamp = stamp};
    answer a;
    discover(&ops, 1, &a);
    int n = atomic_load(&built);
    discover(&ops, 2, &a);
    assert_int_equal(atomic_load(&built), n);
    mcp_discover_forget();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_follows_the_stamp),
        cmocka_unit_test(test_threads_while_the_epoch_moves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
