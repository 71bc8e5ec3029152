/* The string builder and printf-to-string of the plugin API (vt_strbuf,
 * api->format ...), also usable by host code. */
#ifndef VTHOST_STRBUF_H
#define VTHOST_STRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <vthost/plugin.h>

char *strbuf_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* See vt_host_api.strbuf_*: 0 or VT_ERR_NOMEM (then b->failed is set and
 * later appends do nothing). */
int strbuf_append(vt_strbuf *b, const char *s, size_t len);
int strbuf_printf(vt_strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The contents (malloc'd; "" when empty), or NULL after a failure; b is
 * left empty either way. */
char *strbuf_take(vt_strbuf *b);
void strbuf_reset(vt_strbuf *b);

#endif
