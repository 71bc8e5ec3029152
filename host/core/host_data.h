/* vthost's own data (configuration, state, cache, the trust list, what a
 * front end adds: tokens and keys), published to plugins as the service
 * VT_HOST_DATA_SERVICE (<vthost/services.h>) so that a command sandbox
 * can mask it.  The host, not a plugin, knows where its data lives. */
#ifndef VTHOST_HOST_DATA_H
#define VTHOST_HOST_DATA_H

/* Publish the service (at every host start: services are cleared at
 * close). */
int host_data_publish(void);

enum host_data_flag {
    HOST_DATA_DIR = 1,   /* a directory (else a file) */
    HOST_DATA_SHARED = 2 /* a file every vthost process of the user masks
                            (host_data_shared.h), not only this one */
};

/* Add a file or directory of the host's to the list (`flags`: enum
 * host_data_flag), for the rest of the process: a front end's token
 * file, key files, log.  A relative `path` is taken from the working
 * directory; a path that exists is kept resolved.  0, VT_ERR_INVALID or
 * VT_ERR_NOMEM (a shared list that cannot be written is logged, not an
 * error: this process still masks the path). */
int host_data_add(const char *path, unsigned flags);

/* The user's vthost cache directory ($XDG_CACHE_HOME/vthost), made 0700
 * when missing; *out malloc'd.  0, VT_ERR_NOT_FOUND (no home) or
 * VT_ERR_IO. */
int host_data_cache_dir(char **out);

#endif
