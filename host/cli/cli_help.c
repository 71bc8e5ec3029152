/* `vthost help` and `vthost completion`: both generated from the command
 * and option tables in cli.c, so they cannot drift from what main.c
 * accepts. */
#include <stdio.h>
#include <string.h>
#include "cli.h"

static void option_line(FILE *to, const cli_option *op)
{
    char left[48], flag[4] = "   ";
    if (op->short_name)
        snprintf(flag, sizeof flag, "-%c,", op->short_name);
    snprintf(left, sizeof left, "%s --%s%s%s", flag, op->name, op->arg ? " " : "",
             op->arg ? op->arg : "");
    fprintf(to, "  %-24s %s\n", left, op->help);
}

static const char exit_codes[] =
    "Exit codes:\n"
    "  0  done (call: the tool ran)\n"
    "  1  the tool failed or was denied; or the host could not start for\n"
    "     want of something installed or of the system: a profile's plugin\n"
    "     module not installed or refused, a port in use (for plugins: the\n"
    "     active profile cannot load)\n"
    "  2  what you wrote must change: an unknown command or option, an option\n"
    "     that does not apply, a bad option value (a --workspace, --config,\n"
    "     --profile, --agent or --plugin-dir that does not exist, an\n"
    "     --approval preset), wrong arguments, invalid tool arguments or an\n"
    "     unknown tool; a mistake in vtcode.toml, an agent spec or a profile\n"
    "     file (a plugin refusing its settings included)\n"
    "  124  call: --timeout ended the call\n"
    "  128+N  call: signal N (Ctrl-C: 130, SIGTERM: 143) ended the call\n"
    "  call --format text: a command that ran to its end gives its own status\n";

void cli_usage(FILE *to)
{
    fputs("Usage: vthost [OPTIONS] COMMAND [ARGS]\n\nCommands:\n", to);
    for (const cli_command *c = cli_commands; c->name; c++) {
        char left[40];
        snprintf(left, sizeof left, "%s%s%s", c->name, *c->synopsis ? " " : "", c->synopsis);
        fprintf(to, "  %-24s %s\n", left, c->summary);
    }
    fputs("\nOptions (each only where it applies; see vthost help COMMAND):\n", to);
    for (const cli_option *op = cli_options_table; op->name; op++)
        option_line(to, op);
    fputs("  -h, --help               this help (after a command: its help)\n"
          "  -V, --version            print the version\n\n",
          to);
    fputs(exit_codes, to);
}

void cli_command_help(FILE *to, const cli_command *c)
{
    fprintf(to, "Usage: vthost %s%s%s%s\n\n%s", c->options ? "[OPTIONS] " : "", c->name,
            *c->synopsis ? " " : "", c->synopsis, c->help);
    if (c->options) {
        fputs("\nOptions:\n", to);
        for (const cli_option *op = cli_options_table; op->name; op++)
            if (c->options & op->bit)
                option_line(to, op);
    }
    if (c->formats)
        fprintf(to, "\n--format: %s (default %.*s)\n", c->formats, (int)strcspn(c->formats, " "),
                c->formats);
    fputc('\n', to);
    fputs(exit_codes, to);
}

