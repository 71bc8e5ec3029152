/* Run-time command enforcement: a seccomp user-notification filter traps
 * every execve/execveat of a command's process tree, and a watcher thread
 * in the host asks the permission policy (vt_exec_policy) about each
 * program before the kernel runs it.
 *
 * The filter is built once in the parent (execwatch_prepare); the
 * supervisor child installs it after no_new_privs and hands the listener
 * descriptor to the host over a socket (execwatch_child_install, async-
 * signal-safe).  One watcher thread per command reads the notifications. */
#ifndef VTHOST_EXEC_EXECWATCH_H
#define VTHOST_EXEC_EXECWATCH_H

#include <cjson/cJSON.h>
#include <vthost/plugin.h>

/* Build the filter.  VT_ERR_UNSUPPORTED when the kernel or libseccomp
 * cannot continue a trapped system call (user notification with
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE: Linux 5.5, libseccomp API level 6). */
int execwatch_prepare(void);
/* 1 once execwatch_prepare succeeded. */
int execwatch_available(void);
/* The filter itself (tests compare programs made with it). */
const struct sock_fprog *execwatch_filter(void);
/* In the exec'd leader maker: the filter the host built, taken over
 * (*f is emptied). */
void execwatch_adopt(struct sock_fprog *f);
/* Stop every watcher still running (their commands' later execs then
 * fail) and free the filter.  Call at plugin fini. */
void execwatch_fini(void);

/* In the supervisor child, after no_new_privs and the sandbox, before
 * the shell starts: install the filter and send its listener over `sock`
 * (which stays open until the supervisor exits), with the program of
 * plain words it found (plainexec.h) when `prog_fd` >= 0: its open file,
 * its path as found (`given`) and absolute (`abs`).  Async-signal-safe.
 * Returns 0 or -errno. */
int execwatch_child_install(int sock, int prog_fd, const char *given, const char *abs);

typedef struct execwatch execwatch;

typedef struct execwatch_opts {
    const vt_host_api *api;
    vt_exec_policy *policy; /* taken: released with the watcher */
    /* Directories the command can write (absolute, canonical), NULL-
     * terminated; NULL when unconfined (then: what the user can write).
     * A program whose file lies there is named by its path, not its base
     * name, so a copy or link cannot borrow an allowed name. */
    char **writable; /* taken (array and strings, free()) */
    /* The policy's programs denied whatever their arguments (borrowed
     * from `policy`, or NULL): a file that is one of them (a hard link,
     * a copy) is judged under that program's name. */
    const char *const *denied;
    /* The shell the supervisor starts (absolute path and argv, borrowed
     * for the call), or NULL: the watcher opens that file now, judges it
     * at the first execve by what it is, and the supervisor runs exactly
     * that file from EXECWATCH_SHELL_FD (execwatch_shell_fd), so no path
     * is read again between the judgement and the exec. */
    const char *shell_path;
    char *const *shell_argv;
    /* The words the supervisor may run without the shell (plainexec.h),
     * or NULL: when it does, it sends the program's file with the
     * listener and runs it with execveat(EXECWATCH_DIRECT_FD, "", words,
     * envp, AT_EMPTY_PATH); that first execve is judged as a program the
     * shell runs for the text, by that file and these words. */
    char *const *direct_argv;
} execwatch_opts;

/* Where the supervisor keeps the shell's file until it runs it with
 * execveat(EXECWATCH_SHELL_FD, "", argv, envp, AT_EMPTY_PATH). */
#define EXECWATCH_SHELL_FD 6
/* Where it keeps the program of plain words it runs without the shell. */
#define EXECWATCH_DIRECT_FD 9

/* Start a watcher; *child_sock is the descriptor for spawn_req.watch_sock
 * (close it once the command was spawned).  On failure the policy and
 * the writable list are released. */
int execwatch_start(const execwatch_opts *o, execwatch **out, int *child_sock);

/* The shell's open file for spawn_req.shell_fd (owned by the watcher),
 * or -1 when execwatch_opts named none or it could not be opened;
 * *script is 1 for a "#!" file (its interpreter reads it through the
 * descriptor, which must then stay open across the exec). */
int execwatch_shell_fd(const execwatch *w, int *script);

/* The call in progress through which refusals can be asked, or NULL.
 * Clearing waits for a question in flight to be answered. */
void execwatch_set_live(execwatch *w, vt_call *call);

/* The programs refused so far, as a new array of {"program","path",
 * "argv","reason"} (NULL when none). */
cJSON *execwatch_denied(execwatch *w);

/* The programs the command text itself ran (not those its programs
 * started), in order: a new array of argv arrays whose first element is
 * the name rules match; *complete is 0 when more ran than are kept. */
cJSON *execwatch_programs(execwatch *w, int *complete);

/* Take another reference (a session keeps one to report at its exit). */
execwatch *execwatch_retain(execwatch *w);

/* Wait up to `ms` for the watcher to stop once the command is over (so
 * its descriptors are closed when the call returns).  1 when it stopped. */
int execwatch_wait(execwatch *w, int ms);

/* Drop the caller's reference; the watcher thread lives on while the
 * command's processes do. */
void execwatch_release(execwatch *w);

#endif
