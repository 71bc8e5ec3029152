/* vthost: command line entry point.  Options are parsed with the table in
 * cli.c; an option that does not apply to the command is a usage error. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "cli_tools_cache.h"
#include "edit_distance.h"
#include "host.h"
#include "http.h"
#include "mcp.h"
#include "paths.h"
#include "serve_workspace.h"
#include "text_escape.h"
#include "ws_keeper.h"

enum { OPT_HELP = 'h', OPT_VERSION = 'V', OPT_LONG_BASE = 256 };

/* getopt_long's tables, sized from the option table: every option, then
 * help, version and the zero entry; at most "x:" per option, "hV" and NUL. */
typedef struct getopt_tables {
    struct option longopts[CLI_OPTION_COUNT + 3];
    char shortopts[2 * CLI_OPTION_COUNT + 3];
} getopt_tables;

/* What the command line asked for, as main's steps fill it in. */
typedef struct cli_run {
    int argc;
    char **argv;
    host_options ho;
    cli_options co;
    const char **dirs; /* --plugin-dir, in order */
    size_t ndirs;
    unsigned given; /* CLI_OPT_* seen */
    const char *yes_no, *http_listen, *token_file;
    int help;
    const cli_command *cmd;
} cli_run;

/* A step returns -1 to go on, or the exit code. */
enum { GO_ON = -1 };

