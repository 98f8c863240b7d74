/*
 * Merging the per-CPU perf rings by record time, internal to profile/
 * (design note in merge.c).
 */
#ifndef YS_PROFILE_MERGE_H
#define YS_PROFILE_MERGE_H

#include "profile/ring.h"

/* One pass over rings[0..n): every ring's head first, then the records
 * below those heads to fn in time order. buf: RING_MAX_RECORD bytes for
 * a record that wraps. */
void merge_drain(struct ring *rings, int n, uint8_t *buf,
		 ring_record_fn *fn, void *arg);

#endif
