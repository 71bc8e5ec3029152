/* client_names.c: which clients prefix a server's tools, and each one's
 * character rule for the name it shows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "client_names.h"

static void known_clients_by_exact_name(void **state)
{
    (void)state;
    assert_string_equal(client_naming_label(client_naming_for("claude-code")), "Claude Code");
    assert_string_equal(client_naming_label(client_naming_for("codex-mcp-client")), "Codex");
    assert_null(client_naming_for("Claude Code")); /* the title, not the name it sends */
    assert_null(client_naming_for("claude-code-extra"));
    assert_null(client_naming_for("cursor-vscode"));
    assert_null(client_naming_for(""));
    assert_null(client_naming_for(NULL));
}

static void each_client_maps_what_it_cannot_show(void **state)
{
    (void)state;
    char out[80];
    const client_naming *claude = client_naming_for("claude-code");
    const client_naming *codex = client_naming_for("codex-mcp-client");
    assert_int_equal(client_naming_apply(claude, "vthost", "mcp__slow__get_sum", out, sizeof out), 0);
    assert_string_equal(out, "mcp__vthost__mcp__slow__get_sum");
    /* a server added under another name: Claude Code keeps '-', Codex does not */
    assert_int_equal(client_naming_apply(claude, "my-host.v2", "exec_command", out, sizeof out), 0);
    assert_string_equal(out, "mcp__my-host_v2__exec_command");
    assert_int_equal(client_naming_apply(codex, "my-host.v2", "exec_command", out, sizeof out), 0);
    assert_string_equal(out, "mcp__my_host_v2__exec_command");
}

static void a_name_that_does_not_fit_is_not_given(void **state)
{
    (void)state;
    const client_naming *claude = client_naming_for("claude-code");
    char out[65];
    char name[65];
    memset(name, 'a', 51);
    name[51] = '\0'; /* mcp__vthost__ (13) + 51 = 64: fits */
    assert_int_equal(client_naming_apply(claude, "vthost", name, out, sizeof out), 0);
    assert_int_equal(strlen(out), 64);
    name[51] = 'a';
    name[52] = '\0'; /* 65: does not */
    assert_int_equal(client_naming_apply(claude, "vthost", name, out, sizeof out), -1);
    assert_string_equal(out, "");
    assert_int_equal(client_naming_apply(NULL, "vthost", "x", out, sizeof out), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_clients_by_exact_name),
        cmocka_unit_test(each_client_maps_what_it_cannot_show),
        cmocka_unit_test(a_name_that_does_not_fit_is_not_given),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
