/* Which file a trapped execve runs, seen from the trapped process, and
 * what runs in its place: a script's "#!" interpreter, an ELF's own
 * interpreter (PT_INTERP), the program a dynamic loader run directly
 * loads.  Paths are resolved symlink by symlink in the process's mount
 * namespace (through /proc/PID/root), with /proc/self meaning that
 * process, never the host. */
#ifndef VTHOST_EXEC_EXECWATCH_FILE_H
#define VTHOST_EXEC_EXECWATCH_FILE_H

#include <sys/types.h>

/* The root directory of process `pid` as an O_PATH descriptor (the
 * caller closes it), or -errno. */
int ew_root_open(pid_t pid);

/* The canonical path of the absolute path `abs` as process `pid` (whose
 * root is `root`, from ew_root_open) sees it: *out malloc'd (caller frees).  0; -ENOENT or -ENOTDIR when it does
 * not exist; -EBADF when the file has no name rules could judge (a memfd,
 * a deleted file, a pipe, another process's /proc entry); another -errno
 * when it cannot be resolved. */
int ew_resolve(pid_t pid, int root, const char *abs, char **out);

/* The interpreter the kernel runs for the file at `path` (canonical,
 * below the process's `root`): a "#!" line's program (*arg: its optional argument, or
 * NULL) or an ELF's PT_INTERP.  Both malloc'd, caller frees; *interp is
 * NULL when the file names none.  0 or -errno. */
int ew_interpreter(int root, const char *path, char **interp, char **arg);

/* 1 when `name` (a base name) is a dynamic loader (ld-linux-x86-64.so.2,
 * ld.so, ld-musl-x86_64.so.1, ...). */
int ew_is_loader(const char *name);

/* The index in `args` (a loader's argv[1..], NULL-terminated) of the
 * program it is asked to load, past its options; -1 when none. */
int ew_loader_program(char *const *args);

#endif
