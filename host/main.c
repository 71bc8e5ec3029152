/* vthost: command line entry point.  Options are parsed with the table in
 * cli.c; an option that does not apply to the command is a usage error. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "edit_distance.h"
#include "host.h"
#include "http.h"
#include "mcp.h"
#include "serve_workspace.h"

enum { OPT_HELP = 'h', OPT_VERSION = 'V', OPT_LONG_BASE = 256 };

/* getopt_long's tables from cli_options_table. */
static int build_getopt(struct option *longopts, char *shortopts)
{
    size_t n = 0, k = 0;
    for (const cli_option *op = cli_options_table; op->name; op++, n++) {
        longopts[n] = (struct option){op->name, op->arg ? required_argument : no_argument, 0,
                                      op->short_name ? op->short_name : OPT_LONG_BASE + (int)n};
        if (op->short_name) {
            shortopts[k++] = op->short_name;
            if (op->arg)
                shortopts[k++] = ':';
        }
    }
    longopts[n++] = (struct option){"help", no_argument, 0, OPT_HELP};
    longopts[n++] = (struct option){"version", no_argument, 0, OPT_VERSION};
    longopts[n] = (struct option){0, 0, 0, 0};
    memcpy(shortopts + k, "hV", 3);
    return 0;
}

static const cli_option *option_of(int c)
{
    size_t n = 0;
    for (const cli_option *op = cli_options_table; op->name; op++, n++)
        if (c == op->short_name || c == OPT_LONG_BASE + (int)n)
            return op;
    return NULL;
}

