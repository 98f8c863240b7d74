/*
 * libFuzzer target of the heap collector's reader of the agent's event
 * stream (src/heap/collect_reader.c, collect_live.c) and the replay that
 * consumes its records (analyze*.c): the segment is memory the profiled
 * program can write anywhere, and the socket carries whatever it writes
 * into it, so any bytes in either must come out as a report without a
 * fault, a hang or an unbounded allocation.
 *
 * The input is a script. Its first byte chooses the replay (bit 0: while
 * the program runs, heap_live, as `mem` does by default; else after its
 * end), sampled mode (bit 1) and the clock's rate (bit 2: 3 GHz ticks,
 * else nanoseconds); then operations, each a byte (% 6) and its
 * operands, little-endian:
 *   0 RAW   len:3 bytes           bytes onto the socket, then parsed
 *   1 MSG   kind:1 slot:1 seq:2 len:3 bytes
 *                                 a message of the agent's, its check
 *                                 sum right (kind % 3: chunk, maps, a
 *                                 type of none; bit 7: a length not a
 *                                 multiple of 8 kept), then parsed
 *   2 HAND  slot:1 k:1 seq:2 len:3 bytes
 *                                 a chunk handed over in slot's ring
 *                                 buffer k, then the rings looked at
 *   3 FILL  slot:1 cur:1 seq:2 busy:1 len:3 bytes
 *                                 slot's chunk being filled (used: len
 *                                 as given, whatever bytes there were),
 *                                 then a look of the replay while the
 *                                 program runs
 *   4 POKE  where:1 off:4 n:1 bytes
 *                                 n (< 16) bytes over the header (where
 *                                 % 3 = 0), the first 64 images (1) or
 *                                 a slot's header (2: the slot off's
 *                                 low byte, the offset the rest)
 *   5 STEP                        a look at the rings and a live step
 * (a length beyond the input takes what is left; a chunk's bytes beyond
 * a buffer's room are not written, its length stays as given). At the
 * end, what the slots still hold is taken (as after the program ended)
 * and the trace replayed into a report.
 *
 * tests/fuzz/seed_heap_stream.c made the seeds from real runs; tails and
 * tails-live (after the end, while the program runs) are stack records
 * sent as tails (protocol.h) made by hand: kept frames all of the
 * base's, none, more than it has, a tail of a damaged one, of a chunk
 * lost, of another slot's stack, one with Python frames kept, one with
 * nothing new (7 stacks rebuilt, 5 damaged). Built
 * with -DFUZZ_SHOW (by hand), the target prints each input's figures: so
 * the seeds were checked against the fixture's designed ones.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "heap/analyze.h"
#include "heap/collect_internal.h"
#include "util/monoclock.h"
#include "util/strutil.h"

struct in {
	const uint8_t *p;
	size_t n;
};

static uint64_t take_u(struct in *in, int bytes)
{
	uint64_t v = 0;

	for (int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

/* Up to want bytes of the input: where they are, *got how many. */
static const uint8_t *take_bytes(struct in *in, size_t want, size_t *got)
{
	const uint8_t *p = in->p;

	*got = want < in->n ? want : in->n;
	in->p += *got;
	in->n -= *got;
	return p;
}

static void conn_append(struct conn *c, const void *p, size_t n)
{
	c->buf = xgrow(c->buf, &c->cap, c->len + n + 1, 1);
	memcpy(c->buf + c->len, p, n);
	c->len += n;
}

static void op_msg(struct reader *r, struct conn *c, struct in *in)
{
	static const uint32_t types[3] = { HEAP_MSG_CHUNK, HEAP_MSG_MAPS, 7 };
	uint8_t kind = (uint8_t)take_u(in, 1);
	struct heap_msg_header m = { .magic = HEAP_MAGIC };
	const uint8_t *d;
	size_t len;

	m.type = types[kind % 3];
	m.slot = (uint32_t)take_u(in, 1);
	m.seq = take_u(in, 2);
	d = take_bytes(in, (size_t)take_u(in, 3), &len);
	if (!(kind & 0x80) && m.type == HEAP_MSG_CHUNK)
		len -= len % 8;
	m.len = (uint32_t)len;
	m.check = heap_msg_check(&m, d);
	conn_append(c, &m, sizeof(m));
	conn_append(c, d, len);
	heap_parse_messages(r, c, false);
}

static void op_hand(struct reader *r, struct heap_header *h, struct in *in)
{
	struct heap_slot *s = &h->slots[take_u(in, 1)];
	uint32_t k = (uint32_t)take_u(in, 1) % HEAP_RING;
	uint64_t seq = take_u(in, 2);
	size_t want = (size_t)take_u(in, 3), len;
	const uint8_t *d = take_bytes(in, want < HEAP_SLOT_BYTES ? want
						 : HEAP_SLOT_BYTES, &len);

	memcpy(s->data[k], d, len);
	s->ring[k].seq = seq;
	s->ring[k].len = (uint32_t)want;
	s->ring[k].full = 1;
	s->handed++;
	h->handed++;
	heap_take_handed(r);
}

