/* The key of `vthost tools`'s cached listing: where the options and the
 * environment place the listing's inputs, then the state of each input
 * file (cli_tools_cache.c compares it byte for byte). */
#ifndef VTHOST_CLI_TOOLS_KEY_H
#define VTHOST_CLI_TOOLS_KEY_H

#include <stddef.h>
#include <stdint.h>
#include "host.h"
#include "strbuf.h"

typedef struct tools_key {
    vt_strbuf text;    /* bytes, NULs among them */
    size_t ident_len;  /* its first bytes: the identity, which names the cache file */
    int64_t newest_ns; /* the latest mtime or ctime among the inputs */
} tools_key;

/* Fills `k` (zeroed by the caller) for these options and `format`;
 * 0, or -1 when it cannot (k->text is then to be reset). */
int tools_key_build(tools_key *k, const host_options *ho, const char *format);

#endif
