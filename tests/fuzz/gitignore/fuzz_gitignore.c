/* libFuzzer target: the gitignore matcher of code_search (cs_ignore.c).
 * The input is split at the first NUL byte: before it gitignore text
 * (parsed into rules), after it one path per line, each matched as a file
 * and as a directory.  Checked besides memory safety: the answer is -1, 0
 * or 1; a rule file made of one plain name ignores exactly that name. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "cs_ignore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int plain_name(const char *s, size_t n)
{
    if (n == 0 || n > 32)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, 0, size);
    size_t rules_len = nul ? (size_t)(nul - text) : size;
    const char *paths = nul ? nul + 1 : text + size;
    size_t paths_len = nul ? size - rules_len - 1 : 0;

    cs_ignore ig = {0};
    if (cs_ignore_parse(&ig, text, rules_len) != 0) {
        cs_ignore_free(&ig);
        return 0;
    }
    pcre2_match_data *md = cs_ignore_md();
    if (!md) {
        cs_ignore_free(&ig);
        return 0;
    }
    /* the paths are copied so each is NUL-terminated, as the walk passes them */
    char *copy = malloc(paths_len + 1);
    if (copy) {
        memcpy(copy, paths, paths_len);
        copy[paths_len] = '\0';
        for (char *line = copy, *end; line; line = end ? end + 1 : NULL) {
            end = strchr(line, '\n');
            size_t n = end ? (size_t)(end - line) : strlen(line);
            line[n] = '\0';
            for (int dir = 0; dir < 2; dir++) {
                int m = cs_ignore_match(&ig, line, n, dir, md);
                if (m < -1 || m > 1)
                    abort();
            }
        }
        free(copy);
    }
    /* one plain name: that name is ignored, a longer one is not */
    if (plain_name(text, rules_len)) {
        char other[40];
        memcpy(other, text, rules_len);
        memcpy(other + rules_len, "x", 2);
        if (cs_ignore_match(&ig, text, rules_len, 0, md) != 1 ||
            cs_ignore_match(&ig, other, rules_len + 1, 0, md) == 1)
            abort();
    }
    pcre2_match_data_free(md);
    cs_ignore_free(&ig);
    return 0;
}
