/* One escaping for every text shown to a person (see text_escape.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <utf8proc.h>
#include "text_escape.h"

/* The escape for the code point `cp` (`n` bytes at `p`), written into
 * `out` (at least 11 bytes); 0 when it is shown as it is. */
static int escape_one(const unsigned char *p, utf8proc_ssize_t n, utf8proc_int32_t cp,
                      unsigned flags, char *out)
{
    if (n < 0) /* not UTF-8: the byte itself */
        return snprintf(out, 11, "\\x%02x", p[0]);
    if (cp == '\n' && (flags & TEXT_KEEP_NEWLINES))
        return flags & TEXT_INDENT_LINES ? snprintf(out, 11, "\n  ") : 0;
    if (cp == '\n')
        return snprintf(out, 11, "\\n");
    if (cp == '\t')
        return snprintf(out, 11, "\\t");
    if (cp == '\r')
        return snprintf(out, 11, "\\r");
    if (cp < 0x20 || cp == 0x7f)
        return snprintf(out, 11, "\\x%02x", (unsigned)cp);
    if (cp < 0x80)
        return 0;
    utf8proc_category_t c = utf8proc_category(cp);
    if (c == UTF8PROC_CATEGORY_CC || c == UTF8PROC_CATEGORY_CF || c == UTF8PROC_CATEGORY_ZL ||
        c == UTF8PROC_CATEGORY_ZP)
        return snprintf(out, 11, cp > 0xffff ? "\\U%08X" : "\\u%04X", (unsigned)cp);
    return 0;
}

static size_t walk(const char *s, unsigned flags, char *dst)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t len = strlen(s), out = 0;
    while (len) {
        utf8proc_int32_t cp = -1;
        utf8proc_ssize_t n = utf8proc_iterate(p, (utf8proc_ssize_t)len, &cp);
        char esc[12];
        int e = escape_one(p, n, cp, flags, esc);
        size_t used = n > 0 ? (size_t)n : 1;
        if (e > 0) {
            if (dst)
                memcpy(dst + out, esc, (size_t)e);
            out += (size_t)e;
        } else {
            if (dst)
                memcpy(dst + out, p, used);
            out += used;
        }
        p += used;
        len -= used;
    }
    return out;
}

char *text_escape(const char *s, unsigned flags)
{
    if (!s)
        return NULL;
    size_t n = walk(s, flags, NULL);
    char *r = malloc(n + 1);
    if (!r)
        return NULL;
    walk(s, flags, r);
    r[n] = '\0';
    return r;
}

int text_needs_escape(const char *s, unsigned flags)
{
    return s && walk(s, flags, NULL) != strlen(s);
}
