/* The provider tools registered with the host, and the way back from a
 * model-facing name to (provider, tool). */
#ifndef MCPP_TOOLS_H
#define MCPP_TOOLS_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "provider.h"

#define MCPP_PLUGIN "mcp_providers"

/* Register the tools of a tools/list result (array of Tool objects),
 * replacing what `p` registered before and removing tools it no longer
 * lists.  Takes `tools`. */
void tools_sync(provider *p, cJSON *tools);
/* Re-register p's tools with their description marked unavailable
 * (reason from p), or back to normal (available = 1). */
void tools_mark(provider *p, int available);
/* Find the provider and the provider's own tool name for `vt_name`;
 * *tool is malloc'd.  Returns NULL when unknown. */
provider *tools_lookup(const char *vt_name, char **tool);
/* 1 when the provider runs `vt_name` only as an MCP task
 * (execution.taskSupport "required": task.h); "optional" tools are
 * called plainly. */
int tools_task_only(const char *vt_name);
/* Number of tools registered for p. */
size_t tools_count(const provider *p);
/* [{"name","tool","description"}...] of p (new array). */
cJSON *tools_describe(const provider *p);
void tools_clear(void);

/* The permission hook all provider tools share: the MCP server and the
 * provider's own tool name (VT_SUBJECT_MCP_SERVER, VT_SUBJECT_MCP_TOOL). */
int mcpp_subjects(vt_call *call, const cJSON *args, vt_subjects *out);
/* The run hook all provider tools share (mcp_providers.c). */
int mcpp_run(vt_call *call, const cJSON *args, cJSON **result);

#endif
