/* A third-party-style plugin for the host's after-call check and host
 * events (tests/integration/workspace/writer_events.py):
 * - fixture_plant_repo, marked as writing the workspace but declaring no
 *   path subjects, makes DIR/.git (HEAD, objects/, refs/ and a config
 *   whose core.fsmonitor runs CMD): what a careless or hostile writer
 *   leaves behind, which only a check of the whole workspace finds;
 * - fixture_events (read-only) says how many host events of each kind
 *   the plugin's subscription received, and the last call that ended.
 * It builds against an SDK without host events too (then it only
 * plants), so that the same test can run against an older host. */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>
#include <vthost/services.h>

static VT_PLUGIN_API(api);

static int put(int dirfd, const char *name, const char *text)
{
    int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

static int plant_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *dir = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "dir"));
    const char *cmd = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(args, "fsmonitor"));
    if (!dir || !cmd || strstr(dir, ".."))
        return api->call_error(call, VT_ERR_INVALID, "dir and fsmonitor are required");
    char path[4096], config[1024];
    snprintf(path, sizeof path, "%s/%s", api->workspace_root(), dir);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/%s/.git", api->workspace_root(), dir);
    mkdir(path, 0755);
    int g = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    snprintf(config, sizeof config,
             "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = %s\n", cmd);
    int rc = g >= 0 && mkdirat(g, "objects", 0755) == 0 && mkdirat(g, "refs", 0755) == 0 &&
                     put(g, "HEAD", "ref: refs/heads/main\n") == 0 && put(g, "config", config) == 0
                 ? VT_OK
                 : VT_ERR_IO;
    if (g >= 0)
        close(g);
    if (rc != VT_OK)
        return api->call_error(call, rc, "cannot plant %s", path);
    *result = cJSON_CreateObject();
    cJSON_AddStringToObject(*result, "planted", dir);
    return VT_OK;
}

#ifdef VT_EVENTS_SERVICE
static atomic_int seen[4];
static atomic_int writer_calls;
static int sub_id;
static const vt_events_v1 *events;

static void on_event(const vt_event *ev, void *user)
{
    (void)user;
    for (int i = 0; i < 4; i++)
        if (ev->kind == 1u << i)
            atomic_fetch_add(&seen[i], 1);
    if (ev->kind == VT_EVENT_CALL_ENDED && ev->writer)
        atomic_fetch_add(&writer_calls, 1);
}
#endif

static int events_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    (void)args;
    cJSON *r = cJSON_CreateObject();
#ifdef VT_EVENTS_SERVICE
    cJSON_AddBoolToObject(r, "subscribed", sub_id > 0);
    cJSON_AddNumberToObject(r, "call_ended", seen[0]);
    cJSON_AddNumberToObject(r, "session_ended", seen[1]);
    cJSON_AddNumberToObject(r, "workspace_changed", seen[2]);
    cJSON_AddNumberToObject(r, "session_started", seen[3]);
    cJSON_AddNumberToObject(r, "writer_calls", writer_calls);
#else
    cJSON_AddBoolToObject(r, "subscribed", 0);
#endif
    *result = r;
    return VT_OK;
}

static int fixture_init(const vt_host_api *host, char **errmsg)
{
    (void)host;
    (void)errmsg;
#ifdef VT_EVENTS_SERVICE
    events = api->service_lookup(VT_EVENTS_SERVICE);
    if (events && events->struct_size >= sizeof *events)
        sub_id = events->subscribe(VT_EVENT_CALL_ENDED | VT_EVENT_SESSION_ENDED |
                                       VT_EVENT_WORKSPACE_CHANGED | VT_EVENT_SESSION_STARTED,
                                   on_event, NULL);
#endif
    return VT_OK;
}

static void fixture_fini(void)
{
#ifdef VT_EVENTS_SERVICE
    if (events && sub_id > 0)
        events->unsubscribe(sub_id);
    sub_id = 0;
#endif
}

static const vt_tool tools[] = {
    {.name = "fixture_plant_repo",
     .description = "Make DIR/.git with a config whose core.fsmonitor runs a command.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"dir\":{\"type\":\"string\"},"
                     "\"fsmonitor\":{\"type\":\"string\"}},\"required\":[\"dir\",\"fsmonitor\"]}",
     .effects = VT_EFFECT_MUTATES_WORKSPACE,
     .run = plant_run},
    {.name = "fixture_events",
     .description = "How many host events of each kind this plugin received.",
     .input_schema = "{\"type\":\"object\",\"properties\":{}}",
     .effects = VT_EFFECT_READ_ONLY,
     .run = events_run},
    {0},
};

static const vt_plugin descriptor = {
    VT_PLUGIN_HEADER, .name = "events_fixture", .version = "0.1.0", .license = "MIT",
    .api_slot = &api, .tools = tools, .init = fixture_init, .fini = fixture_fini,
};

VT_PLUGIN_ENTRY(descriptor)
