/*
 * The replay while the program runs, the collector's side (analyze.h,
 * heap_live): on each of the reader thread's looks, the records each
 * slot's agent will not change any more are taken from the chunk it is
 * filling, and the merge is told how far it may go.
 *
 * The bound: the merge replays an event only when no record still to
 * come can have a smaller key (the stamp, a free's a microsecond earlier:
 * analyze.c). A thread's records come in stamp order. So a slot bounds
 * what it has still to send by the first record it holds that yardstick
 * has not taken; by its last record taken, while chunks of it are on the
 * way (handed over, or in the socket); and, when it holds nothing new,
 * by the clock now, less a margin for a record stamped but not yet
 * written (a free is stamped before glibc's free runs, and its record
 * written after: a thread preempted there for longer than the margin has
 * its free merged late). A slot no thread took yet is bounded by the
 * clock: a thread takes its slot before it stamps anything.
 *
 * What the agent may still change (protocol.h, agent.c fold_temporary):
 * the slot's last record when it is an ALLOC (a free of that block folds
 * it into a BURST) or a BURST (a later pair extends it), and a BURST just
 * before a last ALLOC, while a pair could still fold into them: while
 * the owner is in a call (heap_slot.busy, set before it stamps anything,
 * read here before anything else), or when the record's stamp is less
 * than HEAP_FOLD_GAP before the clock less the margin (a call that began
 * after that read stamps later, too late to fold). Those are left for
 * later; their first word's stamp (the run's start) never changes.
 * Everything is read from a copy, and kept only if the slot's chunk
 * number did not move meanwhile (the agent handed the chunk over: it
 * comes whole, less what was taken here, peek_off).
 */
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

#include "heap/analyze.h"
#include "heap/collect_internal.h"
#include "util/monoclock.h"
#include "util/strutil.h"

/* The margin for a record stamped and not yet written, in seconds. */
#define LIVE_MARGIN_S 0.05
/* The clock's rate is measured over at least this long first. */
#define LIVE_CLOCK_S 0.005

static uint64_t clock_now(const struct reader *r)
{
	if (r->tsc)
		return __rdtsc() & HEAP_TS_MASK;
	return (uint64_t)(monoclock_s() * 1e9) & HEAP_TS_MASK;
}

static uint32_t rec_type(uint64_t w)
{
	return (uint32_t)(w >> HEAP_TYPE_SHIFT);
}

/*
 * May the agent still change the record at w (a slot's last, or the one
 * before a last ALLOC: protocol.h)? An ALLOC stamped, or a BURST whose
 * last free was stamped, HEAP_FOLD_GAP or more before now (the clock less
 * the margin) never changes: a free of the block is stamped after now,
 * too late to fold, and a pair after it begins too late to join.
 */
static bool may_change(const uint64_t *w, uint64_t now, bool busy)
{
	uint64_t ts;

	if (rec_type(w[0]) == HEAP_REC_ALLOC)
		ts = w[0] & HEAP_TS_MASK;
	else if (rec_type(w[0]) == HEAP_REC_BURST)
		ts = w[5] & HEAP_TS_MASK;
	else
		return false;
	return busy || ts + HEAP_FOLD_GAP > now;
}

/*
 * Of the n words at w (a copy of a chunk being filled, from a record's
 * start), how many hold records the agent will not change: whole ones,
 * less the tail it may still fold into (may_change).
 */
static size_t stable_words(const uint64_t *w, size_t n, uint64_t now,
			   bool busy)
{
	size_t at = 0, last = SIZE_MAX, prev = SIZE_MAX;

	while (at < n) {
		size_t len = (size_t)heap_rec_words(w[at]);

		if (len > n - at)
			break;
		prev = last;
		last = at;
		at += len;
	}
	/* (a record not whole after them: one being folded) */
	if (last == SIZE_MAX || !may_change(&w[last], now, busy))
		return at;
	if (rec_type(w[last]) == HEAP_REC_ALLOC && prev != SIZE_MAX &&
	    rec_type(w[prev]) == HEAP_REC_BURST)
		return prev;
	return last;
}

