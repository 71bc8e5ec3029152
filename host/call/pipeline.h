/* The one way in: every front end runs tool calls through pipeline_call,
 * a list of stages (pipeline.c):
 *   lookup -> arguments (schema) -> prepare -> preflight -> subjects
 *   -> permission -> guard -> run -> respond (output budget)
 * pipeline_explain runs the same stages up to subjects, then reports the
 * permission decision instead of acting on it.  Messages: call_messages.c. */
#ifndef VTHOST_PIPELINE_H
#define VTHOST_PIPELINE_H

#include "call_types.h"

int pipeline_call(const call_request *req, call_result *out);
void call_result_free(call_result *r);

/* The permission decision a call would get, with its trace, without
 * running it: registry, schema, preflight and subjects as for a call,
 * then permission_explain.  *out is {"tool", "subjects", "decision",
 * "trace", ...}; on refusal before the permission step, out->status and
 * message say why, as for pipeline_call. */
int pipeline_explain(const call_request *req, call_result *out);

#endif
