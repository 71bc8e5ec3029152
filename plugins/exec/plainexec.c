#include "plainexec.h"
#include "shell_words.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>

/* Bytes a word may hold and still mean only itself to sh, dash and bash:
 * no quoting, expansion, glob, brace, redirection or operator. */
static int plain_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c && strchr("_./:=,+@%^-", c));
}

void plain_words_free(char **argv)
{
    for (char **a = argv; a && *a; a++)
        free(*a);
    free(argv);
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* One pass checks the bytes and counts the words. */
static size_t count_plain(const char *cmd)
{
    size_t n = 0;
    for (const char *p = cmd; *p; p++) {
        if (is_blank(*p))
            continue;
        if (!plain_byte((unsigned char)*p))
            return 0;
        if (p == cmd || is_blank(p[-1]))
            n++;
    }
    return n;
}

int plain_words(const char *cmd, char ***argv)
{
    *argv = NULL;
    size_t n = cmd ? count_plain(cmd) : 0;
    if (!n)
        return 0;
    char **v = calloc(n + 1, sizeof *v);
    size_t k = 0;
    for (const char *p = cmd; v && *p;) {
        while (is_blank(*p))
            p++;
        size_t len = strcspn(p, " \t");
        if (!len)
            break;
        if (!(v[k++] = strndup(p, len))) {
            plain_words_free(v);
            return 0;
        }
        p += len;
    }
    if (!v)
        return 0;
    /* An assignment word (NAME=v cmd), a job (%1) or the shell's own
     * name (`true --help` too: the built-in ignores its arguments): the
     * shell's meaning, not a program's. */
    if (strchr(v[0], '=') || v[0][0] == '%' || shell_word_own(v[0], n > 1)) {
        plain_words_free(v);
        return 0;
    }
    *argv = v;
    return 1;
}

static const char *env_get(char *const *env, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = env; e && *e; e++)
        if (!strncmp(*e, name, n) && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

plain_shell plain_shell_of(const char *shell_path, char *const *env)
{
    /* By the file the path leads to, whatever name it is called by (a
     * link named sh may be bash; a file named sh may be either). */
    char real[PATH_MAX];
    const char *b = realpath(shell_path, real) ? strrchr(real, '/') + 1 : "";
    plain_shell sh = !strcmp(b, "bash") ? PLAIN_BASH : !strcmp(b, "dash") ? PLAIN_DASH : PLAIN_NONE;
    const char *path = env_get(env, "PATH");
    if (sh == PLAIN_NONE || !path || !*path)
        return PLAIN_NONE;
    /* What a shell reads at start-up, or imports, that could change what
     * the words do: a file it sources, functions, options, a search
     * filter. */
    static const char *const read_at_start[] = {"BASH_ENV", "ENV",        "SHELLOPTS",
                                                "BASHOPTS", "EXECIGNORE", NULL};
    for (const char *const *r = read_at_start; *r; r++)
        if (env_get(env, *r))
            return PLAIN_NONE;
    for (char *const *e = env; *e; e++)
        if (!strncmp(*e, "BASH_FUNC_", 10))
            return PLAIN_NONE;
    return sh;
}

/* Sets NAME=value in *env (replacing NAME's entry, or appended), or
 * removes NAME when value is NULL. */
static int env_put(char ***env, const char *name, const char *value)
{
    size_t n = 0, nl = strlen(name), at = (size_t)-1;
    for (char **e = *env; *e; e++, n++)
        if (!strncmp(*e, name, nl) && (*e)[nl] == '=')
            at = n;
    if (!value) {
        if (at != (size_t)-1) {
            free((*env)[at]);
            memmove(*env + at, *env + at + 1, (n - at) * sizeof **env);
        }
        return VT_OK;
    }
    size_t len = nl + strlen(value) + 2;
    char *s = malloc(len);
    if (!s)
        return VT_ERR_NOMEM;
    snprintf(s, len, "%s=%s", name, value);
    if (at != (size_t)-1) {
        free((*env)[at]);
        (*env)[at] = s;
        return VT_OK;
    }
    size_t cap = n + 1; /* what is known to be allocated */
    if (VT_GROW(env, &cap, n + 2) != 0) {
        free(s);
        return VT_ERR_NOMEM;
    }
    (*env)[n] = s;
    (*env)[n + 1] = NULL;
    return VT_OK;
}

static int same_dir(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && a[0] == '/' && stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISDIR(sa.st_mode) &&
           sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* A path with no "." or ".." component: the shells keep an inherited PWD
 * only when it is such a name of the working directory. */
static int canonical_form(const char *p)
{
    for (const char *s = p; (s = strchr(s, '/')); s++) {
        if (s[1] == '.' && (s[2] == '/' || !s[2] || (s[2] == '.' && (s[3] == '/' || !s[3]))))
            return 0;
    }
    return 1;
}

/* bash hands on SHLVL as it found it when it execs its last command
 * (raised at start, lowered for the exec): a non-negative number as
 * itself, anything else as 0. */
static long shell_level(const char *v)
{
    char *end = NULL;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return end && *end ? 0 : n < 0 ? 0 : n;
}

int plain_env(plain_shell sh, const char *workdir, char ***env, char **under)
{
    *under = NULL;
    const char *pwd = env_get(*env, "PWD");
    int keep = pwd && canonical_form(pwd) && same_dir(pwd, workdir);
    if (!keep && env_put(env, "PWD", workdir) != VT_OK)
        return VT_ERR_NOMEM;
    if (sh != PLAIN_BASH)
        return VT_OK;
    char lvl[32];
    snprintf(lvl, sizeof lvl, "%ld", shell_level(env_get(*env, "SHLVL")));
    const char *old = env_get(*env, "OLDPWD");
    struct stat st;
    if (env_put(env, "SHLVL", lvl) != VT_OK ||
        (old && !(stat(old, &st) == 0 && S_ISDIR(st.st_mode)) &&
         env_put(env, "OLDPWD", NULL) != VT_OK))
        return VT_ERR_NOMEM;
    /* "_" last, sized for any path the search may find */
    char blank[PLAIN_UNDER_BYTES];
    memset(blank, 'x', sizeof blank - 3);
    blank[sizeof blank - 3] = 0;
    if (env_put(env, "_", blank) != VT_OK)
        return VT_ERR_NOMEM;
    for (char **e = *env; *e; e++)
        if (!strncmp(*e, "_=", 2))
            *under = *e;
    return VT_OK;
}

/* Whether a program run from its descriptor (execveat AT_EMPTY_PATH, as
 * the leader runs it) is named by its file in /proc/PID/comm, ps and
 * pkill: Linux 6.14 on; before, it was named by the descriptor's number,
 * which the shell's exec by path never shows.  Read once. */
static int exec_names_program(void)
{
    static int known = -1; /* -1: not read yet */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (k < 0) {
        struct utsname u;
        unsigned major = 0, minor = 0;
        k = uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
            (major > 6 || (major == 6 && minor >= 14));
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k;
}

int plain_prepare(const char *cmd, const char *shell_path, const char *workdir, char ***env,
                  char ***argv, char **under)
{
    *argv = NULL;
    *under = NULL;
    if (!exec_names_program())
        return VT_OK;
    plain_shell sh = plain_shell_of(shell_path, *env);
    if (sh == PLAIN_NONE || !plain_words(cmd, argv))
        return VT_OK;
    int rc = plain_env(sh, workdir, env, under);
    if (rc != VT_OK) {
        plain_words_free(*argv);
        *argv = NULL;
    }
    return rc;
}
