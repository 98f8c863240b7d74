/*
 * The agent's stack walk with libunwind (`--unwind dwarf`, the default),
 * included by agent.c only.
 *
 * libunwind is dlopen'ed local to the agent: the program's own unwinder
 * symbols (_Unwind_*, which libunwind.so.8 also exports) stay the ones it
 * linked with. Three walks, cheapest first:
 *
 * 1. A hit in the thread's cache of stacks it walked, keyed by where the
 *    entry point returns to and the stack pointer there. A key alone does
 *    not prove the stack the same (two callers of one function can leave
 *    their frames at the same depth), so a hit is verified: every return
 *    address of the cached stack must still be in the stack slot it was
 *    read from. Same starting point, same return addresses in the same
 *    slots: the unwinder would find the same frames, for the rules of each
 *    frame depend on its address alone. The cache is set-associative
 *    (STACK_WAYS entries a set), and a set may hold one key's stack more
 *    than once (its callers differ).
 * 2. libunwind's own fast trace (unw_backtrace: on x86-64, a per-thread
 *    table of each return address's rule, CFA = RSP or RBP + offset, the
 *    return address at CFA - 8, RBP saved at CFA + offset, or a signal
 *    frame's saved context; a frame it has never seen is stepped once with
 *    the full unwinder and its rule kept; a frame of any other shape makes
 *    it start again with the full walk). A few loads a frame and no lock,
 *    but no stack slots: its stacks cannot be cached. Taken on a miss when
 *    the set is full, and for keys whose stack could not be cached.
 * 3. The full walk (unw_step, frame by frame: each frame's unwind info
 *    found through dl_iterate_phdr, under the loader's lock, unless in
 *    libunwind's cache of register states), which keeps the slots: taken
 *    to fill an empty way of the set, and to replace a way (in turn) once
 *    the set has missed STACK_REFILL times since its last fill, so that a
 *    stack that keeps coming back gets cached again.
 *
 * All three give the same frames (tests/cli/mem_unwind.sh compares them
 * with YARDSTICK_HEAP_UNWIND=full, which makes every walk a full one), the
 * agent's leading frames left out and the stack cut at max_depth.
 *
 * Stacks whose return addresses were not in the slot below their caller's
 * stack pointer (a signal frame) are not cached, nor are those with a
 * slot outside the thread's stack above the walk's own frame (a
 * coroutine's stack may be gone by the next call): the slots of a cached
 * stack are read on every hit, and only memory that stays mapped may be.
 * Their key is kept with no stack (STACK_NOCACHE), so that they go to the
 * fast trace rather than to another full walk.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

typedef int (*unw_getcontext_fn)(unw_context_t *);
typedef int (*unw_init_local_fn)(unw_cursor_t *, unw_context_t *);
typedef int (*unw_step_fn)(unw_cursor_t *);
typedef int (*unw_get_reg_fn)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
typedef int (*unw_backtrace_fn)(void **, int);

static unw_getcontext_fn unw_getctx;
static unw_init_local_fn unw_init;
static unw_step_fn unw_stp;
static unw_get_reg_fn unw_reg;
static unw_backtrace_fn unw_trace;	/* NULL: full walks on a miss */

#define STACK_SET_BITS 8		/* 256 sets */
#define STACK_WAYS 4		/* of 4 stacks: 1 MiB of address space a
				 * thread, touched as it fills */
#define STACK_REFILL 8		/* misses of a full set between fills */
#define STACK_NOCACHE 1		/* flags: the key's stack is not cacheable */

struct stack_entry {
	uintptr_t ip0, sp0;	/* the key: the entry point's return; ip0
				 * 0: an empty way */
	uint64_t hash;
	uint32_t depth, flags;
	uintptr_t ips[HEAP_MAX_DEPTH];
	uintptr_t slots[HEAP_MAX_DEPTH];	/* where each was read */
};

struct stack_set {
	struct stack_entry way[STACK_WAYS];
	uint32_t misses;	/* since the last fill */
	uint32_t victim;	/* the way the next refill takes */
};

/* YARDSTICK_HEAP_UNWIND=full (heap_header.full_walks): no cache, no fast
 * trace, every walk a full one: the reference the others are tested
 * against. */
static bool full_walks;

