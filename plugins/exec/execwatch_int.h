/* The watcher's state, shared by the thread that serves its filter
 * (execwatch.c) and the judging of each execve (execwatch_judge.c). */
#ifndef VTHOST_EXEC_EXECWATCH_INT_H
#define VTHOST_EXEC_EXECWATCH_INT_H

#include "execwatch.h"
#include "execwatch_ident.h"

#include <linux/seccomp.h>
#include <pthread.h>
#include <sys/types.h>

typedef struct program_mark {
    pid_t pid;
    unsigned long long start;
} program_mark;

struct execwatch {
    const vt_host_api *api;
    vt_exec_policy *policy;
    char **writable;
    int sock; /* our end; the listener arrives here */
    int listener;
    int stop[2]; /* fini wakes the thread */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int refs; /* owner + thread */
    vt_call *live;
    int asking; /* decisions in flight that may prompt */
    int done;   /* the thread stopped serving */
    cJSON *denied;
    cJSON *programs;                /* the text's own programs, argv arrays (bounded) */
    int programs_cut;               /* more ran than `programs` holds */
    pid_t shell;                    /* the first program: the command's shell */
    unsigned long long shell_start; /* once read (ew_shell_start) */
    int shell_start_read;
    int shell_pidfd;  /* the shell until its start time is read, or -1 */
    int shell_marked; /* its children are no longer the text's own */
    program_mark *marks;
    size_t nmarks, capmarks;
    ew_ident *ident; /* the denied programs' files, or NULL */
    int shell_fd;    /* the shell's file (execwatch_opts.shell_path), or -1 */
    int shell_script;
    char **shell_argv;               /* its argv, for the deny rules */
    char **direct_argv;              /* execwatch_opts.direct_argv, copied, or NULL */
    int direct_fd;                   /* the program the supervisor found for them, or -1 */
    char *direct_given, *direct_abs; /* its path as found, and absolute */
    execwatch *next;
};

/* 0 to let the trapped execve `n` run, else the errno that fails it
 * (EPERM: refused).  `at`: the call is execveat; `first`: it is the first
 * one, the supervisor starting the command's shell. */
int ew_judge(execwatch *w, const struct seccomp_notif *n, int at, int first);

/* The shell's start time (what tells it from a later process of its
 * pid), read on the first need: most commands run no second program.
 * 0 when it cannot be had, or the shell ended before (no live process
 * descends from it then).  The serving thread's only. */
unsigned long long ew_shell_start(execwatch *w);

#endif
