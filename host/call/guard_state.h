/* The anti-blind-editing counter, kept in the workspace so that every
 * vthost process serving it (separate `vthost call` runs, concurrent
 * `serve` sessions) sees one count: .vtcode/state/anti_blind_editing.json,
 * read and written under an exclusive flock(2) on the file itself. */
#ifndef VTHOST_GUARD_STATE_H
#define VTHOST_GUARD_STATE_H

#define GUARD_STATE_FILE ".vtcode/state/anti_blind_editing.json"

typedef struct guard_state {
    int fd;       /* locked state file, or -1 (process-local fallback) */
    long pending; /* effective mutations since the last verification */
    int changed;  /* pending was changed: guard_state_unlock writes it */
} guard_state;

/* Lock the workspace's counter (blocking) and read it into st->pending.
 * The directories and file are created when missing, and walked from
 * `workspace` without following symbolic links.  When the file cannot be
 * used (a read-only workspace, a link in the way) a process-local
 * counter under a mutex stands in, so the guard still works within one
 * process.  Always succeeds; pair with guard_state_unlock. */
void guard_state_lock(const char *workspace, guard_state *st);

/* Write st->pending back when it changed, and release the lock. */
void guard_state_unlock(guard_state *st);

/* Forget the process-local fallback count (tests, re-initialisation). */
void guard_state_reset_local(void);

#endif
