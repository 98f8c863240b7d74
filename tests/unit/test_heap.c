/*
 * Unit tests of the heap trace's replay (src/heap/analyze.c) on traces
 * built by hand from the record formats of src/heap/protocol.h, with no
 * agent involved: every expected number below is worked out by hand from
 * the events written next to it (the clock is 1e9 ticks a second, so a
 * stamp is in nanoseconds from ts0 = 0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "heap/agent_fp.h"
#include "heap/analyze.h"
#include "heap/collect_internal.h"
#include "heap/throttle.h"
#include "heaprecs.h"

/* Stack hashes (any non-zero value will do) */
#define S1 0x1111u
#define S2 0x2222u
#define S3 0x3333u
#define NS 1e-9		/* seconds per tick */

/* ---- building a trace --------------------------------------------------- */

static void trace_init(struct heap_trace *t, double duration)
{
	memset(t, 0, sizeof(*t));
	t->ticks_per_s = 1e9;
	t->ts0 = 0;
	t->duration = duration;
}

static void rec_alloc(struct heap_trace *t, int slot, uint64_t ts,
		      uint64_t ptr, uint64_t size, uint64_t stack)
{
	uint64_t w[4] = { head(HEAP_REC_ALLOC, ts), ptr, size, stack };

	put(t, slot, w, 4);
}

static void rec_free(struct heap_trace *t, int slot, uint64_t ts, uint64_t ptr)
{
	uint64_t w[2] = { head(HEAP_REC_FREE, ts), ptr };

	put(t, slot, w, 2);
}

static void rec_free_temp(struct heap_trace *t, int slot, uint64_t ts,
			  uint64_t ptr)
{
	uint64_t w[2] = { head(HEAP_REC_FREE_TEMP, ts), ptr };

	put(t, slot, w, 2);
}

static void rec_burst(struct heap_trace *t, int slot, uint64_t t0,
		      uint64_t stack, uint64_t count, uint64_t bytes,
		      uint64_t max, uint64_t t1)
{
	uint64_t w[6] = { head(HEAP_REC_BURST, t0), stack, count, bytes, max,
			  t1 };

	put(t, slot, w, 6);
}

/* A stack of n frames (leaf first) of program image gen. */
static void rec_stack(struct heap_trace *t, int slot, uint32_t gen,
		      uint64_t hash, const uint64_t *ips, uint32_t n)
{
	uint64_t w[3] = { head(HEAP_REC_STACK, 0) | ((uint64_t)gen << 16) | n,
			  hash, 0 };

	put(t, slot, w, 3);
	put(t, slot, ips, n);
}

/* Image gen exec'd over image gen - 1 of the same process: its first
 * thread takes a slot (IMAGE) and records the exec, as the agent does. */
static void rec_exec(struct heap_trace *t, int slot, uint64_t ts,
		     uint32_t gen)
{
	uint64_t w[4] = { head(HEAP_REC_IMAGE, ts), gen,
			  head(HEAP_REC_EXEC, ts),
			  (uint64_t)(gen - 1) << 32 | gen };

	put(t, slot, w, 4);
}

/* Stacks S1, S2 and S3 of one frame each, in stream slot. */
static void rec_stacks(struct heap_trace *t, int slot)
{
	static const uint64_t ips[] = { 0x401000 };

	rec_stack(t, slot, 1, S1, ips, 1);
	rec_stack(t, slot, 1, S2, ips, 1);
	rec_stack(t, slot, 1, S3, ips, 1);
}

static const struct heap_site *site(const struct heap_report *r,
				    uint64_t hash)
{
	for (size_t i = 0; i < r->nsites; i++)
		if (r->sites[i].hash == hash)
			return &r->sites[i];
	fail_msg("no site of stack %#llx", (unsigned long long)hash);
	return NULL;
}

/* Native frame i (leaf first) of the site of stack hash, written out of
 * the report's store. */
static uint64_t site_ip(const struct heap_report *r, uint64_t hash,
			uint32_t i)
{
	const struct heap_site *s = site(r, hash);
	uint64_t ips[HEAP_MAX_DEPTH];

	assert_true(i < s->stack.depth && s->stack.depth <= HEAP_MAX_DEPTH);
	stackstore_native(r->stacks, &s->stack, ips);
	return ips[i];
}

/* Doubles that are whole numbers are compared exactly, others within a
 * relative 1e-12. */
static void assert_near(double got, double want)
{
	if (!(fabs(got - want) <= 1e-12 * fmax(1, fabs(want))))
		fail_msg("got %.17g, expected %.17g", got, want);
}

static void analyze(const struct heap_trace *t, struct heap_report *r)
{
	assert_int_equal(heap_analyze(t, r), 0);
}

/* ---- totals, peak, leaks ------------------------------------------------ */

