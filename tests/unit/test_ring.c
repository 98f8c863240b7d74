/*
 * Tests for reading perf ring buffers (profile/ring.h, merge.h) and
 * parsing their records (profile/records.h) on synthetic ring contents,
 * without perf: records in place, a record split across the end of the
 * data (handed out whole from the wrap buffer), free-running head and tail
 * above 2^32, a record only partly published or not a record at all,
 * several rings merged by time, and lost records counted; records
 * with identifiers, and the second copies of a task two families of
 * events follow (profile/famfilter.h) dropped.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

#include "profile/merge.h"
#include "profile/records.h"
#include "profile/ring.h"

#define DATA 256			/* bytes of ring data: mask 255 */
#define BASE ((1ULL << 33) + 200)	/* free-running: tail 200 in data */

struct fake {
	struct perf_event_mmap_page meta;
	uint8_t data[DATA];
	struct ring r;
	uint64_t w;			/* where the next record goes */
};

static void fake_init(struct fake *f, uint64_t start)
{
	memset(f, 0, sizeof(*f));
	memset(f->data, 0xee, sizeof(f->data));
	f->r.meta = &f->meta;
	f->r.data = f->data;
	f->r.mask = DATA - 1;
	f->r.fd = -1;
	f->r.tail = f->w = start;
	f->meta.data_tail = start;
}

/* Write n bytes at f->w, wrapping; publish them when publish. */
static void put(struct fake *f, const void *p, size_t n, int publish)
{
	for (size_t i = 0; i < n; i++)
		f->data[(f->w + i) & (DATA - 1)] = ((const uint8_t *)p)[i];
	f->w += n;
	if (publish)
		f->meta.data_head = f->w;
}

/* A record of type with u64 body words, then the sample_id_all trailer
 * (pid, tid, time): size 8 + 8 * nbody + 16. */
static void put_rec(struct fake *f, uint32_t type, const uint64_t *body,
		    size_t nbody, uint64_t time)
{
	uint64_t buf[32];
	struct perf_event_header h = { type, 0,
				       (uint16_t)(8 + 8 * nbody + 16) };

	memcpy(buf, &h, 8);
	memcpy(buf + 1, body, 8 * nbody);
	buf[1 + nbody] = 7 | (7ULL << 32);
	buf[2 + nbody] = time;
	put(f, buf, h.size, 1);
}

/* What the callback saw. */
struct seen {
	int n;
	uint64_t time[16];
	uint16_t size[16];
	int copied[16];			/* handed out from the wrap buffer */
	uint64_t body0[16];
	const uint8_t *buf;
};

static void see(void *arg, const uint8_t *rec, size_t size)
{
	struct seen *s = arg;

	assert_true(s->n < 16);
	memcpy(&s->time[s->n], rec + size - 8, 8);
	memcpy(&s->body0[s->n], rec + 8, 8);
	s->size[s->n] = (uint16_t)size;
	s->copied[s->n] = rec == s->buf;
	s->n++;
}

static uint8_t wrapbuf[RING_MAX_RECORD];

/* Three 40-byte records from 200: the second runs 240..280, across the
 * end of the 256 bytes of data. */
static void test_wrap(void **state)
{
	static struct fake f;
	struct seen s = { .buf = wrapbuf };
	uint64_t b[3][2] = { { 11, 1 }, { 22, 2 }, { 33, 3 } };

	(void)state;
	fake_init(&f, BASE);
	for (int i = 0; i < 3; i++)
		put_rec(&f, PERF_RECORD_LOST, b[i], 2, 100 + (uint64_t)i);
	ring_take_head(&f.r);
	assert_true(ring_pending(&f.r));
	assert_int_equal(f.r.next_time, 100);
	while (ring_pending(&f.r))
		ring_consume(&f.r, wrapbuf, see, &s);
	assert_int_equal(s.n, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(s.size[i], 40);
		assert_int_equal(s.time[i], 100 + i);
		assert_int_equal(s.body0[i], b[i][0]);
		assert_int_equal(s.copied[i], i == 1);
	}
	assert_true(f.meta.data_tail == BASE + 120);
	assert_true(f.r.tail == BASE + 120);

	/* the next pass finds only what was published since */
	put_rec(&f, PERF_RECORD_LOST, b[0], 2, 200);
	ring_take_head(&f.r);
	assert_int_equal(f.r.next_time, 200);
	ring_consume(&f.r, wrapbuf, see, &s);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.time[3], 200);
	assert_false(ring_pending(&f.r));
	assert_true(f.meta.data_tail == BASE + 160);
}

