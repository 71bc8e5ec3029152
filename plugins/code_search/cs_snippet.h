/* Result snippets: one line, whitespace collapsed, valid UTF-8, bounded. */
#ifndef CS_SNIPPET_H
#define CS_SNIPPET_H

#include <stddef.h>

#define CS_SNIPPET_MAX 240

/* Snippet of the line line[0..n) showing the byte at `at`: whitespace runs
 * become one space, invalid UTF-8 becomes U+FFFD, and a line longer than
 * CS_SNIPPET_MAX bytes is cut on character boundaries to a window holding
 * `at`.  Returns a malloc'd string or NULL. */
char *cs_snippet(const char *line, size_t n, size_t at);

#endif
