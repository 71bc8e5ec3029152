/*
 * wordtools: a third-party vthost plugin, built only against the
 * installed SDK (pkg-config vthost-plugin, or find_package(vthost-plugin)).
 *
 *   word_count  a typed tool: a plain C function plus a signature string.
 *               The host derives the input schema from the signature,
 *               validates the arguments and calls the function through
 *               libffi; the return value comes back as {"result": N}.
 *   file_head   a JSON tool with all three hooks: preflight (pure
 *               validation), subjects (what the call reads, so permission
 *               rules can match it) and run.
 *
 * Neither tool is in a profile, so both are deferred: not in the tool
 * list until search_tools finds them.
 */
#define _POSIX_C_SOURCE 200809L /* getline, ssize_t */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <vthost/plugin.h>

/* Bounds the memory one call takes; larger files count as unreadable. */
#define WT_MAX_BYTES (16u << 20)

/* The host API table: the host sets it (through .api_slot below) before
 * any hook runs, so this plugin needs no init. */
static VT_PLUGIN_API(api);

/* Both tools read the file named by "path".  Reporting it lets a path
 * rule on the tool (see README.md) deny the call before the tool runs;
 * the host resolves the path against the workspace itself. */
static int wt_subjects(vt_call *call, const cJSON *args, vt_subjects *out)
{
    (void)call;
    const cJSON *path = cJSON_GetObjectItemCaseSensitive(args, "path");
    if (!cJSON_IsString(path))
        return VT_OK; /* the schema makes it required; nothing to report */
    return api->subject_add(out, VT_SUBJECT_PATH_READ, path->valuestring);
}

/* ---- word_count: the typed tool ------------------------------------ */

/* Reads a regular workspace file whole.  NULL when it is outside the
 * workspace, missing, not a regular file, unreadable or larger than
 * WT_MAX_BYTES. */
static char *read_workspace_file(const char *path, size_t *len)
{
    char *abs = NULL;
    if (api->resolve_path(path, VT_RESOLVE_MUST_EXIST, &abs) != VT_OK)
        return NULL;
    FILE *f = fopen(abs, "rb");
    api->free(abs);
    if (!f)
        return NULL;
    struct stat st;
    char *buf = NULL;
    size_t n = 0;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size <= WT_MAX_BYTES) {
        /* One byte more than the size shows a file that grew meanwhile. */
        size_t want = (size_t)st.st_size + 1;
        buf = malloc(want + 1);
        n = buf ? fread(buf, 1, want, f) : 0;
        if (buf && (ferror(f) || n == want)) {
            free(buf);
            buf = NULL;
        }
    }
    fclose(f);
    if (!buf)
        return NULL;
    buf[n] = '\0';
    *len = n;
    return buf;
}

