/* The table of configuration that starts programs (ws_conftab.h).
 * Sources: each tool's documentation of what it reads from a project:
 * VS Code (.vscode/tasks.json runOn folderOpen, .vscode/mcp.json), JetBrains
 * (.idea/ run configurations), dev containers, Claude Code (.mcp.json,
 * .claude/settings*.json hooks), Codex (.codex/config.toml), Cursor
 * (.cursor/mcp.json, .cursor/hooks.json), Gemini CLI (.gemini/settings.json,
 * .gemini/extensions/), Roo Code (.roo/mcp.json, .roomodes), Cline
 * (.clinerules/ hooks), Continue (.continue/ config and mcpServers/),
 * opencode (opencode.json, opencode.jsonc, .opencode/ plugins), Zed
 * (.zed/settings.json context servers, .zed/tasks.json, .zed/debug.json),
 * Kiro (.kiro/settings/mcp.json, .kiro/hooks/), Amazon Q
 * (.amazonq/mcp.json).  Git hook managers whose installed hook reads its
 * configuration from the work tree each time the user commits: lefthook
 * (lefthook.dev/configuration: lefthook and .lefthook, -local merged in,
 * as yml, yaml, toml, json or jsonc, the undotted ones also under
 * .config/; scripts in .lefthook/ and .lefthook-local/), pre-commit
 * (.pre-commit-config.yaml), overcommit (.overcommit.yml), CaptainHook
 * (captainhook.json); husky's .husky/ is the hook directory
 * core.hooksPath names (ws_gitconf.h). */
#include "ws_conftab.h"

#include <string.h>
#include "ws_tabview.h"

const ws_conf_row ws_conftab[] = {
    {".vscode", WS_CONF_DIR, "VS Code"},
    {".idea", WS_CONF_DIR, "JetBrains IDEs"},
    {".devcontainer", WS_CONF_DIR, "dev containers"},
    {".claude", WS_CONF_DIR, "Claude Code"},
    {".codex", WS_CONF_DIR, "Codex"},
    {".cursor", WS_CONF_DIR, "Cursor"},
    {".gemini", WS_CONF_DIR, "Gemini CLI"},
    {".roo", WS_CONF_DIR, "Roo Code"},
    {".clinerules", WS_CONF_DIR, "Cline"},
    {".continue", WS_CONF_DIR, "Continue"},
    {".opencode", WS_CONF_DIR, "opencode"},
    {".zed", WS_CONF_DIR, "Zed"},
    {".kiro", WS_CONF_DIR, "Kiro"},
    {".amazonq", WS_CONF_DIR, "Amazon Q"},
    {".lefthook", WS_CONF_DIR, "lefthook"},
    {".lefthook-local", WS_CONF_DIR, "lefthook"},
    {".mcp.json", WS_CONF_ENTRY, "Claude Code"},
    {".devcontainer.json", WS_CONF_ENTRY, "dev containers"},
    {".roomodes", WS_CONF_ENTRY, "Roo Code"},
    {"opencode.json", WS_CONF_ENTRY, "opencode"},
    {"opencode.jsonc", WS_CONF_ENTRY, "opencode"},
    {".vscode/tasks.json", WS_CONF_ENTRY, "VS Code"},
    {".vscode/mcp.json", WS_CONF_ENTRY, "VS Code"},
    {".vscode/settings.json", WS_CONF_ENTRY, "VS Code"},
    {".vscode/launch.json", WS_CONF_ENTRY, "VS Code"},
    {".devcontainer/devcontainer.json", WS_CONF_ENTRY, "dev containers"},
    {".claude/settings.json", WS_CONF_ENTRY, "Claude Code"},
    {".claude/settings.local.json", WS_CONF_ENTRY, "Claude Code"},
    {".codex/config.toml", WS_CONF_ENTRY, "Codex"},
    {".cursor/mcp.json", WS_CONF_ENTRY, "Cursor"},
    {".cursor/hooks.json", WS_CONF_ENTRY, "Cursor"},
    {".gemini/settings.json", WS_CONF_ENTRY, "Gemini CLI"},
    {".gemini/extensions", WS_CONF_ENTRY, "Gemini CLI"},
    {".gemini/commands", WS_CONF_ENTRY, "Gemini CLI"},
    {".roo/mcp.json", WS_CONF_ENTRY, "Roo Code"},
    {".clinerules/hooks", WS_CONF_ENTRY, "Cline"},
    {".continue/config.yaml", WS_CONF_ENTRY, "Continue"},
    {".continue/config.json", WS_CONF_ENTRY, "Continue"},
    {".continue/mcpServers", WS_CONF_ENTRY, "Continue"},
    {".opencode/plugin", WS_CONF_ENTRY, "opencode"},
    {".zed/settings.json", WS_CONF_ENTRY, "Zed"},
    {".zed/tasks.json", WS_CONF_ENTRY, "Zed"},
    {".zed/debug.json", WS_CONF_ENTRY, "Zed"},
    {".kiro/settings", WS_CONF_ENTRY, "Kiro"},
    {".kiro/hooks", WS_CONF_ENTRY, "Kiro"},
    {".amazonq/mcp.json", WS_CONF_ENTRY, "Amazon Q"},
    {"lefthook.yml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook.yaml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook.toml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook.json", WS_CONF_ENTRY, "lefthook"},
    {"lefthook.jsonc", WS_CONF_ENTRY, "lefthook"},
    {"lefthook-local.yml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook-local.yaml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook-local.toml", WS_CONF_ENTRY, "lefthook"},
    {"lefthook-local.json", WS_CONF_ENTRY, "lefthook"},
    {"lefthook-local.jsonc", WS_CONF_ENTRY, "lefthook"},
    {".lefthook.yml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook.yaml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook.toml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook.json", WS_CONF_ENTRY, "lefthook"},
    {".lefthook.jsonc", WS_CONF_ENTRY, "lefthook"},
    {".lefthook-local.yml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook-local.yaml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook-local.toml", WS_CONF_ENTRY, "lefthook"},
    {".lefthook-local.json", WS_CONF_ENTRY, "lefthook"},
    {".lefthook-local.jsonc", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook.yml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook.yaml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook.toml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook.json", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook.jsonc", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook-local.yml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook-local.yaml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook-local.toml", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook-local.json", WS_CONF_ENTRY, "lefthook"},
    {".config/lefthook-local.jsonc", WS_CONF_ENTRY, "lefthook"},
    {".pre-commit-config.yaml", WS_CONF_ENTRY, "pre-commit"},
    {".overcommit.yml", WS_CONF_ENTRY, "overcommit"},
    {"captainhook.json", WS_CONF_ENTRY, "CaptainHook"},
    {NULL, 0, NULL},
};
_Static_assert(sizeof ws_conftab / sizeof ws_conftab[0] - 1 <= WS_TABVIEW_MAX,
               "the configuration table outgrew WS_TABVIEW_MAX (ws_tabview.h): raise it");

int ws_conftab_protected_name(const char *name, size_t len)
{
    if ((len == 4 && !memcmp(name, ".git", 4)) || (len == 7 && !memcmp(name, ".vtcode", 7)))
        return 1;
    for (size_t i = 0; ws_conftab[i].path; i++) {
        const char *p = ws_conftab[i].path;
        if (!strchr(p, '/') && strlen(p) == len && !memcmp(p, name, len))
            return 1;
    }
    return 0;
}
