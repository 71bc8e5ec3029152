/* vthost's own data (configuration, state, cache, the trust list, what a
 * front end adds: tokens and keys), published to plugins as the service
 * VT_HOST_DATA_SERVICE (<vthost/services.h>) so that a command sandbox
 * can mask it.  The host, not a plugin, knows where its data lives. */
#ifndef VTHOST_HOST_DATA_H
#define VTHOST_HOST_DATA_H

/* Publish the service (at every host start: services are cleared at
 * close). */
int host_data_publish(void);

/* Add a file (`is_dir` 0) or directory of the host's to the list, for
 * the rest of the process: a front end's token file, key files, log.
 * A relative `path` is taken from the working directory; a path that
 * exists is kept resolved.  0, VT_ERR_INVALID or VT_ERR_NOMEM. */
int host_data_add(const char *path, int is_dir);

#endif
