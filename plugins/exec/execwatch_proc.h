/* What the watcher reads about a trapped process: strings and argv from
 * its memory, its working directory, root and descriptors, its parent and
 * start time (through /proc and process_vm_readv). */
#ifndef VTHOST_EXEC_EXECWATCH_PROC_H
#define VTHOST_EXEC_EXECWATCH_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define EW_MAX_ARGS 1024          /* argv entries read */
#define EW_MAX_ARG_BYTES 8192     /* bytes per entry */
#define EW_MAX_TOTAL (128 * 1024) /* bytes of argv in all */

/* The NUL-terminated string at `addr` of `pid`, at most `max` bytes
 * (longer: cut).  malloc'd, or NULL when unreadable. */
char *ew_read_string(pid_t pid, uint64_t addr, size_t max);

/* argv[1..] at `addr` (argv[0] is dropped: the name replaces it), a
 * malloc'd NULL-terminated array of malloc'd strings; *cut is set when
 * the limits above cut it.  NULL when unreadable.  argv[0] itself goes
 * to *argv0 (malloc'd, NULL when absent): multi-call programs and
 * loaders run by it. */
char **ew_read_args(pid_t pid, uint64_t addr, int *cut, char **argv0);
void ew_strv_free(char **v);
/* A copy of the NULL-terminated `v` (from index `from`), or NULL. */
char **ew_strv_dup(char *const *v, size_t from);

/* The target of /proc/PID/<what> (cwd, root, fd/N).  malloc'd or NULL. */
char *ew_proc_link(pid_t pid, const char *what);

/* Parent pid and start time (clock ticks since boot) of `pid`, and
 * (when `threads` is not NULL) its process's number of threads.  0 or -1. */
int ew_proc_stat(pid_t pid, pid_t *ppid, unsigned long long *start, int *threads);

/* The process (thread group) of the thread `tid`: `tid` itself for a
 * single-threaded process.  -1 when unreadable. */
pid_t ew_proc_tgid(pid_t tid);

/* `p` joined to `base` when relative, "." and ".." folded.  malloc'd. */
char *ew_path_join(const char *base, const char *p);

#endif
