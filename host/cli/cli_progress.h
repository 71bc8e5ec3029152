/* The progress line of `vthost call`: once a call has run two seconds, a
 * line on stderr says which tool runs and for how long, rewritten each
 * second and erased when the call ends.  Only when stderr is a terminal
 * and TERM is not "dumb" (no line there: it cannot be erased); with
 * NO_COLOR set the line is plain, else dim. */
#ifndef VTHOST_CLI_PROGRESS_H
#define VTHOST_CLI_PROGRESS_H

/* Start the clock for `tool` (copied).  Does nothing when no line may be
 * shown.  Returns 0, or negative when the thread cannot start (the call
 * then runs without a line). */
int cli_progress_start(const char *tool);
/* Erase the line and hold it (while the permission prompt is on the
 * terminal); resume lets it show again on the next tick. */
void cli_progress_pause(void);
void cli_progress_resume(void);
/* Erase the line and end the thread.  Safe when start did nothing. */
void cli_progress_stop(void);

#endif
