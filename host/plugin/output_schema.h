/* Tools' output schemas (MCP outputSchema). */
#ifndef VTHOST_OUTPUT_SCHEMA_H
#define VTHOST_OUTPUT_SCHEMA_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* Check a tool's output schema text (a JSON Schema of type object) and
 * complete it with the fields the host adds to every response and the
 * shapes of a failed or spooled response.  *out is a new tree (the
 * caller deletes it); on refusal *err (malloc'd) says why. */
int output_schema_complete(const char *text, cJSON **out, char **err);
/* The check alone (a tool's load): 0, or VT_ERR_INVALID with *err. */
int output_schema_check(const char *text, char **err);

#endif
