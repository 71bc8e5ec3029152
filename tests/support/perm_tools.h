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

#endif
