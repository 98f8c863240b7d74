/*
 * The monotonic clock (CLOCK_MONOTONIC) every duration is taken with: it
 * does not jump with the date, and it is the clock perf records carry
 * (use_clockid) and the heap agent stamps events with. The heap agent and
 * the spawner, which link nothing of util, read it themselves.
 */
#ifndef YS_UTIL_MONOCLOCK_H
#define YS_UTIL_MONOCLOCK_H

#include <stdint.h>

/* Now, in nanoseconds and in seconds, from an arbitrary start. */
int64_t monoclock_ns(void);
double monoclock_s(void);
/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): a
 * phase's own cost, which a busy machine stretches less than its wall
 * time. */
double monoclock_thread_cpu_s(void);

#endif
