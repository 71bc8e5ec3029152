/*
 * Growing an array: the tree's one realloc for a table that grows
 * (tools/check_calls.sh), for the host and plugins alike.  Header-only
 * (nothing to link, no host call), so a plugin's static core and its unit
 * tests use it as the plugin does.  Text grows in a vt_strbuf
 * (api->strbuf_append) in a plugin, in strbuf.h in the host.
 */
#ifndef VTHOST_GROW_H
#define VTHOST_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Make room in *v (an array of `elem`-byte items, *cap of them allocated)
 * for at least `need` items, doubling from 8: *v and *cap are updated.
 * 0, or -1 with *v and *cap unchanged when out of memory or when the size
 * would overflow.  The new items are not zeroed. */
static inline int vt_grow(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return -1;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return -1;
    void *p = realloc(*v, n * elem);
    if (!p)
        return -1;
    *v = p;
    *cap = n;
    return 0;
}

/* vt_grow for a typed pointer: VT_GROW(&items, &cap, count + 1). */
#define VT_GROW(vp, capp, need) vt_grow((void **)(vp), (capp), (need), sizeof **(vp))

#endif /* VTHOST_GROW_H */
