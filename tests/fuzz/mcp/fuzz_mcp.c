/* libFuzzer target for the MCP message reader and dispatcher: the input
 * is a stream of lines fed through the line reader into the JSON-RPC
 * dispatcher, with a scripted tool backend (calls run inline).  Every
 * answer goes to /dev/null; the sanitizers judge.  The same bytes are
 * also read as a client root's URI (as given, and after "file:///"). */
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "file_uri.h"
#include "mcp_server.h"

static int fake_call(const call_request *req, call_result *out)
{
    memset(out, 0, sizeof *out);
    out->response = cJSON_CreateObject();
    const char *t = req->tool;
    if (strcmp(t, "echo") == 0) {
        cJSON_AddItemToObject(out->response, "args",
                              req->args ? cJSON_Duplicate(req->args, 1) : cJSON_CreateNull());
    } else if (strcmp(t, "fail") == 0) {
        out->status = CALL_TOOL_FAILED;
        out->message = strdup("failed");
    } else if (strcmp(t, "progress") == 0) {
        req->fe->progress(req->fe->ctx, 1, 2, "half");
        req->fe->progress(req->fe->ctx, 2, 2, NULL);
    } else if (strcmp(t, "expand") == 0) {
        out->list_changed = 1;
    } else if (strcmp(t, "cancelled") == 0) {
        out->status = CALL_CANCELLED;
    } else {
        out->status = CALL_UNKNOWN;
        out->message = strdup("Unknown tool");
        return -2;
    }
    return 0;
}

static cJSON *fake_list(void)
{
    return cJSON_Parse("[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int sink = -1;
    if (sink < 0)
        sink = open("/dev/null", O_WRONLY | O_CLOEXEC);
    mcp_ops ops = {.call = fake_call, .list_tools = fake_list};
    mcp_server *s = mcp_server_new(-1, sink, &ops);
    if (!s)
        return 0;
    mcp_server_run_mem(s, data, size);
    mcp_server_free(s);

    char *uri = malloc(size + 9);
    if (!uri)
        return 0;
    memcpy(uri, "file:///", 8);
    memcpy(uri + 8, data, size);
    uri[size + 8] = '\0';
    size_t slen = strlen(uri);
    for (int k = 0; k < 2; k++) {
        char *path = file_uri_path(k ? uri : uri + 8);
        if (path && (path[0] != '/' || strlen(path) > slen))
            abort();
        free(path);
    }
    free(uri);
    return 0;
}
