/*
 * The agent's sampled mode (`yardstick mem --sample BYTES`), included by
 * agent.c only. Each thread traces on average one allocation per BYTES
 * allocated: the bytes until the next sample are drawn from an exponential
 * distribution of mean BYTES, so a block of s bytes is traced with
 * probability 1 - exp(-s / BYTES) whatever came before it (jemalloc's
 * scheme), and yardstick weighs it by the inverse of that probability.
 *
 * A free must know whether its block was traced, without a lock and
 * without a system call, since nearly all frees are of blocks that were
 * not: the traced blocks live in an open-addressed table that frees read
 * without locking. Changes to it (a sample, the free of a sampled block, a
 * rebuild that clears deleted entries) take a lock (its stripe's, below);
 * they are rare. In
 * front of the table, a filter of bits by address answers most frees
 * with one load: a clear bit means no sampled block has that address's
 * bits; a counter per bit, touched only under the lock, says when a bit
 * may be cleared.
 *
 * The bits are 8 KiB in groups, a group per 64 MiB of addresses (glibc
 * gives each thread arena a heap of its own, 64 MiB aligned), its bit by
 * the address's low bits (filter_index). A thread's frees then read the
 * few cache lines of its own arena's group, which stay in its first-level
 * cache, and a sample in another thread's arena writes another group's
 * lines. With one index over all 8 KiB, as before, a free read any of
 * 128 lines, each written by every sample and every free of a sampled
 * block in any thread: the load was most of the free's cost
 * (seed 1006: 28 ns a free, 86% of it on that load; bench/RESULTS.md,
 * h22). A group has 32 bits per sample that 64 MiB of live blocks holds
 * on average (filter_setup), so that it is at most ~3% full when its
 * whole region is live; a free whose bit is another block's looks in the
 * table without entering the agent (agent_entry.h, free_check).
 *
 * The counts stay exact (allocations by size class, bytes, frees,
 * temporaries: a contract, tests/cli/mem.sh samplecounts), at the cost of
 * the countdown alone and one add per call, all in the thread's own
 * memory (tstate.counts; agent_entry.h has the fast path): the bytes are
 * not counted call by call but are what the countdowns took (their draws
 * less what is left, thread_counts.drawn), the size classes are 64 adds
 * with no clamp, a free adds to frees and to temporaries. Nothing on the
 * path writes shared memory. The slot's heap_counts are made from them,
 * and stored (not added: publishing twice is harmless) on each sampled
 * call, and at the ends: the thread's (its key's destructor), an exec's
 * and the process's (exit: agent_fini; _exit) for every thread still
 * there (owners), and a forked child starts from a slot of its own. What
 * is lost: a process killed (SIGKILL, a crash) loses each thread's counts
 * since its last sample, at most about BYTES allocated per thread; a
 * child made by a raw clone() (its own memory, no atfork handlers) loses
 * all its counts (my_pid is its parent's, so no end publishes, and its
 * slot is its parent's: publishing would overwrite the parent's counts;
 * exact mode counts its records into the parent's); and a
 * signal handler that allocates while the same thread's allocation is
 * crossing a sample may move the bytes by its own.
 *
 * The throttle. A sampled call costs a stack walk, two records and the
 * table (~230 ns); a thread that allocates gigabytes a second at the
 * default interval would spend a tenth of its time on them
 * (bench/RESULTS.md, session 21). So a thread samples at most
 * `--sample-rate` times a second, over a second: a token bucket of one
 * second's samples, so that a burst (a short program, a phase) is
 * sampled in full. Every HEAP_THROTTLE_WINDOW samples it reads the clock; once
 * the bucket is empty, if they came faster than the rate its interval
 * doubles for the countdowns it draws from then on; if four times
 * slower, it halves, back down to BYTES. The decision uses only what
 * came before, and each sampled block carries the doublings of the
 * countdown that crossed it (its ALLOC record, HEAP_ALLOC_RAISED): its
 * chance of being sampled was 1 - exp(-s / (BYTES << raised)), whatever
 * came before it, and yardstick weighs it by that (analyze.c, weigh), so
 * every estimate stays unbiased and only its spread grows. JFR throttles
 * allocation samples the same way. With a raised interval the counts are
 * published less often, and a killed thread loses up to that interval's
 * bytes.
 */
