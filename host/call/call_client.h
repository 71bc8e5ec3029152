/* Requests to the client on behalf of a call (vt_host_api
 * client_capabilities and client_request): which MCP methods need which
 * client capability, and the errors a plugin can pass on as they are. */
#ifndef VTHOST_CALL_CLIENT_H
#define VTHOST_CALL_CLIENT_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* The front end that serves a client outside any call (`vthost serve`)
 * says what its client accepts through fn (VT_CLIENT_* bits); NULL fn:
 * none.  Set by the MCP front end while it runs. */
void call_client_bind(unsigned (*fn)(void *ud), void *ud);

/* vt_host_api.client_capabilities. */
unsigned call_client_capabilities(const vt_call *call);
/* vt_host_api.client_request. */
int call_client_request(vt_call *call, const char *method, const cJSON *params, int timeout_ms,
                        cJSON **result, cJSON **error);

/* vt_host_api.call_client_info. */
int call_client_info(const vt_call *call, const char **name, const char **version);

/* A JSON-RPC error object {"code", "message"} (NULL when out of memory). */
cJSON *call_client_error(int code, const char *message);

#endif