/* The header itself never straddles the end (8-aligned), but a sample's
 * time may sit past it: the time that orders the rings is read wrapped. */
static void test_time_across_wrap(void **state)
{
	static struct fake f;
	/* ip, pid/tid, time, period, callchain nr 0 */
	uint64_t rec[6] = { 0, 0x1000, 5 | (5ULL << 32), 4242, 1, 0 };
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_USER, 48 };
	struct seen s = { .buf = wrapbuf };

	(void)state;
	fake_init(&f, BASE + 40);	/* at 240: the time at 264 = 8 */
	memcpy(rec, &h, 8);
	put(&f, rec, sizeof(rec), 1);
	ring_take_head(&f.r);
	assert_int_equal(f.r.next_time, 4242);
	ring_consume(&f.r, wrapbuf, see, &s);
	assert_int_equal(s.n, 1);
	assert_true(s.copied[0]);
	assert_int_equal(s.body0[0], 0x1000);
}

/* A record claiming more than is published, or a size that is not a
 * multiple of 8: the rest of the pass is given up, nothing handed out. */
static void test_not_a_record(void **state)
{
	static struct fake f;
	struct seen s = { .buf = wrapbuf };
	uint64_t b[2] = { 1, 1 };
	struct perf_event_header h = { PERF_RECORD_LOST, 0, 40 };

	(void)state;
	fake_init(&f, BASE);
	put(&f, &h, 8, 0);
	put(&f, b, 16, 1);		/* 24 of its 40 bytes published */
	ring_take_head(&f.r);
	ring_consume(&f.r, wrapbuf, see, &s);
	assert_int_equal(s.n, 0);
	assert_true(f.meta.data_tail == BASE + 24);

	fake_init(&f, BASE);
	h.size = 36;
	put(&f, &h, 8, 0);
	put(&f, b, 16, 0);
	put(&f, b, 16, 1);
	ring_take_head(&f.r);
	ring_consume(&f.r, wrapbuf, see, &s);
	assert_int_equal(s.n, 0);
	assert_false(ring_pending(&f.r));
	assert_true(f.meta.data_tail == BASE + 40);
}

/* Two rings merged by record time, one of them wrapping. */
static void test_merge(void **state)
{
	static struct fake f[2];
	struct ring rings[2];
	struct seen s = { .buf = wrapbuf };
	uint64_t b[2] = { 0, 1 };
	uint64_t t0[] = { 10, 40, 50 }, t1[] = { 20, 30, 60 };

	(void)state;
	fake_init(&f[0], BASE);
	fake_init(&f[1], 0);
	for (int i = 0; i < 3; i++) {
		put_rec(&f[0], PERF_RECORD_LOST, b, 2, t0[i]);
		put_rec(&f[1], PERF_RECORD_LOST, b, 2, t1[i]);
	}
	rings[0] = f[0].r;
	rings[1] = f[1].r;
	merge_drain(rings, 2, wrapbuf, see, &s);
	assert_int_equal(s.n, 6);
	for (int i = 0; i < 6; i++)
		assert_int_equal(s.time[i], 10 * (i + 1));
	assert_true(f[0].meta.data_tail == BASE + 120);
	assert_true(f[1].meta.data_tail == 120);
}

struct got {
	uint64_t ips[8];
	size_t nips;
	uint64_t time;
	int samples;
};

static void on_sample(void *arg, const struct raw_sample *smp)
{
	struct got *g = arg;

	g->samples++;
	g->nips = smp->nips;
	g->time = smp->time;
	memcpy(g->ips, smp->ips, smp->nips * 8 < sizeof(g->ips) ?
	       smp->nips * 8 : sizeof(g->ips));
}

/* Through the parser: LOST and LOST_SAMPLES counted, a sample's user
 * callchain with the context markers and kernel part taken out, a sample
 * split across the wrap parsed whole. */
