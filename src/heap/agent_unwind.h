/*
 * The agent's stack walk with libunwind (`--unwind dwarf`, the default),
 * included by agent.c only.
 *
 * libunwind is dlopen'ed local to the agent: the program's own unwinder
 * symbols (_Unwind_*, which libunwind.so.8 also exports) stay the ones it
 * linked with. Three walks, cheapest first:
 *
 * 1. A hit in the thread's cache of whole stacks (unwind_stack), keyed by
 *    the unwinder's state at the program's first frame: where the entry
 *    point returns to, the stack pointer there and the program's RBP (which
 *    the agent's outermost frame saved). From one state, the full walk
 *    reads the same words and so finds the same frames: each frame's rule
 *    depends on its address alone, and the words it reads are the return
 *    address at CFA - 8, RBP where the frame saved it, and for a realigned
 *    frame (gcc's DRAP) the CFA kept just below RBP. The fill keeps where
 *    each of those was (walk_unw_cached: unw_get_save_loc for RBP; the
 *    words of the 8 below RBP that hold the CFA) and a hit reads them
 *    again: every return address, and a saved RBP only where a frame that
 *    takes its RBP from that slot computes its CFA from RBP (struct
 *    fill_words; each frame's rule probed once per return address, as
 *    below). In code built without frame pointers (CPython's) RBP holds
 *    data, and checking every saved copy of it made 42% of a Python
 *    program's 6.5 M look-ups walk again (issue 30; 0.8% now;
 *    tests/fixtures/unwstale.c is a stack whose saved RBP a hit must
 *    check). The key alone does not do: the same stack pointer and the same
 *    return addresses in their slots, one of them a stale copy, with other
 *    frame pointers below an alloca'd frame, are another stack (the cache
 *    before this one gave such stacks; tests/cli/mem_unwind.sh has the
 *    case). Not cached: stacks through a signal frame, with a word outside
 *    the thread's stack above the walk's own frame (a coroutine's stack
 *    may be gone by the next call), with RBP kept in another register.
 *    The program's RBP leaves the key when the first frame's rule has no
 *    use for it (optimized code keeps data in RBP, which would never hit
 *    again): when its CFA does not depend on RBP (probe_rbp: libunwind's
 *    step from that frame with RBP pointed at a buffer of ours, twice,
 *    gives the same CFA) and it saves its caller's RBP (which a hit then
 *    checks), learned once per return address by the first fill.
 *    Assumed: a CFA rule at a call site reads RSP or RBP (and, realigned,
 *    that word), as gcc and clang write them; hand-written unwind info
 *    that defines the CFA from another register is not checked.
 * 2. libunwind's own fast trace (unw_backtrace; on x86-64 a per-thread
 *    table of each return address's rule: CFA = RSP or RBP + offset, the
 *    return address at CFA - 8, RBP saved at CFA + offset, or a signal
 *    frame's saved context; a frame never seen is stepped once by the full
 *    unwinder and its rule kept; a frame of any other shape makes it start
 *    again with the full walk): a few loads a frame, no lock, but it gives
 *    no slots, so its stacks are not cached. Taken on a key's first miss
 *    (a key that never comes back, as when RBP holds data, costs no full
 *    walk), for keys whose stack cannot be cached, and when the set is
 *    full.
 * 3. The full walk (unw_step frame by frame, each frame's unwind info
 *    found through dl_iterate_phdr, under the loader's lock, unless in
 *    libunwind's small cache of register states: the lock the program's
 *    threads contended for when every miss took it): fills a way on the
 *    key's second miss, and a full set's way in turn every STACK_REFILL
 *    misses.
 *
 * All three give the same frames, the agent's leading frames left out and
 * the stack cut at max_depth: tests/cli/mem_unwind.sh compares them with
 * YARDSTICK_HEAP_UNWIND=full (heap_header.full_walks), which makes every
 * walk a full one.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>

typedef int (*unw_getcontext_fn)(unw_context_t *);
typedef int (*unw_init_local_fn)(unw_cursor_t *, unw_context_t *);
typedef int (*unw_step_fn)(unw_cursor_t *);
typedef int (*unw_get_reg_fn)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
typedef int (*unw_backtrace_fn)(void **, int);
typedef int (*unw_save_loc_fn)(unw_cursor_t *, int, unw_save_loc_t *);
typedef int (*unw_is_signal_fn)(unw_cursor_t *);

static unw_getcontext_fn unw_getctx;
static unw_init_local_fn unw_init;
static unw_step_fn unw_stp;
static unw_get_reg_fn unw_reg;
static unw_backtrace_fn unw_trace;	/* NULL: full walks on a miss */
static unw_save_loc_fn unw_saveloc;	/* NULL: no cache */
static unw_is_signal_fn unw_issig;
/* libunwind's flush of what it learned of each address's unwind info, and
 * the local address space it is flushed in (NULL: none) */
