/* The host's workspace index, published to plugins as the service
 * VT_WSINDEX_SERVICE (<vthost/services.h>). */
#ifndef VTHOST_WS_SERVICE_H
#define VTHOST_WS_SERVICE_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* Open the index of `workspace` (live: inotify and a thread, for serve;
 * else one-shot, from the cache) and publish the service.  `config`
 * (borrowed; NULL: defaults) is the host's merged configuration, read
 * for its [workspace] keeper keys.  Refused with *err (malloc'd) when
 * vthost's data directories cannot be trusted (ws_datadir.h) or a key
 * is malformed. */
int ws_service_open(const char *workspace, int live, const cJSON *config, char **err);
/* The [workspace] keys of one configuration layer, read from `file`: 0,
 * or an error naming the file and the key (*err malloc'd). */
int ws_service_check_keys(const cJSON *layer, const char *file, char **err);
void ws_service_close(void);
/* Bring the index current for `call` (may be NULL); a fallback to a
 * full walk adds a warning to the call. */
int ws_service_refresh(vt_call *call, int watch);

#endif
