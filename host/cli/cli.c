/* CLI commands: call, explain, tools, plugins (and the table of every
 * command, help and completion included).  Every call goes through
 * pipeline_call like any other front end. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "cli_call.h"
#include "cli_progress.h"
#include "cli_tools_cache.h"
#include "host.h"
#include "json_exact.h"
#include "perm_trust.h"
#include "pipeline.h"
#include "registry.h"
#include "render.h"
#include "spool_dir.h"
#include "strbuf.h"
#include "strutil.h"
#include "text_escape.h"

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
        fprintf(stderr,
                "vthost: arguments are not valid JSON (near byte %ld); pass one "
                "JSON object, e.g. '{\"cmd\":\"ls\"}'\n",
                end ? (long)(end - json) : 0L);
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
    cli_progress_pause(); /* the question owns the terminal meanwhile */
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(request, "message");
    char *text = cJSON_IsString(m) ? NULL : cJSON_Print(request);
    /* the terminal shows what runs: no byte of the call moves its cursor */
    char *shown = text_escape(cJSON_IsString(m) ? m->valuestring : text, TEXT_KEEP_NEWLINES);
    dprintf(fd, "\nvthost: permission needed\n%s\nApprove once? [y/N] ",
            shown ? shown : "(a request that cannot be shown)");
    free(shown);
    free(text);
    char answer[16] = "";
    ssize_t n = read(fd, answer, sizeof answer - 1);
    close(fd);
    cli_progress_resume();
    return n > 0 && (answer[0] == 'y' || answer[0] == 'Y');
}

/* A call's message on stderr, as text for a person. */
static void print_message(const char *m)
{
    /* a message may quote names: its own lines indented, so none passes
     * for a line of its own */
    char *shown = text_escape(m, TEXT_KEEP_NEWLINES | TEXT_INDENT_LINES);
    fprintf(stderr, "vthost: %s\n", shown ? shown : "(a message that could not be shown)");
    free(shown);
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
    case CALL_OK: return CLI_EXIT_OK;
    case CALL_INVALID: return CLI_EXIT_USAGE;
    case CALL_UNKNOWN: return CLI_EXIT_USAGE;
    default: return CLI_EXIT_FAILED;
    }
}

static int cli_call(int argc, char **argv, const cli_options *o)
{
    const char *tool = argv[0], *json = argc > 1 ? argv[1] : NULL;
    if (o->format && strcmp(o->format, "json") && strcmp(o->format, "text")) {
        fprintf(stderr, "vthost: unknown format '%s' for call (json or text)\n", o->format);
        return CLI_EXIT_USAGE;
    }
    cJSON *args = NULL;
    int rc = parse_args(json, &args);
    if (rc)
        return rc;
    /* One-shot: the call runs to its end, or to --timeout or a signal. */
    frontend fe = {.ctx = (void *)o, .prompt = cli_prompt, .one_shot = 1};
    call_request req = {.tool = tool,
                        .args = args,
                        .agent = o->agent,
                        .fe = &fe,
                        .cancel = cli_call_begin(o->timeout)};
    call_result res;
    cli_progress_start(tool);
    pipeline_call(&req, &res);
    cli_progress_stop();
    rc = cli_call_end(&res, o->timeout, exit_code(res.status));
    if (res.status != CALL_OK && res.message)
        print_message(res.message);
    if (o->format && strcmp(o->format, "text") == 0) {
        /* As a command line would: the command's own status (a script
         * reading text has no other way to see it). */
        const cJSON *ec = cJSON_GetObjectItemCaseSensitive(res.response, "exit_code");
        if (rc == CLI_EXIT_OK && res.status == CALL_OK && cJSON_IsNumber(ec) &&
            ec->valuedouble >= 0 && ec->valuedouble <= 255)
            rc = (int)ec->valuedouble;
        char *t = render_text(tool, res.response);
        if (t)
            fputs(t, stdout);
        if (t && *t && t[strlen(t) - 1] != '\n')
            fputc('\n', stdout);
        free(t);
    } else {
        print_json(res.response);
    }
    call_result_free(&res);
    cJSON_Delete(args);
    return rc;
}

