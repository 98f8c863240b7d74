/*
 * The entry points the agent interposes (included by agent.c only, after
 * everything they call): malloc, free, calloc, realloc and the aligned
 * allocators, each its sampled mode's fast path inline and the rest out of
 * line.
 */
/*
 * Sampled mode's fast path (open while t->sample_left is above 0): an
 * allocation that is not sampled (fewer bytes than are left until the
 * next sample) and a free of a block the filter says was not
 * (agent_sample.h) are counted, nothing more: no time stamp, no stack, no
 * record, no store outside the thread's own memory, the thread not even
 * marked busy. What a call costs is the countdown's subtraction (which
 * also counts its bytes), one add to its size class, the block kept as
 * the thread's last (for temporaries); for a free, the filter's bit, the
 * comparison with the last block and one add. Each change is a single
 * instruction on the thread's own memory, so that a signal handler's call
 * on the same thread cannot come between a read and its write.
 */

/*
 * Take size bytes off the countdown: true if the fast path is open and
 * the call is not sampled. Otherwise the subtraction is undone (a closed
 * path stays at 0 or below whatever a signal handler does meanwhile).
 */
INLINE bool fast_alloc(struct tstate *t, size_t size)
{
	/* no output operand: GCC 12 miscompiles asm goto with one (the
	 * jump went to the fall-through's code); the memory clobber says
	 * that the countdown changed */
	__asm__ goto("subq %1, %0\n\tjle %l[slow]"
		     : : "m"(t->sample_left), "r"(size) : "cc", "memory"
		     : slow);
	return true;
slow:
	add_count((uint64_t *)&t->sample_left, size);
	return false;
}

/*
 * An allocation of size bytes (above 0) that returned NULL: counted in
 * the segment's header, for the report to say that the program ran out
 * of memory (rare: one atomic add, safe in a signal handler).
 */
static __attribute__((noinline, cold)) void note_failed(size_t size)
{
	if (size && hdr)
		__atomic_fetch_add(&hdr->failed_allocs, 1, __ATOMIC_RELAXED);
}

INLINE void *fast_alloc_done(struct tstate *t, void *p, size_t size)
{
	if (likely(p != NULL)) {
		count_thread(size);
		t->last_alloc = p;
	} else {
		add_count((uint64_t *)&t->sample_left, size);
		note_failed(size);
	}
	return p;
}

INLINE bool fast_open(const struct tstate *t)
{
	return t->sample_left > 0;
}

INLINE bool fast_free(struct tstate *t, void *p)
{
	if (likely(fast_open(t)) && likely(!filter_maybe((uintptr_t)p))) {
		count_free_thread(t, p);
		return true;
	}
	return false;
}

/*
 * Each entry point is its fast path, and a call (a jump, the compiler
 * makes it a tail call) to the rest out of line: inlined, the rest would
 * make the compiler save five registers on every call. Stack walks skip
 * every frame in the agent's code, whichever of them the compiler kept
 * (in_agent, agent_frame).
 */
#define SLOW static __attribute__((noinline))

SLOW void *malloc_slow(size_t size)
{
	struct tstate *t;
	void *p;

	if (unlikely(tls.in_scratch))
		return scratch_alloc(&tls, size);
	sample_prefetch(&tls);
	t = enter();
	p = forward.malloc(size);

	if (t) {
		if (p)
			after_alloc(t, p, size);
		leave(t);
	}
	if (!p)
		note_failed(size);
	return p;
}

EXPORT void *malloc(size_t size)
{
	struct tstate *t = &tls;

	if (fast_alloc(t, size))
		return fast_alloc_done(t, forward.malloc(size), size);
	return malloc_slow(size);
}

SLOW void free_slow(void *p)
{
	struct tstate *t;
	uint64_t ts;
	bool traced;

	if (unlikely(in_scratch(&tls, p)))
		return;
	t = enter();
	if (!t) {
		forward.free(p);
		return;
	}
	traced = traced_free(p);
	ts = traced ? stamp() : 0;
	forward.free(p);
	trace_free(t, p, ts, traced);
	leave(t);
}

/*
 * A free the filter let by (its bit is some sampled block's, or the fast
 * path is closed): a block the table does not hold is freed as on the
 * fast path, without entering the agent (the thread marked busy, its
 * slot marked busy in the shared segment): with a filter in groups a few
 * percent of frees come here (agent_sample.h). The table read without
 * the lock cannot miss p: it was put there before its malloc returned,
 * and only the free of p itself takes it out.
 */
