/* Placeholder guard: never blocks.  Replaced by anti-blind-editing. */
#include "guard.h"

int guard_init(const cJSON *config, char **err) { (void)config; (void)err; return 0; }
void guard_fini(void) {}
int guard_check(const tool_entry *tool, const cJSON *args, cJSON **blocked_response)
{
    (void)tool; (void)args; (void)blocked_response;
    return 0;
}
void guard_note(const tool_entry *tool, vt_note_kind kind, const char *detail, long value)
{
    (void)tool; (void)kind; (void)detail; (void)value;
}