#define SAMPLE_MIN_BITS 12
#define SAMPLE_MAX_BITS 24
#define SAMPLE_TOMB ((uintptr_t)1)

struct sample_table {
	_Atomic uintptr_t *cells;
	unsigned bits;
	/* written under the lock on every change, so in a line of their
	 * own: the frees' look-ups read the two above without it */
	_Alignas(64) size_t used;	/* live + deleted cells */
	size_t live;
};

/*
 * The table in stripes by the same 64 MiB regions as the filter's groups
 * (a stripe holds whole groups: there are no more stripes than groups), a
 * table and a lock each: a thread's samples and the frees of its sampled
 * blocks, in its own arena, take a lock no other thread takes, and
 * nothing they write is read by another (seed 41385, 3 threads: the one
 * lock was 1.7% of the run, most of it the lock's cache line moving
 * between the processors).
 */
#define SAMPLE_STRIPES 16
struct sample_stripe {
	_Atomic int lock;	/* 1: taken (sample_lock_take) */
	struct sample_table *_Atomic tab;
} __attribute__((aligned(64)));

static struct sample_stripe stripes[SAMPLE_STRIPES];
static unsigned stripe_mask;	/* stripes in use, less 1 (filter_setup) */

#define FILTER_BITS 16
#define FILTER_REGION_SHIFT 26	/* 64 MiB: a glibc thread arena's heap */
#define FILTER_PER_SAMPLE 32	/* a group's bits per sample it may hold */
/* both page aligned: their pages are written before they are read
 * (agent_pages.h): the filter's at once (filter_setup), the counters'
 * as they are first used */
static _Atomic uint64_t filter[(1 << FILTER_BITS) / 64]
	__attribute__((aligned(1 << WRITTEN_PAGE_SHIFT)));
static uint8_t filter_count[1 << FILTER_BITS]	/* under the stripe's lock */
	__attribute__((aligned(1 << WRITTEN_PAGE_SHIFT)));
static _Atomic uint64_t filter_count_written[WRITTEN_WORDS(
	sizeof(filter_count))];
/* log2 of a group's bits, and the mask of a bit within a group: set once,
 * before any thread samples (filter_setup), read on every free */
static unsigned filter_gshift = FILTER_BITS;
static uintptr_t filter_gmask = ((uintptr_t)1 << FILTER_BITS) - 1;

/* The groups' size for the interval: FILTER_PER_SAMPLE bits per sample
 * that 64 MiB of live blocks holds on average (4096 bits, 8 cache lines,
 * at 512 KiB), 512 (one line) to all the bits. */
static void filter_setup(uint64_t interval)
{
	uint64_t want = ((uint64_t)FILTER_PER_SAMPLE << FILTER_REGION_SHIFT) /
			(interval ? interval : 1);
	unsigned shift = 9;

	while (shift < FILTER_BITS && ((uint64_t)1 << shift) < want)
		shift++;
	filter_gshift = shift;
	filter_gmask = ((uintptr_t)1 << shift) - 1;
	for (size_t i = 0; i < sizeof(filter); i += 1 << WRITTEN_PAGE_SHIFT)
		page_write((volatile unsigned char *)filter + i);
	/* as many stripes as groups, at most SAMPLE_STRIPES */
	shift = FILTER_BITS - shift;
	stripe_mask = (1u << (shift < 4 ? shift : 4)) - 1;
}

/* p's 64 MiB region: its low bits are its group's and its stripe's
 * number. Not hashed: glibc's thread arenas are heaps of 64 MiB side by
 * side, which its low bits tell apart. */
static inline uintptr_t region_of(uintptr_t p)
{
	return p >> FILTER_REGION_SHIFT;
}

/* p's bit: its 64 MiB region's group, and in it its low bits. */
static inline size_t filter_index(uintptr_t p)
{
	return ((region_of(p) << filter_gshift) |
		((p >> 4) & filter_gmask)) &
	       (((size_t)1 << FILTER_BITS) - 1);
}

