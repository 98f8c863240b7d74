/*
 * Replaying a heap trace: see analyze.h.
 *
 * The slots' streams are each in time order; a binary heap of their next
 * records merges them. Live blocks are in an open-addressed table
 * (analyze_table.h). What each site had live at the peak is kept lazily: a
 * site's live bytes are saved when it is first changed after a new peak,
 * which costs O(1) per event instead of a copy of every site at every new
 * peak. The sites are analyze_sites.c's, the replay while the program
 * runs analyze_live.c's; their shared state is analyze_replay.h.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "heap/analyze_replay.h"
#include "heap/analyze_table.h"
#include "profile/symbolize.h"
#include "util/hashmap.h"
#include "util/strutil.h"

/* ---- the merge ---------------------------------------------------------- */

/* Does cursor a's event come before b's? */
static inline bool cursor_before(const struct cursor *a,
				 const struct cursor *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->slot < b->slot);
}

/*
 * Move c to its next event (skipping stacks); false at the end. A free is
 * merged a microsecond before its stamp: its stamp was taken before the
 * block was released, but the stamp of an allocation in another thread
 * that got the same block might (the processor reorders the time stamp
 * read) come out a few cycles early. Within a stream the order is the
 * records' order, whatever the keys.
 */
static bool cursor_next(struct cursor *c)
{
	c->burst_end = false;
	while (c->w < c->end) {
		size_t len = replay_rec_len(*c->w);
		uint32_t type = rec_type(*c->w);

		if (c->w + len > c->end)
			break;
		if (type == HEAP_REC_IMAGE) {
			c->gen = (uint32_t)c->w[1];
		} else if (!heap_rec_stack(type) &&
			   type != HEAP_REC_PYCODE) {
			c->ts = *c->w & HEAP_TS_MASK;
			if (type == HEAP_REC_FREE || type == HEAP_REC_FREE_TEMP)
				c->ts = c->ts > c->early ? c->ts - c->early : 0;
			return true;
		}
		c->w += len;
	}
	return false;
}

/*
 * Prefetch the live table's cells of the blocks of the records up to
 * PREFETCH words after c's: a large heap's table is far bigger than the
 * caches, and each event's look-up would otherwise wait for memory.
 */
#define PREFETCH 96

static void prefetch(struct cursor *c, const struct live *l)
{
	const uint64_t *stop = c->end - c->w > PREFETCH ? c->w + PREFETCH
							: c->end;

	if (c->ahead < c->w)
		c->ahead = c->w;
	while (c->ahead < stop) {
		uint64_t w = *c->ahead;
		uint32_t type = rec_type(w);

		if ((type == HEAP_REC_ALLOC || type == HEAP_REC_FREE ||
		     type == HEAP_REC_FREE_TEMP) && c->ahead + 1 < c->end)
			__builtin_prefetch(&l->b[live_mix(l,
							  block_key(c->ahead[1],
								    c->gen)) &
						 l->mask]);
		c->ahead += replay_rec_len(w);
	}
}

