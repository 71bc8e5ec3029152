/* `vthost serve --http`: the MCP Streamable HTTP transport (protocol
 * revisions 2025-06-18 and 2025-11-25) on libmicrohttpd, one thread per
 * connection.
 *
 *   POST /mcp    one JSON-RPC message.  A request is answered with JSON,
 *                or for tools/call with an SSE stream carrying the
 *                call's progress, its requests to the client
 *                (elicitation, sampling) and then its response; a
 *                notification or response is accepted with 202.
 *   GET /mcp     the session's SSE stream for messages outside any call
 *                (tools/list_changed, log messages).
 *   DELETE /mcp  ends the session.
 *   GET /healthz liveness, without authentication.
 *   GET /.well-known/oauth-protected-resource[/mcp]  RFC 9728 metadata
 *                (OAuth mode).
 *
 * Every /mcp request is checked in this order: Origin (DNS rebinding),
 * bearer token, protocol version, Content-Length, session.  All but the
 * session are judged as soon as the headers are complete, before a byte
 * of the body is read or `100 Continue` is sent: a stranger's upload is
 * refused at once and never buffered. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "host.h"
#include "http_banner.h"
#include "http_guard.h"
#include "http_jwt.h"
#include "http_log.h"
#include "http_own_data.h"
#include "http_server_int.h"
#include "http_stateless.h"
#include "mcp.h"
#include "mcp_discover_cache.h"
#include "mcp_roots.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "serve_signals.h"
#include "strutil.h"
#include "text_escape.h"

static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
    (void)sig;
    int saved = errno;
    if (wake_pipe[1] >= 0) {
        ssize_t n = write(wake_pipe[1], "x", 1);
        (void)n;
    }
    errno = saved;
}

static char *read_pem(const char *path, char **err)
{
    FILE *f = fopen(path, "re");
    char *text = f ? file_read_all(f) : NULL;
    if (f)
        fclose(f);
    if (!text)
        *err = str_printf("cannot read %s: %s", path, strerror(errno));
    return text;
}

/* The configuration, libmicrohttpd, the token or keys, the access log
 * and the TLS key pair (*cert, *key: malloc'd, NULL without TLS).
 * Returns 0, or the exit status after saying what was wrong. */
static int serve_open(const char *listen, const char *token_file, int *created, char **cert,
                      char **key)
{
    char *err = NULL;
    const char *lib_err = NULL;
    int rc = 0;
    if (http_config_load(&hv_cfg, listen, token_file, &err) < 0)
        rc = 2;
    else if (!(hv_mhd = mhd_lib_open(&lib_err)))
        err = str_printf("%s (install libmicrohttpd12)", lib_err), rc = 1;
    else if (http_auth_open(&hv_cfg, created, &err) < 0)
        rc = 2;
    else if (hv_cfg.tls_cert && (!(*cert = read_pem(hv_cfg.tls_cert, &err)) ||
                                 !(*key = read_pem(hv_cfg.tls_key, &err))))
        rc = 2;
    else if (http_own_data_register(&hv_cfg) != 0) /* commands must not read them */
        err = strdup("out of memory listing the server's own files"), rc = 1;
    else if (pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
        err = str_printf("cannot create a pipe: %s", strerror(errno)), rc = 1;
    if (rc) {
        fprintf(stderr, "vthost serve --http: %s\n", err ? err : "out of memory");
        free(err);
        free(*cert);
        *cert = NULL;
        http_auth_close();
        http_config_free(&hv_cfg);
        return rc;
    }
    if (hv_cfg.access_log && http_log_open(hv_cfg.access_log) < 0)
        fprintf(stderr,
                "vthost serve --http: cannot open the access log %s; logging to "
                "stderr\n",
                hv_cfg.access_log);
    else if (!hv_cfg.access_log)
        http_log_open(NULL);
    return 0;
}

/* Whether announce() is done: the URLs clients are told and the banner
 * are set after the daemon starts (they name the port it bound), and no
 * connection is served before they are. */
static pthread_mutex_t ready_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready;

static void set_ready(int value)
{
    pthread_mutex_lock(&ready_mu);
    ready = value;
    pthread_cond_broadcast(&ready_cond);
    pthread_mutex_unlock(&ready_mu);
}

/* Every connection, as it is accepted and as it closes: the one place
 * where checks on a connection as a whole hook in (libmicrohttpd takes a
 * single such callback).  Runs on the listening thread for a new
 * connection, before the connection's own thread starts: waiting here
 * for announce() makes everything it set visible to that thread. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
    (void)cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        pthread_mutex_lock(&ready_mu);
        while (!ready)
            pthread_cond_wait(&ready_cond, &ready_mu);
        pthread_mutex_unlock(&ready_mu);
    }
    http_guard_connection(c, socket_context, code);
}

/* The daemon's options beyond the basics: the guard's connection
 * notification and the per-address cap, and the TLS key pair when there
 * is one. */
static void daemon_options(struct MHD_OptionItem opts[5], char *cert, char *key)
{
    http_guard_limits lim = {.header_timeout_s = hv_cfg.header_timeout_s,
                             .max_unauthenticated = hv_cfg.max_unauthenticated};
    http_guard_init(hv_mhd, &lim);
    int n = 0;
    opts[n++] =
        (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, NULL};
    opts[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT,
                                        (intptr_t)hv_cfg.max_per_address, NULL};
    if (cert) {
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, cert};
        opts[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, key};
    }
    opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
}

