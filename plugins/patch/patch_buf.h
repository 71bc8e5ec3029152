/* Buffers for whole files read into memory.  A file of a few megabytes
 * read into fresh memory costs more in page faults (one per 4 KiB page,
 * each zeroing and charging a page) than in the copy itself; a large
 * buffer is therefore backed by transparent huge pages where the kernel
 * offers them (one fault per 2 MiB), a small one comes from malloc. */
#ifndef VTPATCH_BUF_H
#define VTPATCH_BUF_H

#include <stddef.h>

/* A buffer of at least `size` bytes, or NULL.  Free with pbuf_free. */
char *pbuf_alloc(size_t size);
/* Make *buf (from pbuf_alloc, *cap bytes) hold at least `need` bytes,
 * keeping its first `used` bytes.  0 or VT_ERR_NOMEM (*buf unchanged). */
int pbuf_grow(char **buf, size_t *cap, size_t used, size_t need);
/* Free a buffer from pbuf_alloc (NULL is ignored).  The largest freed
 * mapping (up to 32 MiB, as glibc keeps its heap) is kept for the next pbuf_alloc. */
void pbuf_free(char *buf);
/* Unmap the kept mapping (before the plugin is unloaded). */
void pbuf_fini(void);

#endif
