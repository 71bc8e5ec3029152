/* The host's clocks: one place for the deadline arithmetic. */
#include "monotime.h"

void mono_now(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }

int64_t mono_now_us(void)
{
    struct timespec t;
    mono_now(&t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

int64_t mono_now_ms(void) { return mono_now_us() / 1000; }

void mono_deadline_us(struct timespec *t, int64_t us)
{
    mono_now(t);
    t->tv_sec += (time_t)(us / 1000000);
    t->tv_nsec += (long)(us % 1000000) * 1000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

void mono_deadline_ms(struct timespec *t, int64_t ms) { mono_deadline_us(t, ms * 1000); }

int mono_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mu, const struct timespec *deadline)
{
    return pthread_cond_clockwait(cond, mu, CLOCK_MONOTONIC, deadline);
}

void wall_now(struct timespec *t) { clock_gettime(CLOCK_REALTIME, t); }

int64_t wall_now_ns(void)
{
    struct timespec t;
    wall_now(&t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}
