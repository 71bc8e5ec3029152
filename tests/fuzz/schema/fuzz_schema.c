/* libFuzzer target: schema_prepare on arbitrary text, and schema_validate
 * of arbitrary arguments against a schema.  The input is split at the
 * first NUL byte: before it a schema (or, when there is no NUL, a fixed
 * schema exercising every keyword), after it the arguments. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema.h"
#include "../fuzz_input.h"

static const char *const FIXED =
    "{\"type\":\"object\",\"properties\":{"
    "\"cmd\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":8},"
    "\"e\":{\"enum\":[\"a\",1,null,[1]]},"
    "\"n\":{\"type\":[\"number\",\"null\"],\"exclusiveMinimum\":0,\"maximum\":9},"
    "\"l\":{\"type\":\"array\",\"maxItems\":4,\"items\":{\"type\":\"object\","
    "\"properties\":{\"k\":{\"type\":\"integer\"}},\"required\":[\"k\"],"
    "\"additionalProperties\":{\"type\":\"boolean\"}}}},"
    "\"required\":[\"cmd\"]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_cstring(data, size);
    if (!buf)
        return 0;
    const char *schema_text = FIXED, *args_text = buf;
    size_t first = strlen(buf);
    if (first < size) {
        schema_text = buf;
        args_text = buf + first + 1;
    }
    cJSON *schema = NULL;
    char *err = NULL;
    if (schema_prepare(schema_text, &schema, &err) == 0) {
        cJSON *args = cJSON_Parse(args_text);
        if (schema_validate(schema, args, "fuzz", &err) == 0) {
            int m = schema_max_output_tokens(args);
            if (m < 1 || m > SCHEMA_MAX_OUTPUT_TOKENS_MAX)
                abort();
        } else if (!err || strncmp(err, "Invalid arguments for tool 'fuzz': ", 35)) {
            abort(); /* every rejection has a message in the documented form */
        }
        cJSON_Delete(args);
        cJSON_Delete(schema);
    } else if (!err) {
        abort();
    }
    free(err);
    free(buf);
    return 0;
}
