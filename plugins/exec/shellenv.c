#include "shellenv.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/plugin.h>

extern char **environ;

static int executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* `name` as execvp would find it; a malloc'd absolute path or NULL. */
static char *find_program(const char *name)
{
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/'))
        return executable(name) ? realpath(name, NULL) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin";
    size_t nl = strlen(name);
    for (const char *p = path;;) {
        const char *e = strchr(p, ':');
        size_t dl = e ? (size_t)(e - p) : strlen(p);
        char *cand = malloc(dl + nl + 3);
        if (!cand)
            return NULL;
        memcpy(cand, dl ? p : ".", dl ? dl : 1);
        size_t o = dl ? dl : 1;
        cand[o++] = '/';
        memcpy(cand + o, name, nl + 1);
        if (executable(cand)) {
            char *abs = realpath(cand, NULL);
            free(cand);
            return abs;
        }
        free(cand);
        if (!e)
            return NULL;
        p = e + 1;
    }
}

static int is_powershell(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    return !strcmp(b, "pwsh") || !strcmp(b, "powershell") || !strcmp(b, "pwsh.exe") ||
           !strcmp(b, "powershell.exe");
}

int shell_resolve(shell_profile prof, const char *shell, const char *cmd, shell_cmd *out,
                  const char **what)
{
    memset(out, 0, sizeof *out);
    if (shell) {
        *what = shell;
        out->path = find_program(shell);
    } else if (prof == SHELL_POWERSHELL) {
        *what = "pwsh";
        out->path = find_program("pwsh");
    } else {
        *what = "$SHELL, bash or sh";
        const char *env_shell = getenv("SHELL");
        if (env_shell && *env_shell)
            out->path = find_program(env_shell);
        if (!out->path)
            out->path = find_program("bash");
        if (!out->path)
            out->path = find_program("sh");
    }
    if (!out->path)
        return VT_ERR_NOT_FOUND;
    /* argv[0] keeps the path the user would see in ps. */
    out->argv[0] = out->path;
    if (is_powershell(out->path)) {
        out->argv[1] = "-NoProfile";
        out->argv[2] = "-Command";
        out->argv[3] = (char *)cmd;
    } else {
        out->argv[1] = "-c";
        out->argv[2] = (char *)cmd;
    }
    return VT_OK;
}

static int below(const char *root, const char *p)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    return strncmp(root, p, n) == 0 && (p[n] == '/' || p[n] == 0 || n == 1);
}

int shell_is_profile_shell(shell_profile prof, const char *shell, const char *const *writable)
{
    static const char *const unix_shells[] = {"sh", "bash", "dash", "zsh", "ksh", "mksh", NULL};
    static const char *const pwsh[] = {"pwsh", "powershell", NULL};
    const char *b = strrchr(shell, '/');
    b = b ? b + 1 : shell;
    int named = 0;
    for (const char *const *s = prof == SHELL_POWERSHELL ? pwsh : unix_shells; *s; s++)
        named |= !strcmp(*s, b);
    const char *env_shell = getenv("SHELL");
    if (!named && prof == SHELL_UNIX_LIKE && env_shell && *env_shell) {
        const char *eb = strrchr(env_shell, '/');
        named = !strcmp(eb ? eb + 1 : env_shell, b);
    }
    if (!named)
        return 0;
    /* Both the path as found and its target must lie outside what the
     * command (or the agent) can write. */
    char *path = find_program(shell);
    int ok = path != NULL;
    for (const char *const *w = writable; ok && w && *w; w++)
        ok = !below(*w, path);
    free(path);
    return ok;
}

void shell_cmd_free(shell_cmd *c)
{
    free(c->path);
    c->path = NULL;
}

static int overridden(const char *entry, const char *const *keys)
{
    for (; *keys; keys++) {
        size_t n = strlen(*keys);
        if (!strncmp(entry, *keys, n) && entry[n] == '=')
            return 1;
    }
    return 0;
}

char **env_build(int tty, const env_policy *policy)
{
    static const char *const keys[] = {"NO_COLOR", "PAGER", "GIT_PAGER", "TERM", NULL};
    const char *overlay[] = {
        "NO_COLOR=1", "PAGER=cat", "GIT_PAGER=cat", tty ? "TERM=xterm" : "TERM=dumb", NULL, NULL};
    const char *lang = getenv("LANG");
    if (!lang || !*lang)
        overlay[4] = "LANG=C.UTF-8";
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 6 + (policy ? policy->nset : 0), sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++) {
        if (overridden(*e, keys) || (policy && !env_policy_keeps(policy, *e)))
            continue;
        if (!(env[k++] = strdup(*e)))
            goto oom;
    }
    for (const char *const *o = overlay; *o; o++)
        if (!(env[k++] = strdup(*o)))
            goto oom;
    for (size_t i = 0; policy && i < policy->nset; i++) { /* [sandbox.env] set wins */
        size_t nlen = strcspn(policy->set[i], "=") + 1, j = 0;
        while (j < k && strncmp(env[j], policy->set[i], nlen) != 0)
            j++;
        char *d = strdup(policy->set[i]);
        if (!d)
            goto oom;
        if (j < k)
            free(env[j]);
        else
            k++;
        env[j] = d;
    }
    return env;
oom:
    env_free(env);
    return NULL;
}

void env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++)
        free(*e);
    free(env);
}
