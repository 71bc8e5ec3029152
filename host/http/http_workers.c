/* The threads HTTP sessions' tool calls run on (see http_workers.h). */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include "http_workers.h"
#include "monotime.h"

/* Idle threads kept for the next calls; beyond, a thread ends after its
 * call.  An idle thread ends after IDLE_MS without work. */
#define IDLE_MAX 4
#define IDLE_MS 30000

typedef struct task {
    struct task *next;
    void (*fn)(void *);
    void *arg;
} task;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static pthread_cond_t gone = PTHREAD_COND_INITIALIZER;
static task *head, *tail;
static int npending, idle, nthreads, stopping;

/* Caller holds mu: the next task, waiting for one while idle; NULL when
 * the thread is to end. */
static task *next_task_locked(void)
{
    while (!head && !stopping) {
        struct timespec end;
        mono_deadline_ms(&end, IDLE_MS);
        idle++;
        int rc = mono_cond_wait(&work, &mu, &end);
        idle--;
        if (rc == ETIMEDOUT && !head)
            return NULL;
    }
    task *t = head;
    if (t) {
        head = t->next;
        if (!head)
            tail = NULL;
        npending--;
    }
    return t;
}

static void *worker_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    task *t;
    while ((t = next_task_locked())) {
        pthread_mutex_unlock(&mu);
        t->fn(t->arg);
        free(t);
        pthread_mutex_lock(&mu);
        if (idle >= IDLE_MAX && !head)
            break;
    }
    nthreads--;
    pthread_cond_broadcast(&gone);
    pthread_mutex_unlock(&mu);
    return NULL;
}

int hs_workers_run(void (*fn)(void *), void *arg)
{
    task *t = malloc(sizeof *t);
    if (!t)
        return -1;
    *t = (task){NULL, fn, arg};
    pthread_mutex_lock(&mu);
    if (stopping) {
        pthread_mutex_unlock(&mu);
        free(t);
        return -1;
    }
    /* An idle thread takes it, or a new one: a call never waits behind
     * another (a command may run for an hour). */
    int spawn = idle <= npending;
    if (spawn) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_t th;
        int rc = pthread_create(&th, &attr, worker_main, NULL);
        pthread_attr_destroy(&attr);
        if (rc != 0) {
            pthread_mutex_unlock(&mu);
            free(t);
            return -1;
        }
        nthreads++;
    }
    if (tail)
        tail->next = t;
    else
        head = t;
    tail = t;
    npending++;
    if (!spawn)
        pthread_cond_signal(&work);
    pthread_mutex_unlock(&mu);
    return 0;
}

void hs_workers_stop(int wait_ms)
{
    struct timespec end;
    mono_deadline_ms(&end, wait_ms);
    pthread_mutex_lock(&mu);
    stopping = 1;
    pthread_cond_broadcast(&work);
    while (nthreads > 0 && mono_cond_wait(&gone, &mu, &end) != ETIMEDOUT)
        ;
    stopping = 0; /* a later server in this process starts afresh */
    pthread_mutex_unlock(&mu);
}
