/*
 * The replay's state, shared by the three parts of heap/analyze.h's
 * replay and by nothing else: analyze.c (the merge of the slots' streams
 * and the events), analyze_sites.c (the sites and Python codes of the
 * trace's STACK and PYCODE records) and analyze_live.c (the replay while
 * the program runs, in steps).
 */
#ifndef YS_HEAP_ANALYZE_REPLAY_H
#define YS_HEAP_ANALYZE_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "heap/analyze.h"
#include "util/hashmap.h"

static inline uint32_t rec_type(uint64_t w)
{
	return (uint32_t)(w >> HEAP_TYPE_SHIFT);
}

/* Words of the record starting with w (unknown types: 2, as a free). */
static inline size_t replay_rec_len(uint64_t w)
{
	return (size_t)heap_rec_words(w);
}

/* ---- live blocks (analyze.c) ---- */

struct block {
	uint64_t ptr;		/* its key (block_key), 0: empty */
	uint64_t size;		/* its ALLOC record's size word: as asked
				 * for, and the interval it was sampled at
				 * (analyze.c, weigh: what it stands for) */
	uint32_t site;
	uint32_t gen;		/* its image */
};

/* A block is known by its image and address: the address with the image
 * number in the bits above any user-space address's. */
static inline uint64_t block_key(uint64_t ptr, uint32_t gen)
{
	return ptr ^ ((uint64_t)(gen & 0xffff) << 48);
}

struct live {
	struct block *b;
	size_t mask, n;
	size_t bytes;		/* mapped at b */
	size_t first;		/* cells of the first table (0: 1 << 16) */
	uint64_t key;		/* hash_secret, from the first table
				 * (analyze_table.h's live_mix) */
};

/*
 * A stream's place in the merge. A BURST is two events: its start at t0
 * and its end at t1 (end set), between which other threads' events may
 * fall.
 */
struct cursor {
	const uint64_t *w, *end;
	const uint64_t *ahead;	/* the next record to prefetch for */
	uint64_t ts;		/* the merge's key */
	uint64_t early;		/* how much earlier frees are merged */
	uint32_t gen;		/* the image its records are of (IMAGE) */
	uint32_t slot;		/* equal keys: the lower slot first */
	bool burst_end;
	bool primed;		/* at an event: ts is its key (between the
				 * steps of a replay while the program runs,
				 * where the stream may end for now) */
};

/*
 * The timeline while the program runs, before its length (and so the
 * report's intervals) is known: the most live and the level after the
 * last event in each of HEAP_FINE intervals of 2^shift ticks (at first
 * about 100 ns: heap_live_clock), the width doubled (neighbours merged)
 * whenever the run outgrows them. The report's interval of a fine one is
 * that of its start: 8 to 16 fine ones to each of the report's
 * HEAP_TIMELINE, so that a point of the timeline is the most live in a
 * window moved on by at most 1/8 of its width (tests/unit/test_heap.c,
 * live_timeline_check). Each doubling is a pass over them all: with
 * 65536, 0.27 ms a pass (1.7% of `mem --sample` on bench/alloc_gen 41385
 * at 0.1 s, in a profile), with 16384 a fifth of that.
 */
#define HEAP_FINE 16384

struct fine {
	double most, last;
	uint64_t seq;		/* of the last event in it, 0: none */
};

struct replay {
	const struct heap_trace *t;
	struct heap_report *r;
	struct fine *fine;	/* a replay while the program runs */
	unsigned fine_shift;
	uint64_t peak_ts;
	struct hashidx x;	/* site + 1 by stack hash */
	size_t capsites;
	struct live live;
	double cur;
	uint64_t seq, peak_seq;
	double sample;		/* bytes per sample, 0: exact */
	double t_scale;		/* seconds per tick */
	double *bucket;		/* the timeline: most live per interval */
	double *bucket_end;	/* live after its last event, NaN: none */
	double bucket_dt, per_bucket;
	long bk;		/* the interval of the stamps in [bk_lo, */
	uint64_t bk_lo, bk_hi;	/* bk_hi): note_time */
	size_t next_end;	/* of t->ends, the next to apply */
	double launch_hist[HEAP_HIST];	/* launchers' allocations by size
					 * class (a run of temporaries, and
					 * what image 1 did while the
					 * program ran: at the mean size) */
	struct {			/* sampled mode: the launchers' exact */
		double allocations, bytes, frees, temporary;	/* counts */
	} launch;
	uint64_t last_hash;	/* the stack of the allocation before, */
	uint32_t last_site;	/* its site (UINT32_MAX: none yet) */
	/* the hash of each slot's last stack record, whose stack is the
	 * slot's last in the store: the base a STACK_TAIL after it must
	 * name (0: unknown, a damaged one) (analyze_sites.c) */
	uint64_t slot_stack[HEAP_SLOTS];
};

/*
 * The merge's state, kept between the steps of a replay while the
 * program runs: each slot's cursor, and the word of its stream it is at
 * (the streams grow and move between steps).
 */
struct merge {
	struct cursor cur[HEAP_SLOTS];
	size_t at[HEAP_SLOTS];
};

/* ---- analyze.c ---- */

/* The live-block table at twice its size (the first: 65536 cells). */
void replay_blocks_grow(struct live *l);
void replay_blocks_free(struct block *b, size_t bytes);
/* Every slot's cursor at its stream's start; frees merged early ticks
 * before their stamps (replay_free_early). */
void replay_merge_init(struct merge *m, uint64_t early);
/* Replay the events of p's trace up to the stamp below (UINT64_MAX: all),
 * from where m is. live: a replay while the program runs (a stream may
 * end for now). Returns false when it cannot go on beside the program
 * (the tree grew beyond one image). */
bool replay_merge_run(struct replay *p, struct merge *m, uint64_t below,
		      bool live);
/* How much earlier than its stamp a free is merged (the merge's cursor). */
uint64_t replay_free_early(double ticks_per_s);
/* r's processes, from t's images. */
void replay_procs_fill(struct heap_report *r, const struct heap_trace *t);
/* ---- analyze_launch.c ---- */

/* r->procs[].launcher, from r's images (analyze.h, heap_launchers). */
void replay_mark_launchers(struct heap_report *r, const struct heap_trace *t);
/* A replay while the program ran: what it counted of launchers taken
 * back, once they are known (analyze.c). */
void replay_forget_launchers(struct replay *p);

/* The clock of p's trace: seconds per tick, the timeline's intervals. */
void replay_clock(struct replay *p);
/* What is left at the end: leaks, the peak's sites, the timeline. */
void replay_end(struct replay *p);

/* ---- analyze_sites.c ---- */

/* A record found by the collector or after it: a stack or code (each
 * slot's in the order of its stream). */
void replay_index_record(const uint64_t *w, uint64_t order, struct replay *p,
			 size_t *capcodes);
/* Every stack of every stream becomes a site: those the collector found
 * (collect.h), then those after where it stopped. */
void replay_find_sites(const struct heap_trace *t, struct replay *p,
		       size_t *capcodes);
/* The site of a stack hash, made (without frames) if its record was
 * lost. */
uint32_t replay_site_of(struct heap_report *r, struct hashidx *x,
			size_t *cap, uint64_t hash);
/* r->stack_bytes and r->nstacks, at the end. */
void replay_note_stacks(struct heap_report *r);

/* ---- analyze_live.c ---- */

/* heap_analyze of a trace replayed while the program ran: the rest. */
int heap_live_finish(struct heap_live *l, struct heap_report *r);

#endif