static inline struct sample_stripe *stripe_of(uintptr_t p)
{
	return &stripes[region_of(p) & stripe_mask];
}

/* May a sampled block be at p? */
static inline bool filter_maybe(uintptr_t p)
{
	size_t i = filter_index(p);

	return (atomic_load_explicit(&filter[i / 64], memory_order_acquire) >>
		(i % 64)) & 1;
}

/* Under p's stripe's lock (a filter word is one group's, a group one
 * stripe's). A counter at 255 stays there: "maybe" for good. */
static void filter_change(uintptr_t p, int by)
{
	size_t i = filter_index(p);
	uint8_t v;
	uint64_t w = atomic_load_explicit(&filter[i / 64],
					  memory_order_relaxed);

	write_first(filter_count_written, filter_count, &filter_count[i]);
	v = filter_count[i];

	if (v == 255)
		return;
	filter_count[i] = (uint8_t)(v + by);
	if (filter_count[i])
		w |= (uint64_t)1 << (i % 64);
	else
		w &= ~((uint64_t)1 << (i % 64));
	atomic_store_explicit(&filter[i / 64], w, memory_order_release);
}
/*
 * A stripe's lock: a flag taken by an exchange and given back by a store
 * (a pthread mutex costs an atomic exchange more and a call each way: two
 * pairs a sampled block, 0.8% of seed 41385 with stripes). Held for a few
 * dozen instructions (a rebuild: a table's cells), by one thread at a time
 * nearly always (its own arena's stripe); one that finds it taken spins a
 * little, then yields the processor (its holder may be waiting for it).
 */
#define SPIN_TRIES 64

static void spin_take(_Atomic int *l)
{
	unsigned n = 0;

	while (atomic_exchange_explicit(l, 1, memory_order_acquire))
		while (atomic_load_explicit(l, memory_order_relaxed)) {
			if (++n < SPIN_TRIES)
				__builtin_ia32_pause();
			else
				sched_yield();
		}
}

static void spin_give(_Atomic int *l)
{
	atomic_store_explicit(l, 0, memory_order_release);
}

/* The stripe marked as the thread's before it is taken and until after
 * it is given: a signal handler's fork in between would wait in
 * sample_fork_prepare for the thread's own lock (tests/cli/mem_forkin.sh,
 * stepresume: it hung there). */
static void sample_lock_take(struct sample_stripe *st)
{
	tls.sample_locked = (uint8_t)(st - stripes + 1);
	atomic_signal_fence(memory_order_seq_cst);
	spin_take(&st->lock);
}

static void sample_lock_give(struct sample_stripe *st)
{
	spin_give(&st->lock);
	atomic_signal_fence(memory_order_seq_cst);
	tls.sample_locked = 0;
}

/*
 * A fork while another thread holds a stripe's lock would leave it held
 * for good in the child, whose sampled calls then wait on it for ever
 * (tests/cli/mem_hostile.sh, fork: 1 run in 37 hung). So the forking
 * thread takes them all first (pthread_atfork's prepare; no thread holds
 * two, so in any order), and the tables are whole in both processes;
 * except the one the forking thread holds itself (a signal handler
 * forking inside the agent's call), which the child makes anew, as it
 * does send_lock.
 */
static void sample_fork_prepare(void)
{
	for (unsigned i = 0; i < SAMPLE_STRIPES; i++)
		if (tls.sample_locked != i + 1)
			spin_take(&stripes[i].lock);
	tls.fork_locked = 1;
}

static void sample_fork_parent(void)
{
	if (tls.fork_locked) {
		tls.fork_locked = 0;
		for (unsigned i = 0; i < SAMPLE_STRIPES; i++)
			if (tls.sample_locked != i + 1)
				spin_give(&stripes[i].lock);
	}
}

static void sample_fork_child(void)
{
	tls.fork_locked = 0;
	tls.sample_locked = 0;
	for (unsigned i = 0; i < SAMPLE_STRIPES; i++)
		atomic_store(&stripes[i].lock, 0);
}