static struct MHD_Daemon *daemon_start(char *cert, char *key)
{
    /* A thread per connection: an SSE stream and a call's answer block
     * their connection's thread (http_stream_read, http_stream_wait_answer).
     * MHD_USE_POLL: those threads and the listening thread wait with
     * poll(), not select(), whose descriptors stop at FD_SETSIZE (1024) --
     * with select() libmicrohttpd refuses every new connection once the
     * process holds that many descriptors (sessions' commands do). */
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                     MHD_USE_POLL | MHD_USE_ITC;
    if (hv_cfg.addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (cert)
        flags |= MHD_USE_TLS;
    struct MHD_OptionItem opts[5];
    daemon_options(opts, cert, key);
    return hv_mhd->start_daemon(flags, 0, NULL, NULL, hv_on_request, NULL, MHD_OPTION_SOCK_ADDR,
                                (struct sockaddr *)&hv_cfg.addr, MHD_OPTION_CONNECTION_LIMIT,
                                (unsigned)hv_cfg.max_connections, MHD_OPTION_CONNECTION_TIMEOUT,
                                (unsigned)hv_cfg.connection_timeout_s, MHD_OPTION_NOTIFY_COMPLETED,
                                hv_on_completed, NULL, MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
}

/* The URLs clients are told, the token's one showing, the line that says
 * where the server listens. */
static void announce(struct MHD_Daemon *d, int created)
{
    const union MHD_DaemonInfo *di = hv_mhd->get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    int port = di ? di->port : 0;
    hv_endpoint_url = http_config_url(&hv_cfg, port);
    if (hv_cfg.oauth) {
        /* https://host/mcp -> https://host/.well-known/oauth-protected-resource/mcp */
        const char *u = hv_endpoint_url;
        const char *path = strchr(strstr(u, "://") ? strstr(u, "://") + 3 : u, '/');
        int origin_len = path ? (int)(path - u) : (int)strlen(u);
        hv_metadata_url = str_printf("%.*s/.well-known/oauth-protected-resource%s", origin_len, u,
                                     path && strcmp(path, "/") ? path : "");
    }
    http_banner_init(&hv_cfg, hv_endpoint_url);
    if (created)
        http_banner_first_start(&hv_cfg, hv_endpoint_url, http_auth_token());
    char *local = NULL;
    if (hv_cfg.public_url) {
        http_config tmp = hv_cfg;
        tmp.public_url = NULL;
        local = http_config_url(&tmp, port);
    }
    char *ws = text_escape(host_workspace() ? host_workspace() : ".", 0);
    fprintf(stderr, "vthost: serving MCP over HTTP at %s (listening on %s, workspace %s)\n",
            hv_endpoint_url, local ? local : hv_endpoint_url, ws ? ws : ".");
    free(ws);
    free(local);
}

/* The catalog over HTTP (--catalog, [mcp] catalog): the registry's
 * listing is one for every session, so once a session's client gets the
 * whole catalog (full, or auto for a client that never re-lists) every
 * session lists it from then on, told by tools/list_changed.  It never
 * shrinks back: a session listing everything keeps every tool. */
static void catalog_for_client(const char *name, const char *version)
{
    if (!registry_listing_all() && mcp_catalog_full_for(name, version)) {
        registry_list_all(1);
        http_sessions_tools_changed(NULL);
    }
}

/* The front's shared state: the engines' host operations, the session
 * limits, the catalog's listing.  Set before the daemon starts, so that
 * its connection threads (started after) see it whole: a client that
 * read the port from the line announce() prints could otherwise send a
 * request before the limits or the call operations were set. */
static void front_init(void)
{
    /* One workspace for every client: roots never move it. */
    mcp_roots_enable(0);
    mcp_ops ops;
    mcp_host_ops(&ops);
    ops.client_info = catalog_for_client;
    registry_list_all(0);
    /* As on stdio: a deferred tool is callable once a search found it,
     * for the client that searched (registry_view.h). */
    registry_require_search(1);
    http_limits lim = {.max_per_owner = hv_cfg.max_sessions_per_client,
                       .max_sessions = hv_cfg.max_sessions,
                       .max_calls = hv_cfg.max_calls_per_session,
                       .idle_s = hv_cfg.idle_timeout_s,
                       .resume_s = hv_cfg.resume_window_s,
                       .idle_commands_s = hv_cfg.idle_commands_s};
    http_sessions_init(&ops, &lim);
    registry_dynamic_on_listed_change(http_sessions_tools_changed, NULL);
}

/* Serve until SIGTERM or SIGINT, expiring idle sessions; then accept
 * nothing new, let running calls finish within the grace period, cancel
 * them and end every session. */
static void serve_until_signal(struct MHD_Daemon *d)
{
    serve_signals saved;
    serve_signals_catch(on_signal, &saved);
    for (;;) {
        struct pollfd p = {.fd = wake_pipe[0], .events = POLLIN};
        if (poll(&p, 1, 1000) > 0)
            break;
        http_sessions_expire();
        http_jwt_tick();
        http_guard_sweep();
    }
    http_log_flush(); /* the requests served so far come before this line */
    fprintf(stderr, "vthost: stopping (%d session(s))\n", http_sessions_count());
    MHD_socket lfd = hv_mhd->quiesce_daemon(d);
    if (lfd != MHD_INVALID_SOCKET)
        close(lfd);
    http_sessions_shutdown(hv_cfg.shutdown_grace_s * 1000);
    http_stateless_reset();
    hv_mhd->stop_daemon(d);
    mcp_discover_forget();
    registry_dynamic_on_listed_change(NULL, NULL);
    serve_signals_restore(&saved);
}

int http_serve(const char *listen, const char *token_file)
{
    char *cert = NULL, *key = NULL;
    int created = 0;
    /* Request bodies of up to max_body_bytes grow on connection threads.
     * glibc raises its mmap threshold to the size of each large block
     * freed, so from the second body on they came from the thread's arena
     * and stayed there (84 MiB kept after 30 s of 16 clients): a fixed
     * threshold keeps every large buffer mmap'd, returned when freed. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
    /* Fixing that threshold fixes the trim threshold too (128 KiB): a
     * call's few hundred KiB were given back to the kernel after every
     * call and taken again page by page (an mprotect each) by the next.
     * A thread's arena keeps up to 1 MiB free instead. */
    mallopt(M_TRIM_THRESHOLD, 1024 * 1024);
    int rc = serve_open(listen, token_file, &created, &cert, &key);
    if (rc)
        return rc;
    front_init();
    set_ready(0);
    struct MHD_Daemon *d = daemon_start(cert, key);
    if (d) {
        announce(d, created);
        set_ready(1);
        serve_until_signal(d);
    } else {
        fprintf(stderr,
                "vthost serve --http: cannot listen on %s: %s (in use, or not an "
                "address of this machine)\n",
                hv_cfg.listen, strerror(errno));
        registry_dynamic_on_listed_change(NULL, NULL);
        rc = 1;
    }
    http_log_close();
    http_auth_close();
    http_banner_free();
    for (int i = 0; i < 2; i++) {
        if (wake_pipe[i] >= 0)
            close(wake_pipe[i]);
        wake_pipe[i] = -1;
    }
    free(cert);
    free(key);
    free(hv_endpoint_url);
    free(hv_metadata_url);
    hv_endpoint_url = hv_metadata_url = NULL;
    http_config_free(&hv_cfg);
    return rc;
}
