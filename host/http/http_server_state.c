/* What the listener sets up once and every request reads: the library,
 * the configuration, the URLs clients are told.  Kept apart from
 * http_server.c so that the request phases (http_request.c) and the
 * answers (http_answer.c) depend on this state, not on the listener
 * that calls them. */
#include "http_server_int.h"

const mhd_lib *hv_mhd;
http_config hv_cfg;
char *hv_endpoint_url;
char *hv_metadata_url;
const char *const hv_versions[] = {"2025-11-25", "2025-06-18", "2025-03-26", NULL};
