/* Typed tools: plain C functions called through libffi. */
#ifndef VTHOST_TYPED_H
#define VTHOST_TYPED_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

struct typed_tool;

/* Parse t->signature, derive the input schema text (*schema_text,
 * malloc'd, JSON Schema object) and prepare the libffi call.  On a bad
 * signature *err names the tool and the position of the error. */
int typed_tool_prepare(const vt_tool *t, struct typed_tool **out, char **schema_text, char **err);
/* Call with validated args; *result = {"result": value}. */
int typed_tool_call(struct typed_tool *tt, const cJSON *args, cJSON **result, char **err);
/* The output schema text of the result {"result": value} (malloc'd). */
char *typed_tool_output_schema(const struct typed_tool *tt);
void typed_tool_free(struct typed_tool *tt);

#endif
