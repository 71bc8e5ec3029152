/* The host events service (events_service.h). */
#include "events_service.h"

#include <vthost/plugin.h>
#include <vthost/services.h>
#include "call_ops.h"
#include "host_events.h"
#include "log.h"
#include "services.h"
#include "ws_check.h"
#include "ws_owed.h"

/* A plugin that runs command sessions tells the host of each sandboxed
 * one: the host owns the check of what it left behind. */
static int svc_raise(vt_call *call, uint32_t kind)
{
    if (kind == VT_EVENT_SESSION_STARTED) {
        /* the check's baseline stays, and the owed record stands, while
         * it runs */
        ws_check_session_started();
        ws_owed_session_started();
    } else if (kind == VT_EVENT_SESSION_ENDED) {
        char *report = NULL;
        ws_check_session_ended(call ? &report : NULL);
        /* judged: a crash from now on owes nothing for it */
        ws_owed_session_ended();
        if (report)
            host_log(VT_LOG_WARNING, NULL, "%s", report);
        call_warn_take(call, report);
    } else {
        return VT_ERR_INVALID;
    }
    vt_event ev = {.struct_size = sizeof ev, .kind = kind};
    host_events_raise(&ev);
    return VT_OK;
}

static const vt_events_v1 service = {
    .struct_size = sizeof(vt_events_v1),
    .subscribe = host_events_subscribe,
    .unsubscribe = host_events_unsubscribe,
    .raise = svc_raise,
};

int events_service_publish(void) { return services_publish(VT_EVENTS_SERVICE, (void *)&service); }

void events_service_close(void) { host_events_clear(); }
