/* Judging one trapped execve (see execwatch.c for which programs are the
 * command text's own): the file it runs, resolved as the process sees
 * it, meets the deny rules under every name it has and as what runs in
 * its place; the text's own programs meet the allow, ask and auto rules
 * too.  Refusals and the text's programs are recorded on the watcher. */
#include "execwatch_file.h"
#include "execwatch_ident.h"
#include "execwatch_int.h"
#include "execwatch_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vthost/grow.h>

/* dir + "/" + name, malloc'd or NULL. */
static char *str_join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, dir, a);
        s[a] = '/';
        memcpy(s + a + 1, name, b + 1);
    }
    return s;
}

static int within(const char *root, const char *p)
{
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    return strncmp(root, p, n) == 0 && (p[n] == '/' || p[n] == 0 || n == 1);
}

/* Can the command have put a file in the directory of `p`? */
static int writable_dir(const execwatch *w, const char *p)
{
    char *d = strdup(p);
    if (!d)
        return 1;
    char *s = strrchr(d, '/');
    if (s)
        s[s == d ? 1 : 0] = 0;
    int wr = 0;
    if (!w->writable)
        wr = access(d, W_OK) == 0;
    else
        for (char **r = w->writable; *r && !wr; r++)
            wr = within(*r, d);
    free(d);
    return wr;
}

static const char *base_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static int known_shell(const char *name)
{
    static const char *const shells[] = {"sh", "bash", "dash", "rbash", "zsh", "ksh", "mksh", NULL};
    for (const char *const *s = shells; *s; s++)
        if (!strcmp(*s, name))
            return 1;
    return 0;
}

unsigned long long ew_shell_start(execwatch *w)
{
    if (w->shell_start_read)
        return w->shell_start;
    pid_t pp;
    if (ew_proc_stat(w->shell, &pp, &w->shell_start, NULL) < 0)
        w->shell_start = 0;
    /* Read from the pid: still the shell's only if the shell has not
     * ended since its first execve (a pidfd is readable once it has). */
    struct pollfd f = {.fd = w->shell_pidfd, .events = POLLIN};
    if (w->shell_pidfd >= 0 && poll(&f, 1, 0) != 0)
        w->shell_start = 0;
    if (w->shell_pidfd >= 0)
        close(w->shell_pidfd);
    w->shell_pidfd = -1;
    w->shell_start_read = 1;
    return w->shell_start;
}

static int marked(execwatch *w, pid_t pid, unsigned long long start)
{
    if (w->shell_marked && pid == w->shell && start == ew_shell_start(w))
        return 1;
    for (size_t i = 0; i < w->nmarks; i++)
        if (w->marks[i].pid == pid && w->marks[i].start == start)
            return 1;
    return 0;
}

static void mark(execwatch *w, pid_t pid, unsigned long long start)
{
    if (marked(w, pid, start))
        return;
    if (w->nmarks == w->capmarks) {
        /* forget the dead first */
        size_t k = 0;
        for (size_t i = 0; i < w->nmarks; i++) {
            pid_t pp;
            unsigned long long st;
            if (ew_proc_stat(w->marks[i].pid, &pp, &st, NULL) == 0 && st == w->marks[i].start)
                w->marks[k++] = w->marks[i];
        }
        w->nmarks = k;
    }
    if (VT_GROW(&w->marks, &w->capmarks, w->nmarks + 1) != 0)
        return;
    w->marks[w->nmarks++] = (program_mark){pid, start};
}

/* Is `pid` still the command text's shell (or a subshell of it)?  *self
 * and *self_start name the process that will become the program: a
 * thread's execve turns its whole process (which keeps its pid and start
 * time) into the new program, so a thread of an allowed program is that
 * program, not the shell. */
static int by_shell(execwatch *w, pid_t pid, pid_t *self, unsigned long long *self_start)
{
    *self = pid;
    *self_start = 0;
    pid_t cur = pid;
    for (int depth = 0; depth < 256 && cur > 1; depth++) {
        pid_t pp;
        unsigned long long st;
        int threads = 1;
        if (ew_proc_stat(cur, &pp, &st, depth ? NULL : &threads) < 0)
            return 1;
        if (depth == 0 && threads > 1) {
            pid_t tg = ew_proc_tgid(cur);
            if (tg > 0 && tg != cur) {
                cur = tg;
                if (ew_proc_stat(cur, &pp, &st, NULL) < 0)
                    return 1;
            }
        }
        if (depth == 0) {
            *self = cur;
            *self_start = st;
        }
        if (marked(w, cur, st))
            return 0;
        if (cur == w->shell && st == ew_shell_start(w))
            return 1;
        cur = pp;
    }
    return 1;
}