typedef void (*unw_flush_fn)(unw_addr_space_t, unw_word_t, unw_word_t);
static unw_flush_fn unw_flush;
static unw_addr_space_t *unw_space;

#define STACK_SET_BITS 8	/* 256 sets */
#define STACK_WAYS 2		/* of 2 stacks: 1.6 MiB of address space a
				 * thread, touched as it fills */
#define STACK_REFILL 8		/* misses of a full set between fills */
#define STACK_CHECKS (2 * HEAP_MAX_DEPTH)	/* words checked on a hit,
						 * besides return addresses */
#define STACK_NOCACHE 1		/* flags: the key's stack is not cacheable */
#define STACK_SENT 2		/* its stack went to yardstick (record_alloc) */
#define DRAP_SCAN 8		/* words below a frame pointer looked at for
				 * a CFA kept there (a realigned frame) */

struct stack_entry {
	/* the key: the entry point's return address, stack pointer and the
	 * program's frame pointer there (ip0 0: an empty way) */
	uintptr_t ip0, sp0, bp0;
	uint64_t hash;
	uint32_t depth, flags, checks;
	uintptr_t ips[HEAP_MAX_DEPTH];
	uintptr_t slots[HEAP_MAX_DEPTH];	/* where each was read */
	/* the other words the walk read (saved frame pointers, a realigned
	 * frame's CFA), where and what */
	uintptr_t check_at[STACK_CHECKS], check_val[STACK_CHECKS];
};

struct stack_key {
	uintptr_t ip0, sp0, bp0;
};

/*
 * What is known of a frame's rule, by its return address (learned by the
 * fills, walk_unw_cached): whether its CFA does not depend on RBP
 * (probe_rbp) and whether it saves its caller's RBP. A first frame with
 * both: the program's RBP at the call is none of the stack's business,
 * and is left out of the key (a function that uses RBP for data would
 * otherwise never hit).
 */
#define PROBE_BITS 10
enum { PROBE_RBP_FREE = 1, PROBE_SAVES_BP = 2 };
#define PROBE_NO_BP (PROBE_RBP_FREE | PROBE_SAVES_BP)

struct probe_entry {
	uintptr_t ip;
	uint32_t state;
};

struct stack_set {
	struct stack_entry way[STACK_WAYS];
	/* the last keys that missed: a key is filled on its second miss,
	 * so that keys that never come back (a frame pointer register
	 * that holds data) cost the fast trace, not a full walk */
	struct stack_key missed[2];
	uint32_t misses;	/* since the last fill */
	uint32_t victim;	/* the way the next refill takes */
	uint32_t next_missed;
};

/* Every walk a full one (YARDSTICK_HEAP_UNWIND=full). */
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

/*
 * libunwind's reads of memory (its address space's access_mem), through
 * ours. Debian's libunwind validates every read of a step (its
 * conservative checks): a mincore, a read and a write on a pipe for each
 * page not among the last 4 it saw, some 960,000 of each in `import
 * torch` under mem (a quarter of the run). A word of the thread's stack
 * between the walk's own frame (or, on the agent's stack, the program's
 * frame where the call came in: t->walk_lo) and the stack's top is mapped
 * and is read at once; any other read is libunwind's own, validated.
 */
typedef int (*unw_access_mem_fn)(unw_addr_space_t, unw_word_t, unw_word_t *,
				 int, void *);
static unw_access_mem_fn unw_access_mem_next;

static int stack_access_mem(unw_addr_space_t as, unw_word_t addr,
			    unw_word_t *val, int write, void *arg)
{
	const struct tstate *t = &tls;
	uintptr_t lo = (uintptr_t)__builtin_frame_address(0);

	/* on another stack (the agent's, a handler's): from the program's
	 * frame, if that is on the thread's stack (the part of the main
	 * thread's below its stack pointer may not be mapped yet) */
	if (lo < t->stack_lo || lo >= t->stack_hi)
		lo = t->walk_lo >= t->stack_lo && t->walk_lo < t->stack_hi
			? t->walk_lo : UINTPTR_MAX;
	if (!write && !(addr & 7) && addr >= lo && t->stack_hi >= 8 &&
	    addr <= t->stack_hi - 8) {
		*val = *(const unw_word_t *)addr;
		return 0;
	}
	return unw_access_mem_next(as, addr, val, write, arg);
}

