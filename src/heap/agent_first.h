/*
 * A thread's first call into the agent (included by agent.c only, after
 * the thread state): its stack's bounds from pthread_getattr_np, whose
 * own allocations come from the thread's scratch, with the signals held
 * until the call is done.
 */
/*
 * pthread_getattr_np allocates (an affinity buffer, grown as needed, and
 * its copy in the attributes), and its calls reach our entry points. In
 * a new thread they would be the first blocks of its new arena, before
 * the program's: glibc's layout shifted by them changes when it trims
 * the arena, and a program whose pattern sits at the trim threshold then
 * trims and faults twice as often as without us (bench/RESULTS.md, seed
 * 3451). So while stack_bounds runs they come from the thread's scratch,
 * each after a 16-byte header holding its size, and are all freed before
 * it ends; past the scratch they come from glibc. Only glibc's calls
 * inside pthread_getattr_np reach it (signals are blocked meanwhile), so
 * no scratch block is ever seen outside that window.
 */
static bool in_scratch(const struct tstate *t, const void *p)
{
	return t->scratch && (uintptr_t)p >= (uintptr_t)t->scratch &&
	       (uintptr_t)p < (uintptr_t)t->scratch + SCRATCH_BYTES;
}

static void *scratch_alloc(struct tstate *t, size_t size)
{
	size_t at = t->scratch_used;
	size_t need = 16 + ((size + 15) & ~(size_t)15);

	if (!t->scratch || size > SCRATCH_BYTES || need > SCRATCH_BYTES - at)
		return forward.malloc(size);
	memcpy(&t->scratch[at], &size, sizeof(size));
	t->scratch_used = (uint16_t)(at + need);
	return &t->scratch[at + 16];
}

static void *scratch_realloc(struct tstate *t, void *old, size_t size)
{
	size_t had;
	void *p;

	if (old && !in_scratch(t, old))
		return forward.realloc(old, size);
	p = scratch_alloc(t, size ? size : 1);
	if (old && p) {
		memcpy(&had, (unsigned char *)old - 16, sizeof(had));
		memcpy(p, old, had < size ? had : size);
	}
	return p;
}

/*
 * Block the signals for the rest of the thread's first call, from before
 * stack_bounds (whose allocations come from scratch: a handler's would
 * too, and a block it kept would outlive the scratch, freed to glibc from
 * another thread or through the fast path, handed out again after a
 * fork, gone with the thread: tests/cli/mem_hostile.sh) to leave: a
 * handler that would have run meanwhile runs once the call is done, its
 * own calls traced (inside the call they would not be, the thread busy).
 * glibc leaves its own two signals alone (they allocate nothing).
 */
static void signals_hold(struct tstate *t)
{
	sigset_t all, old;

	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old))
		return;
	memcpy(&t->held, &old, sizeof(t->held));
	t->masked = 1;
}

static void signals_release(struct tstate *t)
{
	sigset_t old;

	sigemptyset(&old);
	memcpy(&old, &t->held, sizeof(t->held));
	t->masked = 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void stack_bounds(struct tstate *t)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	/* may allocate (and read /proc for the main thread): t->busy is set,
	 * signals are blocked (signals_hold), and the blocks come from
	 * scratch */
	t->scratch_used = 0;
	t->in_scratch = 1;
	if (!pthread_getattr_np(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &size)) {
			t->stack_lo = (uintptr_t)lo;
			t->stack_hi = (uintptr_t)lo + size;
		}
		pthread_attr_destroy(&a);
	}
	t->in_scratch = 0;
}
