/* File text as lines with their own endings, and the whitespace and
 * Unicode-punctuation normalisations the matcher compares under. */
#ifndef VTPATCH_TEXT_H
#define VTPATCH_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* The patch core's one error reporter: *err = the formatted message
 * (malloc'd; NULL when out of memory), returns `rc`.  The core runs
 * without the host too (tests, fuzzers), so it formats with vasprintf
 * rather than api->format. */
int patch_fail(char **err, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 16 bytes a line (a 100,000-line file's table is 1.6 MB of fresh
 * pages, not 2.4): a line of 4 GiB or more is refused. */
typedef struct text_line {
    size_t off;   /* start in text_lines.base */
    uint32_t len; /* content length, ending excluded */
    uint8_t eol;  /* bytes of its ending: 0, 1 ("\n" or "\r"), 2 ("\r\n") */
} text_line;

typedef struct text_lines {
    const char *base;
    size_t size;
    text_line *v;
    size_t n;
    const char *eol; /* the first line ending ("\n" when none) */
    size_t eol_len;
} text_lines;

/* Split at "\n", "\r\n" and lone "\r".  base is borrowed.  VT_ERR_INVALID
 * for a line of 4 GiB or more. */
int text_split(const char *base, size_t size, text_lines *out);
void text_lines_free(text_lines *t);

static inline const char *text_line_ptr(const text_lines *t, size_t i)
{
    return t->base + t->v[i].off;
}
/* Trim ASCII whitespace at the end (rstrip) or at both ends (trim). */
void text_rstrip(const char **s, size_t *len);
void text_trim(const char **s, size_t *len);

/* Fold Unicode dashes, quotes and odd spaces to ASCII and trim; the
 * result is malloc'd (NULL on allocation failure).  Bytes that are not
 * valid UTF-8 pass through unchanged. */
char *text_fold(const char *s, size_t len, size_t *out_len);

#endif
