/*
 * Design note (merging the rings):
 *
 * 4. The kernel writes a side-band record (MMAP2, COMM, FORK, EXIT) into
 *    the ring of the CPU the task was running on, like a sample. A process
 *    that migrates therefore leaves its mapping in one ring and its
 *    samples in another, and a reader that empties one ring after the
 *    other would hand out samples before the mappings that explain them.
 *    So each pass takes every ring's head first and then merges the rings
 *    by record time (sample_id_all puts a time in every record), as perf
 *    does. Records are written at the time they carry, so what the next
 *    pass finds is later than what this one handed out, up to the few
 *    microseconds in which a record can be written but not yet published.
 */
#include "profile/merge.h"

#include <stddef.h>

void merge_drain(struct ring *rings, int n, uint8_t *buf,
		 ring_record_fn *fn, void *arg)
{
	struct ring *r, *best;
	int i;

	for (i = 0; i < n; i++) {
		r = &rings[i];
		ring_take_head(r);
	}
	for (;;) {
		best = NULL;
		for (i = 0; i < n; i++) {
			r = &rings[i];
			if (r->tail < r->head &&
			    (!best || r->next_time < best->next_time))
				best = r;
		}
		if (!best)
			break;
		ring_consume(best, buf, fn, arg);
	}
}
