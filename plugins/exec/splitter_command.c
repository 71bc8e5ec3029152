/* The splitter's judgement of one finished simple command: what it
 * runs (a shell's script split in turn), and what makes it opaque
 * (sensitive assignments, built-ins that change later commands,
 * start-up files). */
#include "shell_words.h"
#include "splitter_int.h"

static int in_list(const char *w, const char *const *list)
{
    for (; *list; list++)
        if (!strcmp(w, *list))
            return 1;
    return 0;
}

static const char *base_name(const char *s)
{
    const char *b = strrchr(s, '/');
    return b ? b + 1 : s;
}

/* `bash -c SCRIPT ...` with the shell at word `name`: the index of SCRIPT
 * (nw when it is missing or read from stdin), or -1 when no script runs
 * out of sight.  With need_c, only `-c` counts (a shell met as an
 * argument, as in `sudo bash -c ...` or `find -exec sh -c ...`). */
static int shell_script_index(word *ws, int nw, int name, int need_c)
{
    static const char *const SHELLS[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", NULL};
    if (ws[name].has_exp || ws[name].glob || !in_list(base_name(sb_str(&ws[name].lit)), SHELLS))
        return -1;
    int has_c = 0, k = name + 1;
    for (; k < nw; k++) {
        const char *t = sb_str(&ws[k].lit);
        if (ws[k].has_exp || (t[0] != '-' && t[0] != '+'))
            break;
        if (!strcmp(t, "--")) {
            k++;
            break;
        }
        if (t[0] == '-' && t[1] != '-' && strchr(t, 'c'))
            has_c = 1;
        if ((!strcmp(t, "-o") || !strcmp(t, "+o") || !strcmp(t, "-O") || !strcmp(t, "+O")) &&
            k + 1 < nw)
            k++;
    }
    if (has_c)
        return k; /* nw when the script is missing */
    if (need_c)
        return -1;
    /* No -c: a script file runs (a command), or with no operand the
     * shell reads its script from stdin, out of sight. */
    return k < nw ? -1 : nw;
}

/* Variables that change what later programs do (where they are found,
 * which configuration and start-up files they read, what they load). */
static int sensitive_var(const char *s, size_t n)
{
    static const char *const names[] = {"PATH",
                                        "HOME",
                                        "BASH_ENV",
                                        "ENV",
                                        "IFS",
                                        "CDPATH",
                                        "GLOBIGNORE",
                                        "SHELLOPTS",
                                        "BASHOPTS",
                                        "PS4",
                                        "PROMPT_COMMAND",
                                        "BASH_XTRACEFD",
                                        "TMPDIR",
                                        "SHELL",
                                        "XDG_CONFIG_HOME",
                                        "XDG_DATA_HOME",
                                        "ZDOTDIR",
                                        "INPUTRC",
                                        "PAGER",
                                        "EDITOR",
                                        "VISUAL",
                                        "LESSOPEN",
                                        "LESSCLOSE",
                                        "MANPAGER",
                                        "BROWSER",
                                        "PYTHONPATH",
                                        "PYTHONSTARTUP",
                                        "PYTHONHOME",
                                        "PERL5LIB",
                                        "PERL5OPT",
                                        "PERLLIB",
                                        "RUBYOPT",
                                        "RUBYLIB",
                                        "NODE_OPTIONS",
                                        "NODE_PATH",
                                        "GCONV_PATH",
                                        "MAKEFLAGS",
                                        "MFLAGS",
                                        "CC",
                                        "CXX",
                                        "SSH_ASKPASS",
                                        "SUDO_ASKPASS",
                                        "NPM_CONFIG_PREFIX",
                                        NULL};
    static const char *const prefixes[] = {"LD_",         "GIT_",        "BASH_FUNC_", "DYLD_",
                                           "npm_config_", "NPM_CONFIG_", NULL};
    for (const char *const *k = names; *k; k++)
        if (strlen(*k) == n && !strncmp(*k, s, n))
            return 1;
    for (const char *const *k = prefixes; *k; k++)
        if (n >= strlen(*k) && !strncmp(*k, s, strlen(*k)))
            return 1;
    return 0;
}

/* NAME=, NAME+= or NAME[..]= at the start of `w`: is NAME sensitive? */
static int sensitive_assignment(const parser *p, const word *w)
{
    const char *s = p->s + w->start;
    size_t n = 0;
    while (w->start + n < w->end && is_name_char((unsigned char)s[n]))
        n++;
    return sensitive_var(s, n);
}

/* A shell started interactive or as a login shell reads start-up files. */
static int rc_shell(const parser *p, word *ws, int nw, int name)
{
    static const char *const SHELLS[] = {"sh",   "bash", "dash",  "zsh", "ksh",
                                         "mksh", "ash",  "rbash", NULL};
    (void)p;
    if (!in_list(base_name(sb_str(&ws[name].lit)), SHELLS))
        return 0;
    for (int k = name + 1; k < nw; k++) {
        const char *t = sb_str(&ws[k].lit);
        if (t[0] != '-' && t[0] != '+')
            break;
        if (ws[k].has_exp)
            return 1;
        if (!strcmp(t, "--login") || !strcmp(t, "--rcfile") || !strcmp(t, "--init-file") ||
            !strcmp(t, "--interactive") || !strcmp(t, "-o") || !strcmp(t, "+o") ||
            !strcmp(t, "-O") || !strcmp(t, "+O"))
            return 1;
        if (t[1] != '-' && (strchr(t, 'i') || strchr(t, 'l') || strchr(t, 's')))
            return 1;
    }
    return 0;
}

/* Emit one finished simple command. */
void split_finish_command(parser *p, word *ws, int nw)
{
    int name = 0;
    while (name < nw && split_is_assignment(p, &ws[name]))
        name++;
    for (int k = 0; k < name; k++)
        if (sensitive_assignment(p, &ws[k])) {
            split_emit(p, SPLIT_OPAQUE, "assignment to a variable that changes what programs do");
            break;
        }
    if (name == nw)
        return; /* assignments only: nothing runs (substitutions were seen) */
    /* Builtins that define aliases, traps, hashed paths or arithmetic, or
     * read a script, or set the variables they name: what runs afterwards
     * is not what the text shows. */
    const char *cmd0 = sb_str(&ws[name].lit);
    unsigned own = ws[name].has_exp ? 0 : shell_word(cmd0);
    int opaque = 0;
    if (own & SW_REDEFINES)
        opaque = 1;
    else if (own & SW_DECLARES)
        for (int k = name + 1; !opaque && k < nw; k++)
            opaque = (strcmp(cmd0, "printf") &&
                      (ws[k].has_exp || sensitive_var(sb_str(&ws[k].lit), ws[k].lit.len) ||
                       sensitive_assignment(p, &ws[k]))) ||
                     !strcmp(sb_str(&ws[k].lit), "-v") || !strcmp(sb_str(&ws[k].lit), "-n");
    if (opaque)
        split_emit(p, SPLIT_OPAQUE, "builtin that changes what later commands run");
    if (rc_shell(p, ws, nw, name))
        split_emit(p, SPLIT_OPAQUE, "interactive or login shell (reads start-up files)");
    sbuf text = {0};
    for (int k = 0; k < nw; k++) {
        if (k)
            sb_putc(&text, ' ');
        split_word_render(p, &ws[k], &text);
    }
    const char *nm = sb_str(&ws[name].lit);
    int script = shell_script_index(ws, nw, name, 0);
    if (ws[name].has_exp || (ws[name].glob && strcmp(nm, "[") && strcmp(nm, "[["))) {
        split_emit(p, SPLIT_OPAQUE, sb_str(&text));
    } else if (!strcmp(nm, "eval") || (script >= 0 && (script >= nw || ws[script].has_exp))) {
        /* Program text nobody can read here (eval, `| bash`, bash -c
         * "$x"): opaque, and the shell itself a command that needs a
         * rule of its own.  The run-time checks see only the programs it
         * executes, not its builtins (redirections, source, enable -f). */
        split_emit(p, SPLIT_OPAQUE, sb_str(&text));
        split_emit(p, SPLIT_COMMAND, sb_str(&text));
    } else if (script >= 0) {
        if (p->depth >= MAX_DEPTH)
            p->error = 1;
        else
            split_text(p, sb_str(&ws[script].lit), ws[script].lit.len);
    } else {
        split_emit(p, SPLIT_COMMAND, sb_str(&text));
        /* A wrapper's shell script (sudo/timeout/xargs/find -exec ...
         * sh -c SCRIPT) is split too: more subjects, never fewer. */
        for (int k = name + 1; k < nw && !p->error; k++) {
            int sc = shell_script_index(ws, nw, k, 1);
            if (sc < 0)
                continue;
            if (sc >= nw || ws[sc].has_exp)
                split_emit(p, SPLIT_OPAQUE, sb_str(&text));
            else if (p->depth >= MAX_DEPTH)
                p->error = 1;
            else
                split_text(p, sb_str(&ws[sc].lit), ws[sc].lit.len);
            break;
        }
    }
    if (text.oom)
        p->oom = 1;
    free(text.p);
}