static void build_getopt(getopt_tables *t)
{
    size_t n = 0, k = 0;
    for (const cli_option *op = cli_options_table; op->name; op++, n++) {
        t->longopts[n] = (struct option){op->name, op->arg ? required_argument : no_argument, 0,
                                         op->short_name ? op->short_name : OPT_LONG_BASE + (int)n};
        if (op->short_name) {
            t->shortopts[k++] = op->short_name;
            if (op->arg)
                t->shortopts[k++] = ':';
        }
    }
    t->longopts[n++] = (struct option){"help", no_argument, 0, OPT_HELP};
    t->longopts[n++] = (struct option){"version", no_argument, 0, OPT_VERSION};
    t->longopts[n] = (struct option){0, 0, 0, 0};
    memcpy(t->shortopts + k, "hV", 3);
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

static int set_timeout(cli_run *r, const char *arg)
{
    char *end = NULL;
    r->co.timeout = strtod(arg, &end);
    /* a week is far more than any call; beyond it is a typo */
    if (end == arg || *end || !(r->co.timeout > 0 && r->co.timeout <= 604800))
        return usage_error(NULL, "--timeout '%s' is not a number of seconds in (0, 604800]", arg);
    return GO_ON;
}

static int set_answer(cli_run *r, const cli_option *op)
{
    if (r->yes_no && strcmp(r->yes_no, op->name))
        return usage_error(NULL, "%s", "--yes and --no exclude each other");
    r->yes_no = op->name;
    r->co.answer = strcmp(op->name, "yes") == 0;
    return GO_ON;
}

/* One option and its argument into `r`. */
static int apply_option(cli_run *r, const cli_option *op, const char *arg)
{
    r->given |= op->bit;
    switch (op->bit) {
    case CLI_OPT_WORKSPACE: r->ho.workspace = arg; break;
    case CLI_OPT_PROFILE: r->ho.profile = arg; break;
    case CLI_OPT_CONFIG: r->ho.config_path = arg; break;
    case CLI_OPT_AGENT: r->ho.agent = r->co.agent = arg; break;
    case CLI_OPT_PLUGIN_DIR: r->dirs[r->ndirs++] = arg; break;
    case CLI_OPT_FORMAT: r->co.format = arg; break;
    case CLI_OPT_VERBOSE: r->ho.log_level = VT_LOG_DEBUG; break;
    case CLI_OPT_APPROVAL: r->ho.approval = arg; break;
    case CLI_OPT_HTTP: r->http_listen = arg; break;
    case CLI_OPT_TOKEN_FILE: r->token_file = arg; break;
    case CLI_OPT_CATALOG:
        if (mcp_set_catalog_mode(arg) != 0)
            return usage_error(NULL, "--catalog '%s' is not auto, full or deferred", arg);
        break;
    case CLI_OPT_TIMEOUT: return set_timeout(r, arg);
    case CLI_OPT_ANSWER: return set_answer(r, op);
    }
    return GO_ON;
}

static int parse_options(cli_run *r)
{
    getopt_tables t;
    build_getopt(&t);
    int c;
    while ((c = getopt_long(r->argc, r->argv, t.shortopts, t.longopts, NULL)) != -1) {
        if (c == OPT_HELP) {
            r->help = 1;
            continue;
        }
        if (c == OPT_VERSION) {
            printf("vthost %s (plugin ABI %d.%d)\n", VTHOST_VERSION, VT_ABI_MAJOR, VT_ABI_MINOR);
            return CLI_EXIT_OK;
        }
        const cli_option *op = option_of(c);
        if (!op) { /* getopt has said what was wrong */
            fputs("Try 'vthost help'.\n", stderr);
            return CLI_EXIT_USAGE;
        }
        int rc = apply_option(r, op, optarg);
        if (rc != GO_ON)
            return rc;
    }
    r->ho.plugin_dirs = r->dirs;
    r->ho.plugin_dir_count = r->ndirs;
    r->co.workspace = r->ho.workspace;
    return GO_ON;
}

/* The command named after the options: none, unknown, or asked for help. */
static int find_command(cli_run *r)
{
    if (optind >= r->argc) {
        if (!r->help)
            fputs("vthost: no command given\n", stderr);
        cli_usage(r->help ? stdout : stderr);
        return r->help ? CLI_EXIT_OK : CLI_EXIT_USAGE;
    }
    const char *name = r->argv[optind];
    if (!(r->cmd = cli_find(name))) {
        const char *near = closest_command(name);
        if (near)
            return usage_error(NULL, "unknown command '%s' (did you mean '%s'?)", name, near);
        return usage_error(NULL, "unknown command '%s'", name);
    }
    if (r->help) {
        cli_command_help(stdout, r->cmd);
        return CLI_EXIT_OK;
    }
    return GO_ON;
}

/* Options that do not apply to the command, and its number of arguments. */
static int check_command_line(cli_run *r)
{
    const cli_command *cmd = r->cmd;
    if (r->given & ~cmd->options) {
        unsigned bit = r->given & ~cmd->options;
        bit &= -bit; /* the first one */
        const char *name = bit == CLI_OPT_ANSWER ? r->yes_no : cli_option_name(bit);
        if (!strcmp(cmd->name, "serve") && bit == CLI_OPT_ANSWER)
            return usage_error(cmd,
                               "--%s does not apply to 'serve': the client answers "
                               "permission prompts",
                               name);
        return usage_error(cmd, "--%s does not apply to '%s'", name, cmd->name);
    }
    if ((r->given & CLI_OPT_TOKEN_FILE) && !(r->given & CLI_OPT_HTTP))
        return usage_error(cmd, "%s", "--token-file goes with --http");
    int nargs = r->argc - optind - 1;
    if (nargs < cmd->min_args || nargs > cmd->max_args)
        return usage_error(cmd, "wrong number of arguments for '%s'", cmd->name);
    return GO_ON;
}

/* serve --http has no client roots to take a workspace from: started in
 * /, the home directory or a system tree without --workspace, it would
 * serve every session there, so it does not start. */
static int check_http_workspace(const cli_run *r)
{
    if (!r->http_listen || r->ho.workspace)
        return GO_ON;
    char *cwd = realpath(".", NULL);
    const char *home = getenv("HOME");
    char *h = home && *home ? realpath(home, NULL) : NULL;
    const char *why = cwd ? paths_unsafe_workspace(cwd, h) : NULL;
    int rc = GO_ON;
    if (why) {
        char *shown = text_escape(cwd, 0);
        fprintf(stderr,
                "vthost: serve --http will not use the current directory %s as the workspace: "
                "it is %s. Name the project directory with --workspace DIR (every session "
                "works there), or start vthost in it; --workspace %s allows this directory "
                "explicitly\n",
                shown ? shown : "", why, shown ? shown : "");
        free(shown);
        rc = CLI_EXIT_USAGE;
    }
    free(cwd);
    free(h);
    return rc;
}

/* Opens the host and runs the command (serve: the MCP or HTTP front end). */
static int run_with_host(cli_run *r)
{
    const cli_command *cmd = r->cmd;
    int serve = !strcmp(cmd->name, "serve");
    if (serve && check_http_workspace(r) != GO_ON)
        return CLI_EXIT_USAGE;
    if (serve)
        serve_workspace_prepare(&r->ho); /* may take the workspace from the client */
    r->ho.list_only = cmd->host == CLI_HOST_LISTING;
    r->ho.serve = serve;
    /* the listing of an unchanged install, configuration and workspace
     * needs no plugin opened */
    if (!strcmp(cmd->name, "tools") && tools_cache_lookup(&r->ho, r->co.format))
        return CLI_EXIT_OK;
    char *err = NULL;
    int rc = host_open(&r->ho, &err);
    if (rc != 0 && !(r->ho.list_only && err && host_listing_open())) {
        /* the error names files and the workspace: every byte visible */
        char *shown =
            text_escape(err ? err : "cannot start", TEXT_KEEP_NEWLINES | TEXT_INDENT_LINES);
        fprintf(stderr, "vthost: %s\n", shown ? shown : "cannot start");
        free(shown);
        /* what the user wrote (command line, vtcode.toml, an agent or a
         * profile) is usage; what is installed or the system, a failure */
        rc = host_config_failed() ? CLI_EXIT_USAGE : CLI_EXIT_FAILED;
    } else {
        /* said once, where a person or a client's log sees it */
        int listing = !strcmp(cmd->name, "tools");
        if (listing) /* said again with a listing from the cache */
            tools_cache_said_begin();
        if (serve || !strcmp(cmd->name, "explain") || listing || !strcmp(cmd->name, "mcp"))
            host_warn_untrusted();
        if (listing)
            tools_cache_said_end();
        r->co.host_error = rc != 0 ? err : NULL;
        rc = cmd->run         ? cmd->run(r->argc - optind - 1, r->argv + optind + 1, &r->co)
             : r->http_listen ? http_serve(r->http_listen, r->token_file)
                              : mcp_serve();
    }
    host_close_at_exit();
    free(err);
    return rc;
}

static int run_command(cli_run *r)
{
    if (r->cmd->host == CLI_NO_HOST)
        return r->cmd->run(r->argc - optind - 1, r->argv + optind + 1, &r->co);
    return run_with_host(r);
}

int main(int argc, char **argv)
{
    static int (*const steps[])(cli_run *) = {
        parse_options,
        find_command,
        check_command_line,
        run_command,
    };
    /* the workspace keeper a call started (docs/internals.md): nothing
     * of the CLI, no plugins */
    if (argc >= 2 && !strcmp(argv[1], WS_KEEPER_ARG))
        return ws_keeper_main(argc - 2, argv + 2);
    ws_keeper_allow_start();
    cli_run r = {.argc = argc, .argv = argv, .co = {.answer = -1}};
    r.ho.log_level = VT_LOG_WARNING;
    r.dirs = calloc((size_t)argc + 1, sizeof *r.dirs);
    int rc = r.dirs ? GO_ON : CLI_EXIT_FAILED;
    for (size_t i = 0; rc == GO_ON && i < sizeof steps / sizeof *steps; i++)
        rc = steps[i](&r);
    free(r.dirs);
    return rc;
}
