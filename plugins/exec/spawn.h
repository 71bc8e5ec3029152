/* Starting one command: the only place that forks.  Everything the child
 * does before exec lives in spawn.c, so that confinement (Landlock,
 * seccomp) has one place to go. */
#ifndef VTHOST_EXEC_SPAWN_H
#define VTHOST_EXEC_SPAWN_H

#include <sys/types.h>

typedef struct spawn_req {
    const char *path;      /* absolute path of the program to run */
    char *const *argv;     /* NULL-terminated */
    char *const *envp;     /* NULL-terminated */
    const char *workdir;   /* absolute */
    int tty;               /* 1: a PTY, else pipes */
    unsigned short rows, cols;
    const struct sandbox *sandbox; /* confinement, or NULL to run unsandboxed */
    const struct sandbox_extra *extra; /* what an approved call adds, or NULL */
    char **plan_warning;   /* if set: receives why this call's sandbox protects
                              less than it should (malloc'd), or NULL */
    int watch_sock;        /* > 2: run-time enforcement (execwatch.h) reports
                              its listener here; 0: none */
} spawn_req;

typedef struct spawn_proc {
    pid_t pid;    /* leader of the command's session and process group */
    int pidfd;    /* readable once pid has exited; -1 when unsupported */
    int out_fd;   /* output: pipe read end or PTY master; non-blocking */
    int in_fd;    /* input: pipe write end or a PTY master duplicate */
    int own_pidns; /* the command ran in its own PID namespace: once pid
                    * is reaped, nothing of the session can be left */
} spawn_proc;

/* Create the lifeline through which supervisors learn that the host is
 * gone (see spawn.c).  spawn_fini cuts it: call it after every session
 * was ended. */
int spawn_init(void);
void spawn_fini(void);

/* Start `req`.  Every descriptor is close-on-exec.  The caller reaps
 * out->pid and closes the descriptors.  Returns 0 or a negative
 * vt_status. */
int spawn_start(const spawn_req *req, spawn_proc *out);

#endif
