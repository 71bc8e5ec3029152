/* The threads HTTP sessions' tool calls run on (see http_workers.h).
 *
 * Each idle thread waits on a semaphore of its own, and a call is handed
 * to one idle thread directly: the pool's lock is held only to take the
 * thread off the idle list, and the thread is woken after the lock is
 * let go.  (A shared queue and condition variable made every hand-over
 * a wake-up under the lock, the woken thread then waiting for that same
 * lock: a profile of cheap calls found most of the pool's time there.) */
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <time.h>
#include "crypto_lib.h"
#include "http_workers.h"
#include "monotime.h"

/* Idle threads kept for the next calls; beyond, a thread ends after its
 * call.  An idle thread ends after IDLE_MS without work. */
#define IDLE_MAX 4
#define IDLE_MS 30000

typedef struct worker {
    struct worker *next; /* on the idle list */
    int listed;          /* under mu: on the idle list */
    sem_t go;            /* posted once per hand-over (a call, or NULL: end) */
    void (*fn)(void *);  /* the call handed over, NULL to end */
    void *arg;
} worker;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gone = PTHREAD_COND_INITIALIZER;
static worker *idle_list;
static int nidle, nthreads, stopping;

/* Caller holds mu. */
static void unlist_locked(worker *w)
{
    for (worker **p = &idle_list; *p; p = &(*p)->next)
        if (*p == w) {
            *p = w->next;
            break;
        }
    w->listed = 0;
    nidle--;
}

/* A worker's thread is gone (or never started): counted out, with mu
 * held, which this releases. */
static void worker_gone(worker *w)
{
    nthreads--;
    pthread_cond_broadcast(&gone);
    pthread_mutex_unlock(&mu);
    sem_destroy(&w->go);
    free(w);
}

/* Wait for the next hand-over; 0 when the thread is to end (idle too
 * long, or the pool stopping).  Called with mu held, returns without. */
static int wait_for_work(worker *w)
{
    w->fn = NULL;
    w->listed = 1;
    w->next = idle_list;
    idle_list = w;
    nidle++;
    pthread_mutex_unlock(&mu);
    struct timespec end;
    mono_deadline_ms(&end, IDLE_MS);
    int rc;
    while ((rc = sem_clockwait(&w->go, CLOCK_MONOTONIC, &end)) != 0 && errno == EINTR)
        ;
    if (rc != 0) {
        pthread_mutex_lock(&mu);
        int still_idle = w->listed;
        if (still_idle)
            unlist_locked(w);
        pthread_mutex_unlock(&mu);
        if (still_idle)
            return 0;
        /* Handed a call (or told to end) as the wait timed out: the post
         * is coming. */
        while (sem_wait(&w->go) != 0 && errno == EINTR)
            ;
    }
    return w->fn != NULL;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    for (;;) {
        w->fn(w->arg);
        pthread_mutex_lock(&mu);
        if (stopping || nidle >= IDLE_MAX || !wait_for_work(w))
            break;
    }
    if (w->fn) /* ended in the loop: mu is held */
        pthread_mutex_unlock(&mu);
    crypto_thread_end(); /* before the count says this thread is gone */
    pthread_mutex_lock(&mu);
    worker_gone(w);
    return NULL;
}

/* A new thread for fn(arg); 0 or -1. */
static int spawn(void (*fn)(void *), void *arg)
{
    worker *w = calloc(1, sizeof *w);
    if (!w || sem_init(&w->go, 0, 0) != 0) {
        free(w);
        return -1;
    }
    w->fn = fn;
    w->arg = arg;
    pthread_mutex_lock(&mu);
    nthreads++;
    pthread_mutex_unlock(&mu);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int rc = pthread_create(&th, &attr, worker_main, w);
    pthread_attr_destroy(&attr);
    if (rc == 0)
        return 0;
    pthread_mutex_lock(&mu);
    worker_gone(w);
    return -1;
}

int hs_workers_run(void (*fn)(void *), void *arg)
{
    pthread_mutex_lock(&mu);
    if (stopping) {
        pthread_mutex_unlock(&mu);
        return -1;
    }
    /* An idle thread takes it, or a new one: a call never waits behind
     * another (a command may run for an hour). */
    worker *w = idle_list;
    if (w) {
        unlist_locked(w);
        w->fn = fn;
        w->arg = arg;
    }
    pthread_mutex_unlock(&mu);
    if (!w)
        return spawn(fn, arg);
    sem_post(&w->go); /* the thread cannot end before it has taken this */
    return 0;
}

void hs_workers_stop(int wait_ms)
{
    struct timespec end;
    mono_deadline_ms(&end, wait_ms);
    pthread_mutex_lock(&mu);
    stopping = 1;
    while (idle_list) {
        worker *w = idle_list;
        unlist_locked(w);
        w->fn = NULL;
        sem_post(&w->go);
    }
    while (nthreads > 0 && mono_cond_wait(&gone, &mu, &end) != ETIMEDOUT)
        ;
    stopping = 0; /* a later server in this process starts afresh */
    pthread_mutex_unlock(&mu);
}
