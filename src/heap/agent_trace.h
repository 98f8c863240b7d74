/*
 * A traced allocation's record, with its stack (included by agent.c only,
 * after the record's writers): trace_alloc, out of line, and its work,
 * trace_body, on the agent's own stack where the program's is short
 * (agent_stack.h).
 */
/*
 * Record the allocation of size bytes at p with its stack: out of line,
 * so that the entry points' fast path (nothing to record in sampled mode)
 * stays small. The stack starts at the program's call into the agent:
 * our frames, up to the entry point's, are left out (agent_frame).
 */
/*
 * The stack below fp that libunwind's walk needs when it runs on the
 * program's stack, the thread having no stack of the agent's
 * (agent_stack.h; it used 11.4 KiB below the program's frame on a
 * thread's first traced call): a thread with less left is walked by frame
 * pointers. Unknown bounds (0) are taken to leave room.
 */
#define UNW_STACK_NEED (16 * 1024)

INLINE bool unw_room(const struct tstate *t, uintptr_t fp)
{
	return !t->stack_lo || fp - t->stack_lo >= UNW_STACK_NEED;
}

/* A traced allocation, as trace_alloc hands it to trace_body. */
struct trace_call {
	struct tstate *t;
	void *p;
	size_t size;
	uintptr_t fp0;		/* trace_alloc's frame, on the program's stack */
	bool alt;		/* trace_body is on the agent's stack */
};

static __attribute__((noinline)) void trace_body(void *arg)
{
	const struct trace_call *c = arg;
	struct tstate *t = c->t;
	void *ips[HEAP_MAX_DEPTH];
	uint64_t pyf[HEAP_PY_MAX], h;
	struct stack_ref st = { ips, pyf, 0, 0 };
	struct stack_entry scratch, *e = NULL;
	bool sent;

	if (likely(use_unw) && (c->alt || likely(unw_room(t, c->fp0)))) {
#ifdef HEAP_STATS
		uint64_t t0 = __rdtsc(), f0 = heap_stats[ST_FILL];

		STAT_INC(ST_CALLS);
#endif
		e = unwind_stack(t, c->fp0, &scratch);
#ifdef HEAP_STATS
		STAT_SINCE(heap_stats[ST_FILL] != f0 ? ST_CYC_FILL :
			   e == &scratch ? ST_CYC_TRACE : ST_CYC_HIT, t0);
#endif
		st.ips = (void *const *)e->ips;
		st.n = (int)e->depth;
		h = e->hash;
		if (e == &scratch)	/* not cached: no flags of its own */
			e = NULL;
	} else {
		/* from the frame of the agent's outermost function: its
		 * return address is the first of the program's */
		st.n = walk_fp(ips, (int)max_depth, agent_frame(c->fp0), t);
		h = hash_stack(ips, st.n);
	}
	/* a thread past its end (no slot) has no Python frames left */
	if (py.on && t->slot) {
		STAT_T0(t1);

		st.m = py_walk_words(t, t->slot, pyf);
		STAT_SINCE(ST_CYC_PY, t1);
		STAT_INC(ST_PY_WALKS);
		STAT_ADD(ST_PY_FRAMES, (uint64_t)st.m);
		if (st.m)
			h = py_hash(h, pyf, st.m);
	}
	/* a cached stack sent once is not looked up in seen again (a miss
	 * there, after the program's work since the last sample); with
	 * Python frames the hash is not the entry's */
	if (st.m)
		e = NULL;
	sent = e && (e->flags & STACK_SENT);
	record_alloc(t, c->p, c->size, &st, h, &sent);
	if (e && sent)
		e->flags |= STACK_SENT;
}

/* trace_body on the program's stack where it has ALT_ROOM left below,
 * else on the agent's (agent_stack.h): a thread's small stack, or one the
 * thread's bounds do not hold (a coroutine's). */
static __attribute__((noinline)) void trace_alloc(struct tstate *t, void *p,
						   size_t size)
{
	struct trace_call c = { t, p, size,
				(uintptr_t)__builtin_frame_address(0), false };
	void *top;

	t->walk_lo = c.fp0;
	if (likely(c.fp0 >= t->stack_lo + ALT_ROOM && c.fp0 < t->stack_hi) ||
	    !(top = alt_stack_top(t))) {
		trace_body(&c);
		return;
	}
	c.alt = true;
	run_on_stack(top, trace_body, &c);
}

