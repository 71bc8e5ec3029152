/* Numbers as 8 bytes in the machine's order (both ends are the same
 * build on the same machine); a string as its length plus one (0: NULL),
 * then its bytes and a NUL. */
#include "leader_wire.h"

#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>

static void put(wire_out *w, const void *p, size_t n)
{
    if (w->failed)
        return;
    if (vt_grow((void **)&w->buf, &w->cap, w->len + n, 1) != 0) {
        w->failed = 1;
        return;
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

void wire_put_u64(wire_out *w, uint64_t v) { put(w, &v, sizeof v); }

void wire_put_str(wire_out *w, const char *s)
{
    size_t n = s ? strlen(s) + 1 : 0;
    wire_put_u64(w, n);
    if (s)
        put(w, s, n);
}

void wire_put_strv(wire_out *w, char *const *v, long n)
{
    size_t k = 0;
    if (n < 0)
        while (v && v[k])
            k++;
    else
        k = (size_t)n;
    wire_put_u64(w, k);
    for (size_t i = 0; i < k; i++)
        wire_put_str(w, v[i]);
}

uint64_t wire_get_u64(wire_in *r)
{
    uint64_t v = 0;
    if (r->bad || (size_t)(r->end - r->p) < sizeof v) {
        r->bad = 1;
        return 0;
    }
    memcpy(&v, r->p, sizeof v);
    r->p += sizeof v;
    return v;
}

char *wire_get_str(wire_in *r)
{
    uint64_t n = wire_get_u64(r);
    if (r->bad || n == 0)
        return NULL;
    if (n > (uint64_t)(r->end - r->p) || r->p[n - 1] != '\0') {
        r->bad = 1;
        return NULL;
    }
    char *s = r->p;
    r->p += n;
    return s;
}

char **wire_get_strv(wire_in *r, size_t *n)
{
    uint64_t k = wire_get_u64(r);
    /* every string takes at least its 8-byte length */
    if (r->bad || k > (uint64_t)(r->end - r->p) / 8) {
        r->bad = 1;
        return NULL;
    }
    char **v = calloc((size_t)k + 1, sizeof *v);
    if (!v) {
        r->bad = 1;
        return NULL;
    }
    for (size_t i = 0; i < k && !r->bad; i++)
        v[i] = wire_get_str(r);
    if (r->bad) {
        free(v);
        return NULL;
    }
    if (n)
        *n = (size_t)k;
    return v;
}

void wire_put_bytes(wire_out *w, const void *p, size_t n)
{
    wire_put_u64(w, n);
    if (n)
        put(w, p, n);
}

const void *wire_get_bytes(wire_in *r, size_t *n)
{
    uint64_t k = wire_get_u64(r);
    if (r->bad || k > (uint64_t)(r->end - r->p)) {
        r->bad = 1;
        return NULL;
    }
    const void *p = r->p;
    r->p += k;
    *n = (size_t)k;
    return p;
}
