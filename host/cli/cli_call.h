/* One-shot semantics of `vthost call`: signals and --timeout become the
 * call's cancel flag; a call so stopped is reported as such. */
#ifndef VTHOST_CLI_CALL_H
#define VTHOST_CLI_CALL_H

#include <stdatomic.h>
#include "pipeline.h"

/* Install the handlers (SIGINT, SIGTERM, SIGHUP) and, when timeout_s > 0,
 * the timer; returns the cancel flag to hand to the pipeline. */
atomic_int *cli_call_begin(double timeout_s);
/* Stop the timer.  When a signal or the timeout stopped the call, rewrite
 * res (success false, error, "timed_out" or "interrupted": true) and
 * return CLI_EXIT_TIMEOUT or 128 + the signal; else exit_code. */
int cli_call_end(call_result *res, double timeout_s, int exit_code);

#endif
