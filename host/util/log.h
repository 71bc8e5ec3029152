/* Host logging: stderr by default; a front end may take the lines over
 * (MCP notifications/message).  Levels are the SDK's vt_log_level. */
#ifndef VTHOST_LOG_H
#define VTHOST_LOG_H

#include <stdarg.h>
#include <vthost/plugin.h>

typedef void (*host_log_sink)(void *ctx, int level, const char *who, const char *msg);
void host_set_log_sink(host_log_sink sink, void *ctx);
void host_set_log_level(int level);
/* How many warnings and errors were said so far: a command that caches
 * its output stores none that came with a warning. */
unsigned long host_log_warnings(void);
/* While `b` is set (NULL: no more), each line written to stderr is also
 * appended to it (borrowed: unset it before it goes). */
void host_log_copy_to(vt_strbuf *b);
void host_log(int level, const char *who, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void host_vlog(int level, const char *who, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

#endif
