/* The HTTP front's own files (the bearer token file, http.toml, TLS and
 * OAuth key files, the access log) added to the host's data, so that no
 * command the server runs can read them (host_data.h). */
#ifndef VTHOST_HTTP_OWN_DATA_H
#define VTHOST_HTTP_OWN_DATA_H

#include "http_config.h"

/* Once the configuration is read and the token file exists.  0, or a
 * negative vt_status (out of memory). */
int http_own_data_register(const http_config *c);

#endif
