/* Placeholder: typed tools are refused until the libffi marshaller lands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "typed.h"

int typed_tool_prepare(const vt_tool *t, struct typed_tool **out,
                       char **schema_text, char **err)
{
    (void)out; (void)schema_text;
    char buf[256];
    snprintf(buf, sizeof buf, "tool '%s': typed tools are not supported", t->name);
    *err = strdup(buf);
    return VT_ERR_UNSUPPORTED;
}
int typed_tool_call(struct typed_tool *tt, const cJSON *args, cJSON **result, char **err)
{
    (void)tt; (void)args; (void)result; (void)err;
    return VT_ERR_UNSUPPORTED;
}
void typed_tool_free(struct typed_tool *tt) { (void)tt; }
