/* The entry of the HTTP transport's module: http_transport.c calls the
 * provider functions of transport.h and reads mcpp_api; in the module
 * they forward to the plugin's own, which the plugin hands over when it
 * binds the module (http_lazy.c).  Everything here but the entry point
 * is hidden (the module is built with hidden visibility), so these names
 * never meet the plugin's. */
#include <vthost/plugin.h>
#include "provider.h"

static const provider_calls *calls;
const vt_host_api *mcpp_api;

int provider_receive(provider *p, cJSON *msg) { return calls->receive(p, msg); }
void provider_connected(provider *p) { calls->connected(p); }
void provider_closed(provider *p, const char *why, int cannot_run)
{
    calls->closed(p, why, cannot_run);
}
int provider_req_done(provider *p, long id) { return calls->req_done(p, id); }
void provider_req_failed(provider *p, long id, const char *why) { calls->req_failed(p, id, why); }
void provider_deadline(struct timespec *t, int ms) { calls->deadline(t, ms); }
int provider_past(const struct timespec *t) { return calls->past(t); }

__attribute__((visibility("default"))) const transport_ops *
mcpp_http_transport_v1(const provider_calls *c)
{
    calls = c;
    mcpp_api = c->api;
    return &http_curl_transport;
}
