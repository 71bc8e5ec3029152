/* What the session table (session.c), a session's waiting
 * (session_wait.c) and its processes and their reaper
 * (session_reap.c) share: the session itself, the table's lock, and
 * the steps each hands the others. */
#ifndef VTHOST_EXEC_SESSION_INT_H
#define VTHOST_EXEC_SESSION_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <vthost/clock.h>

#include "sandbox.h"
#include "session.h"
#include "termfilter.h"

#define GRACE_MS 500
#define SLICE_MS 100      /* cancellation is noticed within this */
#define DRAIN_QUIET_MS 50 /* after exit, output still trickling in */
#define READ_BYTES 65536

typedef struct session {
    int64_t id;
    spawn_proc proc;
    int is_pty;
    int started;
    int reaped, exit_code;
    int out_eof;
    int busy;
    uint64_t last_used;
    char *cmd;
    char *workdir;
    term_filter tf;
    int closed;  /* reaped by the reaper: fds closed */
    int reaping; /* busy because the reaper finishes it */
    char *final; /* output read by the reaper */
    size_t final_len, final_dropped;
    int sandboxed;               /* ran under the sandbox */
    sandbox_denial_scan denials; /* its output, watched for refusals */
    execwatch *watch;            /* a reference, or NULL */
    const sandbox *sb;           /* its sandbox, told when the session ends */
    atomic_int end_noted;        /* that was done */
    uint64_t client;             /* the client session that started it */
} session;

/* The table's lock (see session.c) and the table. */
extern pthread_mutex_t session_mu;
extern session *session_table[SESSIONS_MAX];

static inline double now_s(void) { return vt_clock_seconds(); }

/* session.c */
void session_note_end(vt_call *call, session *s);
int session_end_interrupted(vt_call *call, session *s, int kill_on_cancel, int oom);
void session_release(vt_call *call, session *s);

/* session_reap.c */
int session_try_reap(session *s);
void session_terminate(session **v, int n);
void session_reaper_poke(void);
void session_reaper_end(void);
void session_late_sweep(int hang);

/* session_wait.c */
int session_collect(vt_call *call, session *s, double t0, int yield_ms, int kill_on_cancel,
                    cJSON **result);
int session_write_all(vt_call *call, int fd, const char *buf, size_t len, double deadline);

#endif
