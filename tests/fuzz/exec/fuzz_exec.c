/* Fuzz target for the exec plugin's pure parts: the command splitter
 * (hostile shell text) and the PTY output filter (arbitrary bytes, split
 * at every point the input's first byte picks).  Checks invariants, not
 * just crashes: the splitter always answers, the filter never writes
 * more than it may and never lets an ESC through. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "splitter.h"
#include "termfilter.h"
#include "../fuzz_input.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = fuzz_cstring(data, size);
    if (!s)
        return 0;
    split_list l = {0};
    if (split_shell(s, &l) != 0)
        abort();
    for (size_t k = 0; k < l.count; k++)
        if (!l.items[k].text || l.items[k].kind < SPLIT_COMMAND || l.items[k].kind > SPLIT_READ)
            abort();
    split_list_free(&l);

    size_t chunk = size ? (size_t)data[0] % 17 + 1 : 1;
    char *out = malloc(chunk + 1);
    term_filter f = {0};
    for (size_t i = 0; out && i < size; i += chunk) {
        size_t n = size - i < chunk ? size - i : chunk;
        size_t m = term_filter_run(&f, (const char *)data + i, n, out);
        if (m > n + 1 || memchr(out, 0x1b, m))
            abort();
    }
    free(out);
    free(s);
    return 0;
}
