/* The CLI front end: its commands and options as data (main.c parses
 * with them; help and completion scripts are generated from them). */
#ifndef VTHOST_CLI_H
#define VTHOST_CLI_H

#include <stdio.h>

/* Options, one bit each, so a command says which ones apply to it. */
enum {
    CLI_OPT_WORKSPACE = 1u << 0,
    CLI_OPT_PROFILE = 1u << 1,
    CLI_OPT_CONFIG = 1u << 2,
    CLI_OPT_AGENT = 1u << 3,
    CLI_OPT_PLUGIN_DIR = 1u << 4,
    CLI_OPT_FORMAT = 1u << 5,
    CLI_OPT_ANSWER = 1u << 6, /* --yes, --no */
    CLI_OPT_VERBOSE = 1u << 7,
    CLI_OPT_APPROVAL = 1u << 8,
    CLI_OPT_TIMEOUT = 1u << 9,
    CLI_OPT_CATALOG = 1u << 10,
    CLI_OPT_HTTP = 1u << 11,       /* serve --http ADDR:PORT */
    CLI_OPT_TOKEN_FILE = 1u << 12, /* serve --http --token-file FILE */
};
/* What every command that opens the host accepts. */
#define CLI_OPT_HOST                                                                               \
    (CLI_OPT_WORKSPACE | CLI_OPT_PROFILE | CLI_OPT_CONFIG | CLI_OPT_APPROVAL |                     \
     CLI_OPT_PLUGIN_DIR | CLI_OPT_VERBOSE)

typedef struct cli_option {
    const char *name; /* long name without "--" */
    char short_name;  /* 0: none */
    const char *arg;  /* argument's name, NULL: a flag */
    unsigned bit;     /* CLI_OPT_* */
    const char *help;
    const char *values; /* fixed values for completion ("a b c"), or NULL */
} cli_option;

typedef struct cli_options {
    const char *format;     /* call: json|text; tools: names|mcp|openai; plugins: text|json */
    const char *agent;      /* per-call agent */
    int answer;             /* --yes 1, --no 0, else -1 (ask on the terminal) */
    const char *host_error; /* plugins: why the active profile cannot load, or NULL */
    const char *workspace;  /* --workspace as given, or NULL (trust) */
    double timeout;         /* call: --timeout in seconds, 0 for none */
} cli_options;

/* How a command needs the host. */
typedef enum cli_host_use {
    CLI_NO_HOST,      /* help, completion */
    CLI_HOST,         /* host_open must succeed */
    CLI_HOST_LISTING, /* runs even when the profile cannot load (o->host_error) */
} cli_host_use;

typedef struct cli_command {
    const char *name;
    const char *synopsis; /* its arguments, e.g. "TOOL [JSON|-]" */
    const char *summary;  /* one line for the overview */
    const char *help;     /* its own help text, after the usage line */
    int min_args, max_args;
    unsigned options;    /* CLI_OPT_* that apply to it */
    const char *formats; /* --format values ("a b"), first the default; or NULL */
    cli_host_use host;
    /* Returns the exit code.  NULL for serve: main.c runs the MCP front
     * end, a sibling of the CLI (neither includes the other). */
    int (*run)(int argc, char **argv, const cli_options *o);
} cli_command;

/* The commands, in help order; the array ends with a NULL name.  To add
 * a command, add one entry to the table in cli.c. */
extern const cli_command cli_commands[];
/* Options, ending with a NULL name (help and version are main's own).
 * The count is fixed here so that main.c sizes getopt's tables from it;
 * cli.c asserts that the table holds exactly that many. */
#define CLI_OPTION_COUNT 14
extern const cli_option cli_options_table[CLI_OPTION_COUNT + 1];

const cli_command *cli_find(const char *name);
/* The overview (`vthost help`), or one command's help. */
void cli_usage(FILE *to);
void cli_command_help(FILE *to, const cli_command *c);
/* The long name of an option bit, for usage errors. */
const char *cli_option_name(unsigned bit);

/* Exit codes, the same for every command. */
enum {
    CLI_EXIT_OK = 0,        /* done; for call: the tool ran */
    CLI_EXIT_FAILED = 1,    /* the tool failed or was denied; the host could not start
                              for want of a module or of the system */
    CLI_EXIT_USAGE = 2,     /* what the user wrote: command line, option values, tool
                              arguments, vtcode.toml, agent specs, profile files */
    CLI_EXIT_TIMEOUT = 124, /* call: --timeout ended the call (as timeout(1)) */
    /* call: 128 + N when signal N (SIGINT, SIGTERM, SIGHUP) ended the call */
};

/* Completion script for bash, zsh or fish on `to`; -1 for another shell. */
int cli_completion(FILE *to, const char *shell);

/* Commands living in their own files (cli_plugins.c, cli_help.c). */
int cli_plugins(int argc, char **argv, const cli_options *o);
int cli_help(int argc, char **argv, const cli_options *o);
/* `explain --format text`: the explanation JSON as one sentence per stage. */
struct cJSON;
void cli_explain_text(const struct cJSON *explanation);
int cli_completion_cmd(int argc, char **argv, const cli_options *o);
/* cli_mcp.c: `vthost mcp`, and the providers' lines in `vthost plugins`. */
int cli_mcp(int argc, char **argv, const cli_options *o);
void cli_mcp_plugins_text(void);
struct cJSON *cli_mcp_plugins_json(void); /* new array, or NULL */

#endif
