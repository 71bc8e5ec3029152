/* The CLI front end's commands. */
#ifndef VTHOST_CLI_H
#define VTHOST_CLI_H

typedef struct cli_options {
    const char *format;   /* call: json|text; tools: names|mcp|openai */
    const char *agent;    /* per-call agent */
    int answer;           /* --yes 1, --no 0, else -1 (ask on the terminal) */
} cli_options;

/* Each returns the process exit code. */
int cli_call(const char *tool, const char *json, const cli_options *o);
int cli_explain(const char *tool, const char *json, const cli_options *o);
int cli_tools(const cli_options *o);
int cli_plugins(void);

#endif