static int cli_explain(int argc, char **argv, const cli_options *o)
{
    const char *tool = argv[0], *json = argc > 1 ? argv[1] : NULL;
    if (o->format && strcmp(o->format, "json") && strcmp(o->format, "text")) {
        fprintf(stderr, "vthost: unknown format '%s' for explain (json or text)\n", o->format);
        return CLI_EXIT_USAGE;
    }
    cJSON *args = NULL;
    int rc = parse_args(json, &args);
    if (rc)
        return rc;
    call_request req = {.tool = tool, .args = args, .agent = o->agent};
    call_result res;
    pipeline_explain(&req, &res);
    if (res.status != CALL_OK && res.message)
        print_message(res.message);
    const char *ignored = host_ignored_config();
    if (ignored && cJSON_IsObject(res.response))
        cJSON_AddStringToObject(res.response, "ignored_config", ignored);
    if (o->format && strcmp(o->format, "text") == 0) {
        /* a refusal (unknown tool, bad arguments) is its message on stderr */
        if (res.status == CALL_OK)
            cli_explain_text(res.response);
        else if (!res.message)
            print_json(res.response);
    } else {
        print_json(res.response);
    }
    rc = exit_code(res.status);
    call_result_free(&res);
    cJSON_Delete(args);
    return rc;
}

static int cli_tools(int argc, char **argv, const cli_options *o)
{
    (void)argc;
    (void)argv;
    const char *format = o->format ? o->format : "names";
    if (strcmp(format, "names") && strcmp(format, "mcp") && strcmp(format, "openai")) {
        fprintf(stderr, "vthost: unknown format '%s' for tools (names, mcp or openai)\n", format);
        return CLI_EXIT_USAGE;
    }
    const tool_entry **v;
    size_t n;
    if (registry_listed(&v, &n) != VT_OK)
        return CLI_EXIT_FAILED;
    vt_strbuf out = VT_STRBUF_INIT;
    int ok = 1;
    if (strcmp(format, "names") == 0) {
        for (size_t i = 0; i < n && ok; i++)
            ok = strbuf_printf(&out, "%s\n", v[i]->t.name) == VT_OK;
    } else {
        cJSON *arr = cJSON_CreateArray();
        for (size_t i = 0; i < n; i++)
            cJSON_AddItemToArray(arr, registry_describe(v[i], format));
        char *s = cJSON_Print(arr);
        ok = s && strbuf_printf(&out, "%s\n", s) == VT_OK;
        free(s);
        cJSON_Delete(arr);
    }
    free(v);
    char *text = strbuf_take(&out);
    ok = ok && text && fputs(text, stdout) >= 0 && fflush(stdout) == 0;
    if (ok)
        tools_cache_store(text);
    free(text);
    return ok ? 0 : CLI_EXIT_FAILED;
}

