/* `vthost serve`: the MCP engine bound to the host's pipeline, registry
 * and logging, on a private copy of stdin/stdout. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "call_client.h"
#include "host.h"
#include "mcp.h"
#include "mcp_discover_cache.h"
#include "mcp_roots.h"
#include "mcp_server.h"
#include "permission.h"
#include "pipeline.h"
#include "profile.h"
#include "registry.h"
#include "registry_dynamic.h"
#include "registry_view.h"
#include "render.h"
#include "serve_signals.h"
#include "serve_workspace.h"
#include "shell_profile.h"
#include "strutil.h"

/* After end of input, calls already read get DRAIN_MS to finish and
 * answer (a script piping requests gets its answers); then they are
 * cancelled and get GRACE_MS to end.  Both together stay under the 2 s
 * after which the MCP SDK client follows its stdin close with SIGTERM. */
#define DRAIN_MS 300
#define GRACE_MS 1200

static mcp_server *volatile g_server;

static void on_stop_signal(int sig)
{
    (void)sig;
    if (g_server)
        mcp_server_stop(g_server);
}

/* How tools are listed ([mcp] catalog, --catalog): "deferred" lists the
 * profile's tools and lets search_tools add more (announced with
 * notifications/tools/list_changed); "full" lists every tool up front,
 * for clients that never list again; "auto" picks full for the clients
 * known to ignore list_changed and deferred for the others. */
static const char *catalog_option; /* --catalog, or NULL */

/* clientInfo.name prefixes of clients that list tools once per session
 * and ignore notifications/tools/list_changed (Codex CLI names itself
 * "codex-mcp-client"). */
static const char *const relist_never[] = {"codex", NULL};

int mcp_set_catalog_mode(const char *mode)
{
    if (strcmp(mode, "auto") && strcmp(mode, "full") && strcmp(mode, "deferred"))
        return -1;
    catalog_option = mode;
    return 0;
}

/* --catalog, else [mcp] catalog, else auto. */
static const char *catalog_mode(void)
{
    if (catalog_option)
        return catalog_option;
    const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(host_config(), "mcp");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(mcp, "catalog");
    if (!m)
        return "auto";
    if (cJSON_IsString(m) &&
        (strcmp(m->valuestring, "auto") == 0 || strcmp(m->valuestring, "full") == 0 ||
         strcmp(m->valuestring, "deferred") == 0))
        return m->valuestring;
    host_log(VT_LOG_WARNING, NULL,
             "[mcp] catalog must be \"auto\", \"full\" or \"deferred\"; using auto");
    return "auto";
}

static int never_relists(const char *name)
{
    for (size_t i = 0; name && relist_never[i]; i++)
        if (strncasecmp(name, relist_never[i], strlen(relist_never[i])) == 0)
            return 1;
    return 0;
}

/* A client-chosen string for the log: printable ASCII, bounded. */
static void printable(char *out, size_t size, const char *in)
{
    size_t n = 0;
    for (; in && *in && n + 1 < size; in++)
        out[n++] = (*in >= 0x20 && *in < 0x7f) ? *in : '?';
    out[n] = '\0';
}

int mcp_catalog_full_for(const char *name, const char *version)
{
    const char *mode = catalog_mode();
    int full = strcmp(mode, "full") == 0;
    if (strcmp(mode, "auto") == 0 && never_relists(name)) {
        full = 1;
        char who[65], ver[33];
        printable(who, sizeof who, name);
        printable(ver, sizeof ver, version);
        /* stderr, the client's MCP log: before initialize is answered
         * the client takes no notifications/message yet. */
        fprintf(stderr,
                "vthost: notice: client %s%s%s does not re-list tools after "
                "notifications/tools/list_changed: listing the whole tool catalog up "
                "front (--catalog full; pass --catalog deferred or set [mcp] catalog to "
                "change it)\n",
                who, ver[0] ? " " : "", ver);
    }
    return full;
}

/* Settles the listing for this client before initialize is answered. */
static void client_info(const char *name, const char *version)
{
    registry_list_all(mcp_catalog_full_for(name, version));
}

/* Lazy tool sources (MCP providers) started beside the listing: a
 * client that gives a server about a second (Codex) must not wait for a
 * slow provider; what they bring arrives with list_changed.  The thread
 * is detached: when the host closes, a source's fini ends the start
 * under way, whatever front end listed (stdio or HTTP). */
static pthread_mutex_t demand_mu = PTHREAD_MUTEX_INITIALIZER;
static int demand_running;

static void *demand_main(void *arg)
{
    (void)arg;
    registry_dynamic_demand(NULL);
    pthread_mutex_lock(&demand_mu);
    demand_running = 0;
    pthread_mutex_unlock(&demand_mu);
    return NULL;
}

