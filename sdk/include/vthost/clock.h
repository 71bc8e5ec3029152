/*
 * The monotonic clock for plugins: elapsed times and deadlines that do
 * not jump when the wall clock is set.  Header-only (nothing to link, no
 * host call), so a plugin's static core and its unit tests use it as
 * the plugin does.  The host's own clock is host/util/monotime.c; these
 * two are the tree's only readers of clock_gettime (tools/check_calls.sh).
 *
 * A deadline from vt_clock_deadline_ms is on CLOCK_MONOTONIC: wait for it
 * with pthread_cond_clockwait(cond, mutex, CLOCK_MONOTONIC, &deadline),
 * or pthread_cond_timedwait on a condition variable whose clock was set
 * to CLOCK_MONOTONIC, or clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME).
 */
#ifndef VTHOST_CLOCK_H
#define VTHOST_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Now, on CLOCK_MONOTONIC. */
static inline void vt_clock_now(struct timespec *t) { clock_gettime(CLOCK_MONOTONIC, t); }

/* Milliseconds on CLOCK_MONOTONIC (an arbitrary origin: compare only). */
static inline int64_t vt_clock_ms(void)
{
    struct timespec t;
    vt_clock_now(&t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Seconds on CLOCK_MONOTONIC, with the fraction. */
static inline double vt_clock_seconds(void)
{
    struct timespec t;
    vt_clock_now(&t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* *t = now + ms milliseconds on CLOCK_MONOTONIC, normalised. */
static inline void vt_clock_deadline_ms(struct timespec *t, int64_t ms)
{
    vt_clock_now(t);
    t->tv_sec += (time_t)(ms / 1000);
    t->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

/* Milliseconds from now until the CLOCK_MONOTONIC time *t (negative once
 * it has passed). */
static inline int64_t vt_clock_ms_until(const struct timespec *t)
{
    struct timespec now;
    vt_clock_now(&now);
    return (int64_t)(t->tv_sec - now.tv_sec) * 1000 + (t->tv_nsec - now.tv_nsec) / 1000000;
}

/* 1 once the CLOCK_MONOTONIC time *t has come. */
static inline int vt_clock_past(const struct timespec *t)
{
    struct timespec now;
    vt_clock_now(&now);
    return now.tv_sec > t->tv_sec || (now.tv_sec == t->tv_sec && now.tv_nsec >= t->tv_nsec);
}

#endif /* VTHOST_CLOCK_H */
