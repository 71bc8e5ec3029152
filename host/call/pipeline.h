/* The one way in: every front end runs tool calls through pipeline_call.
 *   registry -> schema check -> preflight -> subjects -> permission
 *   -> guard -> run -> output budget -> response                       */
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
