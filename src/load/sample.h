/*
 * A uniform random sample of request latencies (reservoir sampling,
 * Vitter's algorithm R), kept per client thread and merged at the end
 * into one uniform sample of all requests. The result's "values" of
 * `latency` come from it, so that `compare` and `gate` can test a
 * sample; the percentiles shown come from the HDR histogram of every
 * request. Each entry is a pair: the latency from the intended send time
 * and from the actual one, of the same request.
 */
#ifndef YS_LOAD_SAMPLE_H
#define YS_LOAD_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "stats/stats.h"

struct sample {
	int64_t *a, *b;		/* the pairs, nanoseconds */
	size_t n, cap;		/* kept; at most cap */
	size_t alloc;		/* room in a and b: grows to cap */
	uint64_t seen;		/* offered */
	struct rng rng;
};

/* cap >= 1; the room grows with the pairs kept. Never fails (allocation
 * aborts). */
void sample_init(struct sample *s, size_t cap, uint64_t seed);
void sample_free(struct sample *s);

/* Offer one pair: kept with probability cap / seen. O(1). */
void sample_add(struct sample *s, int64_t a, int64_t b);

/*
 * Merge in[0..k): out (initialized by the call with capacity cap)
 * receives min(cap, total seen) pairs, a uniform sample without
 * replacement of every pair offered to any of them (each input is
 * shuffled in place first). out->seen is the total seen.
 */
void sample_merge(struct sample *out, struct sample *const *in, size_t k,
		  size_t cap, uint64_t seed);

#endif