static void load_libunwind(void)
{
	void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	int (*set_policy)(unw_addr_space_t, unw_caching_policy_t) = NULL;
	unw_accessors_t *(*get_acc)(unw_addr_space_t) = NULL;
	unw_accessors_t *acc;
	unw_addr_space_t *space = NULL;

	if (h) {
		unw_getctx = (unw_getcontext_fn)dlsym(h, "_Ux86_64_getcontext");
		unw_init = (unw_init_local_fn)dlsym(h, "_ULx86_64_init_local");
		unw_stp = (unw_step_fn)dlsym(h, "_ULx86_64_step");
		unw_reg = (unw_get_reg_fn)dlsym(h, "_ULx86_64_get_reg");
		unw_trace = (unw_backtrace_fn)dlsym(h, "unw_backtrace");
		unw_saveloc = (unw_save_loc_fn)dlsym(h, "_ULx86_64_get_save_loc");
		unw_issig = (unw_is_signal_fn)dlsym(h,
						    "_ULx86_64_is_signal_frame");
		set_policy = (int (*)(unw_addr_space_t, unw_caching_policy_t))
			dlsym(h, "_ULx86_64_set_caching_policy");
		space = dlsym(h, "_ULx86_64_local_addr_space");
		unw_flush = (unw_flush_fn)dlsym(h, "_Ux86_64_flush_cache");
		get_acc = (unw_accessors_t *(*)(unw_addr_space_t))
			dlsym(h, "_Ux86_64_get_accessors");
	}
	acc = get_acc && space ? get_acc(*space) : NULL;
	if (acc && acc->access_mem && !unw_access_mem_next) {
		unw_access_mem_next = acc->access_mem;
		acc->access_mem = stack_access_mem;
	}
	if (hdr->full_walks)
		full_walks = true;
	/* without a per-thread cache, signals stay blocked in walks */
	unw_space = unw_flush ? space : NULL;
	if (set_policy && space && unw_stp &&
	    set_policy(*space, UNW_CACHE_PER_THREAD) == 0)
		text_of((uintptr_t)unw_stp, &unw_text_lo, &unw_text_hi);
	if (!unw_getctx || !unw_init || !unw_stp || !unw_reg) {
		unw_getctx = NULL;
		hdr->unwind_failed = 1;
	}
}

/*
 * A full walk from our caller's frame (trace_alloc's: noinline, so the
 * frames are trace_alloc, the entry point, then the program's) into e.
 */
static __attribute__((noinline)) void walk_unw(struct stack_entry *e)
{
	unw_context_t ctx;
	unw_cursor_t c;
	bool ours = true;

	e->depth = 0;
	tls.in_walk = 1;
	if (unw_getctx(&ctx) || unw_init(&c, &ctx)) {
		tls.in_walk = 0;
		return;
	}
	/* frames: walk_unw, trace_alloc, the entry point (and its slow
	 * path: in_agent), then the program's */
	while (unw_stp(&c) > 0) {
		unw_word_t ip;

		if (unw_reg(&c, UNW_REG_IP, &ip) || !ip)
			break;
		if (ours && in_agent(ip))
			continue;
		ours = false;
		if (e->depth >= max_depth)
			break;
		e->ips[e->depth++] = ip;
	}
	tls.in_walk = 0;
}

/*
 * libunwind's fast trace from trace_alloc's frame into e (inline: every
 * frame of ours costs the trace a step). The agent's
 * leading frames are left out as walk_unw leaves them out, so the buffer has room for AGENT_FRAMES more than max_depth; when
 * they took more than that, or there is no trace, a full walk instead.
 */
#define AGENT_FRAMES 16

/* Whether a frame of e is at an address of code unloaded (agent.c,
 * gone): the first ng ranges. */
static __attribute__((noinline)) bool stack_in_gone(const struct stack_entry *e,
						    uint32_t ng)
{
	for (uint32_t i = 0; i < e->depth; i++)
		for (uint32_t k = 0; k < ng; k++)
			if (e->ips[i] - gone[k].lo < gone[k].hi - gone[k].lo)
				return true;
	return false;
}