static void op_fill(struct reader *r, struct heap_header *h, struct in *in)
{
	struct heap_slot *s = &h->slots[take_u(in, 1)];
	uint32_t cur = (uint32_t)take_u(in, 1);
	uint64_t seq = take_u(in, 2);
	uint32_t busy = (uint32_t)take_u(in, 1) & 1;
	size_t want = (size_t)take_u(in, 3), len;
	const uint8_t *d = take_bytes(in, want < HEAP_SLOT_BYTES ? want
						 : HEAP_SLOT_BYTES, &len);

	memcpy(s->data[cur % HEAP_RING], d, len);
	s->state = 1;
	s->cur = cur;
	s->seq = seq;
	s->used = want;
	s->busy = busy;
	heap_live_step(r);
}

static void op_poke(struct heap_header *h, struct in *in)
{
	uint8_t where = (uint8_t)take_u(in, 1) % 3;
	uint64_t off = take_u(in, 4);
	size_t want = (size_t)take_u(in, 1) % 16, len;
	char *at;

	if (where == 0) {
		at = (char *)h + off % (offsetof(struct heap_header, slots) -
					15);
	} else if (where == 1) {
		at = (char *)h->images + off % (64 * sizeof(h->images[0]));
	} else {
		at = (char *)&h->slots[off & 0xff] +
		     (off >> 8) % (offsetof(struct heap_slot, data) - 15);
	}
	memcpy(at, take_bytes(in, want, &len), len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct heap_header *h;
	static struct reader r;
	static struct heap_trace t;
	struct heap_report rep;
	struct heap_launch launch;
	struct conn c = { .fd = -1 };
	struct in in = { data, size };
	uint8_t flags;

	if (!size)
		return 0;
	if (!h) {
		/* the segment: one mapping, its pages made zero again
		 * after each input (few of them are ever touched) */
		h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (h == MAP_FAILED)
			abort();
	}
	flags = (uint8_t)take_u(&in, 1);
	memset(&t, 0, sizeof(t));
	t.sample_bytes = flags & 2 ? 4096 : 0;
	t.max_depth = HEAP_MAX_DEPTH;
	if (flags & 1)
		t.live = heap_live_new(&t);
	memset(&r, 0, sizeof(r));
	r.t = &t;
	r.h = h;
	r.shm = -1;
	r.listener = -1;
	/* the clock measured already: a live step replays at once */
	r.t0 = monoclock_s() - 1;
	r.ts0 = t.ts0;
	while (in.n) {
		switch (take_u(&in, 1) % 6) {
		case 0: {
			size_t len;
			const uint8_t *d = take_bytes(&in,
						      (size_t)take_u(&in, 3),
						      &len);

			conn_append(&c, d, len);
			heap_parse_messages(&r, &c, false);
			break;
		}
		case 1:
			op_msg(&r, &c, &in);
			break;
		case 2:
			op_hand(&r, h, &in);
			break;
		case 3:
			op_fill(&r, h, &in);
			break;
		case 4:
			op_poke(h, &in);
			break;
		default:
			heap_take_handed(&r);
			heap_live_step(&r);
			break;
		}
	}
	/* the program ended: what the socket and the slots still hold */
	heap_parse_messages(&r, &c, true);
	heap_take_remainders(&r, h);
	t.ticks_per_s = flags & 4 ? 3e9 : 1e9;
	t.duration = 1;
	heap_analyze(&t, &rep);
	heap_launchers(&rep, &launch);
#ifdef FUZZ_SHOW
	fprintf(stderr, "allocations %.0f bytes %.0f frees %.0f temporary %.0f "
		"leaked %.0f in %.0f peak %.0f sites %zu stacks %llu damaged "
		"%llu procs %zu lost %llu garbage %llu\n", rep.allocations,
		rep.bytes, rep.frees, rep.temporary, rep.leaked_bytes,
		rep.leaked_blocks, rep.peak, rep.nsites,
		(unsigned long long)rep.nstacks,
		(unsigned long long)rep.stacks_damaged, rep.nprocs,
		(unsigned long long)t.lost_chunks,
		(unsigned long long)t.garbage_bytes);
#endif
	(void)heap_trace_incomplete(&t);
	heap_report_free(&rep);
	heap_trace_free(&t);
	free(c.buf);
	free(r.peek);
	madvise(h, sizeof(*h), MADV_DONTNEED);
	return 0;
}