/*
 * libunwind blocks every signal around each search for a frame's unwind
 * info (dl_iterate_phdr in dwarf_find_proc_info) and around each use of
 * its global cache: a pair of rt_sigprocmask system calls per frame step,
 * most of the cost of `mem` on a program with deep and varied stacks (a
 * compiler: 3.3 times faster without them). It does so in case a signal
 * handler unwinds on the same thread while it holds a lock. Our walks take
 * none: the cache is per thread (load_libunwind) and dl_iterate_phdr's
 * lock is recursive; and a handler's allocations never walk again while
 * the thread is busy in the agent. So while a thread walks, sigprocmask
 * called from libunwind's own code is a no-op (both the blocking call and
 * the restoring one, in the same function). The agent is preloaded, so
 * this definition is the one libunwind binds to; every other call, the
 * program's and a signal handler's during a walk included, is the C
 * library's (whose sigprocmask is pthread_sigmask with errno).
 */
static uintptr_t unw_text_lo, unw_text_hi;	/* libunwind's code */

EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	uintptr_t from = (uintptr_t)__builtin_return_address(0);
	int err;

	if (tls.in_walk && from >= unw_text_lo && from < unw_text_hi)
		return 0;
	err = pthread_sigmask(how, set, old);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

static void load_libunwind(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	int (*set_policy)(unw_addr_space_t, unw_caching_policy_t) = NULL;
	unw_addr_space_t *space = NULL;

	if (h) {
		unw_getctx = (unw_getcontext_fn)dlsym(h, "_Ux86_64_getcontext");
		unw_init = (unw_init_local_fn)dlsym(h, "_ULx86_64_init_local");
		unw_stp = (unw_step_fn)dlsym(h, "_ULx86_64_step");
		unw_reg = (unw_get_reg_fn)dlsym(h, "_ULx86_64_get_reg");
		unw_trace = (unw_backtrace_fn)dlsym(h, "unw_backtrace");
		set_policy = (int (*)(unw_addr_space_t, unw_caching_policy_t))
			dlsym(h, "_ULx86_64_set_caching_policy");
		space = dlsym(h, "_ULx86_64_local_addr_space");
	}
	if (hdr->full_walks)
		full_walks = true;
	/* without a per-thread cache, signals stay blocked in walks */
	if (set_policy && space && unw_stp &&
	    set_policy(*space, UNW_CACHE_PER_THREAD) == 0)
		text_of((uintptr_t)unw_stp, &unw_text_lo, &unw_text_hi);
	if (!unw_getctx || !unw_init || !unw_stp || !unw_reg) {
		unw_getctx = NULL;
		hdr->unwind_failed = 1;
	}
}

/* The thread's cache, or NULL (then no walk is cached). */
static struct stack_set *stack_cache_new(void)
{
	void *p;

