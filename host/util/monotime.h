/* The host's clocks, read here and nowhere else (tools/check_calls.sh):
 * the monotonic one for waits that must not jump with the wall clock
 * (condition variables set to CLOCK_MONOTONIC, elapsed times), and the
 * wall clock for what is shown or stored as a date. */
#ifndef VTHOST_MONOTIME_H
#define VTHOST_MONOTIME_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Microseconds on CLOCK_MONOTONIC. */
int64_t mono_now_us(void);

/* Milliseconds on CLOCK_MONOTONIC. */
int64_t mono_now_ms(void);

/* Now on CLOCK_MONOTONIC. */
void mono_now(struct timespec *t);

/* *t = now + `us` microseconds on CLOCK_MONOTONIC, normalised: the
 * absolute deadline for pthread_cond_timedwait on a condition variable
 * whose clock is CLOCK_MONOTONIC, or for mono_cond_wait. */
void mono_deadline_us(struct timespec *t, int64_t us);

/* The same in milliseconds. */
void mono_deadline_ms(struct timespec *t, int64_t ms);

/* pthread_cond_timedwait until the CLOCK_MONOTONIC `deadline`, whatever
 * clock `cond` was made with (PTHREAD_COND_INITIALIZER's is the wall
 * clock).  Returns as pthread_cond_timedwait (0, ETIMEDOUT, ...). */
int mono_cond_wait(pthread_cond_t *cond, pthread_mutex_t *mu, const struct timespec *deadline);

/* Now on the wall clock (CLOCK_REALTIME): for dates, never for waits. */
void wall_now(struct timespec *t);

/* Nanoseconds since the epoch on the wall clock. */
int64_t wall_now_ns(void);

#endif
