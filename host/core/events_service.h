/* Host events offered to plugins as the service VT_EVENTS_SERVICE
 * (vt_events_v1 in <vthost/services.h>): subscriptions to what happens
 * in the host, and the command sessions a plugin reports, on which the
 * host runs its after-call check of the workspace (ws/ws_check.h). */
#ifndef VTHOST_EVENTS_SERVICE_H
#define VTHOST_EVENTS_SERVICE_H

/* Publish the service; 0 or a negative status. */
int events_service_publish(void);
/* Drop every subscription (the host closes, after the plugins' fini). */
void events_service_close(void);

#endif