static void record_denied(execwatch *w, const char *name, const char *path, char **args,
                          const char *why)
{
    pthread_mutex_lock(&w->mu);
    if (!w->denied)
        w->denied = cJSON_CreateArray();
    cJSON *o = cJSON_CreateObject();
    cJSON *argv = o ? cJSON_AddArrayToObject(o, "argv") : NULL;
    if (argv && w->denied) {
        cJSON_AddStringToObject(o, "program", name);
        cJSON_AddStringToObject(o, "path", path);
        cJSON_AddItemToArray(argv, cJSON_CreateString(name));
        for (char **a = args; a && *a; a++)
            cJSON_AddItemToArray(argv, cJSON_CreateString(*a));
        cJSON_AddStringToObject(o, "reason", why);
        /* bounded: a loop of refusals must not grow the result forever */
        if (cJSON_GetArraySize(w->denied) < 100)
            cJSON_AddItemToArray(w->denied, o);
        else
            cJSON_Delete(o);
    } else {
        cJSON_Delete(o);
    }
    pthread_mutex_unlock(&w->mu);
}

#define PROGRAMS_MAX 64

/* The guard judges a run by the programs the text itself ran. */
static void record_program(execwatch *w, const char *name, char **args)
{
    cJSON *argv = cJSON_CreateArray();
    int ok = argv && cJSON_AddItemToArray(argv, cJSON_CreateString(name));
    for (char **a = args; ok && a && *a; a++)
        ok = cJSON_AddItemToArray(argv, cJSON_CreateString(*a));
    pthread_mutex_lock(&w->mu);
    if (!w->programs)
        w->programs = cJSON_CreateArray();
    if (ok && w->programs && cJSON_GetArraySize(w->programs) < PROGRAMS_MAX) {
        cJSON_AddItemToArray(w->programs, argv);
        argv = NULL;
    } else {
        w->programs_cut = 1;
    }
    pthread_mutex_unlock(&w->mu);
    cJSON_Delete(argv);
}

