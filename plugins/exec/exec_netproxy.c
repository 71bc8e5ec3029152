/* The filtering proxy around one exec_command call (exec_netproxy.h). */
#include "exec_netproxy.h"

#include <stdlib.h>
#include <unistd.h>
#include "session.h"

/* Every decision is logged (the audit trail of what commands reached). */
static int decide(void *ud, const char *host, unsigned port, netproxy_verdict v, char *why,
                  size_t whysz)
{
    (void)ud;
    (void)whysz;
    api->log(v == NETPROXY_ALLOWED ? VT_LOG_INFO : VT_LOG_NOTICE, "exec",
             "sandbox network: %s %s port %u (%s)", v == NETPROXY_ALLOWED ? "allowed" : "refused",
             host, port, why);
    return v == NETPROXY_ALLOWED ? 0 : -1;
}

int exec_netproxy_begin(vt_call *call, const netproxy_rules *rules, spawn_req *req, char ***env,
                        netproxy **out)
{
    int fd = -1;
    int rc = netproxy_start(rules, decide, NULL, out, &fd);
    if (rc != VT_OK) {
        if (fd >= 0)
            close(fd);
        netproxy_release(*out);
        *out = NULL;
        return api->call_error(call, rc, "cannot start the sandbox's network proxy");
    }
    char **e = netproxy_env(*env);
    if (!e) {
        close(fd);
        netproxy_release(*out);
        *out = NULL;
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    }
    *env = e;
    req->envp = e;
    req->netproxy_fd = fd;
    return VT_OK;
}

void exec_netproxy_end(vt_call *call, netproxy *np, spawn_req *req, cJSON *result)
{
    if (req->netproxy_fd > 2)
        close(req->netproxy_fd);
    req->netproxy_fd = 0;
    if (!np)
        return;
    if (result && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(result, "is_exited")))
        netproxy_settle(np, 1000);
    char **refused = netproxy_take_refusals(np);
    netproxy_stats st;
    netproxy_get_stats(np, &st);
    cJSON *o = result ? cJSON_AddObjectToObject(result, "network") : NULL;
    if (o) {
        cJSON_AddNumberToObject(o, "sent_bytes", (double)st.sent);
        cJSON_AddNumberToObject(o, "received_bytes", (double)st.received);
        cJSON_AddNumberToObject(o, "connections", st.connections);
        if (st.capped)
            cJSON_AddNumberToObject(o, "connections_refused_at_cap", st.capped);
    }
    cJSON *list = o ? cJSON_AddArrayToObject(o, "refused") : NULL;
    for (size_t i = 0; refused && refused[i]; i++) {
        api->call_warn(call, "%s", refused[i]);
        if (list)
            cJSON_AddItemToArray(list, cJSON_CreateString(refused[i]));
        free(refused[i]);
    }
    free(refused);
    netproxy_release(np);
}
