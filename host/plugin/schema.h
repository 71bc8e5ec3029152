/* JSON Schema for tool arguments (the subset tools use): checked and
 * prepared once at load time (schema_prepare.c), validated on every call
 * (schema.c). */
#ifndef VTHOST_SCHEMA_H
#define VTHOST_SCHEMA_H

#include <cjson/cJSON.h>

/* Parse a tool's schema text, check it is a usable object schema and add
 * the shared max_output_tokens property.  *err (malloc'd) says what is
 * malformed.  *out is a new tree owned by the caller. */
int schema_prepare(const char *schema_text, cJSON **out, char **err);

/* Validate `args` (an object) against `schema`.  On failure returns
 * VT_ERR_INVALID and *err = "Invalid arguments for tool 'NAME': <field>:
 * <what was wrong, what is allowed>" (malloc'd). */
int schema_validate(const cJSON *schema, const cJSON *args, const char *tool, char **err);

/* The effective max_output_tokens of validated args (default 10000). */
int schema_max_output_tokens(const cJSON *args);

#define SCHEMA_MAX_OUTPUT_TOKENS_DEFAULT 10000
#define SCHEMA_MAX_OUTPUT_TOKENS_MAX 50000

#endif
