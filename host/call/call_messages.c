/* The texts a refused or failed call gets. */
#include <stdlib.h>
#include <string.h>
#include "call_messages.h"
#include "legacy.h"
#include "registry.h"
#include "strutil.h"

static const char *deferred_hint;
static const char *(*profile_listing)(const char *tool);

void msg_set_profile_hints(const char *hint, const char *(*listing)(const char *tool))
{
    deferred_hint = hint;
    profile_listing = listing;
}

char *msg_unknown_tool(const char *name)
{
    const char *repl = legacy_replacement(name);
    if (repl)
        return str_printf("Tool '%s' was removed: %s.", name, repl);
    const tool_entry *e = registry_find(name);
    if (e && registry_needs_search(e))
        return str_printf("Tool '%s' is deferred: it is not in the tool list yet.%s%s", name,
                          deferred_hint ? " " : "", deferred_hint ? deferred_hint : "");
    /* gated out, or in a module the profile leaves closed (then only a
     * profile's listing knows the name) */
    int gated = e && !registry_callable(e);
    const char *in = (gated || !e) && profile_listing ? profile_listing(name) : NULL;
    if (gated || in) {
        if (in)
            return str_printf("Tool '%s' is available only in a profile that lists it (for "
                              "%s: --profile %s, or [tools] profile = \"%s\" in vtcode.toml).",
                              name, name, in, in);
        return str_printf("Tool '%s' is available only in a profile that lists it.", name);
    }
    char *names = registry_listed_names();
    const char *hint = registry_suggest(name);
    char *m = hint ? str_printf("Unknown tool: %s. Available tools: %s. Did you mean '%s'?", name,
                                names ? names : "", hint)
                   : str_printf("Unknown tool: %s. Available tools: %s.", name, names ? names : "");
    free(names);
    return m;
}

char *msg_args_not_object(const char *tool)
{
    return str_printf("Invalid arguments for tool '%s': root: must be a JSON object", tool);
}

char *msg_preflight(const char *tool, const char *why)
{
    return str_printf("Invalid arguments for tool '%s': %s", tool,
                      why ? why : "rejected by the tool's preflight check");
}

char *msg_subjects(const char *tool, const char *why)
{
    return why ? strdup(why)
               : str_printf("tool '%s' could not describe what the call touches", tool);
}

char *msg_denied(const char *tool) { return str_printf("Permission denied for tool '%s'.", tool); }

char *msg_blocked(void) { return strdup("blocked until a verification command succeeds"); }

char *msg_tool_failed(const char *tool, const char *why, int rc)
{
    return why ? strdup(why) : str_printf("tool '%s' failed (%d)", tool, rc);
}

char *msg_left_live(const char *tool, const char *report)
{
    return str_printf("%s wrote what could run later and vthost could not make it inert: %s. "
                      "Remove it before running git or opening the workspace in another tool",
                      tool, report ? report : "(no details)");
}
