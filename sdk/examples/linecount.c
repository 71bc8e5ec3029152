/*
 * linecount: the smallest useful file tool, built only against the
 * installed SDK.  `line_count` takes a path in the workspace, refuses
 * anything but a regular file, and answers with its number of lines.
 *
 * What every file tool does, in order:
 *   1. subjects: report the path it reads, so permission rules on the
 *      tool (`line_count(/secret/...)`) apply before it runs;
 *   2. run: resolve the path with api->resolve_path, which refuses a
 *      path that leaves the workspace (through "..", an absolute path or
 *      a symbolic link) before anything is opened;
 *   3. open what was resolved and check what it is on the open file
 *      (fstat), not on the name, so a swap between check and use cannot
 *      turn a file into a directory or a device;
 *   4. say what went wrong and what to do with api->call_error.
 */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC under -std=c17 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

/* The host stores its API table here before any hook runs (.api_slot). */
static VT_PLUGIN_API(api);

static int lc_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
    return cJSON_IsString(path) ? api->subject_add(out, VT_SUBJECT_PATH_READ, path->valuestring)
                                : VT_OK;
}

/* Lines in the open file: newlines, plus a last line without one. */
static int count_lines(int fd, uint64_t *lines)
{
    char buf[65536];
    char last = '\n';
    ssize_t n;
    *lines = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        for (ssize_t i = 0; i < n; i++)
            *lines += buf[i] == '\n';
        last = buf[n - 1];
    }
    if (n < 0)
        return -1;
    *lines += last != '\n';
    return 0;
}

static int lc_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *path = cJSON_GetObjectItemCaseSensitive(args, "path")->valuestring;
    char *abs = NULL;
    int rc = api->resolve_path(path, VT_RESOLVE_MUST_EXIST, &abs);
    if (rc == VT_ERR_OUTSIDE)
        return api->call_error(call, rc, "%s is outside the workspace: name a file inside it",
                               path);
    if (rc != VT_OK)
        return api->call_error(call, rc, "%s does not exist: name an existing file", path);
    int fd = open(abs, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    int err = errno;
    api->free(abs);
    if (fd < 0)
        return api->call_error(call, VT_ERR_IO, "cannot open %s: %s", path, strerror(err));
    struct stat st;
    uint64_t lines = 0;
    if (fstat(fd, &st) != 0) {
        err = errno;
        close(fd);
        return api->call_error(call, VT_ERR_IO, "cannot examine %s: %s", path, strerror(err));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return api->call_error(call, VT_ERR_INVALID,
                               "%s is %s, not a regular file: name a file to count its lines", path,
                               S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    }
    rc = count_lines(fd, &lines);
    close(fd);
    if (rc != 0)
        return api->call_error(call, VT_ERR_IO, "cannot read %s", path);
    *result = cJSON_CreateObject();
    if (!*result || !cJSON_AddBoolToObject(*result, "success", 1) ||
        !cJSON_AddStringToObject(*result, "path", path) ||
        !cJSON_AddNumberToObject(*result, "lines", (double)lines))
        return api->call_error(call, VT_ERR_NOMEM, "out of memory");
    return VT_OK;
}

static const vt_tool tools[] = {
    {
        .name = "line_count",
        .description = "Count the lines of a text file in the workspace.",
        .input_schema = "{\"type\":\"object\",\"properties\":{"
                        "\"path\":{\"type\":\"string\",\"minLength\":1,"
                        "\"description\":\"The file, relative to the workspace root.\"}},"
                        "\"required\":[\"path\"],\"additionalProperties\":false}",
        .effects = VT_EFFECT_READ_ONLY | VT_EFFECT_IDEMPOTENT,
        .flags = VT_TOOL_DEFERRED,
        .subjects = lc_subjects,
        .run = lc_run,
        .title = "Count the lines of a file",
    },
    {0},
};

static const vt_plugin plugin = {
    VT_PLUGIN_HEADER, .name = "linecount", .version = "1.0.0",
    .license = "MIT", .tools = tools,      .api_slot = &api,
};

VT_PLUGIN_ENTRY(plugin)
