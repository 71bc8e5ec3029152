/* The permission declarations of the bundled tools (what their
 * descriptors declare: VT_TOOL_COMMAND_RULES, rule_aliases), for tests
 * and fuzzers that drive the permission engine without loading plugins. */
#ifndef VTHOST_TEST_PERM_TOOLS_H
#define VTHOST_TEST_PERM_TOOLS_H

#include "perm_types.h"

static const char *const test_alias_exec[] = {"bash", "Bash", NULL};
static const char *const test_alias_patch[] = {"edit", "Edit", NULL};
static const char *const test_alias_search[] = {"read", "Read", NULL};

static const perm_tool_decl test_tool_decl[] = {
    {"exec_command", 1, test_alias_exec},
    {"write_stdin", 0, NULL},
    {"apply_patch", 0, test_alias_patch},
    {"search_tools", 0, NULL},
    {"code_search", 0, test_alias_search},
};

__attribute__((unused)) static const perm_tool_decls test_tools = {
    test_tool_decl, sizeof test_tool_decl / sizeof test_tool_decl[0]};

/* The embedded agent's allow rules per approval preset, as
 * profiles/default.ini's [approval] section has them. */
static const char *const test_allow_ask[] = {"search_tools", "code_search", NULL};
static const char *const test_allow_sandboxed[] = {"search_tools", "code_search", "exec_command",
                                                   "write_stdin", "apply_patch(/**)", NULL};
static const char *const test_allow_read_only[] = {"search_tools", "code_search",
                                                   "exec_command", "write_stdin", NULL};
__attribute__((unused)) static const char *const *const test_embedded_policy[3] = {
    test_allow_ask, test_allow_sandboxed, test_allow_read_only};

/* A perm_settings' declarations as the bundled profile and tools make them. */
#define TEST_DECLARE(st)                                                  \
    do {                                                                  \
        (st)->tools = &test_tools;                                        \
        for (int i_ = 0; i_ < 3; i_++)                                    \
            (st)->embedded_allow[i_] = test_embedded_policy[i_];          \
    } while (0)

#endif