/* Start the sources unless a start is under way already. */
static void demand_in_background(void)
{
    pthread_mutex_lock(&demand_mu);
    if (!demand_running) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t th;
        demand_running = pthread_create(&th, &attr, demand_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&demand_mu);
}

/* The listing as the client was last given it (printed), so that a
 * reopened workspace announces list_changed only when the tools differ. */
static pthread_mutex_t listed_mu = PTHREAD_MUTEX_INITIALIZER;
static char *last_listed;

static cJSON *listing(void)
{
    const tool_entry **list = NULL;
    size_t n = 0;
    cJSON *arr = cJSON_CreateArray();
    serve_workspace_read_lock();
    if (registry_listed(&list, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            cJSON *d = registry_describe(list[i], "mcp");
            if (d)
                cJSON_AddItemToArray(arr, d);
        }
    }
    serve_workspace_read_unlock();
    free(list);
    return arr;
}

static cJSON *list_tools(void)
{
    /* Listing everything up front includes the providers' tools: what is
     * known now (their cached lists) is answered at once, and they start
     * in the background. */
    if (registry_listing_all())
        demand_in_background();
    cJSON *arr = listing();
    char *text = cJSON_PrintUnformatted(arr);
    pthread_mutex_lock(&listed_mu);
    free(last_listed);
    last_listed = text;
    pthread_mutex_unlock(&listed_mu);
    return arr;
}

/* 1 when the listing differs from what the client was last given (a
 * client that has not listed yet will see the new one anyway). */
static int listing_changed(void)
{
    cJSON *arr = listing();
    char *now = cJSON_PrintUnformatted(arr);
    cJSON_Delete(arr);
    pthread_mutex_lock(&listed_mu);
    int changed = last_listed && (!now || strcmp(now, last_listed) != 0);
    pthread_mutex_unlock(&listed_mu);
    free(now);
    return changed;
}

/* Every call first settles the workspace (see serve_workspace.c). */
static int call_in_workspace(const call_request *req, call_result *out)
{
    int reopened = 0;
    const char *refused = serve_workspace_gate(&reopened);
    if (refused) {
        memset(out, 0, sizeof *out);
        out->status = CALL_DENIED;
        out->message = strdup(refused);
        out->response = cJSON_CreateObject();
        cJSON_AddBoolToObject(out->response, "success", 0);
        cJSON_AddStringToObject(out->response, "error", refused);
        return VT_ERR_DENIED;
    }
    int rc = pipeline_call(req, out);
    if (reopened && listing_changed())
        out->list_changed = 1; /* the root's vtcode.toml picked other tools */
    return rc;
}

/* [mcp] max_concurrent_calls: a positive integer, else the default. */
static int max_concurrent_calls(void)
{
    const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(host_config(), "mcp");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(mcp, "max_concurrent_calls");
    if (!n)
        return 0;
    /* Written so that NaN fails before the cast. */
    if (!cJSON_IsNumber(n) || !(n->valuedouble >= 1 && n->valuedouble <= 4096) ||
        n->valuedouble != (double)(int)n->valuedouble) {
        host_log(VT_LOG_WARNING, NULL,
                 "[mcp] max_concurrent_calls must be an integer from 1 to 4096; using 128");
        return 0;
    }
    return (int)n->valuedouble;
}

/* The tools/list ttlMs hint of the 2026-07-28 era: while search_tools can
 * add tools to this client's list it is never fresh; a whole catalog
 * listed up front changes only when the workspace is reopened. */
static int list_ttl_ms(void) { return registry_listing_all() ? 60000 : 0; }

/* [mcp] approval_timeout_seconds: how long a 2026-07-28 client has to
 * answer an approval (its requestState's lifetime); 0 for the default. */
static int approval_timeout_ms(void)
{
    const cJSON *mcp = cJSON_GetObjectItemCaseSensitive(host_config(), "mcp");
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(mcp, "approval_timeout_seconds");
    if (!n)
        return 0;
    if (!cJSON_IsNumber(n) || !(n->valuedouble >= 1 && n->valuedouble <= 86400) ||
        n->valuedouble != (double)(int)n->valuedouble) {
        host_log(VT_LOG_WARNING, NULL,
                 "[mcp] approval_timeout_seconds must be an integer from 1 to 86400; using 600");
        return 0;
    }
    return (int)n->valuedouble * 1000;
}

/* What to say about tools is the profile's ([instructions]); the host
 * adds the facts: profile, workspace, tools, shell, approval preset. */