int cli_help(int argc, char **argv, const cli_options *o)
{
    (void)o;
    if (argc == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    const cli_command *c = cli_find(argv[0]);
    if (!c) {
        fprintf(stderr, "vthost: unknown command '%s'; the commands are listed by vthost help\n",
                argv[0]);
        return CLI_EXIT_USAGE;
    }
    cli_command_help(stdout, c);
    return CLI_EXIT_OK;
}

/* ---- completion scripts -------------------------------------------------- */

/* Help text inside a shell's single quotes and zsh's [...]: no quotes,
 * brackets or colons. */
static void put_plain(FILE *to, const char *s)
{
    for (; *s; s++)
        fputc(strchr("'[]:\\", *s) ? ' ' : *s, to);
}

static void put_names(FILE *to)
{
    for (const cli_command *c = cli_commands; c->name; c++)
        fprintf(to, "%s%s", c == cli_commands ? "" : " ", c->name);
}

static void put_command_options(FILE *to, const cli_command *c)
{
    fputs("--help", to);
    for (const cli_option *op = cli_options_table; op->name; op++) {
        if (!(c->options & op->bit))
            continue;
        fprintf(to, " --%s", op->name);
        if (op->short_name)
            fprintf(to, " -%c", op->short_name);
    }
}

static void bash_script(FILE *to)
{
    fputs("# bash completion for vthost (vthost completion bash)\n"
          "_vthost() {\n"
          "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
          "    local cmd='' i arg=0\n"
          "    case $prev in\n"
          "    -w|--workspace|--plugin-dir) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n"
          "    -c|--config) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
          "    -p|--profile) COMPREPLY=($(compgen -W 'default advanced' -- \"$cur\")); return ;;\n"
          "    -a|--agent) return ;;\n"
          "    esac\n"
          "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
          "        case ${COMP_WORDS[i]} in\n"
          "        -w|-p|-c|-a|--workspace|--profile|--config|--agent|--plugin-dir|--format) "
          "((i++)) ;;\n"
          "        -*) ;;\n"
          "        *) if [ -z \"$cmd\" ]; then cmd=${COMP_WORDS[i]}; else ((arg++)); fi ;;\n"
          "        esac\n"
          "    done\n"
          "    if [ \"$prev\" = --format ]; then\n"
          "        case $cmd in\n",
          to);
    for (const cli_command *c = cli_commands; c->name; c++)
        if (c->formats)
            fprintf(to, "        %s) COMPREPLY=($(compgen -W '%s' -- \"$cur\")) ;;\n", c->name,
                    c->formats);
    fputs("        esac\n"
          "        return\n"
          "    fi\n"
          "    if [[ $cur == -* ]]; then\n"
          "        case $cmd in\n",
          to);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(to, "        %s) COMPREPLY=($(compgen -W '", c->name);
        put_command_options(to, c);
        fputs("' -- \"$cur\")) ;;\n", to);
    }
    fputs("        *) COMPREPLY=($(compgen -W '--help --version' -- \"$cur\")) ;;\n"
          "        esac\n"
          "        return\n"
          "    fi\n"
          "    case $cmd in\n"
          "    '') COMPREPLY=($(compgen -W '",
          to);
    put_names(to);
    fputs("' -- \"$cur\")) ;;\n"
          "    call|explain) [ $arg -eq 0 ] &&\n"
          "        COMPREPLY=($(compgen -W \"$(vthost tools 2>/dev/null)\" -- \"$cur\")) ;;\n"
          "    help) [ $arg -eq 0 ] && COMPREPLY=($(compgen -W '",
          to);
    put_names(to);
    fputs("' -- \"$cur\")) ;;\n"
          "    completion) [ $arg -eq 0 ] && COMPREPLY=($(compgen -W 'bash zsh fish' -- \"$cur\")) "
          ";;\n"
          "    esac\n"
          "}\n"
          "complete -F _vthost vthost\n",
          to);
}

static void zsh_option(FILE *to, const cli_option *op)
{
    const char *action = !op->arg                   ? ""
                         : !strcmp(op->arg, "DIR")  ? ":directory:_files -/"
                         : !strcmp(op->arg, "FILE") ? ":file:_files"
                         : op->values               ? NULL
                                                    : ":value: ";
    fputs("    ", to);
    if (op->short_name)
        fprintf(to, "'(-%c --%s)'{-%c,--%s}'", op->short_name, op->name, op->short_name, op->name);
    else
        fprintf(to, "'%s--%s%s", op->bit == CLI_OPT_PLUGIN_DIR ? "*" : "", op->name, "");
    fputc('[', to);
    put_plain(to, op->help);
    fputc(']', to);
    if (action)
        fputs(action, to);
    else
        fprintf(to, ":value:(%s)", op->values);
    fputs("' \\\n", to);
}

