/*
 * mem --sample's throttle (agent_sample.h has the why): the decision a
 * thread takes every SAMPLE_WINDOW samples, from the time they took. A
 * function of its arguments alone, so that the agent and the unit tests
 * (tests/unit/test_heap.c, a sampler simulated in virtual time) run the
 * same code.
 */
#ifndef YS_HEAP_THROTTLE_H
#define YS_HEAP_THROTTLE_H

#include <stdint.h>

#include "heap/protocol.h"

#define HEAP_THROTTLE_WINDOW 64			/* samples between decisions */
#define HEAP_THROTTLE_BUCKET INT64_C(1000000000) /* a second's samples, ns */

struct heap_throttle {
	uint8_t raised;		/* the interval is sample_bytes << raised */
	int64_t credit;		/* the bucket, nanoseconds of sampling */
	uint64_t t0;		/* the window's start, ns; 0: none yet */
};

/* The window's samples at the rate take at least this many ns (0: no
 * throttle). */
static inline uint64_t heap_throttle_window_ns(uint64_t rate)
{
	return rate ? HEAP_THROTTLE_WINDOW * UINT64_C(1000000000) / rate : 0;
}

/*
 * A window of HEAP_THROTTLE_WINDOW samples ended at now (ns). The bucket
 * (credit) holds nanoseconds of sampling at the rate, at most a second's:
 * the window's time goes in, its samples at the rate (window_ns) come
 * out. If they took four times window_ns or more, the interval halves
 * (bucket or not). Else, once the bucket is empty, if they took less than
 * window_ns the interval doubles as often as it takes for them to have
 * taken that long (at once: a thread sampling 200 times too fast would
 * otherwise take 8 windows). The interval stays below 2^52 bytes (a
 * countdown, at most ~37 intervals, fits in an int64_t). A thread's
 * first window (t0 0) only fills its bucket and starts the clock.
 */
static inline void heap_throttle_step(struct heap_throttle *th, uint64_t now,
				      uint64_t window_ns,
				      uint64_t sample_bytes)
{
	uint64_t took = now - th->t0;

	if (!th->t0) {		/* the thread's first window */
		th->t0 = now;
		th->credit = HEAP_THROTTLE_BUCKET;
		return;
	}
	th->t0 = now;
	th->credit += took < (uint64_t)HEAP_THROTTLE_BUCKET ? (int64_t)took
		      : HEAP_THROTTLE_BUCKET;
	if (th->credit > HEAP_THROTTLE_BUCKET)
		th->credit = HEAP_THROTTLE_BUCKET;
	th->credit -= (int64_t)window_ns;
	if (took / 4 >= window_ns) {
		if (th->raised > 0)
			th->raised--;
		return;
	}
	if (th->credit > 0)
		return;		/* a burst within the bucket */
	th->credit = 0;
	took += !took;
	while (took < window_ns && th->raised < HEAP_RAISED_MAX &&
	       sample_bytes << (th->raised + 1) < (UINT64_C(1) << 52)) {
		th->raised++;
		took *= 2;
	}
}

#endif
