/* Provider tools that run only as MCP tasks (2025-11-25,
 * execution.taskSupport "required"): the tools/call creates a task,
 * vthost polls it (tasks/get, at the provider's pollInterval, sooner on
 * notifications/tasks/status) and takes its result (tasks/result).  The
 * call's cancellation and deadline end the task with tasks/cancel. */
#ifndef MCPP_TASK_H
#define MCPP_TASK_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "provider.h"

/* Run the tools/call `params` (taken) as a task of p within timeout_ms.
 * As provider_request: 0 with *reply the message carrying the tool's
 * result (or "error"), VT_ERR_CANCELLED, or VT_ERR_IO with *err. */
int task_call(provider *p, vt_call *call, cJSON *params, int timeout_ms, cJSON **reply, char **err);

/* ---- for provider.c (the reader thread) ---- */

/* notifications/progress under a task's token.  Caller holds p->mu. */
void task_route_progress_locked(provider *p, double token, double progress, double total,
                                const char *msg);
/* notifications/tasks/status: the task's poller looks at once. */
void task_route_notified(provider *p, const cJSON *params);

#endif
