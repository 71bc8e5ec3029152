/* One vt_call's life: creation, release, and the per-call operations of
 * the host API (the table in core/api.c points here; the pipeline calls
 * them directly, never through the table). */
#ifndef VTHOST_CALL_OPS_H
#define VTHOST_CALL_OPS_H

#include <cjson/cJSON.h>
#include <stdatomic.h>
#include <vthost/plugin.h>
#include "call.h"

/* The workspace root call spools are written under (host_open sets it;
 * borrowed until the next call_set_workspace or host_close). */
void call_set_workspace(const char *root);

void call_init(vt_call *call, const tool_entry *tool, const cJSON *args, const frontend *fe,
               atomic_int *cancel);
/* Frees the error, the warnings and the spool. */
void call_release(vt_call *call);

/* vt_host_api.call_error: the first error of a call is kept. */
int call_error(vt_call *call, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* vt_host_api.call_warn: a warning string added to the call's result
 * ("warnings" array).  A no-op without a call or memory. */
void call_warn(vt_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a message already built: takes `msg` (malloc'd, may be
 * NULL) and frees it. */
void call_warn_take(vt_call *call, char *msg);
/* vt_host_api.call_warn_once: a warning about the machine or the setup,
 * kept apart so that the pipeline gives each client session the same
 * text once (warn_once.h). */
void call_warn_once(vt_call *call, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* vt_host_api.call_cancelled. */
int call_cancelled(const vt_call *call);
/* vt_host_api.spool_open: the call's spool, created on first use. */
vt_spool *call_spool_open(vt_call *call);

#endif
