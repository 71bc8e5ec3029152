/* Media type matching: see http_media.h. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "http_media.h"

static int ows(char c) { return c == ' ' || c == '\t'; }

/* The media type of one element [p, end): its bounds in *t / *n, without
 * surrounding whitespace and without parameters. */
static void media_token(const char *p, const char *end, const char **t, size_t *n)
{
    while (p < end && ows(*p))
        p++;
    const char *q = p;
    while (q < end && *q != ';' && !ows(*q))
        q++;
    *t = p;
    *n = (size_t)(q - p);
}

static int same(const char *t, size_t n, const char *type)
{
    return n == strlen(type) && strncasecmp(t, type, n) == 0;
}

int http_media_is(const char *value, const char *type)
{
    if (!value)
        return 0;
    const char *t;
    size_t n;
    media_token(value, value + strlen(value), &t, &n);
    /* Only whitespace or parameters may follow the type. */
    const char *rest = t + n;
    while (*rest && ows(*rest))
        rest++;
    return same(t, n, type) && (*rest == 0 || *rest == ';');
}

/* The q parameter of one Accept element's parameters [p, end); 1 when
 * there is none. */
static double q_value(const char *p, const char *end)
{
    while (p && p < end) {
        p = memchr(p, ';', (size_t)(end - p));
        if (!p)
            break;
        p++;
        while (p < end && ows(*p))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char num[16];
            size_t k = 0;
            for (p += 2; p < end && k + 1 < sizeof num && *p != ';' && !ows(*p); p++)
                num[k++] = *p;
            num[k] = 0;
            return strtod(num, NULL);
        }
    }
    return 1.0;
}

/* Whether the range [t, t+n) covers `type`. */
static int range_covers(const char *t, size_t n, const char *type)
{
    if (same(t, n, type) || same(t, n, "*/*"))
        return 1;
    const char *slash = strchr(type, '/');
    size_t main_len = slash ? (size_t)(slash - type) : 0;
    return slash && n == main_len + 2 && strncasecmp(t, type, main_len + 1) == 0 &&
           t[main_len + 1] == '*';
}

int http_media_accepts(const char *accept, const char *type)
{
    if (!accept)
        return 0;
    const char *p = accept;
    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *t;
        size_t n;
        media_token(p, end, &t, &n);
        if (n && range_covers(t, n, type) && q_value(t + n, end) > 0)
            return 1;
        if (!*end)
            return 0;
        p = end + 1;
    }
}