	if (full_walks)
		return NULL;
	p = mmap(NULL, sizeof(struct stack_set) << STACK_SET_BITS,
		       PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A full walk from our caller's frame (trace_alloc's: noinline, so the
 * frames are trace_alloc, the entry point, then the program's) into e,
 * keeping the stack slot of each return address. Returns whether the
 * stack may be cached.
 */
static __attribute__((noinline)) bool walk_unw(struct stack_entry *e,
						const struct tstate *t)
{
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0);
	unw_context_t ctx;
	unw_cursor_t c;
	bool cacheable = true, ours = true;

	e->depth = 0;
	tls.in_walk = 1;
	if (unw_getctx(&ctx) || unw_init(&c, &ctx)) {
		tls.in_walk = 0;
		return false;
	}
	/* frames: walk_unw, trace_alloc, the entry point (and its slow
	 * path: in_agent), then the program's */
	while (unw_stp(&c) > 0) {
		unw_word_t ip, sp;

		if (unw_reg(&c, UNW_REG_IP, &ip) ||
		    unw_reg(&c, UNW_REG_SP, &sp) || !ip)
			break;
		if (ours && in_agent(ip))
			continue;
		ours = false;
		if (e->depth >= max_depth)
			break;
		e->ips[e->depth] = ip;
		e->slots[e->depth] = sp - 8;
		/* sp - 8 in [max(lo, stack_lo), stack_hi - 8], without
		 * overflow, before it is read */
		if (sp < 8 || sp - 8 < lo || sp - 8 < t->stack_lo ||
		    t->stack_hi < 8 || sp - 8 > t->stack_hi - 8 ||
		    *(const uintptr_t *)(sp - 8) != ip)
			cacheable = false;
		e->depth++;
	}
	tls.in_walk = 0;
	return cacheable;
}

/*
 * libunwind's fast trace from our caller's frame into e (uncacheable: no
 * slots). The agent's leading frames are left out as walk_unw leaves them
 * out, so the buffer has room for AGENT_FRAMES more than max_depth; when
 * they took more than that, or there is no trace, a full walk instead.
 */
#define AGENT_FRAMES 16

static __attribute__((noinline)) void walk_trace(struct stack_entry *e,
						 const struct tstate *t)
{
	void *buf[HEAP_MAX_DEPTH + AGENT_FRAMES];
	int want = (int)max_depth + AGENT_FRAMES, n, i = 0;

	e->depth = 0;
	if (!unw_trace) {
		walk_unw(e, t);
		return;
	}
	tls.in_walk = 1;
	n = unw_trace(buf, want);
	tls.in_walk = 0;
	while (i < n && in_agent((uintptr_t)buf[i]))
		i++;
	for (; i < n && e->depth < max_depth && buf[i]; i++)
		e->ips[e->depth++] = (uintptr_t)buf[i];
	if (n == want && i == n && e->depth < max_depth)
		walk_unw(e, t);	/* cut short by our own frames */
}

static inline bool stack_same(const struct stack_entry *e)
{
	for (uint32_t i = 1; i < e->depth; i++)
		if (*(const uintptr_t *)e->slots[i] != e->ips[i])
			return false;
	return true;
}

/* A full walk into e, cached under the key if the stack may be. */
static struct stack_entry *stack_fill(struct stack_entry *e,
				      const struct tstate *t, uintptr_t ip0,
				      uintptr_t sp0)
{
	bool ok = walk_unw(e, t) && e->depth && e->ips[0] == ip0;

	e->ip0 = ip0;
	e->sp0 = sp0;
	e->flags = ok ? 0 : STACK_NOCACHE;
	e->hash = hash_stack((void *const *)e->ips, (int)e->depth);
	return e;
}

static struct stack_entry *stack_traced(struct stack_entry *e,
					const struct tstate *t)
{
	walk_trace(e, t);
	e->hash = hash_stack((void *const *)e->ips, (int)e->depth);
	return e;
}

/*
 * The stack of the program's call into the agent, trace_alloc's frame
 * pointer being fp0 (the agent keeps frame pointers: its frames are
 * followed up to the first whose return address is the program's).
 * Returns its entry in the thread's cache, or scratch filled.
 */
static const struct stack_entry *unwind_stack(struct tstate *t,
					      uintptr_t fp0,
					      struct stack_entry *scratch)
{
	uintptr_t fp1 = agent_frame(fp0);
	uintptr_t ip0 = ((const uintptr_t *)fp1)[1], sp0 = fp1 + 16;
	struct stack_set *set;
	struct stack_entry *empty = NULL;
	bool nocache = false;
	size_t i;

	if (unlikely(!t->cache)) {
		if (full_walks)
			walk_unw(scratch, t);
		else
			walk_trace(scratch, t);
		scratch->hash = hash_stack((void *const *)scratch->ips,
					   (int)scratch->depth);
		return scratch;
	}
	i = (size_t)(((ip0 ^ (sp0 << 7)) * 0x9e3779b97f4a7c15u) >>
		     (64 - STACK_SET_BITS));
	set = &t->cache[i];
	for (int w = 0; w < STACK_WAYS; w++) {
		struct stack_entry *e = &set->way[w];

		if (e->ip0 == ip0 && e->sp0 == sp0) {
			if (e->flags & STACK_NOCACHE)
				nocache = true;
			else if (likely(stack_same(e)))
				return e;
		} else if (!e->ip0 && !empty) {
			empty = e;
		}
	}
	if (nocache)
		return stack_traced(scratch, t);
	if (empty) {
		set->misses = 0;
		return stack_fill(empty, t, ip0, sp0);
	}
	if (++set->misses < STACK_REFILL)
		return stack_traced(scratch, t);
	set->misses = 0;
	return stack_fill(&set->way[set->victim++ % STACK_WAYS], t, ip0, sp0);
}
