/* The monotonic clock: one place for the deadline arithmetic. */
#include "monotime.h"

int64_t mono_now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

void mono_deadline_us(struct timespec *t, int64_t us)
{
    clock_gettime(CLOCK_MONOTONIC, t);
    t->tv_sec += (time_t)(us / 1000000);
    t->tv_nsec += (long)(us % 1000000) * 1000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

void mono_deadline_ms(struct timespec *t, int64_t ms) { mono_deadline_us(t, ms * 1000); }