static char *instructions(void)
{
    const char *shell;
    shell_profile_read(host_config(), &shell); /* refused at start when wrong */
    const profile *p = host_profile();
    const char *how = strcmp(shell, "powershell") == 0 ? p->shell_powershell : p->shell_unix;
    char *names = registry_listed_names();
    char *text = str_printf("vthost serves the '%s' tool profile for the workspace %s. Tools: %s. "
                            "Shell profile: %s%s%s. %s%sApproval preset: %s.",
                            host_profile_name() ? host_profile_name() : "default",
                            serve_workspace_label(), names ? names : "", shell, how ? "; " : "",
                            how ? how : "", p->instructions ? p->instructions : "",
                            p->instructions ? " " : "", permission_approval());
    free(names);
    return text;
}

/* instructions() reads the host (reopened only by serve_workspace), the
 * workspace label (also whether a client declared roots, its workspace
 * then still to come) and the tools this thread's client sees listed. */
static void instructions_stamp(uint64_t stamp[MCP_STAMP_WORDS])
{
    stamp[0] = serve_workspace_generation() << 1 | (uint64_t)(mcp_roots_expected() != 0);
    stamp[1] = registry_viewer();
    stamp[2] = registry_epoch(); /* the viewer's: moves with its finds */
}

/* Protocol traffic moves to private descriptors; fd 0 becomes /dev/null
 * and fd 1 a copy of stderr, so that neither a child process nor a stray
 * printf in a plugin can read or corrupt the JSON-RPC stream. */
static int take_stdio(int *in_fd, int *out_fd)
{
    *in_fd = fcntl(0, F_DUPFD_CLOEXEC, 3);
    *out_fd = fcntl(1, F_DUPFD_CLOEXEC, 3);
    if (*in_fd < 0 || *out_fd < 0)
        return -1;
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        close(null);
    }
    dup2(2, 1);
    return 0;
}

void mcp_host_ops(mcp_ops *ops)
{
    *ops = (mcp_ops){.call = call_in_workspace,
                     .list_tools = list_tools,
                     .render = render_text,
                     .instructions = instructions,
                     .list_ttl_ms = list_ttl_ms,
                     .instructions_stamp = instructions_stamp};
}

int mcp_host_max_calls(void) { return max_concurrent_calls(); }

int mcp_host_input_ttl_ms(void) { return approval_timeout_ms(); }

/* A person who starts `vthost serve` by hand sees a silent process that
 * seems to hang; a client never gives it a terminal on stdin.  Say once
 * what it is waiting for and how to try it. */
static void tell_a_person(void)
{
    if (!isatty(STDIN_FILENO))
        return;
    fputs("vthost serve: speaking MCP (JSON-RPC, one message a line) on stdin/stdout, for an "
          "MCP client to start it (see docs/clients.md); to try a tool by hand, use "
          "`vthost call TOOL '{...}'` (vthost help call). Ctrl-D or Ctrl-C ends it.\n",
          stderr);
}

int mcp_serve(void)
{
    int in_fd = -1, out_fd = -1;
    tell_a_person();
    if (take_stdio(&in_fd, &out_fd) < 0) {
        fprintf(stderr, "vthost serve: cannot set up stdin/stdout\n");
        return 1;
    }
    mcp_ops ops = {.call = call_in_workspace,
                   .list_tools = list_tools,
                   .render = render_text,
                   .instructions = instructions,
                   .client_info = client_info,
                   .list_ttl_ms = list_ttl_ms,
                   .instructions_stamp = instructions_stamp};
    mcp_server *s = mcp_server_new(in_fd, out_fd, &ops);
    if (!s) {
        fprintf(stderr, "vthost serve: out of memory\n");
        return 1;
    }
    g_server = s;
    mcp_server_set_max_calls(s, max_concurrent_calls());
    mcp_server_set_input_ttl(s, approval_timeout_ms());
    serve_signals saved;
    serve_signals_catch(on_stop_signal, &saved);
    host_set_log_sink(mcp_server_log, s);
    registry_require_search(1);
    registry_dynamic_on_listed_change(mcp_server_tools_changed, s);
    call_client_bind(mcp_server_client_caps, s);

    int rc = mcp_server_run(s, DRAIN_MS, GRACE_MS);
    registry_dynamic_on_listed_change(NULL, NULL);
    call_client_bind(NULL, NULL);

    serve_signals_restore(&saved);
    if (rc == 0) {
        host_set_log_sink(NULL, NULL);
        g_server = NULL;
        mcp_server_free(s);
    }
    mcp_discover_forget();
    /* else: a call ignored its cancellation and still uses the server;
     * it stays allocated (and keeps the log sink) until the process
     * exits after host_close; so do its descriptors. */
    if (rc == 0) {
        close(in_fd);
        close(out_fd);
    }
    return 0;
}
