/* A provider's tools/call answer as a vthost result. */
#ifndef MCPP_RESULT_H
#define MCPP_RESULT_H

#include <cjson/cJSON.h>
#include "provider.h"

/* The provider's CallToolResult in `reply` (borrowed): text goes to the
 * call's spool (the host applies the output budget), other content and
 * structuredContent pass through into *result (new).  An error answer,
 * or isError, becomes the call's error.  Returns 0 or the call_error
 * status. */
int result_convert(vt_call *call, provider *p, const char *tool, const cJSON *reply,
                   cJSON **result);

#endif