static int ask_policy(execwatch *w, const vt_exec_program *prog, char **why)
{
    pthread_mutex_lock(&w->mu);
    vt_call *live = w->live;
    if (live)
        w->asking++;
    pthread_mutex_unlock(&w->mu);
    int rc = w->policy->decide(w->policy, live, prog, why);
    if (live) {
        pthread_mutex_lock(&w->mu);
        w->asking--;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
    return rc;
}

/* The name rules match for a program file: its base name when the
 * command cannot have put it there, else the path as given (a copy or a
 * link cannot borrow an allowed name). */
static const char *rule_name(const execwatch *w, const char *given, const char *abs,
                             const char *real, int *trusted)
{
    *trusted = !writable_dir(w, abs) && (!real || !writable_dir(w, real));
    return *trusted ? base_of(abs) : given && given[0] ? given : abs;
}

/* Deny rules only, for a name the program also runs as. */
static int deny_as(execwatch *w, const char *name, const char *path, char *const *args, char **why)
{
    vt_exec_program p = {.struct_size = sizeof p,
                         .name = name,
                         .path = path,
                         .args = (const char *const *)args,
                         .by_shell = 0};
    char *reason = NULL;
    int rc = ask_policy(w, &p, &reason);
    if (rc != VT_OK)
        *why = reason;
    else
        w->api->free(reason);
    return rc;
}

/* A file that is a denied program (a hard link, a copy, under any name)
 * meets the deny rules as that program.  Takes `fd` (the file opened to
 * judge it, or -1); `real` names it in the refusal. */
static int deny_identity(execwatch *w, int fd, const char *real, char *const *args, char **why)
{
    const char *as = fd >= 0 && w->ident ? ew_ident_match(w->ident, fd) : NULL;
    if (fd >= 0)
        close(fd);
    return as ? deny_as(w, as, real, args, why) : VT_OK;
}

#define ARGV_MAX (EW_MAX_ARGS + 4)

/* What runs in the program's place or on its behalf, judged by the deny
 * rules under its own name: the interpreter of a script or the one an
 * ELF names (the kernel runs it without another execve), the program a
 * dynamic loader run directly maps, a multi-call binary's applet, the
 * name in argv[0] (what such binaries dispatch on).  `real` is the
 * program's canonical file (NULL when it does not exist), `args` its
 * argv[1..], `name` the name it was judged by.  Depth-limited like the
 * kernel's interpreter chain. */
static int deny_inner(execwatch *w, pid_t pid, int root, const char *real, const char *name,
                      const char *argv0, char **args, int depth, char **why)
{
    int rc = VT_OK;
    const char *base = real ? base_of(real) : NULL;
    if (argv0 && argv0[0] && strcmp(base_of(argv0), base ? base : "") &&
        strcmp(base_of(argv0), name)) {
        rc = deny_as(w, base_of(argv0), real ? real : argv0, args, why);
        if (rc != VT_OK)
            return rc;
    }
    if (!real || depth > 4)
        return rc;
    if ((!strcmp(base, "busybox") || !strcmp(base, "toybox")) && args[0]) {
        rc = deny_as(w, base_of(args[0]), real, args + 1, why);
        if (rc != VT_OK)
            return rc;
    }
    const char *next = NULL;
    char *interp = NULL, *arg = NULL, *abs = NULL, *nreal = NULL, *cwd = NULL;
    char **nargs = NULL;
    int k = -1;
    if (ew_is_loader(base)) {
        k = ew_loader_program(args);
        if (k >= 0)
            next = args[k];
    } else if (ew_interpreter(root, real, &interp, &arg) == 0 && interp) {
        if (!ew_is_loader(base_of(interp)))
            next = interp;
    }
    if (!next)
        goto done;
    if (next[0] != '/') /* the kernel and the loader open it from the cwd */
        cwd = ew_proc_link(pid, "cwd");
    abs = next[0] == '/' ? strdup(next) : str_join(cwd ? cwd : "", next);
    nargs = calloc(ARGV_MAX + 1, sizeof *nargs);
    if (!abs || !nargs) {
        rc = VT_ERR_NOMEM;
        *why = strdup("out of memory");
        goto done;
    }
    size_t n = 0;
    if (k >= 0) {
        for (char **a = args + k + 1; *a && n < ARGV_MAX; a++)
            nargs[n++] = *a;
    } else {
        if (arg)
            nargs[n++] = arg;
        nargs[n++] = (char *)real;
        for (char **a = args; *a && n < ARGV_MAX; a++)
            nargs[n++] = *a;
    }
    int r = ew_resolve(pid, root, abs, &nreal);
    if (r == -EBADF) {
        rc = VT_ERR_DENIED;
        *why = strdup("the program it runs has no name the rules can judge");
        goto done;
    }
    int trusted;
    const char *inner = base_of(rule_name(w, next, abs, nreal, &trusted));
    rc = deny_as(w, inner, nreal ? nreal : abs, nargs, why);
    if (rc == VT_OK && nreal && strcmp(base_of(nreal), inner))
        rc = deny_as(w, base_of(nreal), nreal, nargs, why);
    /* an interpreter that is a denied program's file (python3.11 for
     * python3) is that program, whatever its name */
    if (rc == VT_OK && nreal && w->ident && root >= 0)
        rc = deny_identity(w, openat(root, nreal + 1, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), nreal,
                           nargs, why);
    if (rc == VT_OK)
        rc = deny_inner(w, pid, root, nreal, inner, NULL, nargs, depth + 1, why);
done:
    free(cwd);
    free(interp);
    free(arg);
    free(abs);
    free(nreal);
    free(nargs);
    return rc;
}

/* One execve being judged: what was read of it and what it resolved
 * to; judge_done records a refusal and frees it. */
typedef struct judgement {
    pid_t pid;
    int dirfd, flags;
    int err;          /* the errno that fails the execve unless it may run */
    int root;         /* the process's root, or -1 */
    char *given;      /* the path as the process gave it */
    char **args;      /* its arguments after argv[0] */
    char *argv0;      /* argv[0] */
    char *base;       /* the directory a relative path starts from */
    char *abs;        /* the lexical absolute path */
    char *real;       /* the file as the process sees it */
    char *why;        /* the reason for a refusal */
    const char *name; /* the name the rules judge it by */
} judgement;

/* The path of one of the watcher's own descriptors, as the rules judge
 * it; VT_ERR_DENIED with j->why = `nameless` when it has none. */
static int own_fd_path(int fd, char real[PATH_MAX], const char *nameless, judgement *j)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t len = readlink(link, real, PATH_MAX - 1);
    if (len <= 0 || real[0] != '/') {
        j->why = strdup(nameless);
        return VT_ERR_DENIED;
    }
    real[len] = '\0';
    return VT_OK;
}