/* A table of 2^bits cells, populated: the frees read its cells before
 * the samples write them, and its hashed cells fill it whole
 * (agent_pages.h). A stripe's first is made by its first sample: most
 * stripes have none. */
static struct sample_table *table_new(unsigned bits)
{
	size_t bytes = sizeof(struct sample_table) +
		       (sizeof(uintptr_t) << bits);
	struct sample_table *t = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS |
				      MAP_POPULATE, -1, 0);

	if (t == MAP_FAILED)
		return NULL;
	t->cells = (_Atomic uintptr_t *)(t + 1);
	t->bits = bits;
	return t;
}

static inline size_t ptr_hash(uintptr_t p, unsigned bits)
{
	return (size_t)((p * 0x9e3779b97f4a7c15u) >> (64 - bits));
}

/* Insert without checks: the caller holds the stripe's lock, t has room. */
static void table_put(struct sample_table *t, uintptr_t p)
{
	size_t mask = ((size_t)1 << t->bits) - 1;

	for (size_t i = ptr_hash(p, t->bits);; i = (i + 1) & mask) {
		uintptr_t v = atomic_load_explicit(&t->cells[i],
						   memory_order_relaxed);

		if (v == 0 || v == SAMPLE_TOMB) {
			if (v == 0)
				t->used++;
			t->live++;
			atomic_store_explicit(&t->cells[i], p,
					      memory_order_release);
			return;
		}
	}
}

/*
 * A table without the deleted cells, twice as large if it is half full of
 * live ones. The old one stays mapped: a free may be reading it. Frees
 * that find their block in it re-check under the lock in the new one.
 */
static struct sample_table *table_rebuild(struct sample_stripe *st,
					  struct sample_table *old)
{
	unsigned bits = old->bits;
	struct sample_table *t;

	if (old->live * 2 > ((size_t)1 << bits))
		bits++;
	if (bits > SAMPLE_MAX_BITS || !(t = table_new(bits)))
		return NULL;
	for (size_t i = 0; i < ((size_t)1 << old->bits); i++) {
		uintptr_t v = atomic_load_explicit(&old->cells[i],
						   memory_order_relaxed);

		if (v > SAMPLE_TOMB)
			table_put(t, v);
	}
	atomic_store_explicit(&st->tab, t, memory_order_release);
	return t;
}

static void sample_setup(void)
{
	filter_setup(sample_bytes);
}

static int64_t sample_interval(struct tstate *t)
{
	double u;

	/* xorshift64*: a uniform in (0, 1] */
	t->rng ^= t->rng >> 12;
	t->rng ^= t->rng << 25;
	t->rng ^= t->rng >> 27;
	u = (double)((t->rng * 0x2545f4914f6cdd1du) >> 11) + 1.0;
	u /= 9007199254740992.0;
	return (int64_t)(-log(u) *
			 (double)(sample_bytes << t->throttle.raised)) + 1;
}

/* The throttle (above; heap/throttle.h), every HEAP_THROTTLE_WINDOW
 * samples of a thread. */
static __attribute__((noinline)) void sample_throttle(struct tstate *t)
{
	struct timespec ts;

	t->window = 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	heap_throttle_step(&t->throttle, (uint64_t)ts.tv_sec * 1000000000u +
			   (uint64_t)ts.tv_nsec, sample_window_ns,
			   sample_bytes);
}

/* The lines sample_add(p) writes, fetched while the countdown is drawn
 * and the counts published (sample_alloc). */
static inline void sample_add_prefetch(uintptr_t p)
{
	struct sample_table *tab = atomic_load_explicit(&stripe_of(p)->tab,
							memory_order_relaxed);

	if (tab)
		__builtin_prefetch(&tab->cells[ptr_hash(p, tab->bits)], 1);
	__builtin_prefetch(&filter_count[filter_index(p)], 1);
}

