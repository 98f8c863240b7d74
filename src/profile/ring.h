/*
 * Reading records out of one perf ring buffer (the mmap of a sampling
 * event), internal to profile/: the sampler maps the rings, merge.c orders
 * them, records.c parses what comes out. The invariants are in ring.c.
 */
#ifndef YS_PROFILE_RING_H
#define YS_PROFILE_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/perf_event.h>

/* The largest record (header.size is a u16): the size of the buffer a
 * record that wraps is copied into. */
#define RING_MAX_RECORD 65536

struct ring {
	struct perf_event_mmap_page *meta;
	const uint8_t *data;
	size_t map_len;
	uint64_t mask;		/* data size - 1 */
	uint64_t head;		/* taken at the start of a pass */
	uint64_t tail;		/* ours; published to meta->data_tail */
	uint64_t next_time;	/* time of the record at tail, if any */
	int fd;
	/* the records carry PERF_SAMPLE_IDENTIFIER (records.h): first in a
	 * sample, last in the trailer, which moves where the time is */
	bool identifier;
};

/* Gets one whole record: rec points into the ring or into the wrap
 * buffer, valid until it returns. */
typedef void ring_record_fn(void *arg, const uint8_t *rec, size_t size);

/* Start a pass: take data_head (acquire) and, when a record is waiting,
 * its time into r->next_time. */
void ring_take_head(struct ring *r);

/* Whether this pass has a record left at r->tail. */
static inline int ring_pending(const struct ring *r)
{
	return r->tail < r->head;
}

/*
 * Hand the record at r->tail to fn (copied into buf, RING_MAX_RECORD
 * bytes, when it wraps round the end of the data), then publish the new
 * tail (release) and take the next record's time. Something that is not
 * a record gives up the rest of this pass's data. Call only when
 * ring_pending.
 */
void ring_consume(struct ring *r, uint8_t *buf, ring_record_fn *fn,
		  void *arg);

#endif
