/* Each provider's tool list kept between starts, so that a client that
 * lists tools once (before a slow provider has started) still gets them:
 * one file per provider configuration in the host's cache directory
 * ($XDG_CACHE_HOME/vthost/mcp-tools/<hash of the configuration>.json). */
#ifndef MCPP_CACHE_H
#define MCPP_CACHE_H

#include <cjson/cJSON.h>
#include "provider.h"

/* The directory the lists are kept in (taken; NULL: no cache). */
void cache_set_dir(char *dir);
/* p's cached tools/list array (new, cJSON_Delete), or NULL when there is
 * none or it is not trustworthy (not a regular file of this user, not
 * the format written here). */
cJSON *cache_load(const provider *p);
/* Keep `tools` (borrowed) as p's list when it differs from the cached
 * one: written to a new 0600 file renamed over the old.  Failures are
 * logged; the cache is only an optimisation. */
void cache_store(const provider *p, const cJSON *tools);
void cache_clear(void);
/* At init: the cache directory from the host (VT_HOST_DATA_SERVICE), and
 * every enabled provider's cached tools registered, so that the first
 * tools/list has them before any provider has started. */
void cache_prime(const vt_host_api *api, provider **providers, size_t count);

#endif
