/* The bytes in which one command's leader plan travels from the host to
 * the leader maker (zygote.c): numbers and strings appended to a
 * growing buffer, read back in the same order.  Strings are read in
 * place: the reader's buffer must outlive what it hands out. */
#ifndef VTHOST_EXEC_LEADER_WIRE_H
#define VTHOST_EXEC_LEADER_WIRE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wire_out {
    char *buf;
    size_t len, cap;
    int failed; /* out of memory once: everything after is dropped */
} wire_out;

void wire_put_u64(wire_out *w, uint64_t v);
/* NULL travels as NULL. */
void wire_put_str(wire_out *w, const char *s);
/* n strings (n < 0: up to v's NULL); read back NULL-terminated. */
void wire_put_strv(wire_out *w, char *const *v, long n);
/* n bytes as they are (read back in place, unaligned). */
void wire_put_bytes(wire_out *w, const void *p, size_t n);

typedef struct wire_in {
    char *p, *end;
    int bad; /* ran past the end or found a malformed item */
} wire_in;

uint64_t wire_get_u64(wire_in *r);
char *wire_get_str(wire_in *r);
/* A malloc'd NULL-terminated array of strings in r's buffer (*n: their
 * count, may be NULL); NULL when bad or out of memory (r->bad set). */
char **wire_get_strv(wire_in *r, size_t *n);
/* What wire_put_bytes wrote, in r's buffer (*n: its length); NULL with
 * r->bad set when it runs past the end. */
const void *wire_get_bytes(wire_in *r, size_t *n);

#endif
