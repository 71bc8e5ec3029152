/* Starting one command: the only place that starts a session leader
 * (cloned by the host, or in serve by the leader maker, zygote.c).
 * Everything the child does before exec lives in spawn_child.c, so that
 * confinement (Landlock, seccomp) has one place to go. */
#ifndef VTHOST_EXEC_SPAWN_H
#define VTHOST_EXEC_SPAWN_H

#include <stdint.h>
#include <sys/types.h>

typedef struct spawn_req {
    const char *path;    /* absolute path of the program to run */
    char *const *argv;   /* NULL-terminated */
    char *const *envp;   /* NULL-terminated */
    const char *workdir; /* absolute */
    int tty;             /* 1: a PTY, else pipes */
    unsigned short rows, cols;
    const struct sandbox *sandbox;     /* confinement, or NULL to run unsandboxed */
    const struct sandbox_extra *extra; /* what an approved call adds, or NULL */
    char **plan_warning;               /* if set: receives why this call's sandbox protects
                              less than it should (malloc'd), or NULL */
    char **plan_error;                 /* if set: receives why the sandbox refused to run
                              the command (malloc'd), or NULL */
    int watch_sock;                    /* > 2: run-time enforcement (execwatch.h) reports
                              its listener here; 0: none */
    int shell_fd;                      /* > 2: the shell's open file, run with execveat
                              (execwatch_shell_fd) instead of `path`; 0: none */
    int shell_script;                  /* shell_fd is a "#!" script: kept across the exec */
    const char *const *mask;           /* programs denied whatever their arguments
                                (vt_exec_policy denied_programs), masked in
                                the sandbox's session, or NULL */
    uint64_t client;                   /* vt_host_api.call_client_id: the sandbox shows only this
                        client's spooled output (0: all) */
    char *const *direct_argv;          /* plain words the leader runs without the shell
                                          when it finds their program (plainexec.h),
                                          or NULL: always the shell */
    char *direct_under;                /* the environment's "_=" entry the leader fills
                                          with the program's path (plain_env), or NULL */
    int netproxy_fd;                   /* > 2: the filtering proxy's hand-over socket
                         (netproxy_start), kept by the session leader
                         (sandbox_proxy); 0: none */
} spawn_req;

typedef struct spawn_proc {
    pid_t pid;     /* leader of the command's session and process group */
    int pidfd;     /* readable once pid has exited; -1 when unsupported */
    int status_fd; /* the session leader's report (own_pidns), readable once
                    * the command and everything it started are gone, before
                    * pid exits; -1 when none (then pid's own status says) */
    int out_fd;    /* output: pipe read end or PTY master; non-blocking */
    int in_fd;     /* input: pipe write end or a PTY master duplicate */
    int own_pidns; /* the command ran in its own PID namespace: once pid
                    * is reaped, nothing of the session can be left */
} spawn_proc;

/* Create the lifeline through which supervisors learn that the host is
 * gone (see spawn.c).  spawn_fini cuts it: call it after every session
 * was ended. */
int spawn_init(void);
void spawn_fini(void);

/* Start `req`.  Every descriptor is close-on-exec.  The caller reaps
 * out->pid and closes the descriptors.  Returns 0 or a negative vt_status. */
int spawn_start(const spawn_req *req, spawn_proc *out);

/* Close every descriptor of `p` still open and set it to -1 (the pid is
 * the caller's to reap). */
void spawn_close(spawn_proc *p);

/* The command's exit code from p->status_fd, without waiting: 1 when
 * known (*exit_code set; nothing of the session is left but p->pid,
 * which exits once its namespace is torn down: the caller still reaps
 * it, but need not wait for it to report the result), 0 when not (yet).
 * Once the report can no longer come, p->status_fd is closed and set to
 * -1: p->pid's own status says how the command ended. */
int spawn_status(spawn_proc *p, int *exit_code);

#endif
