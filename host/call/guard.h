/* Anti-blind-editing: after N effective mutations without a passing
 * verification command, workspace mutations are blocked. */
#ifndef VTHOST_GUARD_H
#define VTHOST_GUARD_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "registry.h"

/* Read [tools.anti_blind_editing] from the configuration. */
int guard_init(const cJSON *config, char **err);
void guard_fini(void);

/* Before run: returns 1 and a new *blocked_response when the call must be
 * blocked ({"success":false,"blocked":true,"failure_kind":...}), else 0. */
int guard_check(const tool_entry *tool, const cJSON *args, cJSON **blocked_response);

/* A plugin's note (vt_host_api.note) reaches the guard here. */
void guard_note(const tool_entry *tool, vt_note_kind kind, const char *detail, long value);

#endif
