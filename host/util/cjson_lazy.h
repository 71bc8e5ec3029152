/* cJSON opened on first use (cjson_lazy.c): the host calls cJSON_* as
 * declared in <cjson/cJSON.h>; the library is mapped by the first call. */
#ifndef VTHOST_CJSON_LAZY_H
#define VTHOST_CJSON_LAZY_H

/* Opens libcjson now (idempotent, thread-safe; exits with a message when
 * it is missing): before a plugin is loaded, so that its references to
 * cJSON find the host's copy. */
void cjson_lazy_open(void);

#endif