SLOW void free_check(void *p)
{
	struct tstate *t = &tls;

	if (likely(fast_open(t))) {
		if (!sample_held(p)) {
			count_free_thread(t, p);
			forward.free(p);
			return;
		}
		record_prefetch(t);	/* the FREE's: free_slow */
	}
	free_slow(p);
}

EXPORT void free(void *p)
{
	if (!p)
		return;
	if (fast_free(&tls, p)) {
		forward.free(p);
		return;
	}
	free_check(p);
}

SLOW void *calloc_slow(size_t n, size_t size)
{
	struct tstate *t;
	size_t total;
	void *p;

	if (unlikely(tls.in_scratch) &&
	    !__builtin_mul_overflow(n, size, &total)) {
		p = scratch_alloc(&tls, total);
		if (p)
			memset(p, 0, total);
		return p;
	}
	sample_prefetch(&tls);
	t = enter();
	p = forward.calloc(n, size);

	if (t) {
		if (p)
			after_alloc(t, p, n * size);
		leave(t);
	}
	if (!p)
		note_failed(n && size);
	return p;
}

EXPORT void *calloc(size_t n, size_t size)
{
	struct tstate *t = &tls;
	size_t total;

	if (!__builtin_mul_overflow(n, size, &total) && fast_alloc(t, total))
		return fast_alloc_done(t, forward.calloc(n, size), total);
	return calloc_slow(n, size);
}

SLOW void *realloc_slow(void *old, size_t size)
{
	struct tstate *t;
	bool traced = false;
	uint64_t ts = 0;
	void *p;

	if (unlikely(tls.in_scratch))
		return scratch_realloc(&tls, old, size);
	sample_prefetch(&tls);
	t = enter();
	if (!t) {
		p = forward.realloc(old, size);
		if (!p)
			note_failed(size);
		return p;
	}
	if (old && (traced = traced_free(old)))
		ts = stamp();
	p = forward.realloc(old, size);
	/* realloc(p, 0) frees p and may return NULL; a failure keeps it
	 * (and, sampled, keeps it sampled) */
	if (old && (p || size == 0))
		trace_free(t, old, ts, traced);
	else if (traced && sample_bytes)
		sample_add(old);	/* still live, still sampled */
	if (p)
		after_alloc(t, p, size);
	else
		note_failed(size);
	leave(t);
	return p;
}

INLINE void *do_realloc(void *old, size_t size)
{
	struct tstate *t = &tls;
	void *p;

	if (likely(fast_open(t)) && (!old || !filter_maybe((uintptr_t)old)) &&
	    fast_alloc(t, size)) {
		p = forward.realloc(old, size);
		if (old && (p || size == 0))
			count_free_thread(t, old);
		return fast_alloc_done(t, p, size);
	}
	return realloc_slow(old, size);
}

EXPORT void *realloc(void *old, size_t size)
{
	return do_realloc(old, size);
}

EXPORT void *reallocarray(void *old, size_t n, size_t size)
{
	size_t total;

	if (__builtin_mul_overflow(n, size, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return do_realloc(old, total);
}

INLINE void *aligned(size_t align, size_t size)
{
	struct tstate *t = enter();
	void *p = forward.memalign(align, size);

	if (t) {
		if (p)
			after_alloc(t, p, size);
		leave(t);
	}
	if (!p)
		note_failed(size);
	return p;
}

EXPORT void *memalign(size_t align, size_t size)
{
	return aligned(align, size);
}

EXPORT void *aligned_alloc(size_t align, size_t size)
{
	if (!align || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	return aligned(align, size);
}

EXPORT int posix_memalign(void **out, size_t align, size_t size)
{
	void *p;
	int saved = errno;

	if (!align || (align & (align - 1)) || align % sizeof(void *))
		return EINVAL;
	p = aligned(align, size);
	if (!p)
		return ENOMEM;
	errno = saved;
	*out = p;
	return 0;
}

EXPORT void *valloc(size_t size)
{
	return aligned((size_t)sysconf(_SC_PAGESIZE), size);
}

EXPORT void *pvalloc(size_t size)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (size > SIZE_MAX - page) {
		errno = ENOMEM;
		return NULL;
	}
	return aligned(page, size ? (size + page - 1) & ~(page - 1) : page);
}
