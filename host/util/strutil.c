/* Small string and file helpers shared by the host's modules. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include "strutil.h"

char *str_vprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        return NULL;
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

/* The buffer starts at the file's size when that is known (profiles and
 * agent specs are a few KB: a fixed 64 KB start made the heap of a whole
 * short run four times larger, each new page a fault), else at 4 KB. */
char *file_read_all(FILE *f)
{
    struct stat st;
    size_t cap = 4096, len = 0;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uintmax_t)st.st_size < SIZE_MAX / 2)
        cap = (size_t)st.st_size + 2;
    char *buf = malloc(cap);
    while (buf) {
        size_t n = fread(buf + len, 1, cap - len - 1, f);
        if (n == 0)
            break;
        len += n;
        if (cap - len < 2) {
            char *g = realloc(buf, cap *= 2);
            if (!g)
                free(buf);
            buf = g;
        }
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}
