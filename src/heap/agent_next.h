/*
 * The allocator the agent forwards each call to (included by agent.c
 * only, before the entry points): glibc's own, through its __libc_*
 * entry points, unless another allocator comes after the agent in the
 * program's symbol search order, one the user preloaded after it
 * (`LD_PRELOAD=libjemalloc.so.2 yardstick mem -- python3 serve.py`, as
 * PyTorch's tuning guides advise, tcmalloc, mimalloc) or one a library
 * of the program's brings. That one is what the program calls natively,
 * and what its other functions (malloc_usable_size, mallocx, ...) expect
 * the blocks to be from: forwarded to glibc instead, the program under
 * `mem` measured another allocator than its own, and one that asked
 * jemalloc for the size of glibc's block was killed by SIGSEGV
 * (tests/cli/mem_hostile.sh, preloaded allocators).
 *
 * Resolved once, first thing in start() (the constructor, or the first
 * call before it), with dlsym(RTLD_NEXT): every name it asks for is
 * glibc's too, so it never fails (a failing dlsym allocates its error
 * message). The aligned allocators all go to the next allocator's
 * memalign (aligned_alloc if it has none). A call through the table
 * costs what the call through the __libc_* symbol's GOT entry did.
 */
struct next_alloc {
	void *(*malloc)(size_t);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	void (*free)(void *);
	void *(*memalign)(size_t, size_t);
};

static struct next_alloc forward = {
	__libc_malloc, __libc_calloc, __libc_realloc, __libc_free,
	__libc_memalign
};

/* Whether f is defined in the shared object loaded at base. */
static bool next_in(void *f, const void *base)
{
	Dl_info i;

	return f && dladdr(f, &i) && i.dli_fbase == base;
}

static void next_resolve(void)
{
	void *m = dlsym(RTLD_NEXT, "malloc");
	struct next_alloc n;
	Dl_info i;

	if (!m || m == (void *)__libc_malloc || !dladdr(m, &i))
		return;
	n.malloc = (void *(*)(size_t))m;
	n.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
	n.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
	n.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
	n.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
	if (!next_in((void *)n.memalign, i.dli_fbase)) {
		void *a = dlsym(RTLD_NEXT, "aligned_alloc");

		if (next_in(a, i.dli_fbase))
			n.memalign = (void *(*)(size_t, size_t))a;
	}
	if (!n.calloc || !n.realloc || !n.free || !n.memalign)
		return;
	forward = n;
}