/* Remember p as sampled; false when the table cannot grow further. */
static bool sample_add(void *p)
{
	struct sample_stripe *st = stripe_of((uintptr_t)p);
	struct sample_table *tab;

	sample_lock_take(st);
	tab = atomic_load_explicit(&st->tab, memory_order_relaxed);
	if (!tab) {		/* the stripe's first sample */
		tab = table_new(SAMPLE_MIN_BITS);
		if (tab)
			atomic_store_explicit(&st->tab, tab,
					      memory_order_release);
	} else if ((tab->used + 1) * 4 > ((size_t)3 << tab->bits)) {
		tab = table_rebuild(st, tab);
	}
	if (tab) {
		table_put(tab, (uintptr_t)p);
		filter_change((uintptr_t)p, 1);
	} else {
		hdr->sample_full = 1;
	}
	sample_lock_give(st);
	return tab != NULL;
}

/* ---- the exact counts --------------------------------------------------- */

/*
 * Each thread owning a slot, by the slot's index: counts_publish_all
 * reads their counts at the process's end. Set and cleared by the owner;
 * a forked child clears the whole table (its parent's threads are not
 * its own).
 */
static struct tstate *_Atomic owners[HEAP_SLOTS];

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* What is left of t's countdown (read from another thread too: once). */
static int64_t countdown(const struct tstate *t)
{
	int64_t n = LOAD(t->sample_left);

	return n > 0 ? n : LOAD(t->left);
}

/* t's counts as the slot's (not dropped: the slot's own), into c. */
static void counts_store(struct heap_counts *c, const struct tstate *t)
{
	const struct thread_counts *k = &t->counts;
	uint64_t last = 0;

	/* on every sample: unrolled, a third of its instructions were the
	 * loops' own */
#pragma GCC unroll 8
	for (int i = 0; i < HEAP_HIST - 1; i++)
		STORE(c->hist[i], LOAD(k->hist[i]));
#pragma GCC unroll 8
	for (int i = HEAP_HIST - 1; i < 64; i++)
		last += LOAD(k->hist[i]);
	STORE(c->hist[HEAP_HIST - 1], last);
	STORE(c->frees, LOAD(k->frees));
	STORE(c->temporary, LOAD(k->temporary));
	STORE(c->bytes, (uint64_t)(LOAD(k->drawn) - countdown(t)));
}

/*
 * The thread took slot s: its counts go on from the slot's (a slot's
 * counts are those of all its owners, one after another).
 */
static void counts_take(struct tstate *t, struct heap_slot *s)
{
	struct thread_counts *k = &t->counts;

	memset(k, 0, sizeof(*k));
	for (int i = 0; i < HEAP_HIST; i++)
		k->hist[i] = s->counts.hist[i];
	k->frees = s->counts.frees;
	k->temporary = s->counts.temporary;
	k->drawn = (int64_t)s->counts.bytes + countdown(t);
	k->given = s->counts;
	atomic_store_explicit(&owners[s - hdr->slots], t,
			      memory_order_release);
}

/* Add what t counted since it last did (its own, sampled mode; its
 * slot's, exact mode) to its image's counts: so the launchers' can be
 * taken off the tree's (analyze.c). */
static void counts_to_image(struct tstate *t)
{
	struct heap_counts now, *g = &t->counts.given, *im;

	if (!hdr || !t->slot || generation >= HEAP_IMAGES)
		return;
	im = &hdr->images[generation].counts;
	if (sample_bytes) {
		counts_store(&now, t);
	} else {
		const struct heap_counts *c = &t->slot->counts;

		now.bytes = LOAD(c->bytes);
		now.frees = LOAD(c->frees);
		now.temporary = LOAD(c->temporary);
		for (int i = 0; i < HEAP_HIST; i++)
			now.hist[i] = LOAD(c->hist[i]);
	}
#define GIVE(f)								\
	do {								\
		if (now.f > g->f)					\
			__atomic_fetch_add(&im->f, now.f - g->f,	\
					   __ATOMIC_RELAXED);		\
		g->f = now.f;						\
	} while (0)
	GIVE(bytes);
	GIVE(frees);
	GIVE(temporary);
	for (int i = 0; i < HEAP_HIST; i++)
		GIVE(hist[i]);
#undef GIVE
}

/* The image's end (exit, _exit, a successful exec): its counts whole. */
static void counts_image_done(void)
{
	if (hdr && generation < HEAP_IMAGES)
		__atomic_store_n(&hdr->images[generation].counted, 1,
				 __ATOMIC_RELEASE);
}

