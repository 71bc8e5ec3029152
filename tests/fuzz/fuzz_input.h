/* What the fuzz harnesses share: the input as a C string, and the input
 * read one byte at a time as a sequence of choices. */
#ifndef VTHOST_FUZZ_INPUT_H
#define VTHOST_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* `size` bytes of `data` and a NUL (malloc'd; the input may hold NULs
 * of its own), or NULL when out of memory. */
static inline char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

/* The input still to read. */
typedef struct fuzz_src {
    const uint8_t *p;
    size_t n;
} fuzz_src;

/* The next byte modulo `mod` (0: the byte itself); 0 once the input is
 * spent, so a short input still makes a whole case. */
static inline unsigned fuzz_take(fuzz_src *s, unsigned mod)
{
    if (!s->n)
        return 0;
    unsigned v = *s->p++;
    s->n--;
    return mod ? v % mod : v;
}

#endif
