/* A growing string for plugins and host code: appends that can fail only
 * once (the builder remembers it), so callers check at the end. */
#include "strbuf.h"
#include "strutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The API's format/vformat are the host's own str_printf/str_vprintf. */
char *strbuf_vformat(const char *fmt, va_list ap) { return str_vprintf(fmt, ap); }

static int fail(vt_strbuf *b)
{
    b->failed = 1;
    return VT_ERR_NOMEM;
}

/* Room for `more` bytes plus the NUL; doubling keeps appends amortised O(1). */
static int reserve(vt_strbuf *b, size_t more)
{
    if (b->failed)
        return VT_ERR_NOMEM;
    if (more > SIZE_MAX / 2 - b->len - 1)
        return fail(b);
    size_t need = b->len + more + 1;
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return fail(b);
    b->data = p;
    b->cap = cap;
    return 0;
}

int strbuf_append(vt_strbuf *b, const char *s, size_t len)
{
    if (reserve(b, len) < 0)
        return VT_ERR_NOMEM;
    if (len)
        memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
    return 0;
}

int strbuf_printf(vt_strbuf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    char probe[1];
    int n = vsnprintf(probe, 0, fmt, ap);
    va_end(ap);
    int rc = n < 0 ? fail(b) : reserve(b, (size_t)n);
    if (rc == 0) {
        vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    }
    va_end(ap2);
    return rc;
}

void strbuf_reset(vt_strbuf *b)
{
    free(b->data);
    *b = (vt_strbuf)VT_STRBUF_INIT;
}

char *strbuf_take(vt_strbuf *b)
{
    char *s = NULL;
    if (!b->failed)
        s = b->data ? b->data : strdup("");
    else
        free(b->data);
    *b = (vt_strbuf)VT_STRBUF_INIT;
    return s;
}
