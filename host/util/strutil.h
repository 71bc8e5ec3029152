/* Small string and file helpers shared by the host's modules. */
#ifndef VTHOST_STRUTIL_H
#define VTHOST_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* printf into a new string (malloc'd), or NULL when out of memory. */
char *str_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *str_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
/* `head` (may be NULL: NULL is returned) followed by fmt formatted with
 * ap: a message under a heading built apart.  malloc'd, NULL when out of
 * memory. */
char *str_vprintf_after(const char *head, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* `src` into `dst` of `size` bytes (size > 0), cut to size - 1 bytes and
 * always terminated, as snprintf(dst, size, "%s", src) without its
 * formatting machinery.  Returns the bytes copied. */
size_t str_copy(char *dst, size_t size, const char *src);

/* The time now in UTC as ISO 8601 with milliseconds
 * ("2026-12-05T00:43:01.123Z"), the stamp of the host's logs. */
#define STR_UTC_NOW_SIZE 32
void str_utc_now(char out[STR_UTC_NOW_SIZE]);

/* The rest of `f` as a NUL-terminated string (malloc'd), or NULL. */
char *file_read_all(FILE *f);

/* The size of `f` when it is a regular file of a sensible size, else
 * `fallback`: how large a buffer to start reading it into (the files the
 * host reads are a few KB; a fixed large buffer costs a page fault per
 * 4 KB touched, on every start). */
size_t file_size_hint(FILE *f, size_t fallback);

#ifdef __cplusplus
}
#endif

#endif
