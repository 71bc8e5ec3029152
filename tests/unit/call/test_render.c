/* Text rendering of responses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "render.h"

static void contains(const char *hay, const char *needle)
{
    if (!hay || !strstr(hay, needle))
        fail_msg("'%s' lacks '%s'", hay ? hay : "(null)", needle);
}

static void test_render_diff(void **state)
{
    (void)state;
    cJSON *r = cJSON_Parse(
        "{\"success\":true,\"applied\":[\"M a.txt\",\"R b -> c\"],\"modified_files\":[\"a.txt\"],"
        "\"diff\":[{\"path\":\"a.txt\",\"operation\":\"updated\",\"content\":\"@@ -1 +1 @@\\n-a\\n+A\\n\","
        "\"additions\":1,\"deletions\":1,\"truncated\":false,\"is_empty\":false},"
        "{\"path\":\"c\",\"from\":\"b\",\"operation\":\"moved\",\"content\":\"\",\"additions\":0,"
        "\"deletions\":0,\"truncated\":false,\"is_empty\":false},"
        "{\"path\":\"big\",\"operation\":\"created\",\"content\":\"+1\\n... 40 lines omitted ...\\n+2\\n\","
        "\"additions\":200,\"deletions\":0,\"truncated\":true,\"omitted_line_count\":40,\"is_empty\":false},"
        "{\"path\":\"same\",\"operation\":\"updated\",\"content\":\"\",\"additions\":0,"
        "\"deletions\":0,\"truncated\":false,\"is_empty\":true}]}");
    char *t = render_text("apply_patch", r);
    contains(t, "apply_patch: 3 files changed, 201 insertions(+), 1 deletion(-)\n");
    contains(t, "--- updated a.txt (+1 -1)\n@@ -1 +1 @@\n-a\n+A\n");
    contains(t, "--- moved c (from b) (+0 -0)\n");
    contains(t, "--- created big (+200 -0), 40 diff lines omitted\n");
    contains(t, "--- updated same: no changes\n");
    assert_null(strstr(t, "modified_files"));
    free(t);
    cJSON_Delete(r);

}

static void test_render_other(void **state)
{
    (void)state;
    cJSON *r = cJSON_Parse("{\"success\":true,\"output\":\"line 1\\nline 2\",\"exit_code\":0,"
                           "\"session_id\":null,\"truncated\":false,\"spool_path\":\"/tmp/x\"}");
    char *t = render_text("exec_command", r);
    assert_non_null(t);
    assert_int_equal(strncmp(t, "line 1\nline 2\n\n", 15), 0);
    contains(t, "exit_code: 0\n");
    contains(t, "spool_path: /tmp/x\n");
    assert_null(strstr(t, "success"));
    free(t);
    cJSON_Delete(r);

    r = cJSON_Parse("{\"success\":false,\"blocked\":true,\"failure_kind\":\"anti_blind_editing"
                    "_verification_required\",\"pending_mutations\":4,\"error\":\"Blocked\","
                    "\"hint\":\"run make\"}");
    t = render_text("apply_patch", r);
    contains(t, "apply_patch failed: Blocked\n");
    contains(t, "failure_kind: anti_blind_editing_verification_required\n");
    contains(t, "pending_mutations: 4\n");
    contains(t, "hint: run make\n");
    free(t);
    cJSON_Delete(r);

    r = cJSON_Parse("{\"result\":42,\"tools\":[\"a\",\"b\"]}");
    t = render_text("word_count", r);
    contains(t, "result: 42\n");
    contains(t, "tools:\n  - a\n  - b\n");
    free(t);
    cJSON_Delete(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_diff),
        cmocka_unit_test(test_render_other),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