INLINE void walk_trace(struct stack_entry *e)
{
	void *buf[HEAP_MAX_DEPTH + AGENT_FRAMES];
	int want = (int)max_depth + AGENT_FRAMES, n, i = 0;
	uint32_t ng = atomic_load_explicit(&n_gone, memory_order_acquire);

	e->depth = 0;
	/* more code unloaded than the table holds: full walks */
	if (!unw_trace || unlikely(ng > GONE_MAX)) {
		walk_unw(e);
		return;
	}
	tls.in_walk = 1;
	n = unw_trace(buf, want);
	tls.in_walk = 0;
	while (i < n && in_agent((uintptr_t)buf[i]))
		i++;
	for (; i < n && e->depth < max_depth && buf[i]; i++)
		e->ips[e->depth++] = (uintptr_t)buf[i];
	/* cut short by our own frames; or through an address of code
	 * unloaded, where the fast trace keeps the rule it learned of that
	 * code for good (libunwind 1.6 has no flush of it), which the code
	 * loaded there since may not follow: the full walk, whose rules are
	 * flushed at each unload */
	if ((n == want && i == n && e->depth < max_depth) ||
	    (unlikely(ng) && stack_in_gone(e, ng))) {
		STAT_INC(ST_TRACE_FULL);
		walk_unw(e);
	}
}

/* The cache's mapping: its sets, its probes, and the bitmap of its pages
 * written (agent_pages.h), itself written at once (stack_cache_new). */
#define STACK_TABLES_BYTES ((sizeof(struct stack_set) << STACK_SET_BITS) + \
			    (sizeof(struct probe_entry) << PROBE_BITS))
#define STACK_CACHE_BYTES (STACK_TABLES_BYTES + \
			   sizeof(uint64_t) * WRITTEN_WORDS(STACK_TABLES_BYTES))

static _Atomic uint64_t *cache_written(const struct tstate *t)
{
	return (_Atomic uint64_t *)((char *)t->cache + STACK_TABLES_BYTES);
}

/* The thread's cache, or NULL (then no walk is cached). */
static struct stack_set *stack_cache_new(void)
{
	void *p;

	if (full_walks || !unw_saveloc || !unw_issig)
		return NULL;
	p = mmap(NULL, STACK_CACHE_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	page_write((volatile unsigned char *)p + STACK_TABLES_BYTES);
	return p;
}

/*
 * The thread's cache given back at its end (its calls from then on walk
 * uncached): kept, 1.6 MiB of address space a thread piled up, and a
 * program of many short threads ran out of memory to fork (ENOMEM after
 * ~200 forks beside thousands of threads: tests/cli/mem_hostile.sh).
 */
static void stack_cache_free(struct tstate *t)
{
	struct stack_set *c = t->cache;

	t->cache = NULL;	/* before: a handler's walk finds none */
	if (c)
		munmap(c, STACK_CACHE_BYTES);
}

/*
 * The thread's cache emptied (its pages given back, read as zeros: every
 * way and probe empty) after an object was unloaded: the stacks it holds
 * were hashed with the unloads before (agent.c, hash_stack), and the
 * rules learned of their first frames were of code that may be gone, its
 * addresses another's now (agent_unload.h).
 */
static __attribute__((noinline)) void stack_cache_clear(struct tstate *t,
							uint32_t u)
{
	if (madvise(t->cache, STACK_CACHE_BYTES, MADV_DONTNEED))
		memset(t->cache, 0, STACK_CACHE_BYTES);
	page_write((volatile unsigned char *)cache_written(t));
	t->cache_unloads = u;
}

/* The word at a may be read on every hit: in the thread's stack above
 * lo (the walk's own frame), 8-aligned, without overflow. */
static inline bool stack_word_ok(const struct tstate *t, uintptr_t lo,
				 uintptr_t a)
{
	return !(a & 7) && a >= lo && a >= t->stack_lo && t->stack_hi >= 8 &&
	       a <= t->stack_hi - 8;
}

static inline bool stack_check(struct stack_entry *e, const struct tstate *t,
			       uintptr_t lo, uintptr_t a)
{
	if (!stack_word_ok(t, lo, a) || e->checks >= STACK_CHECKS)
		return false;
	e->check_at[e->checks] = a;
	e->check_val[e->checks++] = *(const uintptr_t *)a;
	return true;
}

static struct probe_entry *probe_of(const struct tstate *t, uintptr_t ip)
{
	struct probe_entry *tab =
		(struct probe_entry *)(t->cache + (1u << STACK_SET_BITS));

