/* The one after-call check of what writers left behind.  After every
 * call of a tool that writes the workspace itself
 * (VT_EFFECT_MUTATES_WORKSPACE: apply_patch, a third-party tool) the
 * host judges the repositories in the workspace.  A sandbox that lets
 * commands write arms the check with its writable roots
 * (vt_wsindex_v1.arm); from then on the host judges, after every call of
 * a tool that can write (call/pipeline.c: also VT_EFFECT_EXECUTES) and
 * when a sandboxed session's process tree ends (the plugin raises
 * VT_EVENT_SESSION_ENDED), what is new since the baseline:
 * - repositories (.git directories, symbolic links and gitfiles, nested
 *   ones, the git directories gitfiles and commondir files name, bare
 *   repositories git finds by its own rules, the workspace itself) are
 *   neutralised (ws_inert.h); a new pointer to a git directory outside
 *   the writable roots is set aside;
 * - the configuration table's rows (ws_conftab.h: IDE and agent
 *   configuration) that were not there are set aside, and so is a
 *   vtcode.toml that was absent when the host started; while serving, also as soon as the index sees
 *   one appear while a session runs (VT_EVENT_WORKSPACE_CHANGED).
 * Originals go to .vtcode/set-aside/, never deleted, and every step is
 * reported: in the call's warnings, or, for a session that ended between
 * calls, in the next writing call's.
 *
 * The baseline is taken when no sandboxed session runs and no other
 * writing call is under way (and when the check is armed); while one
 * does it stays, so that what a session makes after its call returned
 * still counts as new when that session ends.
 *
 * What a session changes after its call returned is judged over the
 * session's window: from the end of the last writing call while a
 * session still runs (ws_changes.h: the table's stamps, the change log,
 * the existing repositories' config and hooks) to the next writing
 * call's start or a session's end, where table entries it made or
 * changed, hook files it wrote and links it made are set aside and
 * repositories it armed neutralised, as a call's own after-check does
 * (ws_after.h) for the call's time.  Thread-safe. */
#ifndef VTHOST_WS_CHECK_H
#define VTHOST_WS_CHECK_H

/* The host opens the workspace `root` (canonical; copied; NULL closes):
 * whether a vtcode.toml exists is noted now. */
void ws_check_open(const char *root);
/* The host closes: a late vtcode.toml is still set aside; *report
 * (malloc'd or NULL) says so, for the log. */
void ws_check_close(char **report);

/* Arm the check with the writable roots (absolute, NULL-ended, copied;
 * the workspace's first when it is among them).  0 or VT_ERR_NOMEM. */
int ws_check_arm(const char *const *roots);

/* A call of a tool that can write starts / ended.  `mutates`: the tool
 * writes the workspace itself (not only through command sessions).
 * *report (malloc'd or NULL) is for that call's warnings. */
void ws_check_call_start(int mutates, char **report);
void ws_check_call_end(int mutates, char **report);

/* A sandboxed session started / its process tree ended.  *report as
 * above; `report` NULL: kept for the next writing call. */
void ws_check_session_started(void);
void ws_check_session_ended(char **report);

/* The workspace index logged changes (serve): while a session runs, the
 * root's configuration names and vtcode.toml are judged at once, and so
 * is the session's window (below) when a table entry changed. */
void ws_check_changed(void);

#endif
