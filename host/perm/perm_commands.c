/* The one table of command knowledge (see perm_commands.h). */
#include "perm_commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* ---- wrappers ------------------------------------------------------------ */

#define L(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NONE ((const char *const[]){NULL})

/* Sorted by nothing: a linear scan of a few dozen names is cheaper than
 * the matching that follows.  Options not listed as taking a value are
 * taken as flags; a wrong guess there only shifts which word the
 * look-through reads as the program, and every variant is matched
 * against deny and ask rules only (allow rules see the text as written). */
static const perm_wrapper wrappers[] = {
    {"env", L("-u", "--unset", "-C", "--chdir"), L("-S", "--split-string"), 0, 0, 1, 0},
    {"timeout", L("-s", "--signal", "-k", "--kill-after"), NULL, 1, 0, 0, 0},
    {"nice", L("-n", "--adjustment"), NULL, 0, 0, 0, 0},
    {"nohup", NONE, NULL, 0, 0, 0, 0},
    {"time", L("-f", "--format", "-o", "--output"), NULL, 0, 0, 0, 0},
    {"command", NONE, NULL, 0, 0, 0, 0},
    {"builtin", NONE, NULL, 0, 0, 0, 0},
    {"exec", L("-a"), NULL, 0, 0, 0, 0},
    {"stdbuf", L("-i", "-o", "-e", "--input", "--output", "--error"), NULL, 0, 0, 0, 0},
    {"xargs", NONE, NULL, 0, 1, 0, 0},
    {"sudo",
     L("-u", "--user", "-g", "--group", "-C", "--close-from", "-D", "--chdir", "-h", "--host", "-p",
       "--prompt", "-r", "--role", "-t", "--type", "-U", "--other-user", "-T", "--command-timeout"),
     NULL, 0, 0, 1, 0},
    {"doas", L("-u", "-C"), NULL, 0, 0, 0, 0},
    {"su",
     L("-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment"),
     L("-c", "--command", "--session-command"), 0, 0, 0, 0},
    {"runuser",
     L("-u", "--user", "-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w",
       "--whitelist-environment"),
     L("-c", "--command", "--session-command"), 0, 0, 0, 0},
    {"chroot", L("--userspec", "--groups"), NULL, 1, 0, 0, 0},
    {"setpriv",
     L("--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps", "--bounding-set",
       "--securebits", "--pdeathsig", "--selinux-label", "--apparmor-profile", "--landlock-access",
       "--landlock-rule"),
     NULL, 0, 0, 0, 0},
    {"unshare",
     L("-S", "--setuid", "-G", "--setgid", "-R", "--root", "-w", "--wd", "--map-user",
       "--map-group", "--map-users", "--map-groups", "--propagation"),
     NULL, 0, 0, 0, 0},
    {"nsenter", L("-t", "--target", "-S", "--setuid", "-G", "--setgid"), NULL, 0, 0, 0, 0},
    {"flock", L("-w", "--timeout", "-E", "--conflict-exit-code"), L("-c", "--command"), 1, 0, 0, 0},
    {"chrt", L("-T", "--sched-runtime", "-P", "--sched-period", "-D", "--sched-deadline"), NULL, 1,
     0, 0, 0},
    {"taskset", NONE, NULL, 1, 0, 0, 0},
    {"ionice", L("-c", "--class", "-n", "--classdata"), NULL, 0, 0, 0, 0},
    {"setsid", NONE, NULL, 0, 0, 0, 0},
    {"unbuffer", NONE, NULL, 0, 0, 0, 0},
    {"watch", L("-n", "--interval"), NULL, 0, 0, 0, 1},
};

static int word_is(const char *w, size_t len, const char *s)
{
    return strlen(s) == len && memcmp(w, s, len) == 0;
}

/* Wrappers the configuration adds; written only while the engine
 * starts, read afterwards. */
static perm_wrapper *extra;
static size_t nextra, capextra;

const perm_wrapper *perm_cmd_wrapper(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++)
        if (word_is(name, len, wrappers[i].name))
            return &wrappers[i];
    for (size_t i = 0; i < nextra; i++)
        if (word_is(name, len, extra[i].name))
            return &extra[i];
    return NULL;
}

