/* libmicrohttpd through opened_lib: see mhd_lib.h. */
#include <pthread.h>
#include <stdlib.h>
#include "mhd_lib.h"
#include "opened_lib.h"

static mhd_lib lib;
static char *lib_error;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void bind_mhd(void)
{
    const opened_sym syms[] = {
        {"MHD_start_daemon", (void **)&lib.start_daemon},
        {"MHD_stop_daemon", (void **)&lib.stop_daemon},
        {"MHD_quiesce_daemon", (void **)&lib.quiesce_daemon},
        {"MHD_get_daemon_info", (void **)&lib.get_daemon_info},
        {"MHD_get_connection_info", (void **)&lib.get_connection_info},
        {"MHD_lookup_connection_value", (void **)&lib.lookup_connection_value},
        {"MHD_create_response_from_buffer", (void **)&lib.create_response_from_buffer},
        {"MHD_create_response_from_callback", (void **)&lib.create_response_from_callback},
        {"MHD_add_response_header", (void **)&lib.add_response_header},
        {"MHD_queue_response", (void **)&lib.queue_response},
        {"MHD_destroy_response", (void **)&lib.destroy_response},
        {NULL, NULL},
    };
    opened_lib_bind(VTHOST_MHD_SONAME, syms, &lib_error);
}

const mhd_lib *mhd_lib_open(const char **err)
{
    pthread_once(&once, bind_mhd);
    if (lib_error || !lib.start_daemon) {
        *err = lib_error ? lib_error : "libmicrohttpd could not be opened";
        return NULL;
    }
    return &lib;
}