static int usage_error(const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int usage_error(const cli_command *cmd, const char *fmt, ...)
{
    fputs("vthost: ", stderr);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see vthost help%s%s\n", cmd ? " " : "", cmd ? cmd->name : "");
    return CLI_EXIT_USAGE;
}

/* The command closest to a mistyped one (case, or two edits), or NULL. */
static const char *closest_command(const char *name)
{
    static const edit_costs costs = {.case_change = 1, .edit = 2, .transpose = 1};
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (const cli_command *c = cli_commands; c->name; c++) {
        size_t d = edit_distance(name, c->name, &costs);
        if (d < best_d) {
            best_d = d;
            best = c->name;
        }
    }
    return best && (best_d <= 4 || strcasecmp(name, best) == 0) ? best : NULL;
}

int main(int argc, char **argv)
{
    struct option longopts[32];
    char shortopts[64];
    build_getopt(longopts, shortopts);
    host_options ho = {0};
    ho.log_level = VT_LOG_WARNING;
    cli_options co = {.answer = -1};
    const char **dirs = calloc((size_t)argc + 1, sizeof *dirs);
    size_t ndirs = 0;
    unsigned given = 0;
    const char *yes_no = NULL;
    const char *http_listen = NULL, *token_file = NULL;
    int help = 0, c;
    while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (c == OPT_HELP) {
            help = 1;
            continue;
        }
        if (c == OPT_VERSION) {
            printf("vthost %s (plugin ABI %d.%d)\n", VTHOST_VERSION, VT_ABI_MAJOR, VT_ABI_MINOR);
            free(dirs);
            return CLI_EXIT_OK;
        }
        const cli_option *op = option_of(c);
        if (!op) {  /* getopt has said what was wrong */
            fputs("Try 'vthost help'.\n", stderr);
            free(dirs);
            return CLI_EXIT_USAGE;
        }
        given |= op->bit;
        switch (op->bit) {
        case CLI_OPT_WORKSPACE: ho.workspace = optarg; break;
        case CLI_OPT_PROFILE: ho.profile = optarg; break;
        case CLI_OPT_CONFIG: ho.config_path = optarg; break;
        case CLI_OPT_AGENT: ho.agent = co.agent = optarg; break;
        case CLI_OPT_PLUGIN_DIR: dirs[ndirs++] = optarg; break;
        case CLI_OPT_FORMAT: co.format = optarg; break;
        case CLI_OPT_VERBOSE: ho.log_level = VT_LOG_DEBUG; break;
        case CLI_OPT_APPROVAL: ho.approval = optarg; break;
        case CLI_OPT_CATALOG:
            if (mcp_set_catalog_mode(optarg) != 0) {
                free(dirs);
                return usage_error(NULL, "--catalog '%s' is not auto, full or deferred", optarg);
            }
            break;
        case CLI_OPT_HTTP: http_listen = optarg; break;
        case CLI_OPT_TOKEN_FILE: token_file = optarg; break;
        case CLI_OPT_TIMEOUT: {
            char *end = NULL;
            co.timeout = strtod(optarg, &end);
            /* a week is far more than any call; beyond it is a typo */
            if (end == optarg || *end || !(co.timeout > 0 && co.timeout <= 604800)) {
                free(dirs);
                return usage_error(NULL, "--timeout '%s' is not a number of seconds in (0, 604800]",
                                   optarg);
            }
            break;
        }
        case CLI_OPT_ANSWER:
            if (yes_no && strcmp(yes_no, op->name)) {
                free(dirs);
                return usage_error(NULL, "%s", "--yes and --no exclude each other");
            }
            yes_no = op->name;
            co.answer = strcmp(op->name, "yes") == 0;
            break;
        }
    }
    ho.plugin_dirs = dirs;
    ho.plugin_dir_count = ndirs;
    co.workspace = ho.workspace;
    const cli_command *cmd = optind < argc ? cli_find(argv[optind]) : NULL;
    int rc;
    if (optind >= argc) {
        if (!help)
            fputs("vthost: no command given\n", stderr);
        cli_usage(help ? stdout : stderr);
        rc = help ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    } else if (!cmd) {
        const char *near = closest_command(argv[optind]);
        if (near)
            rc = usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", argv[optind], near);
        else
            rc = usage_error(NULL, "unknown command '%s'", argv[optind]);
    } else if (help) {
        cli_command_help(stdout, cmd);
        rc = CLI_EXIT_OK;
    } else if (given & ~cmd->options) {
        unsigned bit = given & ~cmd->options;
        bit &= -bit;  /* the first one */
        const char *name = bit == CLI_OPT_ANSWER ? yes_no : cli_option_name(bit);
        char what[80];
        snprintf(what, sizeof what, "--%s does not apply to '%s'", name, cmd->name);
        if (!strcmp(cmd->name, "serve") && bit == CLI_OPT_ANSWER)
            snprintf(what, sizeof what, "--%s does not apply to 'serve': the client answers "
                     "permission prompts", name);
        rc = usage_error(cmd, "%s", what);
    } else if ((given & CLI_OPT_TOKEN_FILE) && !(given & CLI_OPT_HTTP)) {
        rc = usage_error(cmd, "%s", "--token-file goes with --http");
    } else if (argc - optind - 1 < cmd->min_args || argc - optind - 1 > cmd->max_args) {
        rc = usage_error(cmd, "wrong number of arguments for '%s'", cmd->name);
    } else if (cmd->host == CLI_NO_HOST) {
        rc = cmd->run(argc - optind - 1, argv + optind + 1, &co);
    } else {
        char *err = NULL;
        if (!strcmp(cmd->name, "serve"))
            serve_workspace_prepare(&ho);  /* may take the workspace from the client */
        ho.list_only = cmd->host == CLI_HOST_LISTING;
        ho.serve = !strcmp(cmd->name, "serve");
        rc = host_open(&ho, &err);
        if (rc != 0 && !(ho.list_only && err && host_listing_open())) {
            fprintf(stderr, "vthost: %s\n", err ? err : "cannot start");
            /* a policy or vtcode.toml mistake is the user's input: usage */
            rc = host_config_failed() ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
        } else {
            /* said once, where a person or a client's log sees it */
            if (!strcmp(cmd->name, "serve") || !strcmp(cmd->name, "explain") ||
                !strcmp(cmd->name, "tools") || !strcmp(cmd->name, "mcp"))
                host_warn_untrusted();
            co.host_error = rc != 0 ? err : NULL;
            rc = cmd->run      ? cmd->run(argc - optind - 1, argv + optind + 1, &co)
                 : http_listen ? http_serve(http_listen, token_file)
                               : mcp_serve();
        }
        host_close_at_exit();
        free(err);
    }
    free(dirs);
    return rc;
}
