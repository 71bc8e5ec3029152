/* CLI commands: call, explain, tools, plugins.  Every call goes through
 * pipeline_call like any other front end. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "json_exact.h"
#include "host.h"
#include "loader.h"
#include "pipeline.h"
#include "registry.h"
#include "render.h"
#include "strutil.h"

static atomic_int interrupted;

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&interrupted, 1);
}

/* Parse the call's JSON argument ("-" reads stdin).  Exit code 2 on error. */
static int parse_args(const char *json, cJSON **out)
{
    char *owned = NULL;
    if (!json)
        json = "{}";
    else if (strcmp(json, "-") == 0)
        json = owned = file_read_all(stdin);
    if (!json) {
        fprintf(stderr, "vthost: cannot read arguments from stdin\n");
        return 2;
    }
    const char *end = NULL;
    /* Numbers keep their text: 1.0 is not an integer literal. */
    *out = json_parse_exact(json, strlen(json), &end);
    if (*out && end && end[strspn(end, " \t\r\n")]) {
        cJSON_Delete(*out);
        *out = NULL;
    }
    if (!*out) {
        fprintf(stderr, "vthost: arguments are not valid JSON (near byte %ld); pass one "
                "JSON object, e.g. '{\"cmd\":\"ls\"}'\n", end ? (long)(end - json) : 0L);
        free(owned);
        return 2;
    }
    free(owned);
    return 0;
}

/* A question on the controlling terminal, or the --yes/--no answer. */
static int cli_prompt(void *ctx, const cJSON *request)
{
    const cli_options *o = ctx;
    if (o->answer >= 0)
        return o->answer;
    int fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -1;
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(request, "message");
    char *text = cJSON_IsString(m) ? NULL : cJSON_Print(request);
    dprintf(fd, "\nvthost: permission needed\n%s\nApprove once? [y/N] ",
            cJSON_IsString(m) ? m->valuestring : text);
    free(text);
    char answer[16] = "";
    ssize_t n = read(fd, answer, sizeof answer - 1);
    close(fd);
    return n > 0 && (answer[0] == 'y' || answer[0] == 'Y');
}

static void print_json(const cJSON *v)
{
    char *s = cJSON_PrintUnformatted(v);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
    }
    free(s);
}

static int exit_code(call_status st)
{
    switch (st) {
    case CALL_OK: return 0;
    case CALL_INVALID: return 2;
    case CALL_UNKNOWN: return 2;
    default: return 1;
    }
}

int cli_call(const char *tool, const char *json, const cli_options *o)
{
    cJSON *args = NULL;
    int rc = parse_args(json, &args);
    if (rc)
        return rc;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    frontend fe = {.ctx = (void *)o, .prompt = cli_prompt};
    call_request req = {.tool = tool, .args = args, .agent = o->agent, .fe = &fe,
                        .cancel = &interrupted};
    call_result res;
    pipeline_call(&req, &res);
    if (res.status != CALL_OK && res.message)
        fprintf(stderr, "vthost: %s\n", res.message);
    if (o->format && strcmp(o->format, "text") == 0) {
        char *t = render_text(tool, res.response);
        if (t)
            fputs(t, stdout);
        if (t && *t && t[strlen(t) - 1] != '\n')
            fputc('\n', stdout);
        free(t);
    } else {
        print_json(res.response);
    }
    rc = exit_code(res.status);
    call_result_free(&res);
    cJSON_Delete(args);
    return rc;
}

int cli_explain(const char *tool, const char *json, const cli_options *o)
{
    cJSON *args = NULL;
    int rc = parse_args(json, &args);
    if (rc)
        return rc;
    call_request req = {.tool = tool, .args = args, .agent = o->agent};
    call_result res;
    pipeline_explain(&req, &res);
    if (res.status != CALL_OK && res.message)
        fprintf(stderr, "vthost: %s\n", res.message);
    print_json(res.response);
    rc = exit_code(res.status);
    call_result_free(&res);
    cJSON_Delete(args);
    return rc;
}

int cli_tools(const cli_options *o)
{
    const char *format = o->format ? o->format : "names";
    if (strcmp(format, "names") && strcmp(format, "mcp") && strcmp(format, "openai")) {
        fprintf(stderr, "vthost: unknown format '%s' (names, mcp or openai)\n", format);
        return 2;
    }
    const tool_entry **v;
    size_t n;
    if (registry_listed(&v, &n) != VT_OK)
        return 1;
    if (strcmp(format, "names") == 0) {
        for (size_t i = 0; i < n; i++)
            printf("%s\n", v[i]->t.name);
    } else {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, registry_describe(v[i], format));
        char *s = cJSON_Print(arr);
        if (s)
            printf("%s\n", s);
        free(s);
        cJSON_Delete(arr);
    }
    free(v);
    return 0;
}

int cli_plugins(void)
{
    printf("profile: %s\n", host_profile_name());
    for (size_t i = 0; i < host_plugin_dir_count(); i++)
        printf("plugin directory: %s\n", host_plugin_dir(i));
    for (size_t i = 0; i < loader_count(); i++) {
        const plugin_module *m = loader_at(i);
        if (m->state == PLUGIN_LOADED) {
            printf("loaded   %-14s %s %s (%s)%s\n", m->stem, m->desc->name,
                   m->desc->version ? m->desc->version : "",
                   m->desc->license ? m->desc->license : "no license",
                   m->in_profile ? " [profile]" : "");
            const tool_entry **v;
            size_t n;
            if (registry_all(&v, &n) == VT_OK) {
                for (size_t k = 0; k < n; k++) {
                    if (v[k]->module != m)
                        continue;
                    const char *how = v[k]->is_public || v[k]->is_expanded ? "listed"
                                      : registry_is_deferred(v[k])      ? "deferred"
                                                                        : "gated";
                    printf("           tool %-24s %s\n", v[k]->t.name, how);
                }
                free(v);
            }
        } else {
            printf("refused  %-14s %s: %s\n", m->stem, m->path,
                   m->refusal ? m->refusal : "unknown reason");
        }
    }
    return 0;
}