static void test_peak_and_leaks(void **state)
{
	static const uint64_t ips1[] = { 0x401000, 0x402000 };
	static const uint64_t ips2[] = { 0x403000, 0x402000, 0x404000 };
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_stack(&t, 0, 1, S1, ips1, 2);
	rec_alloc(&t, 0, 1000, 0xa0, 100, S1);	/* live 100 */
	rec_stack(&t, 0, 1, S2, ips2, 3);
	rec_alloc(&t, 0, 2000, 0xb0, 300, S2);	/* 400: the peak */
	rec_free(&t, 0, 3000, 0xa0);		/* 300 */
	rec_alloc(&t, 0, 4000, 0xc0, 50, S1);	/* 350 */
	analyze(&t, &r);

	assert_near(r.peak, 400);
	assert_near(r.peak_t, 2000 * NS);
	assert_near(r.allocations, 3);
	assert_near(r.bytes, 450);
	assert_near(r.frees, 1);
	assert_near(r.temporary, 0);
	assert_near(r.leaked_bytes, 350);
	assert_near(r.leaked_blocks, 2);
	assert_int_equal(r.unmatched_frees, 0);
	assert_int_equal(r.execs, 0);
	assert_false(r.estimated);
	assert_int_equal(r.events, 4);

	assert_int_equal(r.nsites, 2);
	assert_int_equal(site(&r, S1)->stack.depth, 2);
	assert_int_equal(site_ip(&r, S1, 1), 0x402000);
	assert_int_equal(site(&r, S2)->stack.depth, 3);
	assert_int_equal(site_ip(&r, S2, 2), 0x404000);
	assert_int_equal(site(&r, S2)->gen, 1);
	assert_near(site(&r, S1)->allocations, 2);
	assert_near(site(&r, S1)->bytes, 150);
	assert_near(site(&r, S1)->leaked_blocks, 1);
	assert_near(site(&r, S1)->leaked_bytes, 50);
	assert_near(site(&r, S1)->peak_bytes, 100);
	assert_near(site(&r, S2)->leaked_bytes, 300);
	assert_near(site(&r, S2)->peak_bytes, 300);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* A site changed after the peak keeps what it had at the peak; a later,
 * higher peak takes the sites' new values. */
static void test_peak_sites_lazy(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_alloc(&t, 0, 1, 0x10, 100, S1);	/* 100 */
	rec_alloc(&t, 0, 2, 0x20, 200, S2);	/* 300 */
	rec_alloc(&t, 0, 3, 0x30, 100, S1);	/* 400: S1 200, S2 200 */
	rec_free(&t, 0, 4, 0x20);		/* 200: S2 0 */
	rec_alloc(&t, 0, 5, 0x40, 50, S3);	/* 250: S3 50 */
	rec_free(&t, 0, 6, 0x10);		/* 150: S1 100 */
	analyze(&t, &r);
	assert_near(r.peak, 400);
	assert_near(r.peak_t, 3 * NS);
	assert_near(site(&r, S1)->peak_bytes, 200);
	assert_near(site(&r, S2)->peak_bytes, 200);
	assert_near(site(&r, S3)->peak_bytes, 0);
	heap_report_free(&r);

	/* go on to a new peak: 150 + 500 = 650 with S1 100, S2 0, S3 550 */
	rec_alloc(&t, 0, 7, 0x50, 500, S3);
	rec_free(&t, 0, 8, 0x50);		/* after it: kept */
	rec_free(&t, 0, 9, 0x30);
	rec_alloc(&t, 0, 10, 0x60, 600, S2);	/* 650 again: not higher */
	analyze(&t, &r);
	assert_near(r.peak, 650);
	assert_near(r.peak_t, 7 * NS);
	assert_near(site(&r, S1)->peak_bytes, 100);
	assert_near(site(&r, S2)->peak_bytes, 0);
	assert_near(site(&r, S3)->peak_bytes, 550);
	assert_near(r.leaked_bytes, 650);
	heap_report_free(&r);

	/* three successive peaks, each site touched between them */
	heap_trace_free(&t);
	trace_init(&t, 1);
	rec_alloc(&t, 0, 1, 0x10, 10, S1);	/* peak 10 */
	rec_alloc(&t, 0, 2, 0x20, 20, S2);	/* peak 30 */
	rec_alloc(&t, 0, 3, 0x30, 30, S3);	/* peak 60: 10 20 30 */
	rec_free(&t, 0, 4, 0x10);		/* 50 */
	rec_alloc(&t, 0, 5, 0x11, 40, S1);	/* peak 90: 40 20 30 */
	rec_free(&t, 0, 6, 0x20);		/* 70 */
	rec_free(&t, 0, 7, 0x11);		/* 30 */
	rec_alloc(&t, 0, 8, 0x40, 70, S2);	/* 100: peak: 0 70 30 */
	rec_free(&t, 0, 9, 0x40);
	rec_free(&t, 0, 10, 0x30);
	analyze(&t, &r);
	assert_near(r.peak, 100);
	assert_near(r.peak_t, 8 * NS);
	assert_near(site(&r, S1)->peak_bytes, 0);
	assert_near(site(&r, S2)->peak_bytes, 70);
	assert_near(site(&r, S3)->peak_bytes, 30);
	assert_near(r.leaked_bytes, 0);
	assert_near(r.frees, 5);
	heap_report_free(&r);
	heap_trace_free(&t);
}

static void test_free_temp(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_alloc(&t, 0, 1, 0x10, 8, S1);
	rec_free_temp(&t, 0, 2, 0x10);		/* temporary */
	rec_alloc(&t, 0, 3, 0x10, 8, S1);
	rec_alloc(&t, 0, 4, 0x20, 16, S2);
	rec_free(&t, 0, 5, 0x10);		/* not */
	rec_free_temp(&t, 0, 6, 0x20);		/* temporary, at S2 */
	rec_alloc(&t, 0, 7, 0x30, 32, S1);	/* leaked */
	analyze(&t, &r);
	assert_near(r.temporary, 2);
	assert_near(site(&r, S1)->temporary, 1);
	assert_near(site(&r, S2)->temporary, 1);
	assert_near(r.allocations, 4);
	assert_near(r.frees, 3);
	assert_near(r.peak, 32);
	assert_near(r.leaked_bytes, 32);
	assert_near(r.leaked_blocks, 1);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* ---- bursts ------------------------------------------------------------- */

static void test_burst_alone(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_stacks(&t, 3);
	/* 10 temporaries of 16..100 bytes, 640 in all, from 1000 to 2000 */
	rec_burst(&t, 0, 1000, S1, 10, 640, 100, 2000);
	rec_alloc(&t, 0, 2100, 0x10, 5, S2);
	analyze(&t, &r);
	assert_near(r.allocations, 11);
	assert_near(r.bytes, 645);
	assert_near(r.temporary, 10);
	assert_near(r.frees, 10);
	assert_near(r.peak, 100);
	assert_near(r.peak_t, 1000 * NS);
	assert_near(r.leaked_bytes, 5);
	assert_near(r.leaked_blocks, 1);
	assert_near(site(&r, S1)->allocations, 10);
	assert_near(site(&r, S1)->bytes, 640);
	assert_near(site(&r, S1)->temporary, 10);
	assert_near(site(&r, S1)->peak_bytes, 100);
	assert_near(site(&r, S1)->leaked_bytes, 0);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* The burst's largest block is live over [t0, t1], against the other
 * streams' events in its span and not outside it. */
static void test_burst_interleaved(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_stacks(&t, 3);
	rec_burst(&t, 0, 1000, S1, 4, 256, 64, 2000);
	rec_alloc(&t, 0, 2100, 0x99, 1, S1);	/* after the burst's end */
	rec_alloc(&t, 1, 1500, 0x10, 1000, S2);	/* inside: 1064 */
	rec_free(&t, 1, 2500, 0x10);
	analyze(&t, &r);
	assert_near(r.peak, 1064);
	assert_near(r.peak_t, 1500 * NS);
	assert_near(site(&r, S1)->peak_bytes, 64);
	assert_near(site(&r, S2)->peak_bytes, 1000);
	assert_near(r.allocations, 6);
	assert_near(r.frees, 5);
	assert_near(r.leaked_bytes, 1);
	heap_report_free(&r);
	heap_trace_free(&t);

	/* the same block allocated after the burst's last free: 1000 */
	trace_init(&t, 1);
	rec_stacks(&t, 3);
	rec_burst(&t, 0, 1000, S1, 4, 256, 64, 2000);
	rec_alloc(&t, 1, 2001, 0x10, 1000, S2);
	rec_free(&t, 1, 2500, 0x10);
	analyze(&t, &r);
	assert_near(r.peak, 1000);
	assert_near(r.peak_t, 2001 * NS);
	assert_near(site(&r, S1)->peak_bytes, 0);
	heap_report_free(&r);
	heap_trace_free(&t);

	/* and freed before the burst's start: 64 */
	trace_init(&t, 1);
	rec_stacks(&t, 3);
	rec_alloc(&t, 1, 100, 0x10, 1000, S2);
	rec_free(&t, 1, 999, 0x10);
	rec_burst(&t, 0, 1000, S1, 4, 256, 64, 2000);
	analyze(&t, &r);
	assert_near(r.peak, 1000);
	assert_near(r.peak_t, 100 * NS);
	assert_near(site(&r, S1)->peak_bytes, 0);
	assert_near(site(&r, S2)->peak_bytes, 1000);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* Two bursts in a row and a burst inside another stream's burst. */
static void test_burst_overlap(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_stacks(&t, 3);
	rec_burst(&t, 0, 1000, S1, 2, 48, 32, 2000);
	rec_burst(&t, 0, 3000, S1, 3, 300, 200, 4000);
	rec_burst(&t, 1, 1500, S2, 5, 50, 10, 3500);
	analyze(&t, &r);
	/* 32 + 10 over [1500, 2000], 200 + 10 over [3000, 3500] */
	assert_near(r.peak, 210);
	assert_near(r.peak_t, 3000 * NS);
	assert_near(r.allocations, 10);
	assert_near(r.temporary, 10);
	assert_near(r.frees, 10);
	assert_near(r.bytes, 398);
	assert_near(site(&r, S1)->peak_bytes, 200);
	assert_near(site(&r, S2)->peak_bytes, 10);
	assert_near(r.leaked_bytes, 0);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * A burst whose stack's record was lost (analyze.c: "a site without
 * frames"), like an allocation's in test_damaged: its counts still go to
 * a site of its own.
 */
static void test_burst_lost_stack(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_burst(&t, 0, 1000, S1, 3, 30, 12, 2000);
	rec_alloc(&t, 0, 3000, 0x10, 7, S2);
	analyze(&t, &r);
	assert_near(r.allocations, 4);
	assert_near(r.temporary, 3);
	assert_near(r.peak, 12);
	assert_near(site(&r, S1)->temporary, 3);
	assert_int_equal(site(&r, S1)->stack.depth, 0);
	heap_report_free(&r);
	heap_trace_free(&t);

	/* with sites already there, which the new one moves */
	trace_init(&t, 1);
	rec_stacks(&t, 1);
	for (uint64_t i = 0; i < 100; i++)
		rec_burst(&t, 0, 1000 + 10 * i, 0x100 + i, 1, 8, 8,
			  1005 + 10 * i);
	analyze(&t, &r);
	assert_int_equal(r.nsites, 103);
	assert_near(r.temporary, 100);
	assert_near(site(&r, 0x100 + 99)->bytes, 8);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* ---- the merge ---------------------------------------------------------- */

static void test_merge_by_time(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	/* one after the other these would never be live together */
	rec_alloc(&t, 0, 100, 0x10, 100, S1);
	rec_free(&t, 0, 30000, 0x10);
	rec_alloc(&t, 0, 40000, 0x11, 1, S1);
	rec_alloc(&t, 1, 20000, 0x20, 1000, S2);
	rec_free(&t, 1, 50000, 0x20);
	rec_alloc(&t, 2, 25000, 0x30, 10000, S3);
	rec_free(&t, 2, 35000, 0x30);
	analyze(&t, &r);
	/* 100 + 1000 + 10000 from 25 us to 30 us */
	assert_near(r.peak, 11100);
	assert_near(r.peak_t, 25000 * NS);
	assert_near(site(&r, S1)->peak_bytes, 100);
	assert_near(site(&r, S2)->peak_bytes, 1000);
	assert_near(site(&r, S3)->peak_bytes, 10000);
	assert_near(r.leaked_bytes, 1);
	assert_int_equal(r.events, 7);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * Thread 0 frees block P (stamped 5000) and thread 1 is handed it, its
 * allocation stamped 4500: earlier, by the processor's reordering of the
 * stamp reads. Within the microsecond window the free is merged first;
 * the block leaked is thread 1's.
 */
static void test_early_free_window(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_alloc(&t, 0, 1000, 0x5000, 16, S1);
	rec_free(&t, 0, 5000, 0x5000);
	rec_alloc(&t, 1, 4500, 0x5000, 32, S2);
	analyze(&t, &r);
	assert_int_equal(r.unmatched_frees, 0);
	assert_near(r.frees, 1);
	assert_near(r.leaked_blocks, 1);
	assert_near(r.leaked_bytes, 32);
	assert_near(site(&r, S2)->leaked_bytes, 32);
	assert_near(site(&r, S1)->leaked_bytes, 0);
	assert_near(r.peak, 32);
	heap_report_free(&r);
	heap_trace_free(&t);

	/* the window is 1 us whatever the clock: 0.5 us of a 3 GHz TSC */
	trace_init(&t, 1);
	t.ticks_per_s = 3e9;
	rec_alloc(&t, 0, 1000, 0x5000, 16, S1);
	rec_free(&t, 0, 6000, 0x5000);
	rec_alloc(&t, 1, 4500, 0x5000, 32, S2);
	analyze(&t, &r);
	assert_near(r.leaked_bytes, 32);
	assert_int_equal(r.unmatched_frees, 0);
	heap_report_free(&r);
	heap_trace_free(&t);

	/*
	 * 1.5 us apart is beyond it: the allocation comes first, replaces
	 * the block it finds at P (its free was not seen), and the free
	 * then takes the new block.
	 */
	trace_init(&t, 1);
	rec_alloc(&t, 0, 1000, 0x5000, 16, S1);
	rec_free(&t, 0, 5000, 0x5000);
	rec_alloc(&t, 1, 3500, 0x5000, 32, S2);
	analyze(&t, &r);
	assert_near(r.leaked_bytes, 0);
	assert_near(r.leaked_blocks, 0);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* ---- exec, unmatched frees, damaged streams ----------------------------- */

static void test_exec(void **state)
{
	static const uint64_t ips[] = { 0x1000, 0x2000 };
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_stack(&t, 0, 1, S1, ips, 2);
	rec_alloc(&t, 0, 10, 0xa, 100, S1);
	rec_alloc(&t, 0, 20, 0xb, 200, S1);
	rec_free(&t, 0, 30, 0xa);
	rec_alloc(&t, 1, 40, 0xc, 400, S2);	/* another thread: 600 */
	rec_exec(&t, 0, 100, 2);		/* 0xb and 0xc are gone */
	rec_stack(&t, 0, 2, S3, ips, 2);
	rec_alloc(&t, 0, 110, 0xd, 50, S3);
	rec_free(&t, 0, 120, 0xb);		/* not the new image's */
	analyze(&t, &r);
	assert_int_equal(r.execs, 1);
	assert_near(r.leaked_bytes, 50);
	assert_near(r.leaked_blocks, 1);
	assert_near(site(&r, S1)->leaked_bytes, 0);
	assert_near(site(&r, S2)->leaked_bytes, 0);
	assert_near(site(&r, S3)->leaked_bytes, 50);
	assert_int_equal(site(&r, S1)->gen, 1);
	assert_int_equal(site(&r, S3)->gen, 2);
	assert_near(r.peak, 600);
	assert_near(r.peak_t, 40 * NS);
	assert_near(r.allocations, 4);
	assert_near(r.frees, 1);
	assert_int_equal(r.unmatched_frees, 1);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * The process tree: image 1 the program (pid 100), image 2 a child it
 * forked (pid 101), image 3 another (pid 102). The child's free of its
 * copy of the parent's block leaves the parent's alone; a block is known
 * by image and address (both allocate at 0xb); the child's _exit (END)
 * and the other's end as yardstick saw it (ends) make their live blocks
 * their leaks, out of the tree's heap from then on.
 */
static void test_children(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	uint64_t img[3][2] = { { head(HEAP_REC_IMAGE, 1), 1 },
			       { head(HEAP_REC_IMAGE, 15), 2 },
			       { head(HEAP_REC_IMAGE, 55), 3 } };
	uint64_t end[2] = { head(HEAP_REC_END, 40), 2 };
	struct heap_image images[4] = { { 0 }, { .pid = 100 },
					 { .pid = 101, .parent = 1 },
					 { .pid = 102 } };

	(void)state;
	trace_init(&t, 1);
	t.images = malloc(sizeof(images));
	assert_non_null(t.images);
	memcpy(t.images, images, sizeof(images));
	t.nimages = 4;
	t.ends = malloc(sizeof(*t.ends));
	assert_non_null(t.ends);
	t.ends[0] = (struct heap_end){ 102, 70 * NS };
	t.nends = t.capends = 1;
	put(&t, 0, img[0], 2);
	rec_stacks(&t, 0);
	rec_alloc(&t, 0, 10, 0xa, 100, S1);
	put(&t, 1, img[1], 2);
	rec_free(&t, 1, 20, 0xa);		/* the child's copy */
	rec_alloc(&t, 1, 30, 0xb, 50, S2);
	put(&t, 1, end, 2);
	rec_alloc(&t, 0, 50, 0xb, 70, S1);	/* the parent's 0xb */
	put(&t, 2, img[2], 2);
	rec_alloc(&t, 2, 60, 0xd, 1000, S3);
	rec_alloc(&t, 0, 80, 0xe, 5, S1);	/* after 102 ended */
	analyze(&t, &r);
	assert_int_equal(r.unmatched_frees, 1);
	assert_near(r.leaked_bytes, 100 + 50 + 70 + 1000 + 5);
	assert_near(r.peak, 100 + 70 + 1000);
	assert_near(r.peak_t, 60 * NS);
	assert_near(site(&r, S2)->leaked_bytes, 50);
	assert_near(site(&r, S3)->leaked_bytes, 1000);
	assert_int_equal(r.nprocs, 4);
	assert_int_equal(r.procs[1].pid, 100);
	assert_near(r.procs[1].allocations, 3);
	assert_near(r.procs[1].bytes, 175);
	assert_near(r.procs[1].peak, 175);
	assert_near(r.procs[1].leaked_bytes, 175);
	assert_int_equal(r.procs[2].parent, 1);
	assert_near(r.procs[2].bytes, 50);
	assert_near(r.procs[2].peak, 50);
	assert_near(r.procs[2].leaked_bytes, 50);
	assert_near(r.procs[3].leaked_bytes, 1000);
	assert_near(r.procs[3].peak, 1000);
	heap_report_free(&r);
	heap_trace_free(&t);
}

static void test_unmatched_free(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_free(&t, 0, 5, 0xdead);		/* never allocated */
	rec_alloc(&t, 0, 10, 0x10, 10, S1);
	rec_free(&t, 0, 20, 0x10);
	rec_free(&t, 0, 30, 0x10);		/* twice */
	rec_free_temp(&t, 1, 40, 0xbeef);
	analyze(&t, &r);
	assert_int_equal(r.unmatched_frees, 3);
	assert_near(r.frees, 1);
	assert_near(r.temporary, 0);
	assert_near(r.leaked_bytes, 0);
	assert_near(r.peak, 10);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* A stack whose record was lost is a site without frames; a record cut
 * short at the end of a stream is ignored. */
static void test_damaged(void **state)
{
	static const uint64_t ips[] = { 0x1000, 0x2000, 0x3000 };
	struct heap_trace t;
	struct heap_report r;
	uint64_t half[2] = { head(HEAP_REC_ALLOC, 50), 0x30 };

	trace_init(&t, 1);
	rec_alloc(&t, 0, 10, 0x10, 10, S1);	/* no STACK record */
	rec_alloc(&t, 0, 20, 0x20, 20, S2);
	put(&t, 0, half, 2);			/* ALLOC without size */
	rec_stack(&t, 1, 1, S2, ips, 3);
	rec_stack(&t, 1, 1, S3, ips, 3);
	t.streams[1].n -= 1;			/* STACK cut short */
	analyze(&t, &r);
	assert_near(r.allocations, 2);
	assert_near(r.leaked_bytes, 30);
	assert_int_equal(site(&r, S1)->stack.depth, 0);
	assert_true(site(&r, S1)->order & HEAP_ORDER_LOST);
	assert_int_equal(site(&r, S2)->stack.depth, 3);
	assert_int_equal(site_ip(&r, S2, 2), 0x3000);
	for (size_t i = 0; i < r.nsites; i++)
		assert_int_not_equal(r.sites[i].hash, S3);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* A STACK_TAIL (protocol.h, stack tails): the stack based on the one of
 * hash base, its root-side keep native and keep_py Python frames, under
 * ips[0..n) and py[0..m). */
static void rec_tail(struct heap_trace *t, int slot, uint64_t hash,
		     uint64_t base, uint32_t keep, const uint64_t *ips,
		     uint32_t n, uint32_t keep_py, const uint64_t *py,
		     uint32_t m)
{
	uint64_t w[4] = { head(HEAP_REC_STACK_TAIL, 0) | ((uint64_t)m << 48) |
			  (1u << 16) | n, hash,
			  (uint64_t)keep_py << 48 | (uint64_t)keep << 32 | 7,
			  base };

	put(t, slot, w, 4);
	if (n)
		put(t, slot, ips, n);
	if (m)
		put(t, slot, py, m);
}

/* The native frames of the site of hash are want[0..n) (leaf first). */
static void assert_site_ips(const struct heap_report *r, uint64_t hash,
			    const uint64_t *want, uint32_t n)
{
	assert_int_equal(site(r, hash)->stack.depth, n);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(site_ip(r, hash, i), want[i]);
}

/*
 * Stack tails, rebuilt from the slot's stack record before them when it
 * is their base, whole or a tail itself; kept frames of 0 and of all of
 * the base's; a base of another slot's, one with fewer frames than kept,
 * one not the record before (a whole stack between), a tail of a
 * damaged one: damaged, counted, a site without frames. A whole STACK
 * after those starts again. Both replays, after the end and while the
 * program runs (heap_live_record: each record as it comes).
 */
#define S4 0x4444u
#define S5 0x5555u
#define S6 0x6666u
#define S7 0x7777u
#define S8 0x8888u
#define S9 0x9999u
#define SA 0xaaaau
#define SB 0xbbbbu

static void tail_trace(struct heap_trace *t)
{
	static const uint64_t whole[] = { 0xa, 0xb, 0xc, 0xd },
			      e[] = { 0xe }, fg[] = { 0xf, 0x10 },
			      py[] = { 0x100000000u, 0x200000000u };
	uint64_t ts = 0;

	rec_stack(t, 0, 1, S1, whole, 4);		/* a b c d */
	rec_tail(t, 0, S2, S1, 3, e, 1, 0, NULL, 0);	/* e b c d */
	rec_tail(t, 0, S3, S2, 2, fg, 2, 0, NULL, 0);	/* f g c d */
	rec_tail(t, 0, S4, S3, 4, NULL, 0, 0, py, 2);	/* f g c d, 2 py */
	rec_tail(t, 0, S5, S4, 0, e, 1, 1, NULL, 0);	/* e, py[1] */
	rec_tail(t, 1, S6, S5, 1, e, 1, 0, NULL, 0);	/* another slot's */
	rec_tail(t, 0, S7, S5, 2, e, 1, 0, NULL, 0);	/* keeps 2 of 1 */
	rec_tail(t, 0, S8, S7, 0, e, 1, 0, NULL, 0);	/* on a damaged one */
	rec_stack(t, 0, 1, S9, whole, 4);
	rec_tail(t, 0, SA, S1, 1, e, 1, 0, NULL, 0);	/* S1 not the last */
	rec_stack(t, 0, 1, S1, whole, 4);		/* S1 again: whole */
	rec_tail(t, 0, SB, S1, 4, e, 1, 0, NULL, 0);	/* e a b c d */
	for (uint64_t h = S1; h <= SB; h += S1)
		rec_alloc(t, 2, 10 + ts++, 0x1000 + h, 1, h);
}

static void tail_check(const struct heap_report *r)
{
	static const uint64_t s1[] = { 0xa, 0xb, 0xc, 0xd },
			      s2[] = { 0xe, 0xb, 0xc, 0xd },
			      s3[] = { 0xf, 0x10, 0xc, 0xd },
			      s5[] = { 0xe }, sb[] = { 0xe, 0xa, 0xb, 0xc, 0xd };
	uint64_t py[2];

	assert_site_ips(r, S1, s1, 4);
	assert_site_ips(r, S2, s2, 4);
	assert_site_ips(r, S3, s3, 4);
	assert_int_equal(site(r, S3)->stack.npy, 0);
	assert_site_ips(r, S4, s3, 4);
	assert_int_equal(site(r, S4)->stack.npy, 2);
	stackstore_python(r->stacks, &site(r, S4)->stack, py);
	assert_int_equal(py[0], 0x100000000u);
	assert_int_equal(py[1], 0x200000000u);
	assert_int_equal(site(r, S4)->unloads, 7);
	assert_site_ips(r, S5, s5, 1);
	assert_int_equal(site(r, S5)->stack.npy, 1);
	stackstore_python(r->stacks, &site(r, S5)->stack, py);
	assert_int_equal(py[0], 0x200000000u);
	for (uint64_t h = S6; h <= S8; h += S1) {
		assert_int_equal(site(r, h)->stack.depth, 0);
		assert_true(site(r, h)->order & HEAP_ORDER_LOST);
	}
	assert_site_ips(r, S9, s1, 4);
	assert_int_equal(site(r, SA)->stack.depth, 0);
	assert_site_ips(r, SB, sb, 5);
	assert_int_equal(r->stacks_damaged, 4);
	assert_near(r->allocations, 11);
	assert_int_equal(r->nstacks, 7);
}

static void test_stack_tails(void **state)
{
	struct heap_trace t, l;
	struct heap_report r;

	(void)state;
	trace_init(&t, 1);
	tail_trace(&t);
	analyze(&t, &r);
	tail_check(&r);
	heap_report_free(&r);
	/* while the program runs: the records as the collector finds them */
	trace_init(&l, 1);
	l.live = heap_live_new(&l);
	for (int i = 0; i < 3; i++)
		heap_stream_add(&l, (uint32_t)i, t.streams[i].words,
				t.streams[i].n * sizeof(uint64_t));
	analyze(&l, &r);
	tail_check(&r);
	heap_report_free(&r);
	heap_trace_free(&l);
	heap_trace_free(&t);
}

/*
 * Zero where the replay's tables use zero for "empty": a stack whose hash
 * is 0 keeps its frames (site_of maps 0 to 1, so must find_sites), and an
 * allocation at address 0 (never the agent's: damage) takes no cell of
 * the table of live blocks, which would then count a block it cannot
 * find.
 */
static void test_zero_keys(void **state)
{
	static const uint64_t ips[] = { 0x1000, 0x2000, 0x3000 };
	struct heap_trace t;
	struct heap_report r;

	(void)state;
	trace_init(&t, 1);
	rec_stack(&t, 0, 1, 0, ips, 3);
	rec_alloc(&t, 0, 10, 0x10, 10, 0);
	rec_alloc(&t, 0, 20, 0, 20, S1);
	rec_alloc(&t, 0, 30, 0, 30, S1);
	rec_free(&t, 0, 40, 0);
	analyze(&t, &r);
	assert_near(r.allocations, 1);
	assert_near(r.leaked_bytes, 10);
	assert_near(r.leaked_blocks, 1);
	assert_near(r.peak, 10);
	assert_int_equal(site(&r, 0)->stack.depth, 3);
	assert_int_equal(site_ip(&r, 0, 1), 0x2000);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* ---- sampled mode ------------------------------------------------------- */

/*
 * One block traced per 4096 bytes: a block of s bytes was traced with
 * probability p = 1 - exp(-s / 4096) and stands for 1/p blocks, s/p
 * bytes. The values below are computed with Python's math.exp:
 * s = 1000: 1/p = 4.6163248697298815; s = 64: 1/p = 64.50130207803537.
 * The totals are the agent's exact counts.
 */
static void test_sampled(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	const double w1000 = 4.6163248697298815, w64 = 64.50130207803537;

	trace_init(&t, 1);
	t.sample_bytes = 4096;
	t.counts.allocations = 12345;
	t.counts.bytes = 678901;
	t.counts.frees = 12000;
	t.counts.temporary = 777;
	t.counts.hist[7] = 12345;
	rec_alloc(&t, 0, 10, 0x10, 1000, S1);
	rec_alloc(&t, 0, 20, 0x20, 1000, S1);
	rec_alloc(&t, 0, 30, 0x30, 64, S2);
	rec_alloc(&t, 0, 40, 0x40, 1 << 20, S3);	/* p = 1 */
	rec_free_temp(&t, 0, 50, 0x40);
	rec_free(&t, 0, 60, 0x20);
	analyze(&t, &r);
	assert_true(r.estimated);
	assert_near(r.allocations, 12345);
	assert_near(r.bytes, 678901);
	assert_near(r.frees, 12000);
	assert_near(r.temporary, 777);
	assert_near(r.hist_count[7], 12345);
	assert_near(r.leaked_blocks, w1000 + w64);
	assert_near(r.leaked_bytes, 1000 * w1000 + 64 * w64);
	assert_near(r.peak, 2000 * w1000 + 64 * w64 + (1 << 20));
	assert_near(r.peak_t, 40 * NS);
	assert_near(site(&r, S1)->allocations, 2 * w1000);
	assert_near(site(&r, S1)->bytes, 2000 * w1000);
	assert_near(site(&r, S1)->leaked_blocks, w1000);
	assert_near(site(&r, S2)->leaked_bytes, 64 * w64);
	assert_near(site(&r, S3)->allocations, 1);
	assert_near(site(&r, S3)->bytes, 1 << 20);
	assert_near(site(&r, S3)->temporary, 1);
	assert_near(site(&r, S3)->peak_bytes, 1 << 20);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * The throttle: a block drawn at an interval raised k times (the size
 * word's top bits, protocol.h) was sampled with p = 1 - exp(-s / (4096
 * << k)), and stands for 1/p blocks, at its free too. Computed with
 * Python's math.expm1: s = 1000, k = 3: 1/p = 33.2705430920367;
 * s = 64, k = 10: 65536.50000127156; s = 2^20, k = 5: 1.0003355752008412.
 */
static void test_sampled_raised(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	const double w1000 = 33.2705430920367, w64 = 65536.50000127156,
		     wbig = 1.0003355752008412;
	const uint64_t k3 = (uint64_t)3 << HEAP_SIZE_BITS,
		       k10 = (uint64_t)10 << HEAP_SIZE_BITS,
		       k5 = (uint64_t)5 << HEAP_SIZE_BITS;

	(void)state;
	trace_init(&t, 1);
	t.sample_bytes = 4096;
	rec_alloc(&t, 0, 10, 0x10, 1000 | k3, S1);
	rec_alloc(&t, 0, 20, 0x20, 1000 | k3, S1);
	rec_alloc(&t, 0, 30, 0x30, 64 | k10, S2);
	rec_alloc(&t, 0, 40, 0x40, (1 << 20) | k5, S3);
	rec_alloc(&t, 0, 45, 0x50, 1000, S1);	/* not raised: 4.616... */
	rec_free(&t, 0, 50, 0x40);
	rec_free(&t, 0, 60, 0x20);
	analyze(&t, &r);
	assert_true(r.estimated);
	assert_int_equal(r.samples, 5);
	assert_int_equal(r.samples_raised, 4);
	assert_int_equal(r.raised_max, 10);
	assert_near(r.leaked_blocks, w1000 + w64 + 4.6163248697298815);
	assert_near(r.leaked_bytes, 1000 * w1000 + 64 * w64 +
		    1000 * 4.6163248697298815);
	assert_near(r.peak, 2000 * w1000 + 64 * w64 + (1 << 20) * wbig +
		    1000 * 4.6163248697298815);	/* at 45 */
	assert_near(site(&r, S1)->allocations, 2 * w1000 + 4.6163248697298815);
	assert_near(site(&r, S2)->bytes, 64 * w64);
	assert_near(site(&r, S3)->bytes, (1 << 20) * wbig);
	assert_near(site(&r, S3)->live, 0);
	assert_near(site(&r, S1)->live, 1000 * w1000 + 1000 * 4.6163248697298815);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * The throttle (heap/throttle.h) in virtual time: a thread allocating
 * size[i % nsizes] bytes every dt ns, sampled as the agent samples it (a
 * countdown drawn from an exponential distribution of mean sample_bytes
 * << raised, agent_sample.h), the throttle's step every
 * HEAP_THROTTLE_WINDOW samples. Jumps from sample to sample.
 */
struct sim {
	uint64_t rng;
	uint64_t sample_bytes, window_ns;
	const uint64_t *sizes;
	size_t nsizes;
	uint64_t dt;
	/* out: samples (in all, after t_from), raised ones, the
	 * Horvitz-Thompson estimates of bytes and of the last size's bytes
	 * (each sample weighed at the interval it was drawn at) */
	uint64_t samples, late, raised;
	uint8_t raised_end, raised_max;
	double bytes, last_bytes;
};

static double sim_uniform(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return ((double)((s->rng * 0x2545f4914f6cdd1du) >> 11) + 1.0) /
	       9007199254740992.0;
}

/* n allocations from t = 0; samples after t_from counted in late */
static void simulate(struct sim *s, uint64_t n, uint64_t t_from)
{
	struct heap_throttle th = { 0 };
	uint32_t window = 0;
	int64_t left = (int64_t)(-log(sim_uniform(s)) *
				 (double)s->sample_bytes) + 1;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t size = s->sizes[i % s->nsizes], now = (i + 1) * s->dt;
		uint8_t drawn;
		double w;

		left -= (int64_t)size;
		if (left > 0)
			continue;
		drawn = th.raised;
		if (s->window_ns && ++window >= HEAP_THROTTLE_WINDOW) {
			window = 0;
			heap_throttle_step(&th, now, s->window_ns,
					   s->sample_bytes);
		}
		left = (int64_t)(-log(sim_uniform(s)) *
				 (double)(s->sample_bytes << th.raised)) + 1;
		w = 1 / -expm1(-(double)size /
			       ldexp((double)s->sample_bytes, drawn));
		s->samples++;
		s->late += now > t_from;
		s->raised += drawn > 0;
		if (drawn > s->raised_max)
			s->raised_max = drawn;
		s->bytes += (double)size * w;
		if (size == s->sizes[s->nsizes - 1])
			s->last_bytes += (double)size * w;
	}
	s->raised_end = th.raised;
}

/*
 * The rate: 1000-byte blocks every 100 ns at one sample per 4096 bytes
 * would be 2.2 M samples a second (p = 1 - e^(-1000/4096) = 0.217 a
 * block). Capped at 10,000: raised 8 times (p = 0.00095, 9,500 a second;
 * 7 times would be 19,000), or 9 (4,800). After the
 * bucket's second, at most that many a second (and at least a quarter);
 * a burst of less than the bucket is not throttled at all; a thread that
 * slows down gets its interval back.
 */
static void test_throttle_rate(void **state)
{
	const uint64_t one[] = { 1000 };
	struct sim s = { .rng = 0x9e3779b97f4a7c15u, .sample_bytes = 4096,
			 .window_ns = heap_throttle_window_ns(10000),
			 .sizes = one, .nsizes = 1, .dt = 100 };
	double per_s;

	(void)state;
	assert_int_equal(s.window_ns, 6400000);
	/* 4 s; the last 2 counted (the bucket drained in 5 ms) */
	simulate(&s, 40000000, 2000000000);
	per_s = (double)s.late / 2;
	assert_true(per_s <= 10000 * 1.02);
	assert_true(per_s >= 10000 / 4.0);
	assert_true(s.raised_end >= 8 && s.raised_end <= 9);
	/* the bucket: about a second's samples at the base interval first */
	assert_true(s.samples - s.raised >= 10000 &&
		    s.samples - s.raised <= 10000 + 3 * HEAP_THROTTLE_WINDOW);

	/* a burst of 4 ms, ~8,700 samples: within the bucket */
	memset(&s.samples, 0, sizeof(s) - offsetof(struct sim, samples));
	simulate(&s, 40000, 0);
	assert_true(s.samples > 8000);
	assert_int_equal(s.raised, 0);
	assert_int_equal(s.raised_max, 0);

	/* without a throttle, never raised */
	memset(&s.samples, 0, sizeof(s) - offsetof(struct sim, samples));
	s.window_ns = 0;
	simulate(&s, 20000000, 0);
	assert_int_equal(s.raised, 0);
	assert_true(s.samples > 400000);
}

/* A thread throttled, then slow: its interval comes back down. */
static void test_throttle_recovers(void **state)
{
	struct heap_throttle th = { 0 };
	uint64_t now = 0, window_ns = heap_throttle_window_ns(10000);

	(void)state;
	/* a window every 10 us (6.4 M samples a second) for 2 s */
	for (int i = 0; i < 200000; i++)
		heap_throttle_step(&th, now += 10000, window_ns, 4096);
	assert_true(th.raised >= 9);	/* 640 times too fast: 2^9.3 */
	assert_int_equal(th.credit, 0);
	/* then a window every 0.1 s: 640 samples a second */
	for (int i = 0; i < 40 && th.raised; i++)
		heap_throttle_step(&th, now += 100000000, window_ns, 4096);
	assert_int_equal(th.raised, 0);
	/* never above HEAP_RAISED_MAX, nor past 2^52 bytes */
	th = (struct heap_throttle){ 0 };
	for (int i = 0; i < 1000; i++)
		heap_throttle_step(&th, now += 1, window_ns, 4096);
	assert_int_equal(th.raised, HEAP_RAISED_MAX);
	th = (struct heap_throttle){ 0 };
	for (int i = 0; i < 1000; i++)
		heap_throttle_step(&th, now += 1, window_ns, UINT64_C(1) << 40);
	assert_int_equal(th.raised, 11);	/* 2^51 */
}

/*
 * Unbiased: 200 threads (seeds) allocating four sizes in turn for 2 s of
 * virtual time, 2.5 M samples a second unthrottled, capped at 2,000
 * (raised ~10 times; more than a third of the samples drawn raised). Each sample weighed at the interval its countdown
 * was drawn at, the estimates of the bytes allocated, in all and of the
 * 200,000-byte blocks, average to the truth within 4 standard errors of
 * their mean (and 2%). Weighed at the base interval they come to 0.033
 * (tried). (Weighed at the interval in force after the step, the mean
 * moves by less than the test can see: the interval changes at few
 * samples.)
 */
static void test_throttle_unbiased(void **state)
{
	const uint64_t sizes[] = { 24, 700, 9000, 200000 };
	const uint64_t n = 400000, truth = n / 4 * (24 + 700 + 9000 + 200000),
		       truth_last = n / 4 * 200000;
	double sum = 0, sum2 = 0, lsum = 0, lsum2 = 0;
	uint64_t raised = 0, samples = 0;
	const int reps = 200;

	(void)state;
	for (int r = 0; r < reps; r++) {
		struct sim s = { .rng = 0x853c49e6748fea9bu ^ ((uint64_t)r << 17),
				 .sample_bytes = 4096,
				 .window_ns = heap_throttle_window_ns(2000),
				 .sizes = sizes, .nsizes = 4, .dt = 5000 };

		simulate(&s, n, 0);
		sum += s.bytes / (double)truth;
		sum2 += (s.bytes / (double)truth) * (s.bytes / (double)truth);
		lsum += s.last_bytes / (double)truth_last;
		lsum2 += (s.last_bytes / (double)truth_last) *
			 (s.last_bytes / (double)truth_last);
		raised += s.raised;
		samples += s.samples;
	}
	{
		double mean = sum / reps, se = sqrt((sum2 / reps - mean * mean) /
						    (reps - 1));
		double lmean = lsum / reps,
		       lse = sqrt((lsum2 / reps - lmean * lmean) / (reps - 1));

		print_message("# throttle: mean %.4f (se %.4f), 200 KB blocks "
			      "%.4f (se %.4f), %.0f%% of %llu samples raised\n",
			      mean, se, lmean, lse,
			      100.0 * (double)raised / (double)samples,
			      (unsigned long long)samples);
		assert_true(fabs(mean - 1) < 4 * se && fabs(mean - 1) < 0.02);
		assert_true(fabs(lmean - 1) < 4 * lse &&
			    fabs(lmean - 1) < 0.02);
		assert_true(raised > samples / 3);
	}
}

/* ---- the timeline, the histogram, the profile --------------------------- */

/* One second in 1000 intervals of 1 ms; point i ends at (i + 1) ms. */
static void test_timeline(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	struct heap_rss rss[] = { { 0.0503, 1e6 }, { 0.0505, 2.5e6 },
				  { 0.0507, 2e6 }, { 0.5003, 3e6 } };

	trace_init(&t, 1);
	t.rss = rss;
	t.nrss = 4;
	t.peak_rss = 7e6;
	rec_alloc(&t, 0, 100500000, 0x10, 1000, S1);	/* 100.5 ms */
	rec_alloc(&t, 0, 200500000, 0x20, 500, S1);	/* 200.5 ms */
	rec_alloc(&t, 0, 200700000, 0x30, 10, S1);
	rec_free(&t, 0, 200800000, 0x30);		/* 1500 */
	rec_free(&t, 0, 300500000, 0x10);		/* 300.5 ms: 500 */
	rec_alloc(&t, 0, 400500000, 0x40, 100, S2);	/* 400.5 ms: 600 */
	rec_free(&t, 0, 400600000, 0x40);		/* 500 */
	analyze(&t, &r);
	t.rss = NULL;
	t.nrss = 0;

	assert_int_equal(r.ntimeline, HEAP_TIMELINE);
	assert_near(r.peak, 1510);
	assert_near(r.peak_t, 0.2007);
	assert_near(r.peak_rss, 7e6);
	for (int i = 0; i < HEAP_TIMELINE; i++)
		assert_near(r.timeline[i].t, (i + 1) * 0.001);
	for (int i = 0; i < 100; i++)
		assert_near(r.timeline[i].heap, 0);
	for (int i = 100; i < 200; i++)
		assert_near(r.timeline[i].heap, 1000);
	assert_near(r.timeline[200].heap, 1510);	/* the most in it */
	for (int i = 201; i < 300; i++)
		assert_near(r.timeline[i].heap, 1500);
	for (int i = 301; i < 400; i++)
		assert_near(r.timeline[i].heap, 500);
	assert_near(r.timeline[400].heap, 600);
	for (int i = 401; i < HEAP_TIMELINE; i++)
		assert_near(r.timeline[i].heap, 500);

	/* the RSS: the largest sample in the interval, else the last one
	 * before it, NaN before the first */
	for (int i = 0; i < HEAP_TIMELINE; i++) {
		double want = i < 50 ? NAN : i == 50 ? 2.5e6 : i < 500 ? 2e6
			    : 3e6;

		if (isnan(want))
			assert_true(isnan(r.timeline[i].rss));
		else
			assert_near(r.timeline[i].rss, want);
	}
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * A point is the most live in its interval, and that includes the level
 * the interval starts at: 1500 bytes were live for the first half of the
 * interval [300 ms, 301 ms) before a free brought it to 500.
 */
static void test_timeline_carry_in(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 1);
	rec_alloc(&t, 0, 100500000, 0x10, 1000, S1);
	rec_alloc(&t, 0, 200500000, 0x20, 500, S1);
	rec_free(&t, 0, 300500000, 0x10);
	analyze(&t, &r);
	assert_near(r.timeline[299].heap, 1500);
	assert_near(r.timeline[301].heap, 500);
	if (r.timeline[300].heap != 1500)
		fail_msg("the interval [300 ms, 301 ms) held 1500 bytes until "
			 "the free at 300.5 ms; its point says %.0f",
			 r.timeline[300].heap);
	heap_report_free(&r);
	heap_trace_free(&t);
}

static void test_hist(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	assert_int_equal(heap_hist_low(0), 0);
	assert_int_equal(heap_hist_low(1), 1);
	assert_int_equal(heap_hist_low(2), 2);
	assert_int_equal(heap_hist_low(3), 4);
	assert_int_equal(heap_hist_low(11), 1024);
	assert_int_equal(heap_hist_low(HEAP_HIST - 1),
			 UINT64_C(1) << (HEAP_HIST - 2));
	trace_init(&t, 1);
	t.counts.hist[0] = 3;
	t.counts.hist[11] = 5;
	t.counts.hist[HEAP_HIST - 1] = 1;
	rec_alloc(&t, 0, 1, 0x10, 1024, S1);
	analyze(&t, &r);
	assert_near(r.hist_count[0], 3);
	assert_near(r.hist_count[11], 5);
	assert_near(r.hist_count[HEAP_HIST - 1], 1);
	assert_near(r.hist_count[5], 0);
	/* exact mode: the totals are the replay's */
	assert_near(r.allocations, 1);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* Without maps every frame is unknown; the totals of each sample type
 * are the report's whatever the sites merge into. */
static void test_profile(void **state)
{
	static const char *names[HEAP_NTYPES] = {
		"alloc_objects", "alloc_space", "inuse_objects",
		"inuse_space", "temporary_objects", "peak_space",
		"python_end_space",
	};
	static const uint64_t ips[] = { 0x1000 };
	struct heap_trace t;
	struct heap_report r;
	struct profile p;
	int64_t sum[HEAP_NTYPES] = { 0 };

	trace_init(&t, 1);
	rec_stack(&t, 0, 1, S1, ips, 1);
	rec_alloc(&t, 0, 1, 0x10, 100, S1);
	rec_alloc(&t, 0, 2, 0x20, 200, S2);
	rec_free_temp(&t, 0, 3, 0x20);
	rec_burst(&t, 0, 4, S3, 7, 70, 10, 5);
	analyze(&t, &r);
	heap_profile(&t, &r, false, NULL, &p);
	/* no Python end: its type is left out */
	assert_int_equal(p.ntypes, HEAP_NTYPES - 1);
	for (int i = 0; i < HEAP_NTYPES - 1; i++)
		assert_string_equal(p.types[i].name, names[i]);
	for (size_t i = 0; i < p.nstacks; i++)
		for (int k = 0; k < HEAP_NTYPES - 1; k++)
			sum[k] += p.stacks[i].values[k];
	assert_int_equal(sum[HEAP_T_ALLOC_OBJECTS], 9);
	assert_int_equal(sum[HEAP_T_ALLOC_SPACE], 370);
	assert_int_equal(sum[HEAP_T_INUSE_OBJECTS], 1);
	assert_int_equal(sum[HEAP_T_INUSE_SPACE], 100);
	assert_int_equal(sum[HEAP_T_TEMPORARY], 8);
	assert_int_equal(sum[HEAP_T_PEAK_SPACE], 300);
	assert_near(r.peak, 300);
	profile_free(&p);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/*
 * A CPython program's Python end (a PYEND record): the blocks live then,
 * by site, whatever the teardown frees after it; a second record of the
 * image is ignored; the profile gets its type.
 */
static void test_python_end(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	struct profile p;
	int64_t sum = 0;
	uint64_t end[2] = { head(HEAP_REC_PYEND, 50000), 1 };

	trace_init(&t, 1);
	rec_alloc(&t, 0, 10000, 0x10, 100, S1);	/* kept, freed by teardown */
	rec_alloc(&t, 1, 20000, 0x20, 200, S2);
	rec_free(&t, 1, 30000, 0x20);		/* freed by the program */
	rec_alloc(&t, 1, 40000, 0x30, 50, S1);	/* kept, freed later */
	put(&t, 0, end, 2);
	rec_free(&t, 0, 60000, 0x10);		/* the teardown */
	rec_alloc(&t, 1, 70000, 0x40, 30, S3);	/* the teardown's, leaked */
	end[0] = head(HEAP_REC_PYEND, 80000);
	put(&t, 1, end, 2);			/* a second: ignored */
	rec_free(&t, 1, 90000, 0x30);
	analyze(&t, &r);
	assert_int_equal(r.py_ends, 1);
	assert_near(r.pyend_bytes, 150);
	assert_near(r.pyend_blocks, 2);
	assert_near(r.pyend_t, 50000e-9);
	assert_near(site(&r, S1)->pyend_bytes, 150);
	assert_near(site(&r, S1)->pyend_blocks, 2);
	assert_near(site(&r, S2)->pyend_bytes, 0);
	assert_near(site(&r, S3)->pyend_bytes, 0);
	assert_near(r.leaked_bytes, 30);
	heap_profile(&t, &r, false, NULL, &p);
	assert_int_equal(p.ntypes, HEAP_NTYPES);
	assert_string_equal(p.types[HEAP_T_PYEND_SPACE].name,
			    "python_end_space");
	for (size_t i = 0; i < p.nstacks; i++)
		sum += p.stacks[i].values[HEAP_T_PYEND_SPACE];
	assert_int_equal(sum, 150);
	profile_free(&p);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* A PYCODE record of code id of image gen: file, qualname, first line;
 * lens overrides the lengths word when not 0. */
static void rec_pycode(struct heap_trace *t, int slot, uint32_t gen,
		       uint32_t id, int first, const char *file,
		       const char *name, uint64_t lens)
{
	uint64_t w[3 + 32] = { 0 };
	size_t nf = strlen(file), nn = strlen(name);
	size_t words = 3 + (nf + nn + 7) / 8;

	w[0] = head(HEAP_REC_PYCODE, 0) | ((uint64_t)gen << 16) | words;
	w[1] = (uint64_t)(uint32_t)first << 32 | id;
	w[2] = lens ? lens : (uint64_t)nf << 32 | nn;
	memcpy(&w[3], file, nf);
	memcpy((char *)&w[3] + nf, name, nn);
	put(t, slot, w, words);
}

/* A stack with Python frames: n native, m Python (protocol.h). */
static void rec_pystack(struct heap_trace *t, int slot, uint64_t hash,
			const uint64_t *ips, uint32_t n, const uint64_t *py,
			uint32_t m)
{
	uint64_t w[3] = { head(HEAP_REC_STACK, 0) | ((uint64_t)m << 48) |
			  (1u << 16) | n, hash, 0 };

	put(t, slot, w, 3);
	put(t, slot, ips, n);
	put(t, slot, py, m);
}

static const struct frame *frame_at(const struct profile *p, size_t stack,
				    size_t i)
{
	assert_true(i < p->stacks[stack].depth);
	return &p->frames[p->stacks[stack].frames[i]];
}

/*
 * Python frames: the PYCODE records read (a damaged one left out), and
 * the frames named in the profile: a native stack cut at the depth limit,
 * or that stops short of the C library's root frames (here an unknown
 * address), takes them at its outer end.
 */
static void test_python_frames(void **state)
{
	static const uint64_t ips[] = { 0x1000 };
	const uint64_t py[] = { (uint64_t)2 << 32 | 12,
				(uint64_t)1 << 32 | 5 | HEAP_PY_END };
	struct heap_trace t;
	struct heap_report r;
	struct profile p;
	const struct frame *f;

	for (int cut = 0; cut < 2; cut++) {
		trace_init(&t, 1);
		t.max_depth = cut ? 1 : 64;
		rec_pycode(&t, 0, 1, 1, 3, "/src/app.py", "outer", 0);
		rec_alloc(&t, 0, 1, 0x10, 100, S1);
		rec_pycode(&t, 0, 1, 2, 10, "/src/app.py", "C.inner", 0);
		/* lengths past the record: not a code */
		rec_pycode(&t, 0, 1, 3, 1, "/x.py", "bad", (uint64_t)999 << 32);
		rec_pystack(&t, 0, S1, ips, 1, py, 2);
		rec_free(&t, 0, 2, 0x10);
		analyze(&t, &r);
		assert_int_equal(r.npycodes, 2);
		assert_int_equal(r.pycodes[1].firstlineno, 10);
		assert_int_equal(r.allocations, 1);
		assert_near(r.peak, 100);
		assert_int_equal(site(&r, S1)->stack.npy, 2);
		heap_profile(&t, &r, false, NULL, &p);
		assert_int_equal(p.nstacks, 1);
		assert_int_equal(r.py_mismatched, 0);
		assert_int_equal(p.stacks[0].depth, 3);
		f = frame_at(&p, 0, 1);
		assert_string_equal(f->function, "C.inner (app.py:10)");
		assert_string_equal(f->file, "/src/app.py");
		assert_int_equal(f->line, 12);
		assert_string_equal(f->module, "[python]");
		f = frame_at(&p, 0, 2);
		assert_string_equal(f->function, "outer (app.py:3)");
		assert_int_equal(f->line, 5);
		profile_free(&p);
		heap_report_free(&r);
		heap_trace_free(&t);
	}
}

/* A function this test's symbol table names as GCC names the cold part
 * of the interpreter's evaluation function, in an interpreter whose
 * symbols are there (a build with them, or its debug symbols
 * installed). */
void eval_cold_part(volatile int *x) __asm__("_PyEval_EvalFrameDefault.cold");
__attribute__((noinline)) void eval_cold_part(volatile int *x)
{
	for (int i = 0; i < 4; i++)
		*x += i;
}

/*
 * The evaluation function's cold part, named, stands for the function:
 * the Python frames take its place (before, they went past it, at the
 * outer end of a stack that stops short, and it stayed).
 */
static void test_python_cold_named(void **state)
{
	const uint64_t ips[] = { (uint64_t)(uintptr_t)eval_cold_part + 4 };
	const uint64_t py[] = { (uint64_t)1 << 32 | 5 | HEAP_PY_END };
	struct heap_trace t;
	struct heap_report r;
	struct profile p;
	FILE *fp = fopen("/proc/self/maps", "r");
	char *text = calloc(1, 1 << 20);

	(void)state;
	assert_non_null(fp);
	assert_non_null(text);
	assert_true(fread(text, 1, (1 << 20) - 1, fp) > 0);
	fclose(fp);
	trace_init(&t, 1);
	t.max_depth = 64;
	t.maps = calloc(1, sizeof(*t.maps));
	t.maps_gen = calloc(1, sizeof(*t.maps_gen));
	assert_non_null(t.maps);
	assert_non_null(t.maps_gen);
	t.maps[0] = text;
	t.maps_gen[0] = 1;
	t.nmaps = 1;
	rec_pycode(&t, 0, 1, 1, 3, "/src/app.py", "outer", 0);
	rec_alloc(&t, 0, 1, 0x10, 100, S1);
	rec_pystack(&t, 0, S1, ips, 1, py, 1);
	analyze(&t, &r);
	heap_profile(&t, &r, false, NULL, &p);
	assert_int_equal(p.nstacks, 1);
	assert_int_equal(r.py_mismatched, 0);
	assert_int_equal(p.stacks[0].depth, 1);
	assert_string_equal(frame_at(&p, 0, 0)->function, "outer (app.py:3)");
	profile_free(&p);
	heap_report_free(&r);
	heap_trace_free(&t);
}

static void test_empty(void **state)
{
	struct heap_trace t;
	struct heap_report r;

	trace_init(&t, 0);
	analyze(&t, &r);
	assert_near(r.peak, 0);
	assert_near(r.allocations, 0);
	assert_near(r.leaked_bytes, 0);
	assert_int_equal(r.nsites, 0);
	assert_int_equal(r.ntimeline, HEAP_TIMELINE);
	for (int i = 0; i < HEAP_TIMELINE; i++)
		assert_near(r.timeline[i].heap, 0);
	heap_report_free(&r);
	heap_trace_free(&t);
}

/* Many blocks live at once: the table of live blocks grows and still
 * finds every one; freeing every other one leaves the others leaked. */
static void test_many_blocks(void **state)
{
	struct heap_trace t;
	struct heap_report r;
	const uint64_t n = 200000;

	trace_init(&t, 1);
	for (uint64_t i = 0; i < n; i++)
		rec_alloc(&t, (int)(i % 4), 10 + i, 0x100000 + 16 * i, 3,
			  i % 2 ? S1 : S2);
	for (uint64_t i = 0; i < n; i += 2)
		rec_free(&t, 5, 10 + 2 * n + i, 0x100000 + 16 * i);
	analyze(&t, &r);
	assert_near(r.peak, 3.0 * n);
	assert_near(r.leaked_blocks, n / 2);
	assert_near(r.leaked_bytes, 3.0 * n / 2);
	assert_near(site(&r, S1)->leaked_blocks, n / 2);
	assert_near(site(&r, S2)->leaked_blocks, 0);
	assert_int_equal(r.unmatched_frees, 0);
	heap_report_free(&r);
	heap_trace_free(&t);
}


/* ---- the agent's frame-pointer walk (agent_fp.h) ------------------------ */

static uint64_t fuzz_rng = 0x9e3779b97f4a7c15u;

static uint64_t fuzz_next(void)
{
	fuzz_rng ^= fuzz_rng << 13;
	fuzz_rng ^= fuzz_rng >> 7;
	fuzz_rng ^= fuzz_rng << 17;
	return fuzz_rng;
}

/* A frame-pointer-ish value: anywhere, near the ends of the address
 * space, near the bounds, inside them (aligned or not). */
static uintptr_t fuzz_fp(uintptr_t lo, uintptr_t hi)
{
	uint64_t r = fuzz_next();

	switch (r % 6) {
	case 0: return (uintptr_t)fuzz_next();
	case 1: return UINTPTR_MAX - (uintptr_t)(r >> 8) % 64;
	case 2: return (uintptr_t)(r >> 8) % 64;
	case 3: return lo - 64 + (uintptr_t)(r >> 8) % 128;
	case 4: return hi - 64 + (uintptr_t)(r >> 8) % 128;
	}
	return lo + (uintptr_t)(r >> 8) % (hi - lo);
}

/*
 * Garbage frame pointers and garbage chains, in a page with no access on
 * either side: the walk must never read outside [lo, hi) (a fault ends
 * the test), and everything it returns must be a word of the page.
 */
static void test_fp_walk_fuzz(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 3 * (size_t)page, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uintptr_t lo, hi;
	uintptr_t *words;
	size_t nwords;
	void *ips[65];

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, (size_t)page,
				  PROT_READ | PROT_WRITE), 0);
	lo = (uintptr_t)(map + page);
	hi = lo + (uintptr_t)page;
	words = (uintptr_t *)lo;
	nwords = (size_t)page / sizeof(uintptr_t);

	/* the cases of the bug: a bound check fp + 16 <= hi overflows */
	assert_int_equal(heap_fp_walk(ips, 64, UINTPTR_MAX - 7, lo, hi), 0);
	assert_int_equal(heap_fp_walk(ips, 64, UINTPTR_MAX - 15, lo, hi), 0);
	assert_int_equal(heap_fp_walk(ips, 64, UINTPTR_MAX - 7, 0, 0), 0);
	assert_int_equal(heap_fp_walk(ips, 64, 8, 0, 0), 0);
	assert_int_equal(heap_fp_walk(ips, 64, lo, hi, lo), 0);
	assert_int_equal(heap_fp_walk(ips, 64, hi - 8, lo, hi), 0);

	/* a good chain of three frames, then a frame pointer near 2^64 */
	memset(words, 0, (size_t)page);
	words[0] = lo + 64;	words[1] = 0x1001;
	words[8] = lo + 256;	words[9] = 0x1002;
	words[32] = UINTPTR_MAX - 7;	words[33] = 0x1003;
	assert_int_equal(heap_fp_walk(ips, 64, lo, lo, hi), 3);
	assert_true(ips[0] == (void *)0x1001 && ips[1] == (void *)0x1002 &&
		    ips[2] == (void *)0x1003);
	assert_int_equal(heap_fp_walk(ips, 2, lo, lo, hi), 2);

	for (int round = 0; round < 2000; round++) {
		/* garbage: random words, a quarter of them pointing into
		 * the page, some at its very end */
		for (size_t i = 0; i < nwords; i++)
			words[i] = (fuzz_next() & 3) ? fuzz_fp(lo, hi)
						     : (uintptr_t)fuzz_next();
		for (int k = 0; k < 200; k++) {
			uintptr_t fp = fuzz_fp(lo, hi);
			uintptr_t l = (fuzz_next() & 7) ? lo : fuzz_fp(lo, hi);
			int n;

			/* other bounds inside the page only: it is the
			 * readable memory */
			if (l < lo || l > hi)
				l = lo;
			n = heap_fp_walk(ips, 64, fp, l, hi);
			assert_true(n >= 0 && n <= 64);
			for (int i = 0; i < n; i++) {
				bool found = false;

				for (size_t j = 1; j < nwords && !found; j++)
					found = words[j] == (uintptr_t)ips[i];
				assert_true(found);
			}
		}
	}
	munmap(map, 3 * (size_t)page);
}

/* ---- the replay beside the program -------------------------------------- */

/*
 * A random trace of three slots, stamps interleaved (a global clock moved
 * on by 1 to 3000 ticks an event, so that frees merged a microsecond
 * early reorder some): allocations of 16 stacks, frees of any slot's live
 * blocks (another slot's only once its allocation is 2 us old: a block
 * handed between threads), temporaries (FREE_TEMP), BURSTs, and each
 * stack's record in a random slot, at times after an allocation of it
 * (a site without frames until its record comes).
 */
#define LV_SLOTS 3
#define LV_EVENTS 60000

struct lv_block {
	uint64_t ptr, ts;
	int slot;
};

static uint64_t lv_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static void lv_trace(struct heap_trace *t, uint64_t seed, int events,
		     uint64_t gap)
{
	static struct lv_block live[4096];
	size_t nlive = 0;
	uint64_t x = seed, now = 1000, next_ptr = 0x1000;
	bool sent[16] = { false };

	trace_init(t, 1);
	for (int e = 0; e < events; e++) {
		int slot = (int)(lv_rand(&x) % LV_SLOTS);
		uint64_t r = lv_rand(&x), stack = 0x100 + r % 16;

		now += 1 + lv_rand(&x) % gap;
		if (!sent[stack - 0x100] && r % 7 == 0) {
			static const uint64_t ips[] = { 0x401000, 0x402000 };

			rec_stack(t, slot, 1, stack, ips, 1 + (uint32_t)(r % 2));
			sent[stack - 0x100] = true;
		}
		if (r % 5 == 0 && nlive) {
			size_t k = (size_t)(lv_rand(&x) % nlive);

			if (live[k].slot != slot && live[k].ts + 2000 > now)
				continue;
			rec_free(t, slot, now, live[k].ptr);
			live[k] = live[--nlive];
		} else if (r % 5 == 1) {
			rec_alloc(t, slot, now, next_ptr, 16 + r % 500, stack);
			rec_free_temp(t, slot, now + 10, next_ptr);
			next_ptr += 16;
			now += 10;
		} else if (r % 5 == 2) {
			rec_burst(t, slot, now, stack, 1 + r % 9, 100 + r % 900,
				  100, now + 500);
			now += 500;
		} else if (nlive < 4096) {
			live[nlive++] = (struct lv_block){ next_ptr, now, slot };
			rec_alloc(t, slot, now, next_ptr, 1 + r % 4000, stack);
			next_ptr += 16;
		}
	}
	t->duration = (double)(now + 1000) / 1e9;	/* a 1 GHz clock */
}

/* The merge key of the record at w (a free's a microsecond early), or
 * the key of the next event record from there. */
static uint64_t lv_key(const uint64_t *w, const uint64_t *end)
{
	for (; w < end; w += heap_rec_words(*w)) {
		uint32_t type = (uint32_t)(*w >> HEAP_TYPE_SHIFT);
		uint64_t ts = *w & HEAP_TS_MASK;

		if (heap_rec_stack(type) || type == HEAP_REC_PYCODE)
			continue;
		if (type == HEAP_REC_FREE || type == HEAP_REC_FREE_TEMP)
			return ts > 1000 ? ts - 1000 : 0;
		return ts;
	}
	return UINT64_MAX;
}

/*
 * The live replay's timeline (fine intervals while the program runs, 100
 * ns wide at first, doubled as it outgrows them: analyze_live.c,
 * heap_live_clock), against the replay after the end, where each event is
 * in its own interval. A fine interval is put into the report's interval
 * of its start, so the live most of interval i is that of a window moved
 * on by less than a fine interval: at most the most of i and i + 1, and
 * below the most of i only when that came in the part of i the interval
 * before has (live i - 1 has it then). Checked in every interval;
 * counted, those that differ at all.
 */
static void live_timeline_check(const struct heap_report *a,
				const struct heap_report *b)
{
	size_t n = a->ntimeline, differ = 0;

	assert_int_equal(b->ntimeline, n);
	for (size_t i = 0; i < n; i++) {
		double lv = b->timeline[i].heap, was = a->timeline[i].heap;
		double next = i + 1 < n ? a->timeline[i + 1].heap : was;

		assert_near(b->timeline[i].t, a->timeline[i].t);
		if (fabs(lv - was) > 1e-6)
			differ++;
		if (lv > fmax(was, next) + 1e-6 ||
		    (lv < was - 1e-6 &&
		     (i == 0 || b->timeline[i - 1].heap < was - 1e-6)))
			fail_msg("interval %zu: live %.0f, after the end %.0f "
				 "(next %.0f)", i, lv, was, next);
	}
	print_message("# live timeline: %zu of %zu intervals differ, "
		      "each within a fine interval's move\n", differ, n);
}

/*
 * The same trace replayed after the end and beside the program: its
 * records handed over in pieces of random length, slot by slot, and the
 * merge advanced after each piece as far as the records still to come
 * allow (collect_live.c's bound). Every figure and every site (in the same
 * order) must be the same; the streams of the second are dropped as the
 * merge goes, so it holds less.
 */
/* t's records handed to a live replay in l (its clock 1 GHz) in pieces
 * of random length, slot by slot, the merge advanced after each piece as
 * far as the records still to come allow (collect_live.c's bound). */
static void lv_replay(const struct heap_trace *t, struct heap_trace *l,
		      uint64_t seed)
{
	size_t at[LV_SLOTS] = { 0 };
	uint64_t x = seed * 0x9e3779b97f4a7c15u;
	bool more = true;

	trace_init(l, t->duration);
	l->live = heap_live_new(l);
	heap_live_clock(l->live, 1e9);
	while (more) {
		int i = (int)(lv_rand(&x) % LV_SLOTS);
		const struct heap_stream *s = &t->streams[i];
		size_t n = at[i], stop = n + lv_rand(&x) % 3000;
		uint64_t below = UINT64_MAX;

		while (n < s->n && n < stop)
			n += heap_rec_words(s->words[n]);
		heap_stream_add(l, (uint32_t)i, s->words + at[i],
				(n - at[i]) * 8);
		at[i] = n;
		more = false;
		for (int k = 0; k < LV_SLOTS; k++) {
			uint64_t key = lv_key(t->streams[k].words + at[k],
					      t->streams[k].words +
					      t->streams[k].n);

			below = key < below ? key : below;
			more |= at[k] < t->streams[k].n;
		}
		heap_live_advance(l->live, below, false);
	}
}

static void test_live_equals_after(void **state)
{
	(void)state;
	for (uint64_t seed = 1; seed <= 6; seed++) {
		struct heap_trace t, l;
		struct heap_report a, b;

		lv_trace(&t, seed, LV_EVENTS, 3000);
		analyze(&t, &a);
		lv_replay(&t, &l, seed);
		analyze(&l, &b);
		assert_true(b.held_bytes < a.held_bytes);
		assert_near(b.peak, a.peak);
		assert_near(b.peak_t, a.peak_t);
		assert_near(b.allocations, a.allocations);
		assert_near(b.bytes, a.bytes);
		assert_near(b.frees, a.frees);
		assert_near(b.temporary, a.temporary);
		assert_near(b.leaked_bytes, a.leaked_bytes);
		assert_near(b.leaked_blocks, a.leaked_blocks);
		assert_int_equal(b.unmatched_frees, a.unmatched_frees);
		assert_int_equal(b.events, a.events);
		assert_int_equal(b.nsites, a.nsites);
		live_timeline_check(&a, &b);
		for (size_t k = 0; k < a.nsites; k++) {
			assert_int_equal(b.sites[k].hash, a.sites[k].hash);
			assert_memory_equal(&b.sites[k].stack,
					    &a.sites[k].stack,
					    sizeof(a.sites[k].stack));
			assert_near(b.sites[k].allocations,
				    a.sites[k].allocations);
			assert_near(b.sites[k].bytes, a.sites[k].bytes);
			assert_near(b.sites[k].temporary, a.sites[k].temporary);
			assert_near(b.sites[k].peak_bytes,
				    a.sites[k].peak_bytes);
			assert_near(b.sites[k].leaked_bytes,
				    a.sites[k].leaked_bytes);
		}
		heap_report_free(&a);
		heap_report_free(&b);
		heap_trace_free(&t);
		heap_trace_free(&l);
	}
}

/*
 * Runs of 20 us to 0.3 s (a 1 GHz clock): the live replay's fine
 * intervals start at 100 ns (64 ticks), so the shortest has fewer of them
 * than the report has intervals, and the longest doubles them 13 times.
 */
static void test_live_timeline_lengths(void **state)
{
	static const uint64_t gaps[] = { 13, 130, 1300, 200000 };

	(void)state;
	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		struct heap_trace t, l;
		struct heap_report a, b;

		lv_trace(&t, 40 + g, 3000, gaps[g]);
		analyze(&t, &a);
		lv_replay(&t, &l, 40 + g);
		analyze(&l, &b);
		print_message("# a run of %.3g s\n",
			      a.timeline[a.ntimeline - 1].t);
		assert_near(b.peak, a.peak);
		live_timeline_check(&a, &b);
		heap_report_free(&a);
		heap_report_free(&b);
		heap_trace_free(&t);
		heap_trace_free(&l);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peak_and_leaks),
		cmocka_unit_test(test_peak_sites_lazy),
		cmocka_unit_test(test_free_temp),
		cmocka_unit_test(test_burst_alone),
		cmocka_unit_test(test_burst_interleaved),
		cmocka_unit_test(test_burst_overlap),
		cmocka_unit_test(test_burst_lost_stack),
		cmocka_unit_test(test_merge_by_time),
		cmocka_unit_test(test_early_free_window),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_children),
		cmocka_unit_test(test_unmatched_free),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_stack_tails),
		cmocka_unit_test(test_zero_keys),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_sampled_raised),
		cmocka_unit_test(test_throttle_rate),
		cmocka_unit_test(test_throttle_recovers),
		cmocka_unit_test(test_throttle_unbiased),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_live_equals_after),
		cmocka_unit_test(test_live_timeline_lengths),
		cmocka_unit_test(test_timeline_carry_in),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_profile),
		cmocka_unit_test(test_python_end),
		cmocka_unit_test(test_python_frames),
		cmocka_unit_test(test_python_cold_named),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_many_blocks),
		cmocka_unit_test(test_fp_walk_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
