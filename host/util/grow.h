/* Growing an array: the one place the host calls realloc for a table
 * that grows (tools/check_calls.sh); strings grow in strbuf.h. */
#ifndef VTHOST_GROW_H
#define VTHOST_GROW_H

#include <stddef.h>

/* Make room in *v (an array of `elem`-byte items, *cap of them allocated)
 * for at least `need` items, doubling (at least 8): *v and *cap are
 * updated.  0, or VT_ERR_NOMEM with *v and *cap unchanged (on overflow
 * too).  The new items are not zeroed. */
int grow_array(void **v, size_t *cap, size_t need, size_t elem);

/* grow_array for a typed pointer: GROW(&vec, &cap, n + 1). */
#define GROW(vp, capp, need) grow_array((void **)(vp), (capp), (need), sizeof **(vp))

#endif
