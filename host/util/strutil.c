/* Small string and file helpers shared by the host's modules. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
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

void str_utc_now(char out[STR_UTC_NOW_SIZE])
{
    struct timespec now;
    struct tm tm;
    wall_now(&now);
    gmtime_r(&now.tv_sec, &tm);
    size_t n = strftime(out, STR_UTC_NOW_SIZE, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, STR_UTC_NOW_SIZE - n, ".%03ldZ", now.tv_nsec / 1000000L);
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
