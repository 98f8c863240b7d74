/*
 * The agent's stack walk with libunwind (`--unwind dwarf`, the default),
 * included by agent.c only.
 *
 * libunwind is dlopen'ed local to the agent: the program's own unwinder
 * symbols (_Unwind_*, which libunwind.so.8 also exports) stay the ones it
 * linked with. Each walk is libunwind's own fast trace (unw_backtrace; on
 * x86-64 a per-thread table of each return address's rule: CFA = RSP or
 * RBP + offset, the return address at CFA - 8, RBP saved at CFA +
 * offset, or a signal frame's saved context). A frame it has never seen
 * is stepped once with the full unwinder (its unwind info found through
 * dl_iterate_phdr, under the loader's lock) and its rule kept; a frame of
 * any other shape makes it start again with the full walk. So a walk of
 * frames seen before is a few loads a frame, with no lock and no unwind
 * info parsed: 3-4 times cheaper than the full walk (unw_step frame by
 * frame, which looks each frame's unwind info up again unless it is in
 * libunwind's small cache of register states), whose lock the program's
 * threads contended for.
 *
 * There is no cache of whole stacks. The one before (keyed by the entry
 * point's return address and stack pointer, verified by the return
 * addresses still being in their slots) was wrong for frames whose CFA is
 * RBP's (alloca, variable-length arrays, realigned frames): the same
 * stack pointer and the same return addresses in the cached slots (a
 * stale one left by an earlier call) do not prove the frame pointers the
 * same, and it gave another stack's frames (tests/cli/mem_unwind.sh).
 *
 * YARDSTICK_HEAP_UNWIND=full (heap_header.full_walks) makes every walk a
 * full one: the reference the trace is tested against (mem_unwind.sh: the
 * same stacks, the agent's leading frames left out and the cut at
 * max_depth alike).
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

struct stack_entry {
	uint64_t hash;
	uint32_t depth;
	uintptr_t ips[HEAP_MAX_DEPTH];
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

INLINE void walk_trace(struct stack_entry *e)
{
	void *buf[HEAP_MAX_DEPTH + AGENT_FRAMES];
	int want = (int)max_depth + AGENT_FRAMES, n, i = 0;

	e->depth = 0;
	if (!unw_trace) {
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
	if (n == want && i == n && e->depth < max_depth)
		walk_unw(e);	/* cut short by our own frames */
}

/*
 * The stack of the program's call into the agent (from trace_alloc's
 * frame) into e, with its hash.
 */
INLINE void unwind_stack(struct stack_entry *e)
{
	if (full_walks)
		walk_unw(e);
	else
		walk_trace(e);
	e->hash = hash_stack((void *const *)e->ips, (int)e->depth);
}