	return &tab[(ip * 0x9e3779b97f4a7c15u) >> (64 - PROBE_BITS)];
}

/* ip's entry, to be read: its page written first (agent_pages.h). */
static struct probe_entry *probe_at(const struct tstate *t, uintptr_t ip)
{
	struct probe_entry *pe = probe_of(t, ip);

	write_first(cache_written(t), t->cache, pe);
	return pe;
}

/*
 * Whether the CFA of the frame returning to ip0 (its stack pointer sp0,
 * the other registers regs as the walk found them) is cfa whatever RBP
 * holds: one step of libunwind from that frame with RBP pointing into a
 * scratch buffer of ours, twice, the buffer filled with two stack
 * addresses above the CFA (what a rule that reads memory through RBP
 * finds), must give cfa both times. A rule through RSP gives it; one
 * through RBP, read through it or of any other shape cannot give it
 * twice. Every read of the step is of our buffer or of the stack.
 */
#define PROBE_WORDS 64

static bool probe_rbp(const struct tstate *t, uintptr_t ip0, uintptr_t sp0,
		      uintptr_t cfa, const unw_word_t *regs)
{
	static const int regno[] = { REG_RBX, REG_R12, REG_R13, REG_R14,
				     REG_R15 };
	uintptr_t buf[PROBE_WORDS];

	if (t->stack_hi < 512 || cfa > t->stack_hi - 512)
		return false;
	for (int k = 1; k <= 2; k++) {
		uintptr_t v = cfa + 128 * (uintptr_t)k;
		unw_context_t ctx;
		unw_cursor_t c;
		unw_word_t got;

		for (int i = 0; i < PROBE_WORDS; i++)
			buf[i] = v;
		memset(&ctx, 0, sizeof(ctx));
		ctx.uc_mcontext.gregs[REG_RIP] = (greg_t)ip0;
		ctx.uc_mcontext.gregs[REG_RSP] = (greg_t)sp0;
		ctx.uc_mcontext.gregs[REG_RBP] =
			(greg_t)(uintptr_t)&buf[PROBE_WORDS / 2 + k];
		for (int i = 0; i < 5; i++)
			ctx.uc_mcontext.gregs[regno[i]] = (greg_t)regs[i];
		if (unw_init(&c, &ctx) || unw_stp(&c) <= 0 ||
		    unw_reg(&c, UNW_REG_SP, &got) || got != cfa)
			return false;
	}
	return true;
}

/*
 * The words a fill read besides the return addresses, before it knows
 * which of them a hit must read again. RBP is restored frame by frame
 * from the slot where a frame saved its caller's; the frames between one
 * such slot and the next (a group) share the value it holds. That value
 * is the stack's business only if one of the group's frames computes its
 * CFA from RBP (frame_needs_bp): in code built without frame pointers,
 * as CPython's is, RBP holds data, and its saved copies change from one
 * call to the next under the same frames (issue 30: 2.7 M of the 6.5 M
 * look-ups of a CPython program found their key, a saved RBP changed, and
 * walked again). A realigned frame's CFA below its RBP is read only by a
 * frame whose CFA needs RBP, and kept only for one.
 */
#define GROUP_ALWAYS 0xff

struct fill_words {
	uintptr_t at[STACK_CHECKS];
	uint8_t group[STACK_CHECKS];	/* GROUP_ALWAYS: kept */
	uint32_t n;
	bool used[HEAP_MAX_DEPTH + 2];	/* a group's RBP is read by a rule */
};

static bool fill_word(struct fill_words *w, uintptr_t a, uint32_t group)
{
	if (w->n >= STACK_CHECKS)
		return false;
	w->at[w->n] = a;
	w->group[w->n++] = (uint8_t)group;
	return true;
}

/* Whether a step from the frame (ip, sp, its other registers regs) to
 * its caller, whose stack pointer is cfa, computed the CFA from RBP;
 * what is learned of ip's rule goes into the probe table (pe: its entry,
 * NULL when known already). saves: whether the step read RBP from a
 * slot of the frame. */
static bool frame_needs_bp(const struct tstate *t, struct probe_entry *pe,
			   uintptr_t ip, uintptr_t sp, uintptr_t cfa,
			   const unw_word_t *regs, bool saves)
{
	if (!pe) {
		pe = probe_at(t, ip);
	} else {
		pe->ip = ip;
		pe->state = (probe_rbp(t, ip, sp, cfa, regs) ?
			     PROBE_RBP_FREE : 0) | (saves ? PROBE_SAVES_BP : 0);
	}
	return !(pe->state & PROBE_RBP_FREE);
}

/* A frame of the walk whose rule is yet to be probed: where it was. */
struct walk_frame {
	uintptr_t ip, sp, bp;
	unw_word_t regs[5];
	struct probe_entry *learn;	/* NULL: its rule is known */
};

static bool walk_frame_at(struct walk_frame *f, const struct tstate *t,
			  unw_cursor_t *c, uintptr_t ip, uintptr_t sp,
			  uintptr_t bp)
{
	static const unw_regnum_t rn[] = { UNW_X86_64_RBX, UNW_X86_64_R12,
					   UNW_X86_64_R13, UNW_X86_64_R14,
					   UNW_X86_64_R15 };
	struct probe_entry *pe = probe_at(t, ip);

	f->ip = ip;
	f->sp = sp;
	f->bp = bp;
	f->learn = pe->ip == ip ? NULL : pe;
	if (f->learn)
		for (int k = 0; k < 5; k++)
			if (unw_reg(c, rn[k], &f->regs[k]))
				return false;
	return true;
}

/*
 * After the step from frame f (in group *group, RBP restored from
 * *bp_loc) to the one at c, whose stack pointer sp is f's CFA: the slot
 * the new RBP was restored from, if not kept, a new group; whether f's
 * rule read RBP, which makes f's group's value the stack's business; and
 * then any word just below f's RBP that holds the CFA (where a realigned
 * frame keeps it: its CFA rule reads it). false if the step read what
 * cannot be checked (RBP from another register, too many words).
 */
static bool fill_step(struct fill_words *w, const struct tstate *t,
		      uintptr_t lo, unw_cursor_t *c, const struct walk_frame *f,
		      uintptr_t *bp_loc, uint32_t *group, uintptr_t sp)
{
	unw_save_loc_t loc;
	bool saves;

	if (unw_saveloc(c, UNW_X86_64_RBP, &loc) || loc.type != UNW_SLT_MEMORY)
		return false;
	saves = loc.u.addr != *bp_loc;
	if (frame_needs_bp(t, f->learn, f->ip, f->sp, sp, f->regs, saves)) {
		w->used[*group] = true;
		for (int k = 1; k <= DRAP_SCAN; k++) {
			uintptr_t a = f->bp - 8 * (uintptr_t)k;

			if (f->bp >= 8 * (uintptr_t)k &&
			    stack_word_ok(t, lo, a) &&
			    *(const uintptr_t *)a == sp &&
			    !fill_word(w, a, GROUP_ALWAYS))
				return false;
		}
	}
	if (saves) {
		*bp_loc = loc.u.addr;
		if (++*group >= HEAP_MAX_DEPTH + 2 ||
		    !fill_word(w, loc.u.addr, *group))
			return false;
	}
	return true;
}

/* The words of w a hit must read again, into e's checks; false if one
 * may not be read. */
static bool fill_checks(struct stack_entry *e, const struct tstate *t,
			uintptr_t lo, const struct fill_words *w)
{
	for (uint32_t i = 0; i < w->n; i++)
		if ((w->group[i] == GROUP_ALWAYS || w->used[w->group[i]]) &&
		    !stack_check(e, t, lo, w->at[i]))
			return false;
	return true;
}

/*
 * A full walk into e, as walk_unw's, that also keeps what a hit must find
 * the same: the key (the program's first frame's stack and frame
 * pointers), the slot of each return address and the other words the
 * steps read that the frames depend on (struct fill_words). Returns
 * whether the stack may be cached: every frame a call's (no signal
 * frame), every word read in the thread's stack above trace_alloc's frame
 * (t->walk_lo), the walk ended by the cut or by the unwinder's own end
 * (not by a read of 0 or an error).
 */
static __attribute__((noinline)) bool walk_unw_cached(struct stack_entry *e,
						       const struct tstate *t)
{
	uintptr_t lo = t->walk_lo;	/* words below are the agent's */
	uintptr_t bp_loc = 0;
	uint32_t group = 0;
	struct walk_frame f = { 0 };
	struct fill_words w;
	unw_context_t ctx;
	unw_cursor_t c;
	bool ok = true, ours = true;
	int r;

	e->depth = 0;
	e->checks = 0;
	w.n = 0;
	memset(w.used, 0, sizeof(w.used));
	tls.in_walk = 1;
	if (unw_getctx(&ctx) || unw_init(&c, &ctx)) {
		tls.in_walk = 0;
		return false;
	}
	while ((r = unw_stp(&c)) > 0) {
		unw_word_t ip, sp, rbp;

		if (unw_reg(&c, UNW_REG_IP, &ip) ||
		    unw_reg(&c, UNW_REG_SP, &sp) ||
		    unw_reg(&c, UNW_X86_64_RBP, &rbp) || !ip) {
			ok = false;
			break;
		}
		if (ours && in_agent(ip))
			continue;
		if (e->depth >= max_depth)
			break;
		if (ours) {
			/* the program's first frame: its stack pointer and
			 * RBP are the key's, its RBP where the agent's frame
			 * saved it (group 0's: the key's) */
			unw_save_loc_t loc = { 0 };

			e->sp0 = sp;
			e->bp0 = rbp;
			if (unw_saveloc(&c, UNW_X86_64_RBP, &loc) ||
			    loc.type != UNW_SLT_MEMORY)
				ok = false;
			bp_loc = loc.u.addr;
		} else if (ok) {
			ok = fill_step(&w, t, lo, &c, &f, &bp_loc, &group, sp);
		}
		ours = false;
		if (unw_issig(&c) != 0)
			ok = false;
		if (ok)
			ok = walk_frame_at(&f, t, &c, ip, sp, rbp);
		e->ips[e->depth] = ip;
		e->slots[e->depth] = sp - 8;
		if (sp < 8 || !stack_word_ok(t, lo, sp - 8) ||
		    *(const uintptr_t *)(sp - 8) != ip)
			ok = false;
		e->depth++;
	}
	if (r < 0)
		ok = false;
	/* ended by the unwinder: at a frame without unwind info it looks at
	 * the frame pointer's words (its guess), kept if in the stack */
	if (r == 0 && ok && e->depth) {
		w.used[group] = true;
		for (int k = 0; k < 2; k++)
			if (stack_word_ok(t, lo, f.bp + 8 * (uintptr_t)k) &&
			    !fill_word(&w, f.bp + 8 * (uintptr_t)k,
				       GROUP_ALWAYS))
				ok = false;
	}
	if (ok)
		ok = fill_checks(e, t, lo, &w);
	tls.in_walk = 0;
	return ok;
}

static inline bool stack_same(const struct stack_entry *e)
{
	for (uint32_t i = 1; i < e->depth; i++)
		if (*(const uintptr_t *)e->slots[i] != e->ips[i]) {
			STAT_INC(ST_STALE_RET);
			return false;
		}
	for (uint32_t i = 0; i < e->checks; i++)
		if (*(const uintptr_t *)e->check_at[i] != e->check_val[i]) {
			STAT_INC(ST_STALE_CHECK);
			STAT_ADD(ST_STALE_CHECK_IDX, i);
			return false;
		}
	return true;
}

/* A full walk into e, cached under the key if the stack may be. */
static struct stack_entry *stack_fill(struct stack_entry *e,
				      const struct tstate *t, uintptr_t ip0,
				      uintptr_t sp0, uintptr_t bp0,
				      uintptr_t kbp)
{
	bool ok = walk_unw_cached(e, t) && e->depth && e->ips[0] == ip0 &&
		  e->sp0 == sp0 && e->bp0 == bp0;

	e->ip0 = ip0;
	e->sp0 = sp0;
	e->bp0 = kbp;	/* the key's: 0 when RBP does not matter */
	e->flags = ok ? 0 : STACK_NOCACHE;
	STAT_ADD(ST_CHECKS, e->checks);
	STAT_ADD(ST_DEPTH, e->depth);
	e->hash = hash_stack((void *const *)e->ips, (int)e->depth);
	return e;
}

static struct stack_entry *stack_traced(struct stack_entry *e)
{
	walk_trace(e);
	e->hash = hash_stack((void *const *)e->ips, (int)e->depth);
	return e;
}

/* Whether the key missed in set before; if not, kept as missed. */
static bool missed_before(struct stack_set *set, uintptr_t ip0, uintptr_t sp0,
			  uintptr_t bp0)
{
	struct stack_key *k;

	for (int i = 0; i < 2; i++) {
		k = &set->missed[i];
		if (k->ip0 == ip0 && k->sp0 == sp0 && k->bp0 == bp0)
			return true;
	}
	k = &set->missed[set->next_missed++ & 1];
	k->ip0 = ip0;
	k->sp0 = sp0;
	k->bp0 = bp0;
	return false;
}

static inline size_t stack_set_of(uintptr_t ip0, uintptr_t sp0, uintptr_t kbp)
{
	return (size_t)(((ip0 ^ (sp0 << 7) ^ (kbp << 17)) *
			 0x9e3779b97f4a7c15u) >> (64 - STACK_SET_BITS));
}

/* The lines a look-up reads first: the probe of ip0, and the keys of the
 * two sets it may pick (with RBP in the key and without). */
static inline void stack_prefetch(const struct tstate *t, uintptr_t ip0,
				  uintptr_t sp0, uintptr_t bp0)
{
	const struct stack_set *a = &t->cache[stack_set_of(ip0, sp0, bp0)];
	const struct stack_set *b = &t->cache[stack_set_of(ip0, sp0, 0)];

	__builtin_prefetch(probe_of(t, ip0));
	for (int w = 0; w < STACK_WAYS; w++) {
		__builtin_prefetch(&a->way[w]);
		__builtin_prefetch(&b->way[w]);
	}
}

/*
 * The stack of the program's call into the agent, trace_alloc's frame
 * pointer being fp0 (the agent keeps frame pointers: its frames are
 * followed up to the first whose return address is the program's, and
 * that frame holds the program's RBP). Returns its entry in the thread's
 * cache, or scratch filled.
 */
INLINE struct stack_entry *unwind_stack(struct tstate *t, uintptr_t fp0,
					      struct stack_entry *scratch)
{
	uintptr_t fp1 = agent_frame(fp0);
	uintptr_t ip0 = ((const uintptr_t *)fp1)[1], sp0 = fp1 + 16;
	uintptr_t bp0 = ((const uintptr_t *)fp1)[0], kbp;
	struct probe_entry *pe;
	bool known;
	struct stack_set *set;
	struct stack_entry *empty = NULL;
	bool nocache = false;
	uint32_t u;
	size_t i;

