/* The host's event subscriptions (vt_events_v1 in <vthost/services.h>):
 * plugins and the host's own layers subscribe to what happens (a call
 * ended, a command session ended, the workspace changed) instead of the
 * host calling a protocol of plugin entry points.  Thread-safe. */
#ifndef VTHOST_HOST_EVENTS_H
#define VTHOST_HOST_EVENTS_H

#include <stdint.h>
#include <vthost/services.h>

/* A positive id, VT_ERR_INVALID (no callback or no kind) or VT_ERR_BUSY
 * (the table is full). */
int host_events_subscribe(uint32_t kinds, vt_event_fn fn, void *user);

/* After it returns, `id`'s callback runs no more. */
void host_events_unsubscribe(int id);

/* Call every subscriber of ev->kind; `ev` is borrowed. */
void host_events_raise(const vt_event *ev);

/* Drop every subscription (the host closes). */
void host_events_clear(void);

#endif
