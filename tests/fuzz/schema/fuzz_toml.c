/* libFuzzer target: toml_read_string on arbitrary text.  Whatever the
 * input, the reader returns a status (no exception escapes into C), and a
 * success yields an object. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toml_reader.h"
#include "../fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = fuzz_cstring(data, size);
    if (!buf)
        return 0;
    cJSON *out = NULL;
    char *err = NULL;
    int rc = toml_read_string(buf, "fuzz.toml", &out, &err);
    if (rc == 0 ? (!cJSON_IsObject(out) || err) : (out || !err))
        abort();
    if (rc != 0 && strncmp(err, "fuzz.toml:", 10) && strncmp(err, "out of memory", 13))
        abort(); /* syntax errors name the source */
    cJSON_Delete(out);
    free(err);
    free(buf);
    return 0;
}