/* A merge key from a stamp: the smallest any event so stamped has. */
static uint64_t key_of(const struct reader *r, uint64_t ts)
{
	return ts > r->early ? ts - r->early : 0;
}

/*
 * Slot i's chunk being filled, from where the last look stopped: what will
 * not change into its stream. Returns the bound on the keys of the slot's
 * records still to come (now: the clock's bound).
 */
static uint64_t slot_peek(struct reader *r, uint32_t i, uint64_t now)
{
	struct heap_slot *s = &r->h->slots[i];
	struct heap_stream *st = &r->t->streams[i];
	uint64_t last, seq, used;
	size_t off, words, stable;
	uint32_t cur;
	/* first: a call that began after this stamps after now */
	bool busy = __atomic_load_n(&s->busy, __ATOMIC_ACQUIRE) != 0;

	last = key_of(r, st->last_ts);
	seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
	if (seq != r->next_seq[i])
		return last;	/* chunks before it are on the way */
	cur = __atomic_load_n(&s->cur, __ATOMIC_ACQUIRE) & (HEAP_RING - 1);
	used = __atomic_load_n(&s->used, __ATOMIC_ACQUIRE);
	off = r->peek_seq[i] == seq ? r->peek_off[i] : 0;
	if (used > HEAP_SLOT_BYTES || used % 8 || used < off)
		return last;
	memcpy(r->peek, (const char *)s->data[cur] + off, used - off);
	if (__atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) != seq)
		return last;	/* handed over meanwhile: it comes whole */
	words = (used - off) / 8;
	stable = stable_words(r->peek, words, now, busy);
	if (stable) {
		heap_stream_add(r->t, i, r->peek, stable * 8);
		r->peek_seq[i] = seq;
		r->peek_off[i] = off + stable * 8;
	}
	/* a call under way may write a record stamped before now */
	if (busy)
		return key_of(r, st->last_ts);
	if (stable < words)
		return r->peek[stable] & HEAP_TS_MASK;	/* not a free */
	return now > last ? now : last;
}

/* Was slot i ever taken? Slots are taken lowest first, so the first one
 * never taken ends the look. */
static bool slot_used(const struct reader *r, uint32_t i)
{
	const struct heap_slot *s = &r->h->slots[i];

	return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE) ||
	       __atomic_load_n(&s->used, __ATOMIC_ACQUIRE) ||
	       r->next_seq[i] || r->t->streams[i].n;
}

/* The clock's rate, once it was measured long enough: the merge's
 * offsets in ticks. */
static bool live_clock(struct reader *r)
{
	double s = monoclock_s() - r->t0;
	uint64_t now;

	if (r->rate > 0)
		return true;
	if (s < LIVE_CLOCK_S)
		return false;
	now = clock_now(r);
	r->rate = r->tsc ? (double)(now - r->ts0) / s : 1e9;
	r->early = (uint64_t)(r->rate * 1e-6);
	r->margin = (uint64_t)(r->rate * LIVE_MARGIN_S);
	heap_live_clock(r->t->live, r->rate);
	return true;
}

void heap_live_step(struct reader *r)
{
	uint64_t now, below;
	bool tree;

	if (!r->t->live || !live_clock(r))
		return;
	if (!r->peek)
		r->peek = xmalloc(HEAP_SLOT_BYTES);
	/* read before the slots: a record stamped after it is not missed */
	now = clock_now(r);
	now = now > r->margin ? now - r->margin : 0;
	below = now;
	for (uint32_t i = 0; i < HEAP_SLOTS && slot_used(r, i); i++) {
		uint64_t b = slot_peek(r, i, now);

		if (b < below)
			below = b;
	}
	tree = __atomic_load_n(&r->h->generation, __ATOMIC_ACQUIRE) > 1 ||
	       r->t->nends > 0;
	heap_live_advance(r->t->live, below, tree);
}
