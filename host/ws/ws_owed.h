/* Checks owed across a crash.  A command session can outlive its call
 * (exec_command returns while it runs; write_stdin feeds it later), and
 * what it writes then is judged only when its plugin sees it end.  When
 * vthost is killed first (a client's kill-on-drop, the OOM killer,
 * SIGKILL), that check must not be lost: before every call that runs
 * commands, a record "a check is owed since T" is written to
 * $XDG_STATE_HOME/vthost/owed/ (0600, one per process, named by the
 * workspace's key, the pid and the process's start time; its text goes
 * in with one write), and emptied once no session is left running
 * (the calls' responses say which sessions still run: "session_id" with
 * "is_exited" not true; a sandboxed session's host events say when it
 * started and ended) and no other such call is running.  The emptied
 * file stays for the next call to write into (making it anew each call
 * cost a create, a rename and an unlink) and goes when the process
 * closes its workspace; an empty record owes nothing.
 *
 * The next start in that workspace (serve and one-shot) finds a record
 * whose process is gone and, before serving, runs the owed check
 * (ws_owed_check.c): everything that git or an agent would run from and
 * that changed since T (status-change time, which no unprivileged
 * program can set back) is neutralised or set aside, as the after-call
 * check does.  A record that is not a regular file of the user is
 * ignored.  Thread-safe. */
#ifndef VTHOST_WS_OWED_H
#define VTHOST_WS_OWED_H

#include <cjson/cJSON.h>
#include <time.h>

/* The workspace (canonical; copied) whose records this process keeps;
 * NULL forgets it.  Closing with a session still running (by the last
 * responses) runs the check first, as a crash would have owed it. */
void ws_owed_open(const char *root);
void ws_owed_close(void);

/* Before a call of a tool that runs commands: the record is written
 * (once while it owes a check; made again when it was removed).  0, or
 * a negative vt_status when it could not be: the call must not run. */
int ws_owed_call_begin(unsigned effects);
/* After it: the response `resp` (borrowed, may be NULL) updates the
 * sessions still running; with none left, the record is emptied. */
void ws_owed_call_end(unsigned effects, const cJSON *resp);

/* The host events of a sandboxed session (VT_EVENT_SESSION_STARTED,
 * VT_EVENT_SESSION_ENDED, raised by the plugin that runs it): one
 * started arms the record (written when it is not already); one ended,
 * after the host's check of what it left (ws_check.h), no longer holds
 * it, and with no session left running and no call under way the
 * record is emptied. */
void ws_owed_session_started(void);
void ws_owed_session_ended(void);

/* At start, before serving: the owed checks of records left by gone
 * processes for this workspace are run and the records removed (an
 * empty one owes nothing and is only removed).  0, or
 * 1 when something could not be made inert.  *report (malloc'd, NULL
 * when nothing was found) names what was done; it is also kept for the
 * next call's warnings (ws_owed_take_report). */
int ws_owed_recover(char **report);
char *ws_owed_take_report(void);

/* The owed check itself: what changed since `since` in the workspace
 * `root`, made inert (ws_owed_check.c).  Results as ws_owed_recover. */
int ws_owed_check(const char *root, const struct timespec *since, char **report);

#endif
