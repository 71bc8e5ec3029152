/* What `vthost serve --http` tells people about connecting a client: the
 * lines printed at the first start (the Claude Code and Codex entries,
 * ready for unattended use) and the answer to a request that carries no
 * Authorization header, which says what is missing and how to add it --
 * a client that shows only the status would otherwise report a failed
 * sign-in. */
#ifndef VTHOST_HTTP_BANNER_H
#define VTHOST_HTTP_BANNER_H

#include "http_config.h"

/* Compose the texts for the server at endpoint_url.  0, or -1 (out of
 * memory: the short texts are used). */
int http_banner_init(const http_config *c, const char *endpoint_url);
void http_banner_free(void);

/* The reason given to a request without an Authorization header
 * (borrowed; never NULL). */
const char *http_banner_missing_header(void);

/* After the token file was created: the client entries, and the token
 * itself only when stderr is a terminal (a service manager keeps stderr
 * in its journal; there the file's path is said instead). */
void http_banner_first_start(const http_config *c, const char *endpoint_url, const char *token);

#endif