	if (unlikely(!t->cache)) {
		if (full_walks)
			walk_unw(scratch);
		else
			walk_trace(scratch);
		scratch->hash = hash_stack((void *const *)scratch->ips,
					   (int)scratch->depth);
		return scratch;
	}
	u = atomic_load_explicit(&unloads, memory_order_relaxed);
	if (unlikely(u != t->cache_unloads))
		stack_cache_clear(t, u);
	/* the cache is out of the processor's caches after an interval of
	 * the program's work: its lines are fetched at once, not one after
	 * the other (the probe, then the set it picks, then the entry) */
	stack_prefetch(t, ip0, sp0, bp0);
	/* RBP is in the key unless the first frame's rule has no use for it
	 * (probe_rbp, learned by a fill) */
	pe = probe_at(t, ip0);
	known = pe->ip == ip0;
	kbp = known && (pe->state & PROBE_NO_BP) == PROBE_NO_BP ? 0 : bp0;
	i = stack_set_of(ip0, sp0, kbp);
	set = &t->cache[i];
	write_first_range(cache_written(t), t->cache, set, sizeof(*set));
	for (int w = 0; w < STACK_WAYS; w++) {
		struct stack_entry *e = &set->way[w];

		if (e->ip0 == ip0 && e->sp0 == sp0 && e->bp0 == kbp) {
			if (e->flags & STACK_NOCACHE) {
				nocache = true;
			} else if (likely(stack_same(e))) {
				STAT_INC(ST_HIT);
				return e;
			} else {
				STAT_INC(ST_HIT_STALE);
			}
		} else if (!e->ip0 && !empty) {
			empty = e;
		}
	}
	/* a first frame never filled is filled at once (an empty way, or in
	 * turn), to learn its rule: the key may hold RBP's data until then */
	if (nocache) {
		STAT_INC(ST_NOCACHE);
		return stack_traced(scratch);
	}
	if (known && !missed_before(set, ip0, sp0, kbp)) {
		STAT_INC(ST_FIRST_MISS);
		return stack_traced(scratch);
	}
	if (empty) {
		set->misses = 0;
		STAT_INC(ST_FILL);
		return stack_fill(empty, t, ip0, sp0, bp0, kbp);
	}
	if (++set->misses < STACK_REFILL) {
		STAT_INC(ST_REFILL_WAIT);
		return stack_traced(scratch);
	}
	set->misses = 0;
	STAT_INC(ST_FILL);
	return stack_fill(&set->way[set->victim++ % STACK_WAYS], t, ip0, sp0,
			  bp0, kbp);
}
