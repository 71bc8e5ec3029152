/* Fuzz target for what the mcp_providers plugin reads from outside:
 *   first byte % 3 == 0: the byte stream a provider process writes (its
 *     JSON-RPC lines: requests to us, notifications, responses to two
 *     requests in flight), through the plugin's own read loop;
 *   == 1: a tools/list result's "tools" array, registered, registered
 *     again, then withdrawn;
 *   == 2: vtcode.toml text, through the host's TOML reader, into the
 *     [mcp] / [[mcp.providers]] configuration loader.
 * stdio_transport.c is included so its file-local reader is reached
 * exactly as the provider's I/O thread runs it (and provider.c, which
 * it hands each message to, for the waits' layout); the host API is a stub. */
/* First, as its own translation unit would see it (it defines
 * _GNU_SOURCE itself). */
#undef _GNU_SOURCE
#include "../../../plugins/mcp_providers/stdio_transport.c"
#undef _GNU_SOURCE
#include "../../../plugins/mcp_providers/provider.c"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "toml_reader.h"
#include "tools.h"
#include "../fuzz_input.h"
#include "provider_stubs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int stub_tool_add(const char *plugin, const vt_tool *tool, size_t sizeof_tool,
                         const char *annotations)
{
    (void)plugin;
    (void)sizeof_tool;
    (void)annotations;
    if (!tool->name || !tool->description || !tool->input_schema)
        abort();
    return VT_OK;
}

static int stub_tool_remove(const char *plugin, const char *name)
{
    (void)plugin;
    (void)name;
    return VT_OK;
}

/* tools.c names the shared run hook; never called here. */
int mcpp_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    (void)args;
    (void)result;
    abort();
}

static vt_host_api api;

static void setup(void)
{
    if (api.log)
        return;
    api.log = stub_log;
    api.call_progress = stub_progress;
    api.call_cancelled = stub_cancelled;
    api.workspace_root = stub_root;
    api.tool_add = stub_tool_add;
    api.tool_remove = stub_tool_remove;
    mcpp_api = &api;
}

/* What the plugin answers a provider's requests is sent nowhere. */
static int discard_send(provider *p, const char *text, const transport_req *req)
{
    (void)p;
    (void)text;
    (void)req;
    return 0;
}

static const transport_ops discard_transport = {.name = "fuzz", .send = discard_send};

static void fuzz_stream(const uint8_t *data, size_t size)
{
    int fds[2]; /* a socket, as the provider's stdout is */
    if (size > 60000 || socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
        return;
    if (write(fds[1], data, size) != (ssize_t)size)
        abort();
    close(fds[1]);
    provider p;
    provider_init(&p);
    p.name = "fz";
    p.tp = &discard_transport;
    p.lim.max_message = 1024;  /* small, so the size limit is reached */
    p.lim.relay_per_call = 4; /* small, so the bounds are reached */
    p.lim.relay_per_minute = 6;
    rpc_wait w[2] = {{.id = 1}, {.id = 2, .next = NULL}};
    w[0].next = &w[1];
    vt_call *fake_call = (vt_call *)&w[1];  /* only passed to the stubs */
    w[1].call = fake_call;
    provider_deadline(&w[1].deadline, 60000); /* in flight: requests queue for it */
    p.waits = &w[0];
    /* no child: its death is never seen (the stream's end is) */
    char *why = read_loop(&p, fds[0], getpid(), -1);
    close(fds[0]);
    for (int i = 0; i < 2; i++) {
        if (w[i].reply && !cJSON_IsObject(w[i].reply))
            abort();
        if (w[i].queued != cJSON_GetArraySize(w[i].incoming) || w[i].queued > RELAY_QUEUE_MAX ||
            w[i].relayed > p.lim.relay_per_call)
            abort(); /* the relay queue stays within its bounds */
        cJSON_Delete(w[i].reply);
        cJSON_Delete(w[i].incoming);
        free(w[i].err);
    }
    free(why);
    free(p.reason);
}

static void fuzz_tools(const uint8_t *data, size_t size)
{
    cJSON *tools = cJSON_ParseWithLength((const char *)data, size);
    if (!tools)
        return;
    provider p;
    provider_init(&p);
    p.name = "fz";
    tools_sync(&p, cJSON_Duplicate(tools, 1));
    size_t n = tools_count(&p);
    if (n > (size_t)cJSON_GetArraySize(tools))
        abort();
    cJSON_Delete(tools_describe(&p));
    tools_mark(&p, 0);
    tools_sync(&p, tools); /* the same list again: nothing changes */
    if (tools_count(&p) != n)
        abort();
    tools_sync(&p, cJSON_CreateArray());
    if (tools_count(&p) != 0)
        abort();
    free(p.reason);
}

static void fuzz_config(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    if (!text)
        return;
    cJSON *root = NULL;
    char *err = NULL;
    if (toml_read_string(text, "fuzz.toml", &root, &err) == 0) {
        mcpp_config c;
        char *cerr = NULL;
        int rc = mcpp_config_load(root, "/nonexistent/fuzz-workspace", &c, &cerr);
        if (rc == 0) {
            if (cerr)
                abort();
            for (size_t i = 0; i < c.count; i++)
                if (!c.providers[i]->name || !c.providers[i]->prefix)
                    abort();
        } else if (!cerr) {
            abort(); /* a refusal says why */
        }
        mcpp_config_free(&c); /* also what a refusal left */
        free(cerr);
    }
    cJSON_Delete(root);
    free(err);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    setup();
    switch (data[0] % 3) {
    case 0:
        fuzz_stream(data + 1, size - 1);
        break;
    case 1:
        fuzz_tools(data + 1, size - 1);
        break;
    default:
        fuzz_config(data + 1, size - 1);
        break;
    }
    return 0;
}
