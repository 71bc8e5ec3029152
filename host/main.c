/* vthost: command line entry point. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "host.h"
#include "mcp.h"
#include "perm_trust.h"
#include "spool_dir.h"

static void usage(FILE *to)
{
    fputs("Usage: vthost [OPTIONS] COMMAND [ARGS]\n"
          "\n"
          "Commands:\n"
          "  serve                  MCP server on stdin/stdout (the main job)\n"
          "  call TOOL [JSON|-]     run one tool call; response JSON on stdout\n"
          "  explain TOOL [JSON|-]  the permission decision for a call, with its trace\n"
          "  tools                  the profile's tool list\n"
          "  plugins                plugin modules found, loaded or refused (and why)\n"
          "  trust [DIR]            trust a workspace's own vtcode.toml allow rules and agents\n"
          "  spool [list|clean]     the output spool's files, or delete those not in use\n"
          "\n"
          "Options:\n"
          "  -w, --workspace DIR    workspace root (default: current directory)\n"
          "  -p, --profile NAME     tool profile: default or advanced\n"
          "  -c, --config FILE      vtcode.toml to use\n"
          "  -a, --agent NAME|FILE  agent spec whose permissions apply\n"
          "      --approval PRESET  with no agent: ask (default), sandboxed or read-only\n"
          "      --plugin-dir DIR   also load plugins from DIR (repeatable)\n"
          "      --format FMT       call: json|text; tools: names|mcp|openai\n"
          "      --yes, --no        answer permission prompts non-interactively\n"
          "  -v, --verbose          log more to stderr\n"
          "  -h, --help             this help\n"
          "  -V, --version          print the version\n"
          "\n"
          "Exit codes of call: 0 the tool ran, 1 it failed or was denied,\n"
          "2 bad usage or invalid arguments.\n",
          to);
}

int main(int argc, char **argv)
{
    enum { OPT_PLUGIN_DIR = 256, OPT_FORMAT, OPT_YES, OPT_NO, OPT_APPROVAL };
    static const struct option longopts[] = {
        {"workspace", required_argument, 0, 'w'},
        {"profile", required_argument, 0, 'p'},
        {"config", required_argument, 0, 'c'},
        {"agent", required_argument, 0, 'a'},
        {"approval", required_argument, 0, OPT_APPROVAL},
        {"plugin-dir", required_argument, 0, OPT_PLUGIN_DIR},
        {"format", required_argument, 0, OPT_FORMAT},
        {"yes", no_argument, 0, OPT_YES},
        {"no", no_argument, 0, OPT_NO},
        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},
        {"version", no_argument, 0, 'V'},
        {0, 0, 0, 0},
    };
    host_options ho = {0};
    ho.log_level = VT_LOG_WARNING;
    cli_options co = {.answer = -1};
    const char **dirs = calloc((size_t)argc, sizeof *dirs);
    size_t ndirs = 0;
    int c;
    while ((c = getopt_long(argc, argv, "w:p:c:a:vhV", longopts, NULL)) != -1) {
        switch (c) {
        case 'w': ho.workspace = optarg; break;
        case 'p': ho.profile = optarg; break;
        case 'c': ho.config_path = optarg; break;
        case 'a': ho.agent = optarg; co.agent = optarg; break;
        case OPT_PLUGIN_DIR: dirs[ndirs++] = optarg; break;
        case OPT_FORMAT: co.format = optarg; break;
        case OPT_YES: co.answer = 1; break;
        case OPT_NO: co.answer = 0; break;
        case OPT_APPROVAL: ho.approval = optarg; break;
        case 'v': ho.log_level = VT_LOG_DEBUG; break;
        case 'h': usage(stdout); free(dirs); return 0;
        case 'V': printf("vthost %s (plugin ABI %d.%d)\n", VTHOST_VERSION, VT_ABI_MAJOR,
                         VT_ABI_MINOR); free(dirs); return 0;
        default: usage(stderr); free(dirs); return 2;
        }
    }
    ho.plugin_dirs = dirs;
    ho.plugin_dir_count = ndirs;
    if (optind >= argc) {
        usage(stderr);
        free(dirs);
        return 2;
    }
    const char *cmd = argv[optind];
    int nargs = argc - optind - 1;
    char **args = argv + optind + 1;
    int known = !strcmp(cmd, "serve") || !strcmp(cmd, "call") || !strcmp(cmd, "explain") ||
                !strcmp(cmd, "tools") || !strcmp(cmd, "plugins") || !strcmp(cmd, "trust") ||
                !strcmp(cmd, "spool");
    int arity_ok = (!strcmp(cmd, "call") || !strcmp(cmd, "explain")) ? (nargs == 1 || nargs == 2)
                   : (!strcmp(cmd, "trust") || !strcmp(cmd, "spool")) ? nargs <= 1
                                                                      : nargs == 0;
    if (!known || !arity_ok) {
        fprintf(stderr, known ? "vthost: wrong arguments for '%s'\n"
                              : "vthost: unknown command '%s'\n", cmd);
        usage(stderr);
        free(dirs);
        return 2;
    }
    char *err = NULL;
    if (!strcmp(cmd, "trust")) {
        /* only the user's own config changes: no plugin, no policy runs */
        int trc = perm_trust_add(nargs ? args[0] : ho.workspace ? ho.workspace : ".", &err);
        fprintf(trc ? stderr : stdout, "vthost: %s\n", err ? err : "cannot trust");
        free(err);
        free(dirs);
        return trc ? 1 : 0;
    }
    if (host_open(&ho, &err) != 0) {
        fprintf(stderr, "vthost: %s\n", err ? err : "cannot start");
        free(err);
        free(dirs);
        return host_config_failed() ? 2 : 1;
    }
    if (!strcmp(cmd, "serve"))
        host_warn_untrusted();
    int rc;
    if (!strcmp(cmd, "serve"))
        rc = mcp_serve();
    else if (!strcmp(cmd, "call"))
        rc = cli_call(args[0], nargs > 1 ? args[1] : NULL, &co);
    else if (!strcmp(cmd, "explain"))
        rc = cli_explain(args[0], nargs > 1 ? args[1] : NULL, &co);
    else if (!strcmp(cmd, "tools"))
        rc = cli_tools(&co);
    else if (!strcmp(cmd, "spool"))
        rc = spool_cli(host_workspace(), nargs, args);
    else
        rc = cli_plugins();
    host_close();
    free(dirs);
    return rc;
}
