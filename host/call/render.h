/* Human renderings of tool responses (CLI --format text, MCP text block). */
#ifndef VTHOST_RENDER_H
#define VTHOST_RENDER_H

#include <cjson/cJSON.h>

/* Rewrite a legacy {"diff_preview": {"path","content"}} response in place
 * into the {"diff": [...]} array shape.  No-op for other responses. */
void render_normalize_diff(cJSON *response);

/* A readable text rendering of `response` for `tool` (malloc'd). */
char *render_text(const char *tool, const cJSON *response);

#endif
