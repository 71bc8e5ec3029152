/* The host's event subscriptions: a subscriber hears only the kinds it
 * asked for, with the event's fields; after unsubscribe it hears nothing;
 * a bad subscription is refused; the table's bound is a clear status. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <vthost/plugin.h>
#include "host_events.h"

typedef struct heard {
    int n;
    uint32_t kind;
    char tool[32];
    int writer;
} heard;

static void on_event(const vt_event *ev, void *user)
{
    heard *h = user;
    h->n++;
    h->kind = ev->kind;
    h->writer = ev->writer;
    h->tool[0] = '\0';
    if (ev->tool)
        strncat(h->tool, ev->tool, sizeof h->tool - 1);
}

static void only_the_kinds_asked_for(void **state)
{
    (void)state;
    heard calls = {0}, sessions = {0};
    int a = host_events_subscribe(VT_EVENT_CALL_ENDED, on_event, &calls);
    int b = host_events_subscribe(VT_EVENT_SESSION_STARTED | VT_EVENT_SESSION_ENDED, on_event,
                                  &sessions);
    assert_true(a > 0 && b > 0 && a != b);
    vt_event ev = {sizeof ev, VT_EVENT_CALL_ENDED, "apply_patch", 7, 1};
    host_events_raise(&ev);
    assert_int_equal(calls.n, 1);
    assert_string_equal(calls.tool, "apply_patch");
    assert_int_equal(calls.writer, 1);
    assert_int_equal(sessions.n, 0);
    vt_event end = {sizeof end, VT_EVENT_SESSION_ENDED, NULL, 0, 0};
    host_events_raise(&end);
    assert_int_equal(sessions.n, 1);
    assert_int_equal(sessions.kind, VT_EVENT_SESSION_ENDED);
    assert_int_equal(calls.n, 1);
    host_events_unsubscribe(a);
    host_events_raise(&ev);
    assert_int_equal(calls.n, 1); /* gone */
    host_events_unsubscribe(b);
    host_events_raise(&end);
    assert_int_equal(sessions.n, 1);
}

static void bad_and_full(void **state)
{
    (void)state;
    heard h = {0};
    assert_int_equal(host_events_subscribe(0, on_event, &h), VT_ERR_INVALID);
    assert_int_equal(host_events_subscribe(VT_EVENT_CALL_ENDED, NULL, &h), VT_ERR_INVALID);
    int n = 0, rc = 0;
    while (n < 65 && (rc = host_events_subscribe(VT_EVENT_CALL_ENDED, on_event, &h)) > 0)
        n++;
    assert_int_equal(rc, VT_ERR_BUSY);
    vt_event ev = {sizeof ev, VT_EVENT_CALL_ENDED, "exec_command", 1, 1};
    host_events_raise(&ev);
    assert_int_equal(h.n, n);
    host_events_clear();
    host_events_raise(&ev);
    assert_int_equal(h.n, n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(only_the_kinds_asked_for),
        cmocka_unit_test(bad_and_full),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
