/* Between the parts of http_server.c: the listener and its start and
 * stop (http_server.c), the phases of one request (http_request.c) and
 * the answers to the MCP endpoint's requests (http_answer.c). */
#ifndef VTHOST_HTTP_SERVER_INT_H
#define VTHOST_HTTP_SERVER_INT_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <time.h>
#include <vthost/plugin.h>
#include "http_auth.h"
#include "http_config.h"
#include "http_session.h"
#include "mhd_lib.h"
#include "monotime.h"

extern const mhd_lib *hv_mhd;
extern http_config hv_cfg;
extern char *hv_endpoint_url; /* what clients are told */
extern char *hv_metadata_url; /* RFC 9728 document, OAuth mode */
/* The revisions spoken through initialize. */
extern const char *const hv_versions[];

/* One HTTP request. */
typedef struct req {
    struct timespec t0;
    vt_strbuf body; /* read up to hv_cfg.max_body_bytes */
    int too_big, timed_out, started, sse;
    http_stream *st;            /* the answer's stream, owned */
    char owner[HTTP_OWNER_MAX]; /* the authenticated client */
    char session[HTTP_SESSION_ID_LEN + 1];
    char rpc[48];
    char tool[64];
    char method[8];
    char path[64];
    int status;
} req;

static inline double ms_since(const struct timespec *t0)
{
    struct timespec t;
    mono_now(&t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static inline const char *header(struct MHD_Connection *c, const char *name)
{
    return hv_mhd->lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static inline int conn_fd(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *i =
        hv_mhd->get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    return i ? i->connect_fd : -1;
}

/* http_answer.c */
enum MHD_Result hv_send_text(struct MHD_Connection *c, req *r, int status, const char *type,
                             const char *body, const char *const *headers);
enum MHD_Result hv_send_error(struct MHD_Connection *c, req *r, int status, int code,
                              const char *message, const char *const *headers);
enum MHD_Result hv_send_unauthorized(struct MHD_Connection *c, req *r, int status,
                                     const char *error, const char *desc);
int hv_version_known(const char *v);
enum MHD_Result hv_mcp_post(struct MHD_Connection *c, req *r);
enum MHD_Result hv_mcp_get_or_delete(struct MHD_Connection *c, req *r, const char *owner, int del);

/* http_request.c: libmicrohttpd's request callbacks. */
enum MHD_Result hv_on_request(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls);
void hv_on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                     enum MHD_RequestTerminationCode toe);

#endif
