/* Small string and file helpers shared by the host's modules. */
#ifndef VTHOST_STRUTIL_H
#define VTHOST_STRUTIL_H

#include <stdarg.h>
#include <stdio.h>

/* printf into a new string (malloc'd), or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* The rest of `f` as a NUL-terminated string (malloc'd), or NULL. */
char *file_read_all(FILE *f);

#endif
