/* Human renderings of tool responses (CLI --format text, MCP text block). */
#ifndef VTHOST_RENDER_H
#define VTHOST_RENDER_H

#include <cjson/cJSON.h>

/* A readable text rendering of `response` for `tool` (malloc'd). */
char *render_text(const char *tool, const cJSON *response);

#endif
