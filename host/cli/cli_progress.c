/* The progress line of `vthost call` (see cli_progress.h).  A thread
 * wakes once a second; the line is written with write(2) in one piece,
 * so it never interleaves with the call's own output mid-line. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "cli_progress.h"
#include "fd_write.h"
#include "monotime.h"

#define PROGRESS_AFTER_S 2 /* a call shorter than this shows nothing */

static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake;
static int running, stopping, paused, shown, plain;
static char tool_name[64];
static struct timespec started;

static double elapsed(void)
{
    struct timespec now;
    mono_now(&now);
    return (double)(now.tv_sec - started.tv_sec) + (now.tv_nsec - started.tv_nsec) / 1e9;
}

static void put(const char *s) { (void)fd_write_all(STDERR_FILENO, s, strlen(s)); }

/* Erase the line (caller holds lock). */
static void erase(void)
{
    if (shown)
        put("\r\033[K");
    shown = 0;
}

static void *ticker(void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    while (!stopping) {
        double t = elapsed();
        if (!paused && t >= PROGRESS_AFTER_S) {
            char line[160];
            snprintf(line, sizeof line, "\r\033[K%svthost: %s running, %d s (Ctrl-C stops it)%s",
                     plain ? "" : "\033[2m", tool_name, (int)t, plain ? "" : "\033[0m");
            put(line);
            shown = 1;
        }
        /* Wake on the next whole second of the call, or when stopped. */
        struct timespec until;
        mono_deadline_ms(&until, 1000);
        pthread_cond_timedwait(&wake, &lock, &until);
    }
    erase();
    pthread_mutex_unlock(&lock);
    return NULL;
}

/* Only printable ASCII of the name reaches the terminal. */
static void copy_name(const char *tool)
{
    size_t i = 0;
    for (; tool && tool[i] && i + 1 < sizeof tool_name; i++)
        tool_name[i] = tool[i] > 0x20 && tool[i] < 0x7f ? tool[i] : '?';
    tool_name[i] = '\0';
}

int cli_progress_start(const char *tool)
{
    const char *term = getenv("TERM");
    if (!isatty(STDERR_FILENO) || (term && strcmp(term, "dumb") == 0))
        return 0;
    const char *nc = getenv("NO_COLOR");
    plain = nc && *nc; /* https://no-color.org: set and not empty */
    copy_name(tool);
    mono_now(&started);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&wake, &ca);
    pthread_condattr_destroy(&ca);
    /* The call's signals (Ctrl-C, --timeout) are handled on the main
     * thread: the ticker blocks them all. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&thread, NULL, ticker, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&wake);
        return -rc;
    }
    running = 1;
    return 0;
}

void cli_progress_pause(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    paused = 1;
    erase();
    pthread_mutex_unlock(&lock);
}

void cli_progress_resume(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    paused = 0;
    pthread_mutex_unlock(&lock);
}

void cli_progress_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&lock);
    stopping = 1;
    pthread_cond_signal(&wake);
    pthread_mutex_unlock(&lock);
    pthread_join(thread, NULL);
    pthread_cond_destroy(&wake);
    running = 0;
}