/* The thread's counts into its slot (sampled mode; a no-op in exact). */
static void counts_publish(struct tstate *t)
{
	if (sample_bytes && t->slot)
		counts_store(&t->slot->counts, t);
}

/* The thread gives its slot back: its counts, published, are the slot's. */
static void counts_give(struct tstate *t)
{
	if (!t->slot)
		return;
	counts_publish(t);
	counts_to_image(t);
	atomic_store_explicit(&owners[t->slot - hdr->slots], NULL,
			      memory_order_release);
}

/*
 * Every thread's counts into its slot: at the process's end (exit,
 * _exit) and before an exec, which end the threads without their
 * destructors. The other threads may still be counting: each count
 * published is one they had reached (the copy stores, so a later
 * publication by the owner only moves it on).
 */
static void counts_publish_all(void)
{
	if (!hdr)
		return;
	for (int i = 0; i < HEAP_SLOTS; i++) {
		struct tstate *t = atomic_load_explicit(&owners[i],
							memory_order_acquire);

		if (t && t->slot == &hdr->slots[i]) {
			if (sample_bytes)
				counts_store(&hdr->slots[i].counts, t);
			counts_to_image(t);
		}
	}
	counts_image_done();
}

/* A forked child: none of the owners is its thread. */
static void counts_forget_all(void)
{
	for (int i = 0; i < HEAP_SLOTS; i++)
		atomic_store_explicit(&owners[i], NULL, memory_order_relaxed);
}

/*
 * Is the allocation of size bytes at p to be traced? The sampled call
 * also publishes the thread's counts: they are at most an interval late.
 */
static inline bool sample_alloc(struct tstate *t, void *p, size_t size)
{
	int64_t next;

	t->left -= (int64_t)size;
	if (likely(t->left > 0))
		return false;
	sample_add_prefetch((uintptr_t)p);
	t->rec_raised = t->throttle.raised;	/* what it was drawn at */
	if (sample_window_ns && ++t->window >= HEAP_THROTTLE_WINDOW)
		sample_throttle(t);
	next = sample_interval(t);
	t->counts.drawn += next - t->left;
	t->left = next;
	counts_publish(t);
	return sample_add(p);
}

static bool table_find(struct sample_table *t, uintptr_t p, size_t *at)
{
	size_t mask;

	if (!t)			/* a stripe not sampled yet */
		return false;
	mask = ((size_t)1 << t->bits) - 1;
	for (size_t i = ptr_hash(p, t->bits);; i = (i + 1) & mask) {
		uintptr_t v = atomic_load_explicit(&t->cells[i],
						   memory_order_acquire);

		if (v == p) {
			*at = i;
			return true;
		}
		if (v == 0)
			return false;
	}
}

/* Is p in the table? Without the lock: for p's own free (free_check). */
static bool sample_held(void *p)
{
	size_t at;

	return table_find(atomic_load_explicit(&stripe_of((uintptr_t)p)->tab,
					       memory_order_acquire),
			  (uintptr_t)p, &at);
}

/* sample_free's look-up in the table, for the blocks the filter let by. */
static __attribute__((noinline)) bool sample_forget(void *p)
{
	struct sample_stripe *st = stripe_of((uintptr_t)p);
	struct sample_table *t;
	bool found;
	size_t at;

	t = atomic_load_explicit(&st->tab, memory_order_acquire);
	if (!table_find(t, (uintptr_t)p, &at))
		return false;
	sample_lock_take(st);
	t = atomic_load_explicit(&st->tab, memory_order_relaxed);
	found = table_find(t, (uintptr_t)p, &at);
	if (found) {
		atomic_store_explicit(&t->cells[at], SAMPLE_TOMB,
				      memory_order_relaxed);
		t->live--;
		filter_change((uintptr_t)p, -1);
	}
	sample_lock_give(st);
	return found;
}

/* Was the block at p traced? If so it is forgotten: it is being freed. */
static inline __attribute__((always_inline)) bool sample_free(void *p)
{
	if (likely(!filter_maybe((uintptr_t)p)))
		return false;
	return sample_forget(p);
}
