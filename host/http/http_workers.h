/* The threads HTTP sessions' tool calls run on.  A call used to get a
 * thread of its own, created and torn down per call (clone, a fresh
 * stack, its malloc arena grown page by page and trimmed again): most of
 * what a cheap call cost.  Threads are now kept: an idle one takes the
 * next call, and only when none is idle is one created, so a call never
 * waits behind another however long that one runs. */
#ifndef VTHOST_HTTP_WORKERS_H
#define VTHOST_HTTP_WORKERS_H

/* Run fn(arg) on a pool thread.  0, or -1 when no thread could take it
 * (out of memory or threads, or stopping): the caller runs it itself. */
int hs_workers_run(void (*fn)(void *), void *arg);
/* End the idle threads, waiting up to wait_ms for every pool thread
 * (a call still running keeps its own). */
void hs_workers_stop(int wait_ms);

#endif
