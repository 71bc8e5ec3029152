/* The threads HTTP calls run on (http_workers.c): calls handed over at
 * once never wait behind one another, idle threads take the next calls
 * (no new thread per call), and stopping ends every idle thread and
 * leaves a pool that starts afresh. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>
#include "http_workers.h"

#define CALLS 12

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int running, done, released;
static pthread_t seen[64];
static int nseen;

/* Notes its thread, then waits until the test releases every call: a
 * call that waited behind another would never start. */
static void blocking_call(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&mu);
    int known = 0;
    for (int i = 0; i < nseen; i++)
        known |= pthread_equal(seen[i], pthread_self());
    if (!known && nseen < 64)
        seen[nseen++] = pthread_self();
    running++;
    pthread_cond_broadcast(&cond);
    while (!released)
        pthread_cond_wait(&cond, &mu);
    done++;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mu);
}

/* Wait (at most 10 s) until *v reaches n. */
static int wait_for(int *v, int n)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 10;
    pthread_mutex_lock(&mu);
    while (*v < n && pthread_cond_timedwait(&cond, &mu, &end) == 0)
        ;
    int ok = *v >= n;
    pthread_mutex_unlock(&mu);
    return ok;
}

static void reset(void)
{
    pthread_mutex_lock(&mu);
    running = done = released = 0;
    nseen = 0;
    pthread_mutex_unlock(&mu);
}

static void release_all(void)
{
    pthread_mutex_lock(&mu);
    released = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&mu);
}

static void test_calls_never_wait_behind_each_other(void **state)
{
    (void)state;
    reset();
    for (int i = 0; i < CALLS; i++)
        assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
    assert_true(wait_for(&running, CALLS)); /* all at once */
    assert_int_equal(nseen, CALLS);
    release_all();
    assert_true(wait_for(&done, CALLS));
    hs_workers_stop(5000);
}

static void test_idle_threads_take_the_next_calls(void **state)
{
    (void)state;
    reset();
    /* Two at once, then one after another: the two threads made for the
     * first pair serve every later call. */
    assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
    assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
    assert_true(wait_for(&running, 2));
    release_all();
    assert_true(wait_for(&done, 2));
    for (int i = 0; i < 20; i++) {
        /* the finished thread goes idle a moment after its call */
        struct timespec pause = {0, 2 * 1000 * 1000};
        nanosleep(&pause, NULL);
        assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
        assert_true(wait_for(&done, 3 + i));
    }
    assert_true(nseen <= 4); /* not a thread per call */
    hs_workers_stop(5000);
}

static void test_stop_then_start_afresh(void **state)
{
    (void)state;
    reset();
    for (int i = 0; i < 6; i++)
        assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
    assert_true(wait_for(&running, 6));
    release_all();
    assert_true(wait_for(&done, 6));
    /* Idle threads end at once: the wait returns long before its bound. */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    hs_workers_stop(5000);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 4);
    reset();
    assert_int_equal(hs_workers_run(blocking_call, NULL), 0);
    assert_true(wait_for(&running, 1));
    release_all();
    assert_true(wait_for(&done, 1));
    hs_workers_stop(5000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calls_never_wait_behind_each_other),
        cmocka_unit_test(test_idle_threads_take_the_next_calls),
        cmocka_unit_test(test_stop_then_start_afresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
