/* Anti-blind-editing: after N effective workspace mutations without a
 * verification run, further mutations are blocked until one completes.
 * The count lives in the workspace (guard_state.h), so every process
 * serving it sees one count. */
#ifndef VTHOST_GUARD_H
#define VTHOST_GUARD_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* Read [tools.anti_blind_editing] from the configuration; `workspace`
 * (canonical, may be NULL: then the count is process-local) is borrowed
 * until guard_fini. */
int guard_init(const cJSON *config, const char *workspace, char **err);
void guard_fini(void);

/* After the permission check, before the tool runs.  Returns 1 and a new
 * *blocked_response ({"success":false,"blocked":true,"failure_kind":...})
 * when the call must not run: a tool that mutates the workspace while
 * verification is required, or a command that would (a write redirect
 * into the workspace, a known writer such as sed -i, cp, rm, tee FILE).
 * Otherwise 0; the call may then carry guard state (call->guard) that
 * guard_end releases.  A mutating tool's call holds the workspace's
 * counter locked while it runs, so concurrent mutations cannot both pass
 * the threshold. */
int guard_begin(vt_call *call, const vt_subjects *subjects, cJSON **blocked_response);

/* After the tool ran, whatever the outcome: count what the call changed
 * (a command's changes are seen in a before/after snapshot of the
 * workspace), apply a verification it reported, add warnings to the
 * call, and release its guard state. */
void guard_end(vt_call *call);

/* A plugin's note (vt_host_api.note) reaches the guard here; `call`
 * may be NULL. */
void guard_note(vt_call *call, vt_note_kind kind, const char *detail, long value);

/* What a finished command ran (vt_host_api.command_ran, ABI 1.11); `call`
 * may be NULL. */
void guard_command_ran(vt_call *call, const vt_command_ran *ran);

#endif
