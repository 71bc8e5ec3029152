/*
 * printf to a new string, for code that runs without the host: a
 * plugin's static core and its unit tests (a plugin's hooks have
 * api->format and api->vformat).  Header-only, like <vthost/grow.h>: the
 * tree's one formatting helper for such code (tools/check_calls.sh keeps
 * vasprintf in the host's strutil.c).
 */
#ifndef VTHOST_FORMAT_H
#define VTHOST_FORMAT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* The text `fmt` and `ap` make, in a new string (free it with free()),
 * or NULL when out of memory or the format fails.  `ap` is consumed as
 * by vsnprintf. */
#if defined(__GNUC__)
static inline char *vt_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
#endif
static inline char *vt_vformat(const char *fmt, va_list ap)
{
    va_list count;
    va_copy(count, ap);
    int n = vsnprintf(NULL, 0, fmt, count);
    va_end(count);
    char *s = n >= 0 ? (char *)malloc((size_t)n + 1) : NULL;
    if (s && vsnprintf(s, (size_t)n + 1, fmt, ap) != n) {
        free(s);
        s = NULL;
    }
    return s;
}

#endif /* VTHOST_FORMAT_H */