/* The supervisor starting the shell from the file the watcher opened:
 * execveat(EXECWATCH_SHELL_FD, "", ..., AT_EMPTY_PATH).  The registers
 * say which call it is even where its memory cannot be read. */
static int runs_shell_file(const execwatch *w, const struct seccomp_notif *n, int at)
{
    return w->shell_fd >= 0 && at && (int)n->data.args[0] == EXECWATCH_SHELL_FD &&
           ((int)n->data.args[4] & AT_EMPTY_PATH);
}

/* The shell's start, judged by the file the supervisor runs from
 * EXECWATCH_SHELL_FD: the watcher's own descriptor of it, as root and as
 * a user alike.  Its path is no use: inside the session a denied
 * program's path is already covered by the mask, and an unprivileged
 * host's session leader is not dumpable (spawn_child.c), so the memory of the
 * shell it vforks cannot be read until this execve.  The supervisor (our
 * code; nothing of the command runs yet) makes the call with the argv
 * the watcher was given. */
static int judge_shell_file(execwatch *w, judgement *j)
{
    char real[PATH_MAX];
    if (own_fd_path(w->shell_fd, real, "the shell's file has no name the rules can judge", j))
        return VT_ERR_DENIED;
    j->abs = strdup(real);
    if (!j->abs) {
        j->why = strdup("out of memory");
        return VT_ERR_DENIED;
    }
    j->name = base_of(j->abs);
    char **args = w->shell_argv && w->shell_argv[0] ? w->shell_argv + 1 : w->shell_argv;
    size_t n = 0;
    while (args && args[n])
        n++;
    j->args = calloc(n + 1, sizeof *j->args); /* for the record of a refusal */
    for (size_t i = 0; j->args && i < n && (j->args[i] = strdup(args[i])); i++)
        ;
    const char *as = ew_ident_match(w->ident, w->shell_fd);
    if (as && deny_as(w, as, real, args, &j->why) != VT_OK)
        return VT_ERR_DENIED;
    if (deny_as(w, j->name, real, args, &j->why) != VT_OK)
        return VT_ERR_DENIED;
    int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    int rc = deny_inner(w, getpid(), root, real, j->name, w->shell_argv ? w->shell_argv[0] : NULL,
                        args, 0, &j->why);
    if (root >= 0)
        close(root);
    return rc;
}

/* The supervisor starting the program of plain words it found in the
 * session (plainexec.h): execveat(EXECWATCH_DIRECT_FD, "", ...).  The
 * registers say which call it is. */
static int runs_direct_file(const execwatch *w, const struct seccomp_notif *n, int at)
{
    return w->direct_fd >= 0 && at && (int)n->data.args[0] == EXECWATCH_DIRECT_FD &&
           ((int)n->data.args[4] & AT_EMPTY_PATH);
}

/* That program, judged as the shell's execve of it would be (the text's
 * own program: every rule, recorded, its children no longer the text's)
 * by what the supervisor sent: the very file the kernel runs, opened in
 * the session's view of the files, its path as found, and the words the
 * host split.  The supervisor's memory cannot be read (not dumpable) and
 * need not be: nothing of the command runs yet. */
