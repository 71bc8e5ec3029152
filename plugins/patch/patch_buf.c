/* Whole-file buffers (see patch_buf.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <vthost/plugin.h>
#include "patch_buf.h"

#define HUGE_SZ ((size_t)2 << 20)
/* From this size a buffer is mapped: below it the zeroing of a whole
 * huge page would cost more than the small pages' faults save. */
#define MAP_FROM ((size_t)1 << 20)
/* Room before the data for the mapping's length (0: from malloc),
 * keeping the data aligned for any type. */
#define HEAD 64
/* One freed mapping up to this size is kept for the next large read: a
 * server patching the same large file again and again would otherwise
 * fault in and zero fresh huge pages at every call, where malloc would
 * have reused its heap. */
#define SPARE_MAX ((size_t)32 << 20)

static struct {
    pthread_mutex_t mu;
    char *base;
    size_t len;
} spare = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* The kept mapping when it holds `len` bytes, else NULL. */
static char *take_spare(size_t len)
{
    char *got = NULL;
    pthread_mutex_lock(&spare.mu);
    if (spare.base && spare.len >= len) {
        got = spare.base;
        spare.base = NULL;
    }
    pthread_mutex_unlock(&spare.mu);
    return got;
}

static char *map_huge(size_t total)
{
    size_t len = (total + HUGE_SZ - 1) & ~(HUGE_SZ - 1);
    char *kept = take_spare(len);
    if (kept)
        return kept;
    /* Map one huge page more and trim, so the kept part is aligned to
     * a huge page (mmap only promises 4 KiB). */
    char *m = mmap(NULL, len + HUGE_SZ, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)m + HUGE_SZ - 1) & ~(uintptr_t)(HUGE_SZ - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (a + len < m + len + HUGE_SZ)
        munmap(a + len, (size_t)(m + len + HUGE_SZ - (a + len)));
    /* Without THP (or with it off) this fails and small pages serve. */
    (void)madvise(a, len, MADV_HUGEPAGE);
    *(size_t *)a = len;
    return a;
}

char *pbuf_alloc(size_t size)
{
    if (size > SIZE_MAX - HEAD - HUGE_SZ)
        return NULL;
    char *base = size >= MAP_FROM ? map_huge(size + HEAD) : NULL;
    if (!base) {
        base = malloc(size + HEAD);
        if (!base)
            return NULL;
        *(size_t *)base = 0;
    }
    return base + HEAD;
}

void pbuf_free(char *buf)
{
    if (!buf)
        return;
    char *base = buf - HEAD;
    size_t len = *(size_t *)base;
    if (!len) {
        free(base);
        return;
    }
    char *drop = base;
    if (len <= SPARE_MAX) {
        pthread_mutex_lock(&spare.mu);
        if (!spare.base || spare.len < len) { /* keep the larger */
            drop = spare.base;
            size_t dlen = spare.len;
            spare.base = base;
            spare.len = len;
            len = dlen;
        }
        pthread_mutex_unlock(&spare.mu);
    }
    if (drop)
        munmap(drop, len);
}

void pbuf_fini(void)
{
    pthread_mutex_lock(&spare.mu);
    if (spare.base)
        munmap(spare.base, spare.len);
    spare.base = NULL;
    spare.len = 0;
    pthread_mutex_unlock(&spare.mu);
}

int pbuf_grow(char **buf, size_t *cap, size_t used, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t want = *cap > SIZE_MAX / 2 ? need : *cap * 2;
    if (want < need)
        want = need;
    char *n = pbuf_alloc(want);
    if (!n)
        return VT_ERR_NOMEM;
    memcpy(n, *buf, used);
    pbuf_free(*buf);
    *buf = n;
    *cap = want;
    return 0;
}
