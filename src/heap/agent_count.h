/*
 * The exact counts (included by agent.c only): an allocation's and a
 * free's, into the slot's counts (exact mode) or the thread's own
 * (sampled mode: agent_sample.h publishes them).
 */
/*
 * *x += v in one instruction: a signal handler's allocation on the same
 * thread, counted by the fast path (which does not mark the thread
 * busy), cannot come between the read and the write.
 */
INLINE void add_count(uint64_t *x, uint64_t v)
{
	__asm__("addq %1, %0" : "+m"(*x) : "er"(v));
}

/* The size class of a block of size bytes: its bit length, 0 for 0 (2 *
 * size + 1 cannot overflow: no block of 2^63 bytes was ever obtained). */
INLINE unsigned size_class(size_t size)
{
	return 63 - (unsigned)__builtin_clzll(2 * size + 1);
}

/* Exact mode: count an allocation of size bytes into the slot's c. */
INLINE void count_into(struct heap_counts *c, size_t size)
{
	unsigned k = size_class(size);

	if (unlikely(k >= HEAP_HIST))
		k = HEAP_HIST - 1;
	/* the allocations are the histogram's sum (protocol.h) */
	add_count(&c->hist[k], 1);
	add_count(&c->bytes, size);
}

/*
 * Sampled mode: count an allocation of size bytes into the thread's own
 * counts; its bytes are already in the countdown (agent_sample.h).
 */
INLINE void count_thread(size_t size)
{
	/* the thread's own tls, addressed from the thread pointer in the
	 * add itself: the compiler would compute the element's address
	 * first (two more instructions) */
	uintptr_t off = (uintptr_t)&tls - (uintptr_t)__builtin_thread_pointer();

	__asm__("addq $1, %%fs:%c1(%0,%2,8)"
		: : "r"(off), "i"(offsetof(struct tstate, counts.hist)),
		  "r"((uint64_t)size_class(size)) : "memory");
}

INLINE void count_alloc(struct tstate *t, void *p, size_t size)
{
	if (likely(t->slot != NULL)) {
		if (sample_bytes)
			count_thread(size);
		else
			count_into(&t->slot->counts, size);
	}
	t->last_alloc = p;
}

/* Exact mode: count the free of p into the slot's c; whether it is a
 * temporary. */
INLINE bool count_free_into(struct tstate *t, struct heap_counts *c,
			    void *p)
{
	bool temp = p == t->last_alloc;

	add_count(&c->frees, 1);
	add_count(&c->temporary, temp);
	t->last_alloc = NULL;
	return temp;
}

/* Sampled mode: the same into the thread's own counts. */
INLINE bool count_free_thread(struct tstate *t, void *p)
{
	bool temp = p == t->last_alloc;

	add_count(&t->counts.frees, 1);
	add_count(&t->counts.temporary, temp);
	t->last_alloc = NULL;
	return temp;
}

INLINE bool count_free(struct tstate *t, void *p)
{
	bool temp = p == t->last_alloc;

	if (unlikely(t->slot == NULL))
		t->last_alloc = NULL;
	else if (sample_bytes)
		count_free_thread(t, p);
	else
		count_free_into(t, &t->slot->counts, p);
	return temp;
}