static int judge_direct_file(execwatch *w, judgement *j)
{
    char real[PATH_MAX];
    if (own_fd_path(w->direct_fd, real, "the program's file has no name the rules can judge", j))
        return VT_ERR_DENIED;
    j->given = strdup(w->direct_given);
    j->abs = strdup(w->direct_abs);
    j->real = strdup(real);
    j->argv0 = strdup(w->direct_argv[0]);
    j->args = ew_strv_dup(w->direct_argv, 1);
    j->root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (!j->given || !j->abs || !j->real || !j->argv0 || !j->args) {
        j->why = strdup("out of memory");
        return VT_ERR_DENIED;
    }
    int trusted;
    j->name = rule_name(w, j->given, j->abs, j->real, &trusted);
    if ((w->ident && deny_identity(w, fcntl(w->direct_fd, F_DUPFD_CLOEXEC, 0), j->real, j->args,
                                   &j->why) != VT_OK) ||
        (strcmp(base_of(j->real), j->name) &&
         deny_as(w, base_of(j->real), j->real, j->args, &j->why) != VT_OK) ||
        deny_inner(w, j->pid, j->root, j->real, j->name, j->argv0, j->args, 0, &j->why) != VT_OK)
        return VT_ERR_DENIED;
    vt_exec_program prog = {.struct_size = sizeof prog,
                            .name = j->name,
                            .path = j->abs,
                            .args = (const char *const *)j->args,
                            .by_shell = 1};
    if (ask_policy(w, &prog, &j->why) != VT_OK)
        return VT_ERR_DENIED;
    w->shell_marked = 1; /* marked by its identity, read when it is needed */
    record_program(w, j->name, j->args);
    return VT_OK;
}

/* The directory a relative path starts from, and the lexical absolute
 * path; -1 (j->why set) when they cannot be had. */
static int locate_program(judgement *j)
{
    if (j->given[0] != '/') {
        char what[32];
        if (j->dirfd == AT_FDCWD)
            snprintf(what, sizeof what, "cwd");
        else
            snprintf(what, sizeof what, "fd/%d", j->dirfd);
        j->base = ew_proc_link(j->pid, what);
        if (!j->base) {
            j->why = strdup("cannot resolve the program's directory");
            return -1;
        }
    }
    if (!j->given[0] && (j->flags & AT_EMPTY_PATH)) {
        /* execveat(fd, "", AT_EMPTY_PATH): the descriptor is the program */
        char what[32];
        snprintf(what, sizeof what, "/proc/self/fd/%d", j->dirfd);
        j->abs = strdup(what);
    } else {
        j->abs = ew_path_join(j->base ? j->base : "/", j->given);
    }
    if (!j->abs) {
        j->why = strdup("out of memory");
        return -1;
    }
    return 0;
}

/* The file as the process sees it; -1 when the execve fails, refused
 * (j->why) or with the kernel's own errno (j->err). */
static int resolve_program(judgement *j)
{
    /* Resolved as the process sees it (its mounts, its /proc/self), from
     * the path as given: ".." after a symlink is the link's parent, which
     * the lexical `abs` does not know. */
    char *raw = j->given[0] == '/' || !j->given[0] || !j->base ? strdup(j->abs)
                                                               : str_join(j->base, j->given);
    j->root = ew_root_open(j->pid);
    int r = !raw ? -ENOMEM : j->root < 0 ? j->root : ew_resolve(j->pid, j->root, raw, &j->real);
    free(raw);
    if (r == -EBADF) {
        j->why = strdup("the program's file has no name the rules can judge (a memfd, a "
                        "deleted file, a pipe or another process's /proc entry)");
        return -1;
    }
    if (r == -ENOMEM) {
        j->why = strdup("out of memory");
        return -1;
    }
    if (r < 0) {
        /* No such file as the process sees it (or not reachable): the
         * kernel's answer too.  Only a file that was judged may run, and
         * a PATH search (execvp) goes on to its next directory. */
        j->err = -r;
        return -1;
    }
    if (j->real && !strncmp(j->abs, "/proc/self/fd/", 14)) {
        free(j->abs); /* a descriptor is named by its file */
        j->abs = strdup(j->real);
        if (!j->abs) {
            j->why = strdup("out of memory");
            return -1;
        }
    }
    return 0;
}

/* The file the kernel will run, opened to judge what it is: for
 * execveat(fd, "", AT_EMPTY_PATH) the process's descriptor itself (its
 * path may name another file by now, or the mask a denied program's
 * path shows inside the session), else (or when that cannot be opened)
 * the file as the process sees it.  -1 when it cannot be opened. */
