/* Opaque handles (call/handles.c): issued as 32 hex digits, the same one
 * for the same value, resolved only for the client they were issued to,
 * ended by a result without the member, and bounded per client without
 * touching another client's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <vthost/plugin.h>
#include "handles.h"

static const char *const names[] = {"session_id", NULL};

/* A result {"session_id": id} after issuing: the handle text (malloc'd). */
static char *issue(uint64_t client, int id)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "session_id", id);
    assert_int_equal(handles_issue(client, names, r), VT_OK);
    const char *h = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(r, "session_id"));
    assert_non_null(h);
    assert_int_equal(strlen(h), HANDLE_HEX_LEN);
    assert_int_equal(strspn(h, "0123456789abcdef"), HANDLE_HEX_LEN);
    char *out = strdup(h);
    cJSON_Delete(r);
    return out;
}

static cJSON *args_with(cJSON *sid)
{
    cJSON *a = cJSON_CreateObject();
    cJSON_AddItemToObject(a, "session_id", sid);
    cJSON_AddStringToObject(a, "chars", "x");
    return a;
}

/* Resolve `sid` (taken) for `client`: the plugin's value, or -1 when the
 * call is refused as "not found". */
static int resolve(uint64_t client, cJSON *sid)
{
    cJSON *a = args_with(sid), *out = NULL;
    char *msg = NULL;
    int rc = handles_resolve(client, names, a, &out, &msg);
    int v = -1;
    if (rc == VT_OK) {
        assert_non_null(out);
        assert_null(msg);
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(out, "session_id");
        assert_true(cJSON_IsNumber(m));
        v = m->valueint;
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(out, "chars")),
                            "x");
    } else {
        assert_int_equal(rc, VT_ERR_NOT_FOUND);
        assert_null(out);
        assert_non_null(strstr(msg, "session_id not found"));
    }
    free(msg);
    cJSON_Delete(out);
    cJSON_Delete(a);
    return v;
}

static void test_issue_and_resolve(void **state)
{
    (void)state;
    char *h = issue(7, 3);
    char *again = issue(7, 3);
    assert_string_equal(h, again); /* one handle per value while it lives */
    char *other = issue(7, 4);
    assert_string_not_equal(h, other);
    assert_int_equal(resolve(7, cJSON_CreateString(h)), 3);
    assert_int_equal(resolve(7, cJSON_CreateString(other)), 4);
    /* another client, a guessed integer, a made-up handle: not found */
    assert_int_equal(resolve(8, cJSON_CreateString(h)), -1);
    assert_int_equal(resolve(7, cJSON_CreateNumber(3)), -1);
    assert_int_equal(resolve(7, cJSON_CreateString("3")), -1);
    assert_int_equal(resolve(7, cJSON_CreateString("00000000000000000000000000000000")), -1);
    /* the same value issued to another client gets another handle */
    char *theirs = issue(8, 3);
    assert_string_not_equal(h, theirs);
    /* arguments without the member pass untouched */
    cJSON *a = cJSON_CreateObject(), *out = NULL;
    char *msg = NULL;
    assert_int_equal(handles_resolve(7, names, a, &out, &msg), VT_OK);
    assert_null(out);
    cJSON_Delete(a);
    free(h);
    free(again);
    free(other);
    free(theirs);
    handles_reset();
}

static void test_ended_by_result(void **state)
{
    (void)state;
    char *h = issue(7, 3);
    cJSON *sent = args_with(cJSON_CreateString(h));
    cJSON *running = cJSON_CreateObject();
    cJSON_AddNumberToObject(running, "session_id", 3);
    handles_end(7, names, sent, running); /* still returned: lives on */
    assert_int_equal(resolve(7, cJSON_CreateString(h)), 3);
    cJSON *exited = cJSON_CreateObject();
    cJSON_AddBoolToObject(exited, "is_exited", 1);
    handles_end(8, names, sent, exited); /* another client's call ends nothing */
    assert_int_equal(resolve(7, cJSON_CreateString(h)), 3);
    handles_end(7, names, sent, exited);
    assert_int_equal(resolve(7, cJSON_CreateString(h)), -1);
    /* a new handle for the value once the old one ended */
    char *h2 = issue(7, 3);
    assert_string_not_equal(h, h2);
    cJSON *failed = args_with(cJSON_CreateString(h2));
    handles_end(7, names, failed, NULL); /* the plugin said "not found" */
    assert_int_equal(resolve(7, cJSON_CreateString(h2)), -1);
    cJSON_Delete(failed);
    cJSON_Delete(sent);
    cJSON_Delete(running);
    cJSON_Delete(exited);
    free(h);
    free(h2);
    handles_reset();
}

static void test_bounded_per_client(void **state)
{
    (void)state;
    char *kept = issue(9, 1);
    char *first = issue(7, 1000);
    for (int i = 1; i < 300; i++)
        free(issue(7, 1000 + i));
    /* the flooding client lost its own oldest, never the other's */
    assert_int_equal(resolve(7, cJSON_CreateString(first)), -1);
    assert_int_equal(resolve(9, cJSON_CreateString(kept)), 1);
    free(kept);
    free(first);
    handles_reset();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_issue_and_resolve),
        cmocka_unit_test(test_ended_by_result),
        cmocka_unit_test(test_bounded_per_client),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