static void zsh_script(FILE *to)
{
    fputs("#compdef vthost\n"
          "# zsh completion for vthost (vthost completion zsh)\n"
          "_vthost() {\n"
          "    local curcontext=$curcontext state line\n"
          "    local -a commands\n"
          "    commands=(\n",
          to);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(to, "        '%s:", c->name);
        put_plain(to, c->summary);
        fputs("'\n", to);
    }
    fputs("    )\n"
          "    _arguments -C \\\n"
          "    '(- *)'{-h,--help}'[show help]' \\\n"
          "    '(- *)'{-V,--version}'[print the version]' \\\n",
          to);
    for (const cli_option *op = cli_options_table; op->name; op++)
        zsh_option(to, op);
    fputs("    '1:command:->command' \\\n"
          "    '*::argument:->argument'\n"
          "    case $state in\n"
          "    command) _describe -t commands 'vthost command' commands ;;\n"
          "    argument)\n"
          "        case $line[1] in\n"
          "        call|explain) (( CURRENT == 2 )) &&\n"
          "            _values tool ${(f)\"$(vthost tools 2>/dev/null)\"} ;;\n"
          "        help) (( CURRENT == 2 )) && _describe -t commands 'vthost command' commands ;;\n"
          "        completion) (( CURRENT == 2 )) && _values shell bash zsh fish ;;\n"
          "        esac ;;\n"
          "    esac\n"
          "}\n"
          "if [ \"$funcstack[1]\" = _vthost ]; then\n"
          "    _vthost \"$@\"\n"
          "else\n"
          "    compdef _vthost vthost\n"
          "fi\n",
          to);
}

static void fish_script(FILE *to)
{
    fputs("# fish completion for vthost (vthost completion fish)\n"
          "complete -c vthost -f\n"
          "complete -c vthost -s h -l help -d 'show help'\n"
          "complete -c vthost -s V -l version -d 'print the version'\n",
          to);
    for (const cli_command *c = cli_commands; c->name; c++) {
        fprintf(to, "complete -c vthost -n __fish_use_subcommand -a %s -d '", c->name);
        put_plain(to, c->summary);
        fputs("'\n", to);
    }
    for (const cli_option *op = cli_options_table; op->name; op++) {
        fputs("complete -c vthost", to);
        if (op->short_name)
            fprintf(to, " -s %c", op->short_name);
        fprintf(to, " -l %s", op->name);
        if (op->arg && !strcmp(op->arg, "DIR"))
            fputs(" -x -a '(__fish_complete_directories)'", to);
        else if (op->arg && !strcmp(op->arg, "FILE"))
            fputs(" -r -F", to);
        else if (op->arg && op->values)
            fprintf(to, " -x -a '%s'", op->values);
        else if (op->arg)
            fputs(" -x", to);
        fputs(" -d '", to);
        put_plain(to, op->help);
        fputs("'\n", to);
    }
    fputs("complete -c vthost -n '__fish_seen_subcommand_from call explain' "
          "-a '(vthost tools 2>/dev/null)'\n"
          "complete -c vthost -n '__fish_seen_subcommand_from help' -a '",
          to);
    put_names(to);
    fputs("'\n"
          "complete -c vthost -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n",
          to);
}

int cli_completion(FILE *to, const char *shell)
{
    if (strcmp(shell, "bash") == 0)
        bash_script(to);
    else if (strcmp(shell, "zsh") == 0)
        zsh_script(to);
    else if (strcmp(shell, "fish") == 0)
        fish_script(to);
    else
        return -1;
    return 0;
}

int cli_completion_cmd(int argc, char **argv, const cli_options *o)
{
    (void)argc;
    (void)o;
    if (cli_completion(stdout, argv[0]) < 0) {
        fprintf(stderr, "vthost: no completion for shell '%s' (bash, zsh or fish)\n", argv[0]);
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}