static int program_fd(const judgement *j)
{
    if (!j->given[0] && (j->flags & AT_EMPTY_PATH)) {
        char what[64];
        snprintf(what, sizeof what, "/proc/%d/fd/%d", (int)j->pid, j->dirfd);
        int fd = open(what, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0 && errno == EACCES) /* execute-only: its inode still tells */
            fd = open(what, O_PATH | O_CLOEXEC);
        if (fd >= 0)
            return fd;
        /* not ours to open: the file by its name is the best left */
    }
    return openat(j->root, j->real[0] == '/' ? j->real + 1 : j->real,
                  O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

/* The deny rules, met by the file under every name it has: as the
 * denied program it is, as a link's target, and as what runs in its
 * place; -1 (j->why set) when refused. */
static int meet_deny_rules(execwatch *w, judgement *j)
{
    /* A file that is a denied program (a hard link, a copy, under any
     * name) meets the deny rules as that program. */
    if (j->real && w->ident && j->root >= 0 &&
        deny_identity(w, program_fd(j), j->real, j->args, &j->why) != VT_OK)
        return -1;
    /* A link's target meets the deny rules under its own name too. */
    if (j->real && strcmp(base_of(j->real), j->name) != 0 &&
        deny_as(w, base_of(j->real), j->real, j->args, &j->why) != VT_OK)
        return -1;
    /* So does whatever runs in its place or on its behalf. */
    if (deny_inner(w, j->pid, j->root, j->real, j->name, j->argv0, j->args, 0, &j->why) != VT_OK)
        return -1;
    return 0;
}

/* Records a refusal (not an execve the kernel fails by itself) and frees
 * the judgement; returns judge's answer. */
static int judge_done(execwatch *w, judgement *j, int ok)
{
    if (!ok && j->err == EPERM) {
        const char *reason = j->why ? j->why : "refused";
        record_denied(w,
                      j->name    ? j->name
                      : j->given ? j->given
                                 : "?",
                      j->abs     ? j->abs
                      : j->given ? j->given
                                 : "?",
                      j->args, reason);
    }
    if (j->why)
        w->api->free(j->why);
    free(j->given);
    free(j->argv0);
    ew_strv_free(j->args);
    free(j->base);
    free(j->abs);
    free(j->real);
    if (j->root >= 0)
        close(j->root);
    return ok ? 0 : j->err;
}

/* See execwatch_int.h.  `first`: the supervisor starting the command's
 * shell, which the call's own check judged by the name it was given; here
 * the file it really is meets the deny rules (a link or a copy of a
 * denied program). */
int ew_judge(execwatch *w, const struct seccomp_notif *n, int at, int first)
{
    judgement j = {.pid = (pid_t)n->pid,
                   .dirfd = at ? (int)n->data.args[0] : AT_FDCWD,
                   .flags = at ? (int)n->data.args[4] : 0,
                   .err = EPERM,
                   .root = -1};
    if (first && runs_shell_file(w, n, at))
        return judge_done(w, &j, judge_shell_file(w, &j) == VT_OK);
    if (first && runs_direct_file(w, n, at))
        return judge_done(w, &j, judge_direct_file(w, &j) == VT_OK);
    uint64_t path_addr = at ? n->data.args[1] : n->data.args[0];
    uint64_t argv_addr = at ? n->data.args[2] : n->data.args[1];
    int cut = 0;
    j.given = ew_read_string(j.pid, path_addr, PATH_MAX);
    j.args = ew_read_args(j.pid, argv_addr, &cut, &j.argv0);
    if (!j.given || !j.args) {
        j.why = strdup("cannot read the program's path or arguments");
        return judge_done(w, &j, 0);
    }
    if (locate_program(&j) < 0 || resolve_program(&j) < 0)
        return judge_done(w, &j, 0);
    pid_t self;
    unsigned long long start;
    int shell = by_shell(w, j.pid, &self, &start);
    int trusted;
    j.name = rule_name(w, j.given, j.abs, j.real, &trusted);
    vt_exec_program prog = {.struct_size = sizeof prog,
                            .name = j.name,
                            .path = j.abs,
                            .args = (const char *const *)j.args,
                            .by_shell = shell};
    if (meet_deny_rules(w, &j) < 0)
        return judge_done(w, &j, 0);
    /* A known, installed shell run by the shell is part of the text:
     * deny rules only, and what it runs is judged as by_shell. */
    int nested = shell && trusted && known_shell(j.name);
    if (nested || first)
        prog.by_shell = 0;
    if (ask_policy(w, &prog, &j.why) != VT_OK)
        return judge_done(w, &j, 0);
    if (shell && !nested && !first) {
        mark(w, self, start);
        record_program(w, j.name, j.args);
    }
    return judge_done(w, &j, 1);
}
