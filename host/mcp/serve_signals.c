/* The signals a server catches while it serves (serve_signals.h). */
#include "serve_signals.h"

#include <stddef.h>

static void on_sigpipe(int sig) { (void)sig; }

void serve_signals_catch(void (*stop)(int), serve_signals *saved)
{
    struct sigaction sa = {0};
    sa.sa_handler = stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, &saved->term);
    sigaction(SIGINT, &sa, &saved->intr);
    sa.sa_handler = on_sigpipe;
    sigaction(SIGPIPE, &sa, &saved->pipe);
}

void serve_signals_restore(const serve_signals *saved)
{
    sigaction(SIGTERM, &saved->term, NULL);
    sigaction(SIGINT, &saved->intr, NULL);
}
