/* The monotonic clock, for waits that must not jump with the wall clock
 * (condition variables set to CLOCK_MONOTONIC, elapsed times). */
#ifndef VTHOST_MONOTIME_H
#define VTHOST_MONOTIME_H

#include <stdint.h>
#include <time.h>

/* Microseconds on CLOCK_MONOTONIC. */
int64_t mono_now_us(void);

/* *t = now + `us` microseconds on CLOCK_MONOTONIC, normalised: the
 * absolute deadline for pthread_cond_timedwait on a condition variable
 * whose clock is CLOCK_MONOTONIC. */
void mono_deadline_us(struct timespec *t, int64_t us);

/* The same in milliseconds. */
void mono_deadline_ms(struct timespec *t, int64_t ms);

#endif
