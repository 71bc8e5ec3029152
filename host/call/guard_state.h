/* The anti-blind-editing counter, one per workspace for every vthost
 * process serving it (separate `vthost call` runs, concurrent `serve`
 * sessions): $XDG_STATE_HOME/vthost/guard/<key>.json (key: a hash of the
 * canonical workspace path, which the file also names), read and written
 * under an exclusive flock(2) on the file itself. */
#ifndef VTHOST_GUARD_STATE_H
#define VTHOST_GUARD_STATE_H

typedef struct guard_state {
    int fd;                /* locked state file, or -1 (process-local fallback) */
    long pending;          /* effective mutations since the last verification */
    int changed;           /* pending was changed: guard_state_unlock writes it */
    const char *workspace; /* borrowed */
} guard_state;

/* Lock the workspace's counter (blocking) and read it into st->pending.
 * The directories and file are created when missing; the file is never
 * opened through a symbolic link.  When it cannot be used (no home, a
 * read-only state directory, a link in the way) a process-local
 * counter under a mutex stands in, so the guard still works within one
 * process.  Always succeeds; pair with guard_state_unlock. */
void guard_state_lock(const char *workspace, guard_state *st);

/* Write st->pending back when it changed, and release the lock. */
void guard_state_unlock(guard_state *st);

/* Forget the process-local fallback count (tests, re-initialisation). */
void guard_state_reset_local(void);

#endif
