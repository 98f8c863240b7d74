/*
 * One perf ring buffer, read in place: no allocation and no system call
 * per record (the reader runs beside the profiled program).
 *
 * Design notes (the perf ring buffer):
 *
 * 1. A ring is 1 + 2^n pages: a header page (struct perf_event_mmap_page)
 *    and the data. The kernel writes records at data_head and never past
 *    data_tail (we map it writable, which asks for that): when the data
 *    would overrun the tail it drops records and later writes one
 *    PERF_RECORD_LOST with their count. So nothing is ever overwritten
 *    under the reader, and a slow reader costs samples, never garbage.
 *
 * 2. data_head is read with an acquire load: the records below it are
 *    complete only once we see the head. data_tail is written with a
 *    release store after a record has been handed out and the callback
 *    has returned, because from then on the kernel may write over it.
 *    The head and tail are free-running 64-bit byte counts; a position in
 *    the data is count & (size - 1).
 *
 * 3. Every record is a multiple of 8 bytes and starts 8-aligned, so its
 *    8-byte header, and every u64 field, never straddles the end of the
 *    data. A whole record may: such a record is copied, in its two parts,
 *    into the caller's buffer (RING_MAX_RECORD: header.size is a u16)
 *    and handed out from there.
 *    Any other record is handed out where it lies in the ring.
 */
#include "profile/ring.h"

#include <string.h>

#define TRAILER 16		/* sample_id_all: pid, tid, time */
#define HDR sizeof(struct perf_event_header)

/*
 * The time of the record at r->tail, by which merge.c orders the rings;
 * 0 if it has none. A sample's time is its third u64 (the sample_type
 * sampler.c asks for: IP, TID, TIME first; its fourth after an
 * identifier); any other record carries it last (sample_id_all), or
 * last but the identifier.
 */
static uint64_t record_time(const struct ring *r)
{
	struct perf_event_header h;
	uint64_t at, t, id = r->identifier ? 8 : 0;

	memcpy(&h, r->data + (r->tail & r->mask), sizeof(h));
	at = h.type == PERF_RECORD_SAMPLE ? 24 + id
					  : (uint64_t)h.size - 8 - id;
	if (h.size & 7 || h.size < HDR + TRAILER + id || at + 8 > h.size)
		return 0;
	memcpy(&t, r->data + ((r->tail + at) & r->mask), sizeof(t));
	return t;
}

/* Hand out the record at r->tail and publish the new tail. */
void ring_consume(struct ring *r, uint8_t *buf, ring_record_fn *fn,
		  void *arg)
{
	uint64_t off = r->tail & r->mask, data_size = r->mask + 1;
	const uint8_t *rec = r->data + off;
	struct perf_event_header h;

	memcpy(&h, rec, sizeof(h));
	if (h.size < HDR || (h.size & 7) || h.size > r->head - r->tail) {
		/* not a record: give up the rest of this pass's data */
		r->tail = r->head;
	} else {
		if (off + h.size > data_size) {
			size_t first = (size_t)(data_size - off);

			memcpy(buf, rec, first);
			memcpy(buf + first, r->data, h.size - first);
			rec = buf;
		}
		fn(arg, rec, h.size);
		r->tail += h.size;
	}
	__atomic_store_n(&r->meta->data_tail, r->tail, __ATOMIC_RELEASE);
	if (r->tail < r->head)
		r->next_time = record_time(r);
}

void ring_take_head(struct ring *r)
{
	r->head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	if (r->tail < r->head)
		r->next_time = record_time(r);
}
