/* The signals a server catches while it serves (`vthost serve`, on stdio
 * or over HTTP). */
#ifndef VTHOST_SERVE_SIGNALS_H
#define VTHOST_SERVE_SIGNALS_H

#include <signal.h>

typedef struct serve_signals {
    struct sigaction term, intr, pipe;
} serve_signals;

/* SIGTERM and SIGINT call `stop` (async-signal-safe); SIGPIPE is caught
 * by a handler that does nothing, so a write to a vanished client fails
 * with EPIPE instead of killing the server (a handler, not SIG_IGN, so
 * that child processes still get the default).  What was there before
 * goes to *saved. */
void serve_signals_catch(void (*stop)(int), serve_signals *saved);

/* SIGTERM and SIGINT as they were before serve_signals_catch; SIGPIPE
 * stays caught (a late write may still meet a closed client). */
void serve_signals_restore(const serve_signals *saved);

#endif
