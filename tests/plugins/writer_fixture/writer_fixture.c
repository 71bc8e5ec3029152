/* A "third-party" plugin with one tool, write_files, marked as writing
 * the workspace (VT_EFFECT_MUTATES_WORKSPACE) and declaring no path
 * subject: {"files": {"relative/path": "text", ...}} writes each file,
 * making its directories.  The host must judge what it left behind from
 * the workspace itself. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

static VT_PLUGIN_API(g_api);

/* Make the directories above `path` (a writable copy). */
static int make_parents(char *path)
{
    for (char *s = strchr(path + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = '\0';
        int rc = mkdir(path, 0755);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

static int write_one(const char *root, const char *rel, const char *text)
{
    char path[4096];
    if (rel[0] == '/' || strstr(rel, "..") ||
        snprintf(path, sizeof path, "%s/%s", root, rel) >= (int)sizeof path)
        return -1;
    if (make_parents(path) != 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return -1;
    size_t n = strlen(text);
    int rc = write(fd, text, n) == (ssize_t)n ? 0 : -1;
    close(fd);
    return rc;
}

static int write_files(vt_call *call, const cJSON *args, cJSON **result)
{
    const cJSON *files = cJSON_GetObjectItemCaseSensitive(args, "files");
    if (!cJSON_IsObject(files))
        return g_api->call_error(call, VT_ERR_INVALID, "files: an object of path: text");
    const char *root = g_api->workspace_root();
    int n = 0;
    const cJSON *f;
    cJSON_ArrayForEach(f, files)
    {
        if (!cJSON_IsString(f) || write_one(root, f->string, f->valuestring) != 0)
            return g_api->call_error(call, VT_ERR_IO, "could not write %s", f->string);
        n++;
    }
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return g_api->call_error(call, VT_ERR_NOMEM, "out of memory");
    cJSON_AddNumberToObject(r, "written", n);
    *result = r;
    return 0;
}

static const vt_tool tools[] = {
    {.name = "write_files",
     .description = "Write files in the workspace.",
     .input_schema = "{\"type\":\"object\",\"properties\":{\"files\":{\"type\":\"object\"}},"
                     "\"required\":[\"files\"]}",
     .effects = VT_EFFECT_MUTATES_WORKSPACE,
     .run = write_files},
    {0},
};

static const vt_plugin writer_plugin = {
    VT_PLUGIN_HEADER,
    .name = "writer_fixture",
    .version = "1.0.0",
    .license = "MIT",
    .api_slot = &g_api,
    .tools = tools,
};

VT_PLUGIN_ENTRY(writer_plugin)