static void test_records(void **state)
{
	static struct fake f;
	static uint64_t ips[RECORDS_MAX_IPS];
	struct sampler_stats st;
	struct got g;
	struct records rp;
	uint64_t lost[2] = { 9, 5 }, lost_samples[1] = { 3 };
	uint64_t smp[10] = {
		0, 0x400000, 5 | (6ULL << 32), 777, 1,	/* ip .. period */
		4,					/* nr */
		(uint64_t)PERF_CONTEXT_KERNEL, 0xffffffff81000000ULL,
		(uint64_t)PERF_CONTEXT_USER, 0x401234,
	};
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_KERNEL, 80 };

	(void)state;
	memset(&st, 0, sizeof(st));
	memset(&g, 0, sizeof(g));
	memset(&rp, 0, sizeof(rp));
	rp.cb.arg = &g;
	rp.cb.sample = on_sample;
	rp.stats = &st;
	rp.ips = ips;
	memcpy(smp, &h, 8);
	fake_init(&f, BASE);		/* the sample runs 240..320 */
	put_rec(&f, PERF_RECORD_LOST, lost, 2, 1);
	put(&f, smp, sizeof(smp), 1);
	/* LOST_SAMPLES: lost, trailer */
	put_rec(&f, PERF_RECORD_LOST_SAMPLES, lost_samples, 1, 900);
	merge_drain(&f.r, 1, wrapbuf, records_dispatch, &rp);
	assert_int_equal(st.lost, 5 + 3);
	assert_int_equal(st.samples, 1);
	assert_int_equal(g.samples, 1);
	assert_int_equal(g.time, 777);
	assert_int_equal(g.nips, 1);
	assert_int_equal(g.ips[0], 0x401234);
	assert_true(f.meta.data_tail == BASE + 40 + 80 + 32);
}

/* With PERF_SAMPLE_IDENTIFIER (first in a sample, last in the trailer):
 * a sample of task tid written by event id at time. */
static void put_sample_id(struct fake *f, uint64_t id, uint32_t tid,
			  uint64_t time)
{
	uint64_t rec[7] = { 0, id, 0x401000, 5 | ((uint64_t)tid << 32), time,
			    1, 0 };	/* period, callchain nr 0 */
	struct perf_event_header h = { PERF_RECORD_SAMPLE,
				       PERF_RECORD_MISC_USER, 56 };

	memcpy(rec, &h, 8);
	put(f, rec, sizeof(rec), 1);
}

/* ... and the EXIT of task tid, by event id */
static void put_exit_id(struct fake *f, uint64_t id, uint32_t tid,
			uint64_t time)
{
	uint64_t rec[7] = { 0, 5 | (1ULL << 32), tid | ((uint64_t)tid << 32),
			    time, 5 | ((uint64_t)tid << 32), time, id };
	struct perf_event_header h = { PERF_RECORD_EXIT, 0, 56 };

	memcpy(rec, &h, 8);
	put(f, rec, sizeof(rec), 1);
}

struct tids {
	uint32_t tid[16];
	uint64_t time[16];
	int n, exits;
};

static void on_tid_sample(void *arg, const struct raw_sample *smp)
{
	struct tids *t = arg;

	assert_true(t->n < 16);
	t->tid[t->n] = smp->tid;
	t->time[t->n++] = smp->time;
}

static void on_tid_task(void *arg, uint32_t pid, uint32_t tid,
			uint64_t time, bool exit)
{
	struct tids *t = arg;

	(void)pid, (void)tid, (void)time;
	t->exits += exit;
}

/* Two fake rings of records with identifiers, parsed through fam into
 * got (the samples' tids and times, the exits): famfilter's tests. */
struct famrun {
	struct fake f[2];
	uint64_t ips[RECORDS_MAX_IPS];
	struct sampler_stats st;
	struct records rp;
	struct tids got;
};

static void famrun_init(struct famrun *r, struct famfilter *fam)
{
	memset(r, 0, sizeof(*r));
	r->rp.cb.arg = &r->got;
	r->rp.cb.sample = on_tid_sample;
	r->rp.cb.task = on_tid_task;
	r->rp.stats = &r->st;
	r->rp.ips = r->ips;
	r->rp.identifier = true;
	r->rp.fam = fam;
	fake_init(&r->f[0], 0);
	fake_init(&r->f[1], BASE);
	r->f[0].r.identifier = r->f[1].r.identifier = true;
}

/* the rings merged; the samples kept are n, of tids and times want_* */
static void famrun_check(struct famrun *r, int n, const uint32_t *want_tid,
			 const uint64_t *want_time)
{
	struct ring rings[2] = { r->f[0].r, r->f[1].r };

	merge_drain(rings, 2, wrapbuf, records_dispatch, &r->rp);
	assert_int_equal(r->got.n, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(r->got.tid[i], want_tid[i]);
		assert_int_equal(r->got.time[i], want_time[i]);
	}
	assert_int_equal(r->st.samples, n);
}

