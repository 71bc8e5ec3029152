/* Denial detection: a command's output watched for the words of a
 * refusal (EACCES, EPERM, EROFS and their messages), across the
 * boundaries of the chunks it arrives in. */
#include "sandbox.h"

#include <string.h>

/* ---- denial detection ------------------------------------------------------------- */

static const char *const denial_words[] = {
    "Permission denied",
    "Operation not permitted",
    "Read-only file system",
    "PermissionError",
    "[Errno 1]",
    "[Errno 13]",
    "[Errno 30]",
    "EACCES",
    "EPERM",
    "EROFS",
};

void sandbox_denial_feed(sandbox_denial_scan *s, const char *buf, size_t len)
{
    if (s->seen || !len)
        return;
    /* Look across the chunk boundary: carry + the start of this chunk. */
    char joined[128];
    size_t head = len < sizeof joined - s->ncarry ? len : sizeof joined - s->ncarry;
    memcpy(joined, s->carry, s->ncarry);
    memcpy(joined + s->ncarry, buf, head);
    for (size_t i = 0; i < sizeof denial_words / sizeof *denial_words && !s->seen; i++) {
        size_t wl = strlen(denial_words[i]);
        if (memmem(joined, s->ncarry + head, denial_words[i], wl) ||
            memmem(buf, len, denial_words[i], wl))
            s->seen = 1;
    }
    size_t keep = len < sizeof s->carry ? len : sizeof s->carry;
    if (len < sizeof s->carry && s->ncarry + len > sizeof s->carry) {
        size_t drop = s->ncarry + len - sizeof s->carry;
        memmove(s->carry, s->carry + drop, s->ncarry - drop);
        s->ncarry -= drop;
        memcpy(s->carry + s->ncarry, buf, len);
        s->ncarry += len;
    } else if (len < sizeof s->carry) {
        memcpy(s->carry + s->ncarry, buf, len);
        s->ncarry += len;
    } else {
        memcpy(s->carry, buf + len - keep, keep);
        s->ncarry = keep;
    }
}
