/* The literal byte search behind a case-insensitive ASCII query:
 * 16 (32 with AVX2) candidate positions at a time are tested for the query's two rarest
 * bytes at their offsets (both ASCII cases of a letter when the search
 * ignores case), and only where both are present is the query compared in
 * place.  Same matches as a PCRE2 literal search (ASCII-caseless when
 * insensitive). */
#ifndef CS_LITERAL_H
#define CS_LITERAL_H

#include <stddef.h>

typedef struct cs_lit {
    const char *needle; /* borrowed; caseless: ASCII letters lowered */
    size_t n;
    int caseless;
    size_t at[2];          /* offsets of the two rarest bytes (equal when n is 1) */
    unsigned char want[2]; /* those bytes (lowered when caseless) */
    unsigned char fold[2]; /* 0x20 when either case of the byte matches */
    int avx2;              /* the CPU has AVX2: 32 starts per step */
} cs_lit;

/* Prepare the search for the n-byte needle (n >= 1). */
void cs_lit_init(cs_lit *l, const char *needle, size_t n, int caseless);

/* The first occurrence at or after `from` in buf[0, len), or NULL. */
const char *cs_lit_find(const cs_lit *l, const char *buf, size_t len, size_t from);

#endif
