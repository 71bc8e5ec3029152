/* Local file URIs: see file_uri.h.  The URI comes from the client, so
 * every escape is checked to be two hex digits before it is decoded. */
#include "file_uri.h"

#include <stdlib.h>
#include <string.h>

static int hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *file_uri_path(const char *uri)
{
    if (strncmp(uri, "file://", 7) != 0)
        return NULL;
    const char *p = uri + 7;
    if (strncmp(p, "localhost/", 10) == 0)
        p += 9;
    if (*p != '/')
        return NULL;
    char *out = malloc(strlen(p) + 1), *q = out;
    if (!out)
        return NULL;
    for (; *p && *p != '?' && *p != '#'; p++) {
        int hi = *p == '%' ? hex(p[1]) : -1;
        int lo = hi >= 0 ? hex(p[2]) : -1;
        if (lo >= 0 && (hi | lo)) {
            *q++ = (char)(hi << 4 | lo);
            p += 2;
        } else {
            *q++ = *p;
        }
    }
    *q = '\0';
    return out;
}
