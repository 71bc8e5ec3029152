/* Resumable SSE streams (http_sse.c): event ids, the priming event, the
 * replay after a Last-Event-ID, and the log's bounds in events and bytes
 * (the oldest dropped, the newest always kept, and an event being
 * written from the log kept until it is written). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <vthost/plugin.h>
#include "http_sse.h"

static void test_priming_and_ids(void **state)
{
    (void)state;
    http_sse_log *l = http_sse_log_new(7);
    size_t n = 0;
    char *p = http_sse_priming(l, &n);
    assert_string_equal(p, "id: 7-0\nretry: 1000\ndata: \n\n");
    assert_int_equal(n, strlen(p));
    free(p);
    char *e = http_sse_event(l, "{\"a\":1}", 7, &n);
    assert_string_equal(e, "id: 7-1\nevent: message\ndata: {\"a\":1}\n\n");
    assert_int_equal(n, strlen(e));
    free(e);
    assert_int_equal(http_sse_keep(l, "{}", 2), VT_OK);
    http_sse_log_free(l);
}

static void test_replay_after_an_id(void **state)
{
    (void)state;
    http_sse_log *l = http_sse_log_new(2);
    size_t n;
    for (int i = 1; i <= 4; i++) {
        char msg[16];
        int k = snprintf(msg, sizeof msg, "{\"n\":%d}", i);
        free(http_sse_event(l, msg, (size_t)k, &n));
    }
    unsigned stream;
    uint64_t seq;
    assert_int_equal(http_sse_parse_id("2-2", &stream, &seq), VT_OK);
    assert_int_equal(stream, 2);
    assert_int_equal(seq, 2);
    assert_int_equal(http_sse_rewind(l, seq), VT_OK);
    char *a = http_sse_replay(l, &n), *b = http_sse_replay(l, &n);
    assert_non_null(strstr(a, "id: 2-3\n"));
    assert_non_null(strstr(b, "id: 2-4\n"));
    assert_null(http_sse_replay(l, &n)); /* caught up */
    free(a);
    free(b);
    /* from the priming event: everything */
    assert_int_equal(http_sse_rewind(l, 0), VT_OK);
    int count = 0;
    for (char *x; (x = http_sse_replay(l, &n)); count++)
        free(x);
    assert_int_equal(count, 4);
    /* an event never sent */
    assert_int_equal(http_sse_rewind(l, 9), VT_ERR_NOT_FOUND);
    http_sse_log_free(l);
}

static void test_foreign_ids_refused(void **state)
{
    (void)state;
    unsigned s;
    uint64_t q;
    static const char *const bad[] = {"", "x", "1", "1-", "-1", "1-2x", "1-2-3", "a-1",
                                      "99999999999-1", " 1-2", "1- 2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(http_sse_parse_id(bad[i], &s, &q), VT_ERR_INVALID);
    assert_int_equal(http_sse_parse_id(NULL, &s, &q), VT_ERR_INVALID);
}

static void test_bounded_in_events_and_bytes(void **state)
{
    (void)state;
    http_sse_log *l = http_sse_log_new(1);
    for (int i = 0; i < HTTP_SSE_LOG_EVENTS + 50; i++)
        assert_int_equal(http_sse_keep(l, "{}", 2), VT_OK);
    assert_int_equal(http_sse_rewind(l, 0), VT_OK);
    size_t n;
    int count = 0;
    char *first = NULL;
    for (char *x; (x = http_sse_replay(l, &n)); count++) {
        if (!first)
            first = x;
        else
            free(x);
    }
    assert_int_equal(count, HTTP_SSE_LOG_EVENTS); /* the oldest 50 dropped */
    assert_non_null(strstr(first, "id: 1-51\n"));
    free(first);

    /* bytes: three events of 400 KiB fit in 1 MiB only two at a time */
    size_t big = 400 * 1024;
    char *text = malloc(big);
    memset(text, 'x', big);
    for (int i = 0; i < 3; i++)
        assert_int_equal(http_sse_keep(l, text, big), VT_OK);
    assert_int_equal(http_sse_rewind(l, 0), VT_OK);
    size_t total = 0;
    count = 0;
    for (char *x; (x = http_sse_replay(l, &n)); count++) {
        total += n;
        free(x);
    }
    assert_true(total <= HTTP_SSE_LOG_BYTES);
    assert_int_equal(count, 2);
    /* one event over the bound is still kept: the newest always is */
    char *huge = malloc(HTTP_SSE_LOG_BYTES + 10);
    memset(huge, 'y', HTTP_SSE_LOG_BYTES + 10);
    assert_int_equal(http_sse_keep(l, huge, HTTP_SSE_LOG_BYTES + 10), VT_OK);
    assert_int_equal(http_sse_rewind(l, 0), VT_OK);
    char *x = http_sse_replay(l, &n);
    assert_non_null(x);
    assert_true(n > HTTP_SSE_LOG_BYTES);
    free(x);
    assert_null(http_sse_replay(l, &n));
    free(huge);
    free(text);
    http_sse_log_free(l);
}

/* An event written from the log (pinned) stays whole while events after
 * it would push it out; once written, the bounds apply again. */
static void test_pinned_event_outlives_the_bounds(void **state)
{
    (void)state;
    http_sse_log *l = http_sse_log_new(3);
    size_t n = 0;
    assert_null(http_sse_pinned(l, &n));
    assert_int_equal(http_sse_event_pinned(l, "{\"first\":1}", 11), VT_OK);
    const char *want = "id: 3-1\nevent: message\ndata: {\"first\":1}\n\n";
    for (int i = 0; i < HTTP_SSE_LOG_EVENTS * 2; i++)
        assert_int_equal(http_sse_keep(l, "{}", 2), VT_OK);
    const char *t = http_sse_pinned(l, &n);
    assert_non_null(t);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(t, want, n);
    http_sse_unpin(l);
    assert_null(http_sse_pinned(l, &n));
    assert_int_equal(http_sse_keep(l, "{}", 2), VT_OK);
    /* now trimmed: a replay from the start begins after it */
    assert_int_equal(http_sse_rewind(l, 0), VT_OK);
    char *x = http_sse_replay(l, &n);
    assert_non_null(x);
    assert_null(strstr(x, "first"));
    free(x);
    http_sse_log_free(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_priming_and_ids),
        cmocka_unit_test(test_replay_after_an_id),
        cmocka_unit_test(test_foreign_ids_refused),
        cmocka_unit_test(test_bounded_in_events_and_bytes),
        cmocka_unit_test(test_pinned_event_outlives_the_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
