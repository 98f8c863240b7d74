/*
 * The agent's own stack (included by agent.c only, after the thread
 * state): a traced allocation's work (the stack walk, libunwind's look-ups
 * of unwind tables, the Python walk, the record) runs on a stack of the
 * thread's own, not on the program's.
 *
 * On the program's stack it took 5-12 KiB below the program's frame
 * (trace_alloc's arrays 4.8 KiB, walk_unw_cached's libunwind context and
 * cursor 4.7 KiB, libunwind's own frames: -fstack-usage), so a program
 * that runs natively could not run under `mem`: a thread of
 * PTHREAD_STACK_MIN using 5 of its 8.7 usable KiB, a coroutine on a 64
 * KiB stack using 56 KiB (tests/cli/mem_hostile.sh, edge and coro) were
 * killed by SIGSEGV, and a frame of more than a page could step over a
 * guard page into the memory below it (the agent is now built with
 * -fstack-clash-protection). Now, where the program's stack has less than
 * ALT_ROOM left below the call, or the call is not on the thread's stack
 * as pthread_getattr_np gave it (a coroutine's, a signal handler's
 * alternate stack), the program's stack holds the entry point's frames
 * and trace_alloc's, a few hundred bytes. With room, the work stays on
 * the program's stack: switching on every call cost 14-15% of an exact
 * run of bench/alloc_gen 1028 at scale 20 (bench/mem_agent_ab.py, 7
 * rounds, twice); switching where needed, nothing measurable.
 *
 * The stack is mapped at the thread's first call into the agent, whose
 * work (thread_start: pthread_getattr_np reads /proc/self/maps through
 * stdio for the main thread) runs on it too (address space only: the
 * pages the walks touch, ~16 KiB, become resident), with a guard page
 * below it and the thread's scratch (agent_first.h) above it, and
 * unmapped at the thread's end (thread_exit); a dead thread's calls run
 * on the program's stack.
 * Nothing else runs on it but trace_body: the thread is busy meanwhile,
 * so a signal handler's allocation goes to glibc untraced and never
 * switches to it again; a handler that runs while the thread is on it
 * runs on it (it has 240 KiB). If the mapping fails, the work runs on the
 * program's stack, as before (unw_room then chooses the walk).
 *
 * The switch keeps the frame pointer: trace_body's frame links to
 * trace_alloc's by RBP, whose unwind rule is by RBP (the agent keeps
 * frame pointers), so libunwind's walk and a profiler's go from the
 * agent's stack back onto the program's.
 */
#define ALT_STACK_BYTES ((size_t)256 << 10)
#define ALT_GUARD_BYTES ((size_t)4 << 10)
#define SCRATCH_BYTES 1024	/* the thread's scratch: at the top */
#define ALT_ROOM ((uintptr_t)64 << 10)

/* The top of t's stack, mapped at its first use; NULL if it cannot be,
 * and after the thread's end. */
static void *alt_stack_top(struct tstate *t)
{
	void *p;

	if (likely(t->alt != NULL))
		return (char *)t->alt + ALT_STACK_BYTES - SCRATCH_BYTES;
	if (t->alt_failed || t->dead)
		return NULL;
	p = mmap(NULL, ALT_STACK_BYTES, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1,
		 0);
	if (p == MAP_FAILED || mprotect(p, ALT_GUARD_BYTES, PROT_NONE)) {
		if (p != MAP_FAILED)
			munmap(p, ALT_STACK_BYTES);
		t->alt_failed = 1;
		return NULL;
	}
	t->alt = p;
	t->scratch = (unsigned char *)p + ALT_STACK_BYTES - SCRATCH_BYTES;
	return t->scratch;
}

/* At the thread's end (never on the agent's stack itself). */
static void alt_stack_free(struct tstate *t)
{
	void *p = t->alt;

	t->alt = NULL;
	t->scratch = NULL;
	if (p)
		munmap(p, ALT_STACK_BYTES);
}

/*
 * fn(arg) on the stack whose top is top (16-aligned). Every register the
 * call may change is the asm's clobber; RBX (saved by fn, as the ABI
 * says) keeps our stack pointer; RBP stays the caller's frame, the link
 * the walks follow back.
 */
static __attribute__((noinline)) void run_on_stack(void *top,
						   void (*fn)(void *),
						   void *arg)
{
	__asm__ volatile("mov %%rsp, %%rbx\n\t"
			 "mov %0, %%rsp\n\t"
			 "call *%1\n\t"
			 "mov %%rbx, %%rsp"
			 : "+r"(top), "+r"(fn), "+D"(arg)
			 :
			 : "rbx", "rax", "rcx", "rdx", "rsi", "r8", "r9",
			   "r10", "r11", "xmm0", "xmm1", "xmm2", "xmm3",
			   "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
			   "xmm10", "xmm11", "xmm12", "xmm13", "xmm14",
			   "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
			   "st(5)", "st(6)", "st(7)", "memory", "cc");
}
