/* The kept call threads of HTTP sessions (http_workers.c): an idle thread
 * takes the next call, a new one starts when none is idle (a call never
 * waits behind another), and stopping ends every thread.  Threads are
 * told apart by their kernel thread id, which is not reused at once as a
 * pthread_t is; how many this process has is read from /proc/self/task. */
#include <dirent.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include "http_workers.h"

/* One call: the thread it ran on, and a gate it may wait at. */
typedef struct job {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    pid_t tid;
    int done, held, release;
} job;

static void job_init(job *j, int held)
{
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->cond, NULL);
    j->tid = 0;
    j->done = j->release = 0;
    j->held = held;
}

static void job_fini(job *j)
{
    pthread_mutex_destroy(&j->mu);
    pthread_cond_destroy(&j->cond);
}

static void job_main(void *arg)
{
    job *j = arg;
    pthread_mutex_lock(&j->mu);
    j->tid = gettid();
    pthread_cond_broadcast(&j->cond); /* started */
    while (j->held && !j->release)
        pthread_cond_wait(&j->cond, &j->mu);
    j->done = 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->mu);
}

/* Wait until the job started (tid set) or, with `done`, ended. */
static void job_wait(job *j, int done)
{
    pthread_mutex_lock(&j->mu);
    while (done ? !j->done : !j->tid)
        pthread_cond_wait(&j->cond, &j->mu);
    pthread_mutex_unlock(&j->mu);
}

static void job_release(job *j)
{
    pthread_mutex_lock(&j->mu);
    j->release = 1;
    pthread_cond_broadcast(&j->cond);
    pthread_mutex_unlock(&j->mu);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int threads_now(void)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A stopped pool's threads end just after they said so: wait for the
 * process to be back to `want` threads (up to 5 s). */
static int threads_settle(int want)
{
    int n = threads_now();
    for (int i = 0; i < 500 && n > want; i++) {
        sleep_ms(10);
        n = threads_now();
    }
    return n;
}

static void test_idle_thread_reused(void **state)
{
    (void)state;
    int base = threads_now();
    pid_t tids[20];
    for (int i = 0; i < 20; i++) {
        job j;
        job_init(&j, 0);
        assert_int_equal(hs_workers_run(job_main, &j), 0);
        job_wait(&j, 1);
        tids[i] = j.tid;
        job_fini(&j);
        assert_int_not_equal(tids[i], gettid());
        sleep_ms(20); /* the thread goes back to waiting */
    }
    /* One after another, the calls ran on the thread kept idle: a thread
     * per call would have shown 20 ids. */
    int distinct = 0;
    for (int i = 0; i < 20; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= tids[k] == tids[i];
        distinct += !seen;
    }
    assert_true(distinct <= 2);
    assert_true(threads_now() <= base + 2);
    hs_workers_stop(5000);
    assert_int_equal(threads_settle(base), base);
}

static void test_new_thread_when_none_idle(void **state)
{
    (void)state;
    int base = threads_now();
    enum { N = 6 };
    job j[N];
    /* Every call is held until all have started: each must have a thread
     * of its own, or the later ones would never start. */
    for (int i = 0; i < N; i++) {
        job_init(&j[i], 1);
        assert_int_equal(hs_workers_run(job_main, &j[i]), 0);
    }
    for (int i = 0; i < N; i++)
        job_wait(&j[i], 0);
    for (int i = 0; i < N; i++)
        for (int k = 0; k < i; k++)
            assert_int_not_equal(j[i].tid, j[k].tid);
    assert_int_equal(threads_now(), base + N);
    for (int i = 0; i < N; i++) {
        job_release(&j[i]);
        job_wait(&j[i], 1);
        job_fini(&j[i]);
    }
    hs_workers_stop(5000);
    assert_int_equal(threads_settle(base), base);
}

static void test_stop_leaves_a_running_call(void **state)
{
    (void)state;
    int base = threads_now();
    job held, quick;
    job_init(&held, 1);
    job_init(&quick, 0);
    assert_int_equal(hs_workers_run(job_main, &held), 0);
    assert_int_equal(hs_workers_run(job_main, &quick), 0);
    job_wait(&held, 0);
    job_wait(&quick, 1);
    /* The idle thread ends; the running call keeps its thread, and the
     * stop gives up waiting for it after its time. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hs_workers_stop(200);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
    assert_true(ms >= 150 && ms < 3000);
    assert_int_equal(threads_settle(base + 1), base + 1);
    assert_int_equal(held.done, 0);
    job_release(&held);
    job_wait(&held, 1);
    /* Stopped pools start afresh: a call after the stop runs. */
    job again;
    job_init(&again, 0);
    assert_int_equal(hs_workers_run(job_main, &again), 0);
    job_wait(&again, 1);
    hs_workers_stop(5000);
    assert_int_equal(threads_settle(base), base);
    job_fini(&held);
    job_fini(&quick);
    job_fini(&again);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idle_thread_reused),
        cmocka_unit_test(test_new_thread_when_none_idle),
        cmocka_unit_test(test_stop_leaves_a_running_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