/*
 * Records with identifiers merged by their times (the time moves past
 * the identifier), and a task two families follow (famfilter.h): task 7
 * inherited family 1 (events 100, 101, one per CPU, opened on task 5),
 * then family 2 (event 200) was opened on it: family 1's samples count
 * until family 2's first, family 2's from then on, never both; task 8,
 * of its own family 3 alone, keeps its own; an event of no family (300)
 * is kept; task 7's second EXIT is dropped, and a new task that reuses
 * tid 7, inheriting family 1, has its samples counted.
 */
static void test_second_copies(void **state)
{
	static struct famrun r;
	struct famfilter fam;
	static const uint32_t want_tid[] = { 7, 7, 8, 9, 7 };
	static const uint64_t want_time[] = { 10, 20, 25, 45, 70 };

	(void)state;
	famfilter_init(&fam);
	famfilter_add(&fam, 400, 3, 8);
	famfilter_add(&fam, 200, 2, 7);
	famfilter_add(&fam, 100, 1, 5);
	famfilter_add(&fam, 101, 1, 5);
	famfilter_seal(&fam);
	famrun_init(&r, &fam);
	put_sample_id(&r.f[0], 100, 7, 10);	/* inherited, first: kept */
	put_sample_id(&r.f[0], 200, 7, 20);	/* its own: kept from now */
	put_sample_id(&r.f[0], 300, 9, 45);	/* no family: kept */
	put_exit_id(&r.f[0], 101, 7, 50);	/* family 1's EXIT: dropped */
	put_sample_id(&r.f[1], 400, 8, 25);	/* task 8: family 3, kept */
	put_sample_id(&r.f[1], 101, 7, 30);	/* family 1: a second copy */
	put_exit_id(&r.f[1], 200, 7, 40);	/* the EXIT kept: 7 ends */
	put_sample_id(&r.f[1], 101, 7, 70);	/* tid 7 again, a new task */
	famrun_check(&r, 5, want_tid, want_time);
	assert_int_equal(r.got.exits, 1);
	assert_int_equal(fam.dropped, 2);
	famfilter_free(&fam);
}

/*
 * A partial family (its thread ended after its events on the first CPU
 * opened: famfilter_partial) gives way to a whole one: task 7 inherited
 * family 1 (event 100, CPU 0 alone, partial) and family 2 (200 and 201,
 * whole, opened on task 6, not 7): family 1's first sample is kept, then
 * family 2's from its first on, family 1's dropped; task 8, followed by
 * family 1 alone, keeps its samples; task 9, whose first sample is
 * family 2's, never takes family 1's. Before the mark, task 7 kept
 * family 1's (the first seen), and lost every sample on CPU 1.
 */
static void test_partial_family(void **state)
{
	static struct famrun r;
	struct famfilter fam;
	static const uint32_t want_tid[] = { 7, 7, 7, 8, 9 };
	static const uint64_t want_time[] = { 10, 20, 40, 50, 60 };

	(void)state;
	famfilter_init(&fam);
	famfilter_add(&fam, 200, 2, 6);
	famfilter_add(&fam, 201, 2, 6);
	famfilter_add(&fam, 100, 1, 5);
	famfilter_partial(&fam, 1);
	famfilter_seal(&fam);
	famrun_init(&r, &fam);
	put_sample_id(&r.f[0], 100, 7, 10);	/* partial, first: kept */
	put_sample_id(&r.f[0], 200, 7, 20);	/* whole: kept from now */
	put_sample_id(&r.f[0], 100, 7, 30);	/* partial: a second copy */
	put_sample_id(&r.f[0], 100, 8, 50);	/* task 8: family 1 alone */
	put_sample_id(&r.f[1], 201, 7, 40);	/* whole, CPU 1: kept */
	put_sample_id(&r.f[1], 201, 9, 60);	/* task 9: whole first */
	put_sample_id(&r.f[1], 100, 9, 70);	/* partial after: dropped */
	famrun_check(&r, 5, want_tid, want_time);
	assert_int_equal(fam.dropped, 2);
	famfilter_free(&fam);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_time_across_wrap),
		cmocka_unit_test(test_not_a_record),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_records),
		cmocka_unit_test(test_second_copies),
		cmocka_unit_test(test_partial_family),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