static void wrapper_free(perm_wrapper *w)
{
    free((char *)w->name);
    for (const char *const *o = w->arg_opts; o && *o; o++)
        free((char *)*o);
    free((void *)w->arg_opts);
}

int perm_cmd_add_wrapper(const char *spec, char **err)
{
    *err = NULL;
    char *copy = strdup(spec), *save = NULL;
    if (!copy)
        return VT_ERR_NOMEM;
    size_t nw = 0;
    char *words[33];
    for (char *t = strtok_r(copy, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (nw < 32)
            words[nw++] = t;
    int bad = nw == 0 || nw == 32 ||
              strspn(words[0], "abcdefghijklmnopqrstuvwxyz"
                               "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") != strlen(words[0]);
    for (size_t i = 1; i < nw && !bad; i++)
        bad = words[i][0] != '-' || !words[i][1];
    if (bad) {
        free(copy);
        if (asprintf(err,
                     "[permissions] wrappers: '%s' must be a program name, optionally followed "
                     "by the options that take a value (\"flock -w -E\")",
                     spec) < 0)
            *err = NULL;
        return VT_ERR_INVALID;
    }
    if (perm_cmd_wrapper(words[0], strlen(words[0]))) {
        free(copy);
        return VT_OK;
    }
    perm_wrapper w = {0};
    const char **opts = calloc(nw, sizeof *opts);
    w.name = strdup(words[0]);
    int ok = opts && w.name;
    for (size_t i = 1; ok && i < nw; i++)
        ok = (opts[i - 1] = strdup(words[i])) != NULL;
    w.arg_opts = opts;
    int grown = ok && VT_GROW(&extra, &capextra, nextra + 1) == 0;
    free(copy);
    if (!grown) {
        wrapper_free(&w);
        return VT_ERR_NOMEM;
    }
    extra[nextra++] = w;
    return VT_OK;
}

void perm_cmd_clear_wrappers(void)
{
    for (size_t i = 0; i < nextra; i++)
        wrapper_free(&extra[i]);
    free(extra);
    extra = NULL;
    nextra = capextra = 0;
}

int perm_cmd_wrapper_opt(const perm_wrapper *w, const char *opt, size_t len)
{
    for (const char *const *o = w->cmd_opts; o && *o; o++)
        if (word_is(opt, len, *o))
            return 2;
    for (const char *const *o = w->arg_opts; *o; o++)
        if (word_is(opt, len, *o))
            return 1;
    return 0;
}

static const char *base_of(const char *w)
{
    const char *s = strrchr(w, '/');
    return s ? s + 1 : w;
}

static int is_assignment(const char *w)
{
    const char *eq = strchr(w, '=');
    if (!eq || eq == w)
        return 0;
    for (const char *c = w; c < eq; c++)
        if (!(*c == '_' || (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
              (c > w && *c >= '0' && *c <= '9')))
            return 0;
    return 1;
}

size_t perm_cmd_unwrap(char *const *argv, size_t argc, const char **text)
{
    *text = NULL;
    size_t i = 0;
    for (int depth = 0; i < argc && depth < 16; depth++) {
        while (i < argc && is_assignment(argv[i]))
            i++;
        if (i == argc)
            return argc;
        const char *name = base_of(argv[i]);
        const perm_wrapper *wr = perm_cmd_wrapper(name, strlen(name));
        if (!wr)
            return i;
        i++;
        /* a command option anywhere (su user -c CMD) */
        for (size_t k = i; wr->cmd_opts && k < argc; k++)
            if (perm_cmd_wrapper_opt(wr, argv[k], strlen(argv[k])) == 2) {
                *text = k + 1 < argc ? argv[k + 1] : NULL;
                return argc;
            }
        int saw_opt = 0;
        while (i < argc && argv[i][0] == '-' && argv[i][1]) {
            saw_opt = 1;
            int sep = !strcmp(argv[i], "--");
            i += perm_cmd_wrapper_opt(wr, argv[i], strlen(argv[i])) ? 2 : 1;
            if (sep)
                break;
        }
        if (saw_opt && wr->only_flagless)
            return argc;
        if (wr->assignments)
            while (i < argc && is_assignment(argv[i]))
                i++;
        i += (size_t)wr->positional;
    }
    return i < argc ? i : argc;
}

/* ---- global options before a subcommand ------------------------------------ */

/* Every global option each program documents (git: git(1) and git.c's
 * handle_options, which also knows --shallow-file; the others: their
 * --help), as taking a value or not.  An option missing here is not
 * trusted to be a flag: see perm_cmd_global_opt. */
static const perm_global_opts globals[] = {
    {"git",
     L("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
       "--attr-source", "--shallow-file"),
     L("-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects", "--no-lazy-fetch",
       "--literal-pathspecs", "--no-literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs",
       "--icase-pathspecs", "--no-optional-locks", "--no-advice", "--exec-path", "--list-cmds",
       "--html-path", "--man-path", "--info-path", "--list-builtins", "--list-parseopt-builtins",
       "-h", "--help", "-v", "--version"),
     0},
    {"cargo", L("-C", "-Z", "--config", "--color", "--explain"),
     L("-V", "--version", "--list", "-v", "-vv", "--verbose", "-q", "--quiet", "--locked",
       "--offline", "--frozen", "-h", "--help"),
     1},
    {"npm",
     L("--prefix", "-C", "--userconfig", "--globalconfig", "--cache", "--registry", "--loglevel",
       "-w", "--workspace", "--tag", "--otp", "--scope"),
     L("-g", "--global", "-s", "--silent", "-q", "--quiet", "-d", "-dd", "-ddd", "--verbose", "-f",
       "--force", "-y", "--yes", "--no-color", "--json", "--offline", "--prefer-offline",
       "--ignore-scripts", "-ws", "--workspaces", "-v", "--version", "-h", "--help"),
     0},
    {"pnpm", L("-C", "--dir", "--filter", "-F", "--reporter", "--loglevel"),
     L("-r", "--recursive", "-w", "--workspace-root", "-s", "--silent", "--color", "--no-color",
       "--aggregate-output", "-v", "--version", "-h", "--help"),
     0},
    {"yarn", L("--cwd"),
     L("-s", "--silent", "--verbose", "--offline", "--json", "--no-progress", "-v", "--version",
       "-h", "--help"),
     0},
    {"docker",
     L("--context", "-c", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert",
       "--tlscert", "--tlskey"),
     L("-D", "--debug", "--tls", "--tlsverify", "-v", "--version", "-h", "--help"), 0},
    {"podman",
     L("--connection", "-c", "--url", "--root", "--runroot", "--log-level", "--identity",
       "--cgroup-manager", "--conmon", "--events-backend", "--hooks-dir", "--imagestore",
       "--module", "--network-cmd-path", "--network-config-dir", "--out", "--runtime",
       "--runtime-flag", "--ssh", "--storage-driver", "--storage-opt", "--tmpdir", "--volumepath",
       "--cni-config-dir"),
     L("-r", "--remote", "--syslog", "--noout", "--transient-store", "-v", "--version", "-h",
       "--help"),
     0},
    {"kubectl",
     L("--context", "-n", "--namespace", "--kubeconfig", "--cluster", "--user", "-s", "--server",
       "--token", "--as", "--as-group", "--as-uid", "--request-timeout", "-v", "--cache-dir",
       "--certificate-authority", "--client-certificate", "--client-key", "--password",
       "--username", "--tls-server-name", "--profile", "--profile-output", "--log-file",
       "--vmodule"),
     L("--insecure-skip-tls-verify", "--match-server-version", "--warnings-as-errors",
       "--disable-compression", "-h", "--help"),
     0},
    {"helm",
     L("--kube-context", "-n", "--namespace", "--kubeconfig", "--kube-apiserver", "--kube-as-group",
       "--kube-as-user", "--kube-ca-file", "--kube-token", "--kube-tls-server-name",
       "--registry-config", "--repository-cache", "--repository-config", "--burst-limit", "--qps"),
     L("--debug", "--kube-insecure-skip-tls-verify", "-h", "--help"), 0},
};

const perm_global_opts *perm_cmd_global_opts(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof globals / sizeof *globals; i++)
        if (word_is(name, len, globals[i].name))
            return &globals[i];
    return NULL;
}

static int listed_as(const char *const *list, const char *w, size_t len)
{
    for (const char *const *o = list; *o; o++)
        if (word_is(w, len, *o))
            return 1;
    return 0;
}

int perm_cmd_global_opt(const perm_global_opts *g, const char *opt, size_t len)
{
    if (g->plus_word && len && opt[0] == '+')
        return 0;
    if (listed_as(g->arg_opts, opt, len))
        return 1;
    if (listed_as(g->flag_opts, opt, len))
        return 0;
    const char *eq = len > 2 && !strncmp(opt, "--", 2) ? memchr(opt, '=', len) : NULL;
    if (eq && (listed_as(g->arg_opts, opt, (size_t)(eq - opt)) ||
               listed_as(g->flag_opts, opt, (size_t)(eq - opt))))
        return 0;
    return -1;
}

/* ---- writers -------------------------------------------------------------- */

static const struct {
    const char *name;
    perm_write_mode how;
} writers[] = {
    {"tee", PERM_W_ALL},     {"truncate", PERM_W_ALL}, {"touch", PERM_W_ALL},
    {"rm", PERM_W_TREE},     {"rmdir", PERM_W_TREE},   {"unlink", PERM_W_TREE},
    {"shred", PERM_W_TREE},  {"chmod", PERM_W_TREE},   {"chown", PERM_W_TREE},
    {"chgrp", PERM_W_TREE},  {"mkdir", PERM_W_ALL},    {"mkfifo", PERM_W_ALL},
    {"patch", PERM_W_ALL},   {"setfacl", PERM_W_TREE}, {"chattr", PERM_W_TREE},
    {"cp", PERM_W_LAST},     {"install", PERM_W_LAST}, {"ln", PERM_W_LAST},
    {"rsync", PERM_W_LAST},  {"scp", PERM_W_LAST},     {"mv", PERM_W_MOVE},
    {"sed", PERM_W_INPLACE}, {"perl", PERM_W_INPLACE}, {"dd", PERM_W_DD},
};

perm_write_mode perm_cmd_writer(const char *base)
{
    for (size_t i = 0; i < sizeof writers / sizeof *writers; i++)
        if (!strcmp(base, writers[i].name))
            return writers[i].how;
    return PERM_W_NONE;
}

int perm_cmd_in_place(const char *base, const char *a)
{
    /* only the program's value-less flags may come before the i */
    const char *flags = !strcmp(base, "sed")    ? "nrEsuz"
                        : !strcmp(base, "perl") ? "pnlawsTt0123456789"
                                                : NULL;
    if (!flags)
        return 0;
    if (!strcmp(base, "sed") && !strncmp(a, "--in-place", 10))
        return 1;
    if (a[0] != '-' || a[1] == '-')
        return 0;
    size_t k = 1 + strspn(a + 1, flags);
    return a[k] == 'i';
}

int perm_cmd_git_writer(const char *sub)
{
    static const char *const subs[] = {
        "apply", "checkout",    "restore", "reset", "mv",     "rm",     "stash",  "clean",
        "am",    "cherry-pick", "merge",   "pull",  "rebase", "revert", "switch", NULL};
    for (size_t i = 0; subs[i]; i++)
        if (!strcmp(sub, subs[i]))
            return 1;
    return 0;
}

/* ---- runs that verify nothing --------------------------------------------- */

/* Flags that make any program print and stop, or only pretend. */
static const char *const idle_flags[] = {
    "--version",    "--help",  "-h",       "-?",        "--dry-run",
    "--just-print", "--recon", "--dryrun", "--what-if", NULL};

static int in(const char *w, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(w, list[i]))
            return 1;
    return 0;
}

/* A build file that is no project's build: text from a pipe or the
 * command line, or nothing at all. */
static int unreal_file(const char *f)
{
    return !strcmp(f, "-") || !strncmp(f, "/dev/", 5) || !strncmp(f, "/proc/", 6);
}

/* `c` from `dir` (a -C option) in buf; NULL when too long to check. */
static const char *change_dir(char *buf, size_t size, const char *dir, const char *c)
{
    int n = c[0] == '/' ? snprintf(buf, size, "%s", c) : snprintf(buf, size, "%s/%s", dir, c);
    return n < 0 || (size_t)n >= size ? NULL : buf;
}

static int exists_in(const char *dir, const char *name)
{
    char path[4096];
    struct stat sb;
    if (!change_dir(path, sizeof path, dir, name))
        return 1; /* too long to look at: take it as there */
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0;
}

/* make: --eval/-E, a build file from stdin or /dev/null, or none. */
static int make_idle(char *const *argv, size_t argc, const char *cwd)
{
    const char *dir = cwd, *file = NULL;
    char dirbuf[4096];
    for (size_t i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--eval", 6) || !strncmp(a, "-E", 2))
            return 1;
        const char *f = NULL, *c = NULL;
        if ((!strcmp(a, "-f") || !strcmp(a, "--file") || !strcmp(a, "--makefile")) && i + 1 < argc)
            f = argv[++i];
        else if (!strncmp(a, "-f", 2))
            f = a + 2;
        else if (!strncmp(a, "--file=", 7) || !strncmp(a, "--makefile=", 11))
            f = strchr(a, '=') + 1;
        else if ((!strcmp(a, "-C") || !strcmp(a, "--directory")) && i + 1 < argc)
            c = argv[++i];
        else if (!strncmp(a, "-C", 2) && a[2])
            c = a + 2;
        else if (!strncmp(a, "--directory=", 12))
            c = a + 12;
        if (f && unreal_file(f))
            return 1;
        if (f)
            file = f;
        if (c && dir)
            dir = change_dir(dirbuf, sizeof dirbuf, dir, c);
    }
    if (!dir)
        return 0;
    if (file)
        return !exists_in(dir, file);
    return !exists_in(dir, "GNUmakefile") && !exists_in(dir, "makefile") &&
           !exists_in(dir, "Makefile");
}

/* ninja: -t TOOL runs a tool, not the build; no build file builds nothing. */
static int ninja_idle(char *const *argv, size_t argc, const char *cwd)
{
    const char *dir = cwd, *file = "build.ninja";
    char dirbuf[4096];
    for (size_t i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "-t", 2))
            return 1;
        if (!strcmp(a, "-f") && i + 1 < argc)
            file = argv[++i];
        else if (!strncmp(a, "-f", 2))
            file = a + 2;
        else if (!strcmp(a, "-C") && i + 1 < argc && dir)
            dir = change_dir(dirbuf, sizeof dirbuf, dir, argv[++i]);
    }
    if (unreal_file(file))
        return 1;
    return dir && !exists_in(dir, file);
}

int perm_cmd_not_verifying(char *const *argv, size_t argc, const char *cwd)
{
    for (size_t i = 1; i < argc; i++) {
        if (in(argv[i], idle_flags) || !strncmp(argv[i], "--dry-run=", 10))
            return 1;
        /* -n is a dry run (make, ninja, go) unless it takes a count
         * (pytest-xdist's -n 4, -n auto). */
        if (!strcmp(argv[i], "-n")) {
            const char *next = i + 1 < argc ? argv[i + 1] : "";
            if (!(next[0] >= '0' && next[0] <= '9') && strcmp(next, "auto") &&
                strcmp(next, "logical"))
                return 1;
        }
    }
    const char *p = argc ? base_of(argv[0]) : "";
    if (!strcmp(p, "make") || !strcmp(p, "gmake"))
        return make_idle(argv, argc, cwd);
    if (!strcmp(p, "ninja") || !strcmp(p, "samu"))
        return ninja_idle(argv, argc, cwd);
    return 0;
}
