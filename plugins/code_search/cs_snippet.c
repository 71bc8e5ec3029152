#include "cs_snippet.h"

#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

char *cs_snippet(const char *line, size_t n, size_t at)
{
    char *c = malloc(n * 3 + 1);
    if (!c)
        return NULL;
    size_t o = 0, cat = 0;
    int pending_space = 0;
    const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)line;
    for (size_t i = 0; i < n;) {
        if (i == at)
            cat = o + (pending_space && o ? 1 : 0);
        if (is_ws(p[i])) {
            pending_space = 1;
            i++;
            continue;
        }
        if (pending_space && o)
            c[o++] = ' ';
        pending_space = 0;
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &cp);
        if (k < 0) {
            o += (size_t)utf8proc_encode_char(0xFFFD, (utf8proc_uint8_t *)c + o);
            i++;
        } else {
            memcpy(c + o, line + i, (size_t)k);
            o += (size_t)k;
            i += (size_t)k;
        }
    }
    c[o] = '\0';
    if (o <= CS_SNIPPET_MAX)
        return c;
    /* Window: start a little before the match, on a character start. */
    size_t start = cat > 60 ? cat - 60 : 0;
    if (start + CS_SNIPPET_MAX > o)
        start = o - CS_SNIPPET_MAX;
    while (start > 0 && ((unsigned char)c[start] & 0xC0) == 0x80)
        start--;
    size_t end = start + CS_SNIPPET_MAX;
    if (end > o)
        end = o;
    while (end > start && end < o && ((unsigned char)c[end] & 0xC0) == 0x80)
        end--;
    memmove(c, c + start, end - start);
    c[end - start] = '\0';
    return c;
}
