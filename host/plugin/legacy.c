/* Legacy names are never listed, callable or registrable; a call names
 * what replaced them. */
#include <string.h>
#include "legacy.h"

static const struct {
    const char *name;
    const char *replacement;
} legacy[] = {
    {"unified_exec", "use exec_command to run a command and write_stdin to send input to a "
                     "running session"},
    {"unified_file", "use apply_patch for edits; read or write files with shell commands "
                     "through exec_command"},
    {"unified_search", "use rg or grep through exec_command, or code_search in the advanced "
                       "profile"},
};

const char *legacy_replacement(const char *name)
{
    for (size_t i = 0; name && i < sizeof legacy / sizeof legacy[0]; i++)
        if (strcmp(name, legacy[i].name) == 0)
            return legacy[i].replacement;
    return NULL;
}
