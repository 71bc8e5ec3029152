/* `vthost mcp list` and `vthost mcp tools PROVIDER`: the MCP providers
 * configured in vtcode.toml ([[mcp.providers]]), through the service the
 * mcp_providers plugin publishes; and their state for `vthost plugins`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/services.h>
#include "cli.h"
#include "services.h"
#include "text_escape.h"

static const vt_mcp_providers_v1 *status_service(void)
{
    const vt_mcp_providers_v1 *s = services_lookup(VT_MCP_PROVIDERS_SERVICE);
    return s && s->struct_size >= sizeof *s ? s : NULL;
}

static const char *str(const cJSON *o, const char *k)
{
    const char *v = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, k));
    return v ? v : "";
}

static int num(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void print_json(cJSON *j)
{
    char *s = cJSON_Print(j);
    if (s)
        printf("%s\n", s);
    free(s);
}

/* Start every provider (each bounded by its startup timeout) so the
 * list shows real states and tool counts. */
static void start_all(const vt_mcp_providers_v1 *s, const cJSON *list)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, list)
    {
        if (strcmp(str(p, "state"), "disabled") == 0)
            continue;
        char *err = NULL;
        s->start(str(p, "name"), &err);
        free(err);
    }
}

int cli_mcp(int argc, char **argv, const cli_options *o)
{
    const char *format = o->format ? o->format : "text";
    if (strcmp(format, "text") && strcmp(format, "json")) {
        fprintf(stderr, "vthost: unknown format '%s' for mcp (text or json)\n", format);
        return CLI_EXIT_USAGE;
    }
    const char *sub = argv[0];
    int list = strcmp(sub, "list") == 0, tools = strcmp(sub, "tools") == 0;
    if ((!list && !tools) || (list && argc != 1) || (tools && argc != 2)) {
        fprintf(stderr, "vthost: usage: vthost mcp list | vthost mcp tools PROVIDER\n");
        return CLI_EXIT_USAGE;
    }
    const vt_mcp_providers_v1 *s = status_service();
    if (!s) {
        fprintf(stderr, "vthost: the mcp_providers plugin is not loaded (install the package "
                        "vthost-plugin-mcp-providers; see vthost plugins)\n");
        return CLI_EXIT_FAILED;
    }
    if (list) {
        cJSON *before = s->list(NULL);
        start_all(s, before);
        cJSON_Delete(before);
        cJSON *all = s->list(NULL);
        if (strcmp(format, "json") == 0) {
            print_json(all);
        } else if (cJSON_GetArraySize(all) == 0) {
            printf("no MCP providers configured ([[mcp.providers]] in vtcode.toml)\n");
        } else {
            printf("%-16s %-9s %5s  %s\n", "PROVIDER", "STATE", "TOOLS", "COMMAND OR ENDPOINT");
            const cJSON *p;
            cJSON_ArrayForEach(p, all)
            {
                printf("%-16s %-9s %5d  %s\n", str(p, "name"), str(p, "state"), num(p, "tools"),
                       *str(p, "command") ? str(p, "command") : str(p, "endpoint"));
                if (*str(p, "reason"))
                    printf("%16s %s\n", "", str(p, "reason"));
            }
        }
        cJSON_Delete(all);
        return CLI_EXIT_OK;
    }
    char *err = NULL;
    int rc = s->start(argv[1], &err);
    cJSON *one = s->list(argv[1]);
    cJSON *p = cJSON_GetArrayItem(one, 0);
    if (!p) {
        fprintf(stderr, "vthost: no MCP provider named '%s' (see vthost mcp list)\n", argv[1]);
        free(err);
        cJSON_Delete(one);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(format, "json") == 0) {
        print_json(p);
    } else {
        const cJSON *t;
        cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(p, "tool_list"))
        {
            const char *d = str(t, "description");
            int cut = (int)strcspn(d, "\n");
            printf("%-40s %.*s%s\n", str(t, "name"), cut > 90 ? 90 : cut, d, cut > 90 ? "..." : "");
        }
    }
    char *shown = rc != 0 ? text_escape(err ? err : "the provider did not start",
                                        TEXT_KEEP_NEWLINES | TEXT_INDENT_LINES)
                          : NULL;
    if (shown)
        fprintf(stderr, "vthost: %s\n", shown);
    free(shown);
    free(err);
    cJSON_Delete(one);
    return rc != 0 ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

/* For `vthost plugins`: the providers' state, without starting any. */
void cli_mcp_plugins_text(void)
{
    const vt_mcp_providers_v1 *s = status_service();
    if (!s)
        return;
    cJSON *all = s->list(NULL);
    const cJSON *p;
    cJSON_ArrayForEach(p, all)
        printf("mcp      %-14s %s, %d tools%s%s\n", str(p, "name"), str(p, "state"),
               num(p, "tools"), *str(p, "reason") ? ": " : "", str(p, "reason"));
    cJSON_Delete(all);
}

cJSON *cli_mcp_plugins_json(void)
{
    const vt_mcp_providers_v1 *s = status_service();
    return s ? s->list(NULL) : NULL;
}
