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

/* glibc's pthread_getattr_np (the agent defines its own, below): found
 * by start() */
typedef int (*getattr_fn)(pthread_t, pthread_attr_t *);
static getattr_fn next_getattr;

/*
 * The next definition of name, looked up as the agent's own call: what
 * dlsym allocates and frees (glibc's dlerror buffer, which an earlier
 * lookup left) is not the program's. Counted, the frees made sampled
 * mode's "freed" larger than exact mode's by two at every exec. Only
 * the thread's flags change, and they are put back (a vfork child runs
 * here in its parent's memory).
 */
static void *real_sym(const char *name)
{
	struct tstate *t = &tls;
	uint8_t busy = t->busy;
	int64_t open = t->sample_left;
	void *f;

	t->busy = 1;		/* the slow paths: not entered */
	t->sample_left = 0;	/* the fast path: closed */
	f = dlsym(RTLD_NEXT, name);
	t->sample_left = open;
	t->busy = busy;
	return f;
}

/*
 * The bounds of the stack sp is on, from /proc/self/maps: the mapping
 * that holds it (a thread's stack, its guard page apart), or for the
 * main thread's "[stack]", which the kernel grows on demand, its limit
 * as pthread_getattr_np gives it: RLIMIT_STACK below its top, not past
 * the mapping below. Unknown (0) if /proc cannot be read.
 */
static void stack_bounds_maps(struct tstate *t, uintptr_t sp)
{
	struct maps_find f;
	struct rlimit rl;
	char buf[1024];
	int saved = errno;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		errno = saved;
		return;
	}
	maps_find_init(&f, sp);
	for (;;) {
		ssize_t r = read(fd, buf, sizeof(buf));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		maps_feed(&f, buf, (size_t)r);
	}
	close(fd);
	maps_finish(&f);
	errno = saved;
	if (!f.hi)
		return;
	t->stack_hi = f.hi;
	t->stack_lo = f.lo;
	if (f.stack) {
		t->stack_lo = f.below;
		if (!getrlimit(RLIMIT_STACK, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur < f.hi - f.below)
			t->stack_lo = (f.hi - rl.rlim_cur) & ~(uintptr_t)4095;
		errno = saved;
	}
}

/*
 * The thread's stack bounds, from pthread_getattr_np. Not inside a call
 * of it (t->in_getattr, pthread_getattr_np below): it holds the lock of
 * the thread it asks about while it allocates, and a thread whose first
 * allocation comes from there (every Rust program's main thread, a JVM's
 * threads, a C thread that asks for its own stack first) would wait for
 * itself forever; from /proc/self/maps then, at the program's stack
 * pointer sp.
 */
static void stack_bounds(struct tstate *t, uintptr_t sp)
{
	pthread_attr_t a;
	void *lo;
	size_t size;

	if (t->in_getattr || !next_getattr) {
		stack_bounds_maps(t, sp);
		return;
	}
	/* may allocate (and read /proc for the main thread): t->busy is set,
	 * signals are blocked (signals_hold), and the blocks come from
	 * scratch */
	t->scratch_used = 0;
	t->in_scratch = 1;
	if (!next_getattr(pthread_self(), &a)) {
		if (!pthread_attr_getstack(&a, &lo, &size)) {
			t->stack_lo = (uintptr_t)lo;
			t->stack_hi = (uintptr_t)lo + size;
		}
		pthread_attr_destroy(&a);
	}
	t->in_scratch = 0;
}

/* ---- pthread_getattr_np ------------------------------------------------- */

/*
 * The program's pthread_getattr_np, marked for stack_bounds (glibc's
 * allocations inside it, which may be the thread's first call, must not
 * ask it again). For any thread asked about: two threads asking about
 * each other in their first calls would wait for each other.
 */
EXPORT int pthread_getattr_np(pthread_t th, pthread_attr_t *attr)
{
	struct tstate *t = &tls;
	int r;

	if (!next_getattr)	/* before start */
		next_getattr = (getattr_fn)real_sym("pthread_getattr_np");
	if (!next_getattr)
		return ENOSYS;
	t->in_getattr++;
	r = next_getattr(th, attr);
	t->in_getattr--;
	return r;
}
