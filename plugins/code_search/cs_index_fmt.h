/* The content index file's records (layout described in cs_index.c);
 * private to cs_index.c and cs_index_write.c. */
#ifndef CS_INDEX_FMT_H
#define CS_INDEX_FMT_H

#include <stddef.h>
#include <stdint.h>

#define CS_IX_MAGIC "VTCSIX2\n"

typedef struct ix_header {
    char magic[8];
    uint64_t total, sum;
    uint32_t nent, rootlen;
    uint64_t strbytes, words;
    uint64_t build; /* cs_decls_build() of the writer */
} ix_header;

typedef struct ix_rec {
    uint64_t dev, ino, size;
    int64_t msec, mnsec, csec, cnsec;
    uint32_t flags, log2;
    uint64_t stroff, bitoff;
    uint32_t dlog2, zero; /* zero: 0 */
    uint64_t dbitoff;
} ix_rec;

#define PAD8(n) (((n) + 7u) & ~(uint64_t)7u)

/* Of n bytes (a multiple of 8): catches corruption and truncation, not
 * forgery. */
uint64_t cs_index_checksum(const char *p, size_t n);

#endif
