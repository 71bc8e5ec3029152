/* exec_command's use of the filtering proxy (netproxy.h): started for a
 * sandboxed call whose configuration lists domains, its refusals and
 * byte counts put in the call's result. */
#ifndef VTHOST_EXEC_EXEC_NETPROXY_H
#define VTHOST_EXEC_EXEC_NETPROXY_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>
#include "netproxy.h"
#include "spawn.h"

/* Start the proxy of the session `req` starts under `rules`; *env gets
 * the proxy's variables (req->envp follows).  0 or a vt_status. */
int exec_netproxy_begin(vt_call *call, const netproxy_rules *rules, spawn_req *req, char ***env,
                        netproxy **out);
/* After the run: the hand-over socket's host copy closed, and `result`
 * (may be NULL) given "network": {sent, received, connections, refused}
 * plus one warning per refused host.  Releases np. */
void exec_netproxy_end(vt_call *call, netproxy *np, spawn_req *req, cJSON *result);
/* write_stdin (vt_sessions_v1.write_and_wait) for a session that may
 * have a proxy: the session's client can be asked about a domain while
 * the call runs, and the result names the hosts refused since the last
 * call and the session's byte counts, as exec_command's does. */
int exec_netproxy_write_and_wait(vt_call *call, int64_t id, const char *chars, size_t len,
                                 int yield_ms, cJSON **result);
/* Forget the answers kept for client sessions and the proxies of
 * running sessions (the plugin's fini). */
void exec_netproxy_fini(void);

#endif
