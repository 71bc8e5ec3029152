/* Small string and file helpers shared by the host's modules. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <vthost/grow.h>
#include "monotime.h"
#include "strutil.h"

char *str_vprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
    return s;
}

char *str_vprintf_after(const char *head, const char *fmt, va_list ap)
{
    char *what = head ? str_vprintf(fmt, ap) : NULL;
    char *s = what ? str_printf("%s%s", head, what) : NULL;
    free(what);
    return s;
}

char *str_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = str_vprintf(fmt, ap);
    va_end(ap);
    return s;
}

size_t str_copy(char *dst, size_t size, const char *src)
{
    size_t n = strnlen(src, size - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

void str_utc_now(char out[STR_UTC_NOW_SIZE])
{
    /* The date and time to the second, kept per thread while the second
     * lasts: gmtime_r takes glibc's time-zone lock and strftime reads the
     * locale, and an HTTP server writes an access line per request. */
    static _Thread_local time_t sec;
    static _Thread_local char head[STR_UTC_NOW_SIZE - 5];
    static _Thread_local size_t head_len;
    struct timespec now;
    wall_now(&now);
    if (!head_len || now.tv_sec != sec) {
        struct tm tm;
        gmtime_r(&now.tv_sec, &tm);
        head_len = strftime(head, sizeof head, "%Y-%m-%dT%H:%M:%S", &tm);
        sec = now.tv_sec;
    }
    memcpy(out, head, head_len);
    long ms = now.tv_nsec / 1000000L;
    char *p = out + head_len;
    *p++ = '.';
    *p++ = (char)('0' + ms / 100);
    *p++ = (char)('0' + ms / 10 % 10);
    *p++ = (char)('0' + ms % 10);
    *p++ = 'Z';
    *p = '\0';
}

size_t file_size_hint(FILE *f, size_t fallback)
{
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size < SIZE_MAX / 2)
        return (size_t)st.st_size;
    return fallback;
}

char *file_read_all(FILE *f)
{
    /* +2: the NUL, and one byte to see the end without growing. */
    size_t cap = file_size_hint(f, 4094) + 2, len = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        if (n == 0)
            break;
        len += n;
        if (cap - len < 2 && VT_GROW(&buf, &cap, len + 2) != 0) {
            free(buf);
            buf = NULL;
        }
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}