static int cli_trust(int argc, char **argv, const cli_options *o)
{
    /* Only the user's own config changes: no plugin, no policy runs. */
    char *msg = NULL;
    int rc = perm_trust_add(argc ? argv[0] : o->workspace ? o->workspace : ".", &msg);
    fprintf(rc ? stderr : stdout, "vthost: %s\n", msg ? msg : "cannot trust");
    free(msg);
    /* VT_ERR_INVALID: DIR is no directory vthost may trust (usage) */
    return rc == VT_ERR_INVALID ? CLI_EXIT_USAGE : rc ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

static int cli_spool(int argc, char **argv, const cli_options *o)
{
    (void)o;
    return spool_cli(host_workspace(), argc, argv);
}

/* ---- the command line, as data ---------------------------------------- */

const cli_option cli_options_table[] = {
    {"workspace", 'w', "DIR", CLI_OPT_WORKSPACE,
     "workspace root (serve: else the client's roots, else the current directory)", NULL},
    {"profile", 'p', "NAME", CLI_OPT_PROFILE, "tool profile: default or advanced (or an .ini file)",
     "default advanced"},
    {"config", 'c', "FILE", CLI_OPT_CONFIG,
     "a vtcode.toml layered over the user's and the workspace's", NULL},
    {"agent", 'a', "NAME", CLI_OPT_AGENT, "agent spec whose permissions apply", NULL},
    {"plugin-dir", 0, "DIR", CLI_OPT_PLUGIN_DIR, "also load plugins from DIR (repeatable)", NULL},
    {"format", 0, "FMT", CLI_OPT_FORMAT,
     "call, explain: json|text; tools: names|mcp|openai; plugins, mcp: text|json",
     "json text names mcp openai"},
    {"yes", 0, NULL, CLI_OPT_ANSWER, "call: approve permission prompts", NULL},
    {"no", 0, NULL, CLI_OPT_ANSWER, "call: decline permission prompts", NULL},
    {"verbose", 'v', NULL, CLI_OPT_VERBOSE, "log more to stderr", NULL},
    {"approval", 0, "PRESET", CLI_OPT_APPROVAL,
     "with no agent: ask (default), sandboxed or read-only", "ask sandboxed read-only"},
    {"timeout", 0, "SECONDS", CLI_OPT_TIMEOUT,
     "call: end the call (and its command) after SECONDS; exit code 124", NULL},
    {"catalog", 0, "MODE", CLI_OPT_CATALOG,
     "serve: list every tool up front (full), the profile's and what search_tools finds "
     "(deferred), or by client (auto, the default)",
     "auto full deferred"},
    {"http", 0, "ADDR:PORT", CLI_OPT_HTTP,
     "serve: MCP over HTTP on ADDR:PORT (e.g. 127.0.0.1:8765) instead of stdio", NULL},
    {"token-file", 0, "FILE", CLI_OPT_TOKEN_FILE,
     "serve --http: the bearer token file (default $XDG_CONFIG_HOME/vthost/http-token)", NULL},
    {NULL, 0, NULL, 0, NULL, NULL},
};
/* An option added or removed without changing CLI_OPTION_COUNT does not
 * compile: main.c's getopt tables are sized from it. */
_Static_assert(sizeof cli_options_table / sizeof *cli_options_table == CLI_OPTION_COUNT + 1,
               "CLI_OPTION_COUNT is the number of options");

/* One entry per command, in help order. */
const cli_command cli_commands[] = {
    {"serve", "", "MCP server on stdin/stdout (the main job)",
     "Serves the Model Context Protocol on stdin/stdout. The workspace is\n"
     "--workspace DIR; else the client's first file:// root (roots/list,\n"
     "when the client declares roots); else the current directory. /, system\n"
     "trees (/usr, /etc, /var, /lib*, ...), the home directory, what is above\n"
     "it and its dot-directories are refused unless named with --workspace.\n"
     "Permission prompts go to the client (elicitation).\n"
     "--catalog full lists every tool at once, for clients that never list\n"
     "tools again (auto does so for Codex); deferred lists the profile's\n"
     "tools and announces the ones search_tools finds.\n"
     "With --http ADDR:PORT it serves MCP Streamable HTTP at\n"
     "http://ADDR:PORT/mcp instead: every request needs Authorization: Bearer\n"
     "TOKEN (a token is made at the first start and kept 0600 in\n"
     "$XDG_CONFIG_HOME/vthost/http-token, or --token-file FILE), each client\n"
     "session gets its own calls, prompts and command sessions, and the\n"
     "workspace is --workspace (or the current directory, which must not be\n"
     "/, a system tree or the home directory) for all of them;\n"
     "$XDG_CONFIG_HOME/vthost/http.toml sets origins, limits, TLS and OAuth.\n",
     0, 0,
     CLI_OPT_HOST | CLI_OPT_AGENT | CLI_OPT_APPROVAL | CLI_OPT_CATALOG | CLI_OPT_HTTP |
         CLI_OPT_TOKEN_FILE,
     NULL, CLI_HOST, NULL},
    {"call", "TOOL [JSON|-]", "run one tool call; response JSON on stdout",
     "Runs one tool call through the whole pipeline and prints the response.\n"
     "JSON is one object of arguments (default {}); - reads it from stdin.\n"
     "Prompts are asked on the terminal, or answered by --yes / --no.\n"
     "The call is one-shot: a command runs to its end (yield_time_ms does\n"
     "not apply; no session outlives the call, so write_stdin is refused).\n"
     "Ctrl-C, SIGTERM or SIGHUP end the call and its command (exit code\n"
     "128+signal); --timeout SECONDS ends them after SECONDS (exit code 124,\n"
     "\"timed_out\": true in the response).\n"
     "With --format text, a command's own exit status is the exit code.\n",
     1, 2,
     CLI_OPT_HOST | CLI_OPT_AGENT | CLI_OPT_APPROVAL | CLI_OPT_FORMAT | CLI_OPT_ANSWER |
         CLI_OPT_TIMEOUT,
     "json text", CLI_HOST, cli_call},
    {"explain", "TOOL [JSON|-]", "the permission decision for a call, with its trace",
     "Prints the decision a call would get (allow, deny, ask or auto), the\n"
     "subjects the tool reported and the rules that decided; runs nothing.\n"
     "JSON by default; --format text says it in one sentence per stage.\n",
     1, 2, CLI_OPT_HOST | CLI_OPT_AGENT | CLI_OPT_APPROVAL | CLI_OPT_FORMAT, "json text", CLI_HOST,
     cli_explain},
    {"tools", "", "the profile's tool list",
     "Prints the listed tools, one name a line, or with --format mcp|openai\n"
     "as a JSON array with schemas and annotations.\n",
     0, 0, CLI_OPT_HOST | CLI_OPT_FORMAT, "names mcp openai", CLI_HOST, cli_tools},
    {"plugins", "", "plugin modules found, loaded or refused (and why)",
     "Prints the profile, the plugin directories and every module: loaded\n"
     "(with its tools: listed, deferred or gated) or refused, with the reason;\n"
     "--format json for a JSON object. Lists even when the profile cannot\n"
     "load, and then exits 1.\n",
     0, 0, CLI_OPT_HOST | CLI_OPT_FORMAT, "text json", CLI_HOST_LISTING, cli_plugins},
    {"mcp", "list|tools PROVIDER", "MCP providers: state and tool counts, or one's tools",
     "list starts every configured [[mcp.providers]] server and prints its\n"
     "state, tool count and command (and why one is unavailable); tools\n"
     "PROVIDER starts that one and prints its tools as vthost names them\n"
     "(mcp__PROVIDER__TOOL). --format json for JSON.\n",
     1, 2, CLI_OPT_HOST | CLI_OPT_FORMAT, "text json", CLI_HOST, cli_mcp},
    {"trust", "[DIR]", "trust a workspace's own vtcode.toml allow rules and agents",
     "Adds DIR (default: --workspace, else the current directory) to the\n"
     "user's [trust] workspaces in ~/.config/vtcode/vtcode.toml, so that its\n"
     "own allow rules, [permissions.auto] and permissive agents apply.\n",
     0, 1, CLI_OPT_WORKSPACE, NULL, CLI_NO_HOST, cli_trust},
    {"spool", "[list|clean]", "the output spool's files, or delete those not in use",
     "list (the default) prints the workspace's spool files with size, age\n"
     "and whether a running call writes them, and the [tools.spool] caps;\n"
     "clean deletes every spool file no call is writing.\n",
     0, 1, CLI_OPT_HOST, NULL, CLI_HOST, cli_spool},
    {"help", "[COMMAND]", "this overview, or one command's help", "", 0, 1, 0, NULL, CLI_NO_HOST,
     cli_help},
    {"completion", "bash|zsh|fish", "a shell completion script on stdout",
     "Prints a completion script. For example:\n"
     "  vthost completion bash > ~/.local/share/bash-completion/completions/vthost\n"
     "  vthost completion zsh > \"${fpath[1]}/_vthost\"\n"
     "  vthost completion fish > ~/.config/fish/completions/vthost.fish\n",
     1, 1, 0, NULL, CLI_NO_HOST, cli_completion_cmd},
    {NULL, NULL, NULL, NULL, 0, 0, 0, NULL, CLI_NO_HOST, NULL},
};

const cli_command *cli_find(const char *name)
{
    for (const cli_command *c = cli_commands; name && c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

const char *cli_option_name(unsigned bit)
{
    for (const cli_option *op = cli_options_table; op->name; op++)
        if (op->bit == bit)
            return op->name;
    return "?";
}
