/* The auto reviewer's probe answers: only ALLOW HIGH / BLOCK HIGH decide;
 * LOW, UNSURE and anything else send the call to the full model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "perm_review.h"

static int probe(const char *text, int *confident, const char *want_reason)
{
    char *reason = NULL;
    int out = perm_review_parse_probe(text, confident, &reason);
    if (want_reason) {
        assert_non_null(reason);
        assert_string_equal(reason, want_reason);
    }
    free(reason);
    return out;
}

static void test_confident(void **state)
{
    (void)state;
    int c = -1;
    assert_int_equal(probe("ALLOW HIGH: a harmless echo", &c, "a harmless echo"), PREVIEW_ALLOW);
    assert_int_equal(c, 1);
    assert_int_equal(probe("  block high - deletes the repo\n", &c, "deletes the repo"),
                     PREVIEW_BLOCK);
    assert_int_equal(c, 1);
    assert_int_equal(probe("Allow, High, fine", &c, "fine"), PREVIEW_ALLOW);
    assert_int_equal(c, 1);
}

static void test_not_confident(void **state)
{
    (void)state;
    int c = -1;
    assert_int_equal(probe("ALLOW LOW: probably fine", &c, "probably fine"), PREVIEW_ALLOW);
    assert_int_equal(c, 0);
    assert_int_equal(probe("BLOCK: no confidence given", &c, "no confidence given"), PREVIEW_BLOCK);
    assert_int_equal(c, 0);
    assert_int_equal(probe("UNSURE: cannot tell", &c, NULL), PREVIEW_ASK);
    assert_int_equal(c, 0);
    assert_int_equal(probe("ALLOWHIGH", &c, NULL), PREVIEW_ASK);
    assert_int_equal(c, 0);
    assert_int_equal(probe("HIGH ALLOW", &c, NULL), PREVIEW_ASK);
    assert_int_equal(c, 0);
    assert_int_equal(probe("ALLOW HIGHLY likely", &c, NULL), PREVIEW_ALLOW);
    assert_int_equal(c, 0);
    assert_int_equal(probe("", &c, ""), PREVIEW_ASK);
    assert_int_equal(c, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_confident),
        cmocka_unit_test(test_not_confident),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
