/* MCP tasks (2025-11-25) for vthost's own clients on stdio: a tools/call
 * with "task" is answered at once with a task, runs like any call, and
 * the client follows it with tasks/get, takes its result with
 * tasks/result (answered when the call ends) and ends it with
 * tasks/cancel.  Sessions of `serve --http` and 2026-07-28 requests are
 * not offered tasks: their calls run plainly. */
#ifndef VTHOST_MCP_TASKS_H
#define VTHOST_MCP_TASKS_H

#include <cjson/cJSON.h>
#include "mcp_internal.h"

/* Whether this server offers tasks (stdio, 2025 era). */
int mcp_tasks_offered(const struct mcp_server *s);

/* The initialize result's capabilities.tasks member (added to caps). */
void mcp_tasks_capability(const struct mcp_server *s, cJSON *caps);

/* Each listed tool may run as a task ("execution": {"taskSupport":
 * "optional"}) unless its description says otherwise. */
void mcp_tasks_mark_tools(const struct mcp_server *s, cJSON *tools);

/* A tools/call with params.task: make `c` a task and answer its request
 * with the task.  Returns 0 (c->task set), or -1 after answering an
 * error (too many tasks). */
int mcp_tasks_begin(struct mcp_server *s, mcp_call *c, const cJSON *task);

/* The call of a task ended with `result` (a CallToolResult, taken):
 * the task is completed (or stays cancelled) and every tasks/result
 * waiting for it is answered. */
void mcp_tasks_finish(struct mcp_server *s, mcp_call *c, cJSON *result);

/* tasks/get, tasks/result, tasks/cancel, tasks/list.  Returns 1 when
 * `method` was one of them (answered, or left waiting), else 0. */
int mcp_tasks_request(struct mcp_server *s, const cJSON *id, const char *method,
                      const cJSON *params);

/* Free every task (the server is being freed). */
void mcp_tasks_free_all(struct mcp_server *s);

#endif