static void heap_down(struct cursor **h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && cursor_before(h[l], h[m]))
			m = l;
		if (l + 1 < n && cursor_before(h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		struct cursor *tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}


uint64_t heap_hist_low(int i)
{
	return i ? UINT64_C(1) << (i - 1) : 0;
}

/* The site's live bytes are about to change: keep what it had at the
 * last peak if it has not changed since. */
static void touch(struct replay *p, struct heap_site *s)
{
	if (s->last_mod <= p->peak_seq)
		s->peak_bytes = s->live;
	s->last_mod = p->seq;
}

static double seconds(const struct replay *p, uint64_t ts)
{
	return ts > p->t->ts0 ? (ts - p->t->ts0) * p->t_scale : 0;
}

/* The timeline's interval of stamp ts: never less for a later stamp. */
static long bucket_of(const struct replay *p, uint64_t ts)
{
	double x = seconds(p, ts) * p->per_bucket;

	return x >= HEAP_TIMELINE ? HEAP_TIMELINE - 1 : (long)x;
}

/* The first stamp of an interval after b (HEAP_TS_MASK + 1: none). */
static uint64_t bucket_after(const struct replay *p, long b)
{
	uint64_t lo = 0, hi = HEAP_TS_MASK + 1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (bucket_of(p, mid) > b)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Two neighbouring fine intervals into one: twice as wide. */
static void fine_coarsen(struct replay *p)
{
	for (size_t i = 0; i < HEAP_FINE / 2; i++) {
		struct fine *a = &p->fine[2 * i], *b = &p->fine[2 * i + 1];
		struct fine m = *a;

		if (b->seq) {
			m.most = a->seq ? fmax(a->most, b->most) : b->most;
			if (b->seq > m.seq)
				m.last = b->last, m.seq = b->seq;
		}
		p->fine[i] = m;
	}
	memset(&p->fine[HEAP_FINE / 2], 0,
	       HEAP_FINE / 2 * sizeof(*p->fine));
	p->fine_shift++;
}

static void fine_note(struct replay *p, uint64_t ts)
{
	uint64_t d = ts > p->t->ts0 ? ts - p->t->ts0 : 0;
	struct fine *f;

	while ((d >> p->fine_shift) >= HEAP_FINE)
		fine_coarsen(p);
	f = &p->fine[d >> p->fine_shift];
	f->most = f->seq && f->most > p->cur ? f->most : p->cur;
	f->last = p->cur;
	f->seq = p->seq;
}

/* The fine intervals into the report's (the program's length known). */
static void fine_settle(struct replay *p)
{
	uint64_t *seq = xcalloc(HEAP_TIMELINE, sizeof(uint64_t));

	for (size_t i = 0; i < HEAP_FINE; i++) {
		const struct fine *f = &p->fine[i];
		long b;

		if (!f->seq)
			continue;
		b = bucket_of(p, p->t->ts0 + ((uint64_t)i << p->fine_shift));
		p->bucket[b] = fmax(p->bucket[b], f->most);
		if (f->seq > seq[b]) {
			seq[b] = f->seq;
			p->bucket_end[b] = f->last;
		}
	}
	free(seq);
}

static void note_time(struct replay *p, uint64_t ts)
{
	long b = p->bk;
	double most;

	if (p->fine) {
		fine_note(p, ts);
		return;
	}
	if (ts < p->bk_lo || ts >= p->bk_hi) {
		/* a new interval (rarely: the stamps come nearly in order):
		 * the range of stamps in it, found once */
		b = bucket_of(p, ts);
		p->bk = b;
		p->bk_lo = b > 0 ? bucket_after(p, b - 1) : 0;
		p->bk_hi = bucket_after(p, b);
	}
	/* without a branch: the level goes up and down at random */
	most = p->bucket[b];
	p->bucket[b] = p->cur > most ? p->cur : most;
	p->bucket_end[b] = p->cur;
}

static void check_peak(struct replay *p, uint64_t ts)
{
	if (p->cur > p->r->peak) {
		p->r->peak = p->cur;
		p->peak_ts = ts;	/* in seconds at the end */
		p->peak_seq = p->seq;
	}
}

/* The image gen's account (beyond the table: [0]). */
static struct heap_proc *proc_of(const struct replay *p, uint32_t gen)
{
	struct heap_proc *pr = &p->r->procs[gen < p->r->nprocs ? gen : 0];

	pr->seen = true;
	return pr;
}

static void proc_add(const struct replay *p, uint32_t gen, double count,
		     double bytes, double live)
{
	struct heap_proc *pr = proc_of(p, gen);

	pr->allocations += count;
	pr->bytes += bytes;
	pr->live += live;
	if (pr->live > pr->peak)
		pr->peak = pr->live;
}

static void proc_sub(const struct replay *p, uint32_t gen, double count,
		     double live)
{
	struct heap_proc *pr = proc_of(p, gen);

	pr->frees += count;
	pr->live -= live;
}

/* Is image gen a launcher's (analyze_launch.c)? Its events then count in
 * its own row only: allocations and bytes, as asked for. */
static bool launcher(const struct replay *p, uint32_t gen)
{
	return gen < p->r->nprocs && p->r->procs[gen].launcher;
}

/* count allocations of size bytes each into the launchers' histogram */
static void launch_count(struct replay *p, double count, uint64_t size)
{
	unsigned k = 63 - (unsigned)__builtin_clzll(2 * size + 1);

	p->launch_hist[k < HEAP_HIST ? k : HEAP_HIST - 1] += count;
}

/* What a block stands for, from its ALLOC record's size word (kept as it
 * is in the live table): one allocation of its size, or sampled, those
 * weighed by the inverse of its chance of being sampled at the interval
 * it was drawn under (protocol.h, HEAP_ALLOC_RAISED). (The weight is not
 * kept in the live table, whose cells are a third smaller without.) */
static inline void weigh(const struct replay *p, uint64_t word, double *count,
			 double *bytes)
{
	uint64_t size = HEAP_ALLOC_SIZE(word);

	*count = 1;
	*bytes = (double)size;
	if (p->sample > 0) {
		double prob = -expm1(-(double)size /
				     ldexp(p->sample,
					   (int)HEAP_ALLOC_RAISED(word)));

		if (prob > 0)
			*count = 1 / prob, *bytes = size / prob;
	}
}

static void on_alloc(struct replay *p, const uint64_t *w, uint32_t gen)
{
	struct heap_report *r = p->r;
	uint64_t ptr = block_key(w[1], gen), size = w[2];	/* the word */
	double count, bytes;
	struct block *b;
	struct heap_site *s;

	/* address 0 marks an empty cell of the live table; the agent
	 * never records it (a damaged record) */
	if (!w[1])
		return;
	weigh(p, size, &count, &bytes);
	if (p->sample > 0) {
		uint32_t raised = HEAP_ALLOC_RAISED(size);

		r->samples++;
		r->samples_raised += raised > 0;
		if (raised > r->raised_max)
			r->raised_max = raised;
	}
	if (launcher(p, gen)) {
		proc_add(p, gen, count, bytes, 0);
		launch_count(p, count, HEAP_ALLOC_SIZE(size));
		return;
	}
	b = live_find(&p->live, ptr);
	if (b && b->ptr) {
		/* freed where the agent could not see it: forget it */
		double c0, b0;

		weigh(p, b->size, &c0, &b0);
		s = &r->sites[b->site];
		touch(p, s);
		s->live -= b0;
		p->cur -= b0;
		proc_sub(p, b->gen, 0, b0);
		live_remove(&p->live, b);
		b = live_find(&p->live, ptr);
	}
	while (!b) {	/* its run goes past the table's end */
		replay_blocks_grow(&p->live);
		b = live_find(&p->live, ptr);
	}
	b->ptr = ptr;
	b->gen = gen;
	b->size = size;
	/* most allocations come from the stack of the one before */
	if (p->last_site == UINT32_MAX || p->last_hash != w[3]) {
		p->last_site = replay_site_of(r, &p->x, &p->capsites, w[3]);
		p->last_hash = w[3];
	}
	b->site = p->last_site;
	p->live.n++;
	s = &r->sites[b->site];
	s->allocations += count;
	s->bytes += bytes;
	touch(p, s);
	s->live += bytes;
	p->cur += bytes;
	proc_add(p, gen, count, bytes, bytes);
	check_peak(p, w[0] & HEAP_TS_MASK);
	note_time(p, w[0] & HEAP_TS_MASK);
	if (p->live.n * 2 > p->live.mask)
		replay_blocks_grow(&p->live);
}

static void on_free(struct replay *p, const uint64_t *w, bool temp_mark,
		    uint32_t gen)
{
	struct heap_report *r = p->r;
	struct block *b;
	struct heap_site *s;
	double count, bytes;
	bool temp;

	if (launcher(p, gen))
		return;
	b = live_find(&p->live, block_key(w[1], gen));
	if (!b || !b->ptr) {
		r->unmatched_frees++;
		return;
	}
	temp = temp_mark;
	weigh(p, b->size, &count, &bytes);
	s = &r->sites[b->site];
	touch(p, s);
	s->live -= bytes;
	if (temp)
		s->temporary += count;
	p->cur -= bytes;
	r->frees += count;
	proc_sub(p, b->gen, count, bytes);
	live_remove(&p->live, b);
	note_time(p, w[0] & HEAP_TS_MASK);
}

/* An exec: the blocks of the image before (EXEC: the one it replaced,
 * EXEC_PENDING: the one exec'ing) are gone (not leaked). */
static void on_exec(struct replay *p, const uint64_t *w)
{
	struct heap_report *r = p->r;
	uint32_t old = rec_type(w[0]) == HEAP_REC_EXEC ? (uint32_t)(w[1] >> 32)
						       : (uint32_t)w[1];
	double count, bytes;

	for (size_t i = 0; i < live_cells(&p->live); ) {
		struct block *b = &p->live.b[i];

		if (!b->ptr || b->gen != old) {
			i++;
			continue;
		}
		weigh(p, b->size, &count, &bytes);
		touch(p, &r->sites[b->site]);
		r->sites[b->site].live -= bytes;
		p->cur -= bytes;
		proc_sub(p, b->gen, 0, bytes);
		/* a later block of the run may move into cell i: look again */
		live_remove(&p->live, b);
	}
	r->execs++;
	note_time(p, w[0] & HEAP_TS_MASK);
}

/*
 * A process of the tree ended: image gen's (an END record), or, gen 0,
 * process pid's as yardstick saw it (collect.h, ends). Its live blocks
 * are its leaks, and leave the tree's heap.
 */
static void on_end(struct replay *p, pid_t pid, uint32_t gen, uint64_t ts)
{
	struct heap_report *r = p->r;

	for (size_t i = 0; i < live_cells(&p->live); ) {
		struct block *b = &p->live.b[i];
		struct heap_site *s;
		struct heap_proc *pr;
		double count, bytes;

		if (!b->ptr || (gen ? b->gen != gen
				    : b->gen >= r->nprocs || !b->gen ||
				      r->procs[b->gen].pid != pid)) {
			i++;
			continue;
		}
		weigh(p, b->size, &count, &bytes);
		s = &r->sites[b->site];
		pr = proc_of(p, b->gen);
		touch(p, s);
		s->live -= bytes;
		s->leaked_blocks += count;
		s->leaked_bytes += bytes;
		pr->live -= bytes;
		pr->leaked_blocks += count;
		pr->leaked_bytes += bytes;
		r->leaked_blocks += count;
		r->leaked_bytes += bytes;
		p->cur -= bytes;
		live_remove(&p->live, b);
	}
	note_time(p, ts);
}

/*
 * Image gen's interpreter began to finalize (a PYEND record): its blocks
 * live now are what its Python code kept, per site. Once per image (the
 * agent writes one; a second would be a program's forgery; the images
 * beyond the table, [0], once in all).
 */
static void on_pyend(struct replay *p, uint32_t gen, uint64_t ts)
{
	struct heap_report *r = p->r;
	struct heap_proc *pr;

	if (!gen || proc_of(p, gen)->py_ended)
		return;	/* images beyond the table: the first of them */
	pr = proc_of(p, gen);
	pr->py_ended = true;
	pr->pyend_ts = ts;	/* the clock may not be known yet */
	for (size_t i = 0; i < live_cells(&p->live); i++) {
		const struct block *b = &p->live.b[i];
		double count, bytes;

		if (!b->ptr || b->gen != gen)
			continue;
		weigh(p, b->size, &count, &bytes);
		r->sites[b->site].pyend_blocks += count;
		r->sites[b->site].pyend_bytes += bytes;
	}
}

/* The ends up to stamp ts (all: UINT64_MAX) */
static void ends_upto(struct replay *p, uint64_t ts)
{
	const struct heap_trace *t = p->t;

	while (p->next_end < t->nends) {
		double e = t->ends[p->next_end].t * t->ticks_per_s;
		uint64_t ets = t->ts0 + (e > 0 ? (uint64_t)e : 0);

		if (ets > ts)
			return;
		on_end(p, t->ends[p->next_end].pid, 0,
		       ets < HEAP_TS_MASK ? ets : HEAP_TS_MASK);
		p->next_end++;
	}
}

/*
 * Did the exec announced at c fail? Its thread says so in the same stream
 * before anything of a later image: the one thing it records right after
 * a failed exec.
 */
static bool exec_failed(const struct cursor *c)
{
	uint64_t gen = c->w[1];

	for (const uint64_t *w = c->w + 2; w < c->end; w += replay_rec_len(*w)) {
		uint32_t type = rec_type(*w);

		if (type == HEAP_REC_EXEC_FAILED)
			return true;
		/* the slot went to another thread: the process is gone */
		if (type == HEAP_REC_EXEC || type == HEAP_REC_IMAGE ||
		    ((heap_rec_stack(type) || type == HEAP_REC_PYCODE) &&
		     HEAP_STACK_GEN(*w) > gen))
			return false;
	}
	return false;
}

/* A run of temporaries: its largest block live from t0 to t1. */
static void on_burst(struct replay *p, const uint64_t *w, bool end,
		     uint32_t gen)
{
	struct heap_report *r = p->r;
	uint32_t site;
	struct heap_site *s;
	double max = (double)w[4];

	if (launcher(p, gen)) {
		if (!end) {
			proc_add(p, gen, (double)w[2], (double)w[3], 0);
			launch_count(p, (double)w[2], w[2] ? w[3] / w[2] : 0);
		}
		return;
	}

	site = replay_site_of(r, &p->x, &p->capsites, w[1]);
	s = &r->sites[site];	/* after: it may grow sites */
	touch(p, s);
	if (end) {
		s->live -= max;
		p->cur -= max;
		r->frees += (double)w[2];
		proc_sub(p, gen, (double)w[2], max);
		note_time(p, w[5] & HEAP_TS_MASK);
		return;
	}
	s->allocations += (double)w[2];
	s->bytes += (double)w[3];
	s->temporary += (double)w[2];
	s->live += max;
	p->cur += max;
	proc_add(p, gen, (double)w[2], (double)w[3], max);
	check_peak(p, w[0] & HEAP_TS_MASK);
	note_time(p, w[0] & HEAP_TS_MASK);
}


void replay_merge_init(struct merge *m, uint64_t early)
{
	memset(m, 0, sizeof(*m));
	for (uint32_t i = 0; i < HEAP_SLOTS; i++) {
		m->cur[i].early = early;
		m->cur[i].gen = 1;
		m->cur[i].slot = i;
	}
}

/* Point the cursors at the streams as they are now; into h those at an
 * event, as a heap. Returns how many. */
static size_t merge_load(struct merge *m, const struct heap_trace *t,
			 struct cursor **h)
{
	size_t n = 0;

	for (int i = 0; i < HEAP_SLOTS; i++) {
		struct cursor *c = &m->cur[i];
		const struct heap_stream *s = &t->streams[i];

		if (!s->words)
			continue;
		c->w = s->words + m->at[i];
		c->end = s->words + s->n;
		c->ahead = c->w;
		if (!c->primed)
			c->primed = cursor_next(c);
		if (c->primed)
			h[n++] = c;
	}
	for (size_t i = n; i-- > 0; )
		heap_down(h, n, i);
	return n;
}

/* A record a replay while the program runs leaves for the end: it needs
 * the whole tree (exec, a process's end). */
static bool tree_record(uint32_t type)
{
	return type == HEAP_REC_EXEC || type == HEAP_REC_EXEC_PENDING ||
	       type == HEAP_REC_END;
}

/* The event at cursor c (its record w, of the type), replayed. */
static void merge_event(struct replay *p, struct cursor *c,
			const uint64_t *w, uint32_t type)
{
	if (type == HEAP_REC_ALLOC)
		on_alloc(p, w, c->gen);
	else if (type == HEAP_REC_BURST)
		on_burst(p, w, true, c->gen);
	else if (type == HEAP_REC_FREE || type == HEAP_REC_FREE_TEMP)
		on_free(p, w, type == HEAP_REC_FREE_TEMP, c->gen);
	else if (type == HEAP_REC_EXEC)
		on_exec(p, w);
	else if (type == HEAP_REC_END && w[1])
		on_end(p, 0, (uint32_t)w[1], w[0] & HEAP_TS_MASK);
	else if (type == HEAP_REC_PYEND)
		on_pyend(p, (uint32_t)w[1], w[0] & HEAP_TS_MASK);
	else if (type == HEAP_REC_EXEC_PENDING && !exec_failed(c))
		on_exec(p, w);	/* into an image without the agent */
}

/*
 * Replay the merged events whose keys are below `below`, from where the
 * last call stopped. While the program runs (running), a record of the
 * whole tree stops it: returns false, the record left for the end.
 */
bool replay_merge_run(struct replay *p, struct merge *m, uint64_t below,
		      bool running)
{
	struct cursor *h[HEAP_SLOTS];
	size_t n = merge_load(m, p->t, h);
	bool ok = true;

	while (n && h[0]->ts < below) {
		struct cursor *c = h[0];
		const uint64_t *w = c->w;
		uint32_t type = rec_type(*w);

		if (running && tree_record(type)) {
			ok = false;
			break;
		}
		p->seq++;
		ends_upto(p, c->ts);
		if (type == HEAP_REC_BURST && !c->burst_end) {
			/* the start; the end is this stream's next event */
			on_burst(p, w, false, c->gen);
			c->burst_end = true;
			c->ts = w[5] & HEAP_TS_MASK;
			heap_down(h, n, 0);
			continue;
		}
		merge_event(p, c, w, type);
		c->w += replay_rec_len(*w);
		c->primed = cursor_next(c);
		if (!c->primed)
			h[0] = h[--n];
		else
			prefetch(c, &p->live);
		heap_down(h, n, 0);
	}
	for (int i = 0; i < HEAP_SLOTS; i++)
		if (p->t->streams[i].words)
			m->at[i] = (size_t)(m->cur[i].w -
					    p->t->streams[i].words);
	return ok;
}

/* The end: what is still live leaked; the sites' peak shares settle. */
static void settle(struct replay *p)
{
	struct heap_report *r = p->r;

	for (size_t k = 0; k < r->nprocs; k++)
		if (r->procs[k].py_ended && !r->procs[k].launcher &&
		    !r->py_ends++)
			r->pyend_t = seconds(p, r->procs[k].pyend_ts);
	for (size_t i = 0; i < live_cells(&p->live); i++) {
		struct block *b = &p->live.b[i];

		double count, bytes;

		if (!b->ptr)
			continue;
		weigh(p, b->size, &count, &bytes);
		r->sites[b->site].leaked_blocks += count;
		r->sites[b->site].leaked_bytes += bytes;
		proc_of(p, b->gen)->leaked_blocks += count;
		proc_of(p, b->gen)->leaked_bytes += bytes;
		r->leaked_blocks += count;
		r->leaked_bytes += bytes;
	}
	for (size_t i = 0; i < r->nsites; i++) {
		struct heap_site *s = &r->sites[i];

		if (!heap_site_counted(r, s))
			continue;
		if (s->last_mod <= p->peak_seq)
			s->peak_bytes = s->live;
		r->pyend_bytes += s->pyend_bytes;
		r->pyend_blocks += s->pyend_blocks;
		r->allocations += s->allocations;
		r->bytes += s->bytes;
		r->temporary += s->temporary;
	}
}

/*
 * The heap over time, and the RSS: the largest sample in an interval, or
 * the last one before it (the RSS is sampled every few milliseconds, far
 * more coarsely than the intervals); NaN before the first sample.
 */
static void timeline(struct replay *p)
{
	const struct heap_trace *t = p->t;
	struct heap_report *r = p->r;
	double heap = 0, rss = NAN;
	size_t k = 0;

	r->timeline = xcalloc(HEAP_TIMELINE, sizeof(*r->timeline));
	r->ntimeline = HEAP_TIMELINE;
	for (int i = 0; i < HEAP_TIMELINE; i++) {
		struct heap_point *pt = &r->timeline[i];
		double most = NAN;

		/* an interval without events stays at the level before it */
		pt->t = (i + 1) * p->bucket_dt;
		/* with events, the most of them and of the level it came in at */
		pt->heap = isnan(p->bucket_end[i]) ? heap
			   : fmax(p->bucket[i], heap);
		for (; k < t->nrss && t->rss[k].t <= pt->t; k++) {
			if (isnan(most) || t->rss[k].bytes > most)
				most = t->rss[k].bytes;
			rss = t->rss[k].bytes;
		}
		pt->rss = isnan(most) ? rss : most;
		if (!isnan(p->bucket_end[i]))
			heap = p->bucket_end[i];
	}
}

/*
 * A replay while the program ran counted what image 1 did before the tree
 * grew beyond it; image 1 turned out to be a launcher (it exec'd into the
 * program): its blocks, its frees, its share of the peak and of the
 * timeline so far are taken back. Until the tree grew, image 1's were the
 * only records, so the level starts again from what is left (nothing).
 */
void replay_forget_launchers(struct replay *p)
{
	struct heap_report *r = p->r;

	if (!launcher(p, 1))
		return;
	/* its allocations by size class were not kept (a cost on every
	 * event of every program): at their mean size */
	if (r->procs[1].allocations > 0)
		launch_count(p, r->procs[1].allocations,
			     (uint64_t)(r->procs[1].bytes /
					r->procs[1].allocations));
	for (size_t i = 0; i < live_cells(&p->live); ) {
		struct block *b = &p->live.b[i];

		double count, bytes;

		if (!b->ptr || !launcher(p, b->gen)) {
			i++;
			continue;
		}
		weigh(p, b->size, &count, &bytes);
		p->cur -= bytes;
		live_remove(&p->live, b);
	}
	r->frees -= r->procs[1].frees;
	r->peak = p->cur;
	p->peak_seq = p->seq;
	if (p->fine)
		memset(p->fine, 0, HEAP_FINE * sizeof(*p->fine));
}

/* The images of the tree into r->procs: as many as were numbered, the
 * figures of those replayed already kept. */
void replay_procs_fill(struct heap_report *r, const struct heap_trace *t)
{
	size_t n = t->nimages > 0 ? t->nimages : 1, was = r->nprocs;

	r->procs = xrealloc(r->procs, n * sizeof(*r->procs));
	if (n > was)
		memset(&r->procs[was], 0, (n - was) * sizeof(*r->procs));
	r->nprocs = n;
	for (size_t i = 1; i < r->nprocs; i++) {
		struct heap_proc *pr = &r->procs[i];

		pr->pid = t->images[i].pid;
		pr->ppid = t->images[i].ppid;
		pr->parent = t->images[i].parent < i ? t->images[i].parent : 0;
		pr->replaced = t->images[i].replaced < i ?
			       t->images[i].replaced : 0;
		memcpy(pr->cmd, t->images[i].cmd, HEAP_CMD_MAX);
		for (char *c = pr->cmd; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
	}
	replay_mark_launchers(r, t);
}

/* The clock's rate and the run's length, known: the timeline's
 * intervals. */
void replay_clock(struct replay *p)
{
	const struct heap_trace *t = p->t;

	p->t_scale = t->ticks_per_s > 0 ? 1 / t->ticks_per_s : 1e-9;
	p->bucket_dt = (t->duration > 0 ? t->duration : 1) / HEAP_TIMELINE;
	p->per_bucket = 1 / p->bucket_dt;
	p->bucket = xcalloc(HEAP_TIMELINE, sizeof(double));
	p->bucket_end = xcalloc(HEAP_TIMELINE, sizeof(double));
	for (int i = 0; i < HEAP_TIMELINE; i++)
		p->bucket_end[i] = NAN;
}

/*
 * The launchers' exact counts, from their images' (the agent's,
 * protocol.h), into p->launch and p->launch_hist, and (sampled mode)
 * each launcher's allocations made exact — if every launcher's are whole
 * (its end added them: not killed). Else r->launch_exact is false and
 * p->launch_hist stays what the launchers' records made of it (sampled
 * mode: the totals include them, the report says so).
 */
static void launchers_counts(struct replay *p)
{
	const struct heap_trace *t = p->t;
	struct heap_report *r = p->r;
	size_t n = r->nprocs < t->nimages ? r->nprocs : t->nimages;

	memset(&p->launch, 0, sizeof(p->launch));
	r->launch_exact = true;
	for (size_t k = 1; k < r->nprocs; k++)
		if (r->procs[k].launcher &&
		    (k >= n || !t->images[k].counted))
			r->launch_exact = false;
	if (!r->launch_exact)
		return;
	memset(p->launch_hist, 0, sizeof(p->launch_hist));
	for (size_t k = 1; k < n; k++) {
		const struct heap_counts *c = &t->images[k].counts;
		double count = 0;

		if (!r->procs[k].launcher)
			continue;
		for (int i = 0; i < HEAP_HIST; i++) {
			p->launch_hist[i] += (double)c->hist[i];
			count += (double)c->hist[i];
		}
		p->launch.allocations += count;
		p->launch.bytes += (double)c->bytes;
		p->launch.frees += (double)c->frees;
		p->launch.temporary += (double)c->temporary;
		if (r->estimated)
			r->procs[k].allocations = count;
	}
}

/* After the merge: leaks, totals, the timeline, the counts. */
void replay_end(struct replay *p)
{
	const struct heap_trace *t = p->t;
	struct heap_report *r = p->r;

	ends_upto(p, UINT64_MAX);
	r->events = p->seq;
	r->peak_t = r->peak > 0 ? seconds(p, p->peak_ts) : 0;
	if (p->fine)
		fine_settle(p);
	settle(p);
	timeline(p);
	r->estimated = t->sample_bytes > 0;
	r->peak_rss = t->peak_rss;
	/* the agent's exact counts are the whole tree's: the launchers'
	 * taken off, from their images' own counts when each has them
	 * whole; else in exact mode from their records (all there, their
	 * runs of temporaries at the mean size), and not at all sampled */
	launchers_counts(p);
	for (int i = 0; i < HEAP_HIST; i++)
		r->hist_count[i] = fmax(0, (double)t->counts.hist[i] -
					   (r->estimated && !r->launch_exact
					    ? 0 : p->launch_hist[i]));
	if (r->estimated) {
		/* the agent counted every call, traced or not (p->launch:
		 * 0 unless r->launch_exact) */
		r->allocations = fmax(0, (double)t->counts.allocations -
					 p->launch.allocations);
		r->bytes = fmax(0, (double)t->counts.bytes -
				   p->launch.bytes);
		r->frees = fmax(0, (double)t->counts.frees - p->launch.frees);
		r->temporary = fmax(0, (double)t->counts.temporary -
				       p->launch.temporary);
	}
	free(p->bucket);
	free(p->bucket_end);
	p->bucket = p->bucket_end = NULL;
	replay_blocks_free(p->live.b, p->live.bytes);
	p->live.b = NULL;
	hashidx_free(&p->x);
}

/* How much earlier than its stamp a free is merged (cursor_next). */
uint64_t replay_free_early(double ticks_per_s)
{
	return (uint64_t)(ticks_per_s * 1e-6);
}

int heap_analyze(const struct heap_trace *t, struct heap_report *r)
{
	struct replay p = { .t = t, .r = r, .last_site = UINT32_MAX };
	struct merge *m;
	size_t capcodes = 0;

	if (t->live)
		return heap_live_finish(t->live, r);
	memset(r, 0, sizeof(*r));
	r->stacks = stackstore_new();
	p.sample = (double)t->sample_bytes;
	replay_clock(&p);
	replay_procs_fill(r, t);
	replay_find_sites(t, &p, &capcodes);
	replay_blocks_grow(&p.live);
	m = xmalloc(sizeof(*m));
	replay_merge_init(m, replay_free_early(t->ticks_per_s));
	replay_merge_run(&p, m, UINT64_MAX, false);
	free(m);
	replay_end(&p);
	for (int i = 0; i < HEAP_SLOTS; i++)
		r->held_bytes += t->streams[i].cap * sizeof(uint64_t);
	replay_note_stacks(r);
	return 0;
}

void heap_report_free(struct heap_report *r)
{
	free(r->sites);
	stackstore_free(r->stacks);
	free(r->pycodes);
	free(r->timeline);
	free(r->procs);
	memset(r, 0, sizeof(*r));
}