static int cmp_words(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The signature below describes exactly this prototype: string is a
 * borrowed const char *, bool is C bool, int64 is int64_t. */
static int64_t word_count(const char *path, bool unique)
{
    size_t len = 0;
    char *text = read_workspace_file(path, &len);
    if (!text)
        return -1;
    /* Cut the text into NUL-terminated words in place. */
    size_t cap = len / 2 + 1, n = 0;
    char **words = malloc(cap * sizeof *words);
    for (char *p = text; words && *p;) {
        while (*p && is_blank(*p))
            *p++ = '\0';
        if (!*p)
            break;
        words[n++] = p;
        while (*p && !is_blank(*p))
            p++;
    }
    int64_t count = -1;
    if (words && !unique) {
        count = (int64_t)n;
    } else if (words) {
        qsort(words, n, sizeof *words, cmp_words);
        count = 0;
        for (size_t i = 0; i < n; i++)
            if (i == 0 || strcmp(words[i - 1], words[i]) != 0)
                count++;
    }
    free(words);
    free(text);
    return count;
}

/* ---- file_head: the JSON tool --------------------------------------- */

#define WT_DEFAULT_LINES 10

/* Pure: no I/O.  The schema already checked types and ranges. */
static int file_head_preflight(vt_call *call, const cJSON *args)
{
    const char *path = cJSON_GetObjectItemCaseSensitive(args, "path")->valuestring;
    size_t n = strlen(path);
    if (n > 0 && path[n - 1] == '/')
        return api->call_error(call, VT_ERR_INVALID, "path: '%s' names a directory; give a file",
                               path);
    return VT_OK;
}

static int file_head_run(vt_call *call, const cJSON *args, cJSON **result)
{
    const char *path = cJSON_GetObjectItemCaseSensitive(args, "path")->valuestring;
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive(args, "lines");
    long want = cJSON_IsNumber(lines) ? (long)lines->valuedouble : WT_DEFAULT_LINES;

    char *abs = NULL;
    int rc = api->resolve_path(path, VT_RESOLVE_MUST_EXIST, &abs);
    if (rc == VT_ERR_OUTSIDE)
        return api->call_error(call, rc, "path: '%s' is outside the workspace", path);
    if (rc != VT_OK)
        return api->call_error(call, rc, "path: '%s' does not exist in the workspace", path);
    FILE *f = fopen(abs, "r");
    api->free(abs);
    struct stat st;
    if (!f)
        return api->call_error(call, VT_ERR_IO, "path: cannot open '%s'", path);
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        return api->call_error(call, VT_ERR_INVALID, "path: '%s' is not a regular file", path);
    }

    /* The lines go to the spool: the host puts them in "output" under
     * the call's token budget, however long they are. */
    vt_spool *sp = api->spool_open(call);
    char *line = NULL;
    size_t cap = 0;
    long got = 0;
    ssize_t n;
    rc = sp ? VT_OK : VT_ERR_NOMEM;
    while (rc == VT_OK && got < want && (n = getline(&line, &cap, f)) > 0) {
        rc = api->spool_write(sp, line, (size_t)n);
        got++;
    }
    free(line);
    fclose(f);
    if (rc != VT_OK)
        return api->call_error(call, rc, "path: cannot read '%s'", path);

    *result = cJSON_CreateObject();
    if (!*result)
        return VT_ERR_NOMEM;
    cJSON_AddBoolToObject(*result, "success", 1);
    cJSON_AddStringToObject(*result, "path", path);
    cJSON_AddNumberToObject(*result, "lines", (double)got);
    return VT_OK;
}

static const vt_tool tools[] = {
    {
        .name = "word_count",
        .description = "Count the words (runs of non-blank characters) in a text file of "
                       "the workspace; with unique, count distinct words. Returns -1 when "
                       "the file cannot be read.",
        .signature = "int64 word_count(string path: \"Text file, relative to the workspace "
                     "root.\", bool unique: \"Count each distinct word once.\")"
                     ": \"The number of words, or -1 when the file cannot be read.\"",
        .typed_fn = (void (*)(void))word_count,
        .effects = VT_EFFECT_READ_ONLY | VT_EFFECT_IDEMPOTENT,
        .flags = VT_TOOL_DEFERRED,
        .subjects = wt_subjects,
        .title = "Count words in a file",
    },
    {
        .name = "file_head",
        .description = "Show the first lines of a text file in the workspace.",
        .input_schema =
            "{\"type\":\"object\","
            "\"properties\":{"
            "\"path\":{\"type\":\"string\",\"minLength\":1,"
            "\"description\":\"File to show, relative to the workspace root.\"},"
            "\"lines\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":10,"
            "\"description\":\"How many lines to show (1-1000, default 10).\"}},"
            "\"required\":[\"path\"],"
            "\"additionalProperties\":false}",
        .effects = VT_EFFECT_READ_ONLY | VT_EFFECT_IDEMPOTENT,
        .flags = VT_TOOL_DEFERRED,
        .preflight = file_head_preflight,
        .subjects = wt_subjects,
        .run = file_head_run,
        .title = "Show the start of a file",
        .output_schema = "{\"type\":\"object\",\"properties\":{"
                         "\"success\":{\"type\":\"boolean\"},"
                         "\"path\":{\"type\":\"string\"},"
                         "\"lines\":{\"type\":\"integer\",\"description\":\"Lines shown.\"},"
                         "\"output\":{\"type\":\"string\",\"description\":\"The lines.\"}},"
                         "\"required\":[\"success\",\"path\",\"lines\"]}",
    },
    {0},
};

static const vt_plugin plugin = {
    VT_PLUGIN_HEADER, .name = "wordtools", .version = "1.0.0",
    .license = "MIT", .tools = tools,      .api_slot = &api,
};

VT_PLUGIN_ENTRY(plugin)
