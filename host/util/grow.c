/* grow_array: see grow.h. */
#include <stdint.h>
#include <stdlib.h>
#include <vthost/plugin.h>
#include "grow.h"

int grow_array(void **v, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return VT_OK;
    size_t n = *cap ? *cap : 8;
    while (n < need) {
        if (n > SIZE_MAX / 2)
            return VT_ERR_NOMEM;
        n *= 2;
    }
    if (elem && n > SIZE_MAX / elem)
        return VT_ERR_NOMEM;
    void *p = realloc(*v, n * elem);
    if (!p)
        return VT_ERR_NOMEM;
    *v = p;
    *cap = n;
    return VT_OK;
}
