/* libmicrohttpd, opened by soname on the first `vthost serve --http`
 * (every other start maps neither it nor GnuTLS).  The only place that
 * names its functions: the rest of host/http/ calls them through this
 * table. */
#ifndef VTHOST_MHD_LIB_H
#define VTHOST_MHD_LIB_H

#include <microhttpd.h>

typedef struct mhd_lib {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                       MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    MHD_socket (*quiesce_daemon)(struct MHD_Daemon *daemon);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *daemon,
                                                   enum MHD_DaemonInfoType type, ...);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *connection,
                                                           enum MHD_ConnectionInfoType type, ...);
    const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                           enum MHD_ValueKind kind, const char *key);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
                                                          MHD_ContentReaderCallback crc,
                                                          void *crc_cls,
                                                          MHD_ContentReaderFreeCallback crfc);
    enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                      struct MHD_Response *response);
    void (*destroy_response)(struct MHD_Response *response);
} mhd_lib;

/* The table, opening the library on first use; NULL with *err (static
 * text, do not free) when it cannot be opened.  Thread-safe. */
const mhd_lib *mhd_lib_open(const char **err);

#endif
