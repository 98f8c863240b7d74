/*
 * A replay while the program runs (heap_live_*, analyze.h): the merge
 * goes as far as the collector says it may, step by step, and the words
 * of each stream it is done with are dropped, so that what is held is
 * what the merge is behind.
 */
#include <stdlib.h>
#include <string.h>

#include "heap/analyze_replay.h"
#include "util/strutil.h"

/*
 * The PYCODE records of a replay while the program runs are copied here
 * as they come (the streams drop what the merge consumed): blocks that
 * never move, since the codes point into them. A STACK record is not
 * kept: its frames are interned (heap_report.stacks).
 */
#define ARENA_WORDS (1u << 17)

struct arena {
	struct arena *next;
	size_t used;
	uint64_t w[ARENA_WORDS];
};

struct heap_live {
	struct heap_trace *t;
	struct replay p;
	struct heap_report rep;
	struct merge m;
	struct arena *arena;
	size_t narenas;
	size_t capcodes;
	bool stopped;		/* the tree grew beyond one image: the rest
				 * at the end */
};

#define LIVE_SAMPLED_CELLS 1024	/* 32 KiB; it doubles past half full */

struct heap_live *heap_live_new(struct heap_trace *t)
{
	struct heap_live *l = xcalloc(1, sizeof(*l));

	l->t = t;
	l->p.t = t;
	l->p.r = &l->rep;
	l->p.last_site = UINT32_MAX;
	l->p.sample = (double)t->sample_bytes;
	l->p.fine = xcalloc(HEAP_FINE, sizeof(struct fine));
	l->rep.nprocs = 2;	/* [1]: the program's first image */
	l->rep.procs = xcalloc(2, sizeof(*l->rep.procs));
	l->rep.stacks = stackstore_new();
	/* sampled, the live blocks are the heap over the interval (a few
	 * hundred): a table of 2 MiB would be a cache miss a look-up */
	if (t->sample_bytes)
		l->p.live.first = LIVE_SAMPLED_CELLS;
	replay_blocks_grow(&l->p.live);
	replay_merge_init(&l->m, 0);
	return l;
}

/*
 * The fine intervals start about FINE_MIN_S wide (the power of 2 of
 * ticks at or below it), not one tick: each doubling is a pass over all
 * HEAP_FINE of them (analyze_replay.h), and from one tick a 0.25 s run
 * at 2 GHz took 14 of them; from 100 ns, 7. A run longer than
 * HEAP_TIMELINE * FINE_MIN_S (0.1 ms) still has a fine interval or more
 * to each of the report's.
 */
#define FINE_MIN_S 1e-7

void heap_live_clock(struct heap_live *l, double ticks_per_s)
{
	double w = ticks_per_s * FINE_MIN_S;

	for (int i = 0; i < HEAP_SLOTS; i++)
		l->m.cur[i].early = replay_free_early(ticks_per_s);
	/* before the first event (heap_live_advance comes after) */
	while (l->p.seq == 0 && l->p.fine_shift < 32 &&
	       (double)((uint64_t)2 << l->p.fine_shift) <= w)
		l->p.fine_shift++;
}

static const uint64_t *arena_copy(struct heap_live *l, const uint64_t *w,
				  size_t n)
{
	struct arena *a = l->arena;
	uint64_t *to;

	if (n > ARENA_WORDS)
		return NULL;
	if (!a || a->used + n > ARENA_WORDS) {
		a = xmalloc(sizeof(*a));
		a->next = l->arena;
		a->used = 0;
		l->arena = a;
		l->narenas++;
	}
	to = &a->w[a->used];
	memcpy(to, w, n * sizeof(uint64_t));
	a->used += n;
	return to;
}

void heap_live_record(struct heap_live *l, uint32_t slot, uint64_t pos,
		      const uint64_t *w)
{
	if (rec_type(w[0]) == HEAP_REC_PYCODE)
		w = arena_copy(l, w, replay_rec_len(w[0]));
	if (w)
		replay_index_record(w, heap_order(slot, pos), &l->p,
				    &l->capcodes);
}

/* Drop the words of each stream the merge is done with, once they are
 * most of it: what is held stays what the merge is behind. */
static void live_compact(struct heap_live *l)
{
	for (int i = 0; i < HEAP_SLOTS; i++) {
		struct heap_stream *s = &l->t->streams[i];
		size_t at = l->m.at[i];

		if (at < 4096 || 2 * at < s->n)
			continue;
		memmove(s->words, s->words + at, (s->n - at) * sizeof(uint64_t));
		s->n -= at;
		s->scanned -= at;
		s->base += at;
		s->faulted = NULL;
		l->m.at[i] = 0;
	}
}

/* The bytes of records held now (the streams' and the arena's): the
 * most so far in rep.held_bytes. */
static void live_note_held(struct heap_live *l)
{
	uint64_t held = l->narenas * sizeof(struct arena);

	for (int i = 0; i < HEAP_SLOTS; i++)
		held += l->t->streams[i].cap * sizeof(uint64_t);
	if (held > l->rep.held_bytes)
		l->rep.held_bytes = held;
}

void heap_live_advance(struct heap_live *l, uint64_t below, bool tree)
{
	if (!l->stopped && tree)
		l->stopped = true;
	if (!l->stopped && !replay_merge_run(&l->p, &l->m, below, true))
		l->stopped = true;
	if (!l->stopped)
		live_compact(l);
	live_note_held(l);
}

static int site_cmp(const void *a, const void *b)
{
	const struct heap_site *x = a, *y = b;

	return x->order < y->order ? -1 : x->order > y->order;
}

int heap_live_finish(struct heap_live *l, struct heap_report *r)
{
	struct replay *p = &l->p;

	live_note_held(l);	/* what came after the last step */
	replay_procs_fill(&l->rep, l->t);
	replay_forget_launchers(p);
	replay_clock(p);
	replay_merge_run(p, &l->m, UINT64_MAX, false);
	replay_end(p);
	free(p->fine);
	p->fine = NULL;
	/* the sites in the order a replay after the end makes them */
	if (l->rep.nsites > 1)
		qsort(l->rep.sites, l->rep.nsites, sizeof(*l->rep.sites),
		      site_cmp);
	replay_note_stacks(&l->rep);
	*r = l->rep;
	memset(&l->rep, 0, sizeof(l->rep));
	return 0;
}

void heap_live_free(struct heap_live *l)
{
	if (!l)
		return;
	while (l->arena) {
		struct arena *a = l->arena;

		l->arena = a->next;
		free(a);
	}
	free(l->p.fine);
	free(l->p.bucket);
	free(l->p.bucket_end);
	if (l->p.live.b)
		replay_blocks_free(l->p.live.b, l->p.live.bytes);
	hashidx_free(&l->p.x);
	heap_report_free(&l->rep);
	free(l);
}
