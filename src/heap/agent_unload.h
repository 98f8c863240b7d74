/*
 * dlclose, wrapped by the agent (included by agent.c only, after the
 * exec family's REAL): an object unloaded leaves its addresses to the
 * next one the loader maps, whose code then has the return addresses the
 * unloaded one's stacks had. A dlclose that removed an object (the
 * loader's count of removals, dlpi_subs, moved) counts one more unload
 * (agent.c, unloads): stacks hash anew from then on (stack_seed), the
 * maps are sent again before the next new stack, and each thread's cache
 * of stacks is emptied at its next walk, libunwind's at once
 * (agent_unwind.h). A dlclose that only dropped a reference changes
 * nothing. glibc's own unloads inside the C library (NSS, iconv modules)
 * do not come through here.
 */
static int count_subs(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(unsigned long long *)arg = info->dlpi_subs;
	return 1;
}

static unsigned long long loader_subs(void)
{
	unsigned long long subs = 0;

	dl_iterate_phdr(count_subs, &subs);
	return subs;
}

/*
 * The executable segments of the objects loaded before a dlclose
 * (unload_lock, which also guards the table gone): those not loaded
 * after it are code unloaded. Beyond SEGS_MAX, or beyond the room of
 * gone, n_gone says too many.
 */
#define SEGS_MAX 4096
static struct gone_range segs[SEGS_MAX];
static uint32_t n_segs;
static bool segs_full;

static int note_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		if (n_segs == SEGS_MAX) {
			segs_full = true;
			return 1;
		}
		segs[n_segs].lo = info->dlpi_addr + ph->p_vaddr;
		segs[n_segs].hi = segs[n_segs].lo + ph->p_memsz;
		n_segs++;
	}
	return 0;
}

/* Mark the segments still loaded (hi 0). */
static int mark_segs(struct dl_phdr_info *info, size_t size, void *arg)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		for (uint32_t k = 0; k < n_segs; k++)
			if (segs[k].lo == lo &&
			    segs[k].hi == lo + ph->p_memsz)
				segs[k].hi = 0;
	}
	return 0;
}

/* The segments noted before that are gone now, into the table gone. */
static void note_gone(void)
{
	uint32_t n = atomic_load_explicit(&n_gone, memory_order_relaxed);

	dl_iterate_phdr(mark_segs, NULL);
	for (uint32_t k = 0; k < n_segs && n <= GONE_MAX; k++) {
		if (!segs[k].hi)
			continue;
		if (n == GONE_MAX || segs_full) {
			n = GONE_MAX + 1;
			break;
		}
		gone[n++] = segs[k];
	}
	atomic_store_explicit(&n_gone, n, memory_order_release);
}

typedef int (*dlclose_fn)(void *);

EXPORT int dlclose(void *handle)
{
	unsigned long long before;
	int r, e;

	REAL(dlclose, dlclose_fn);
	if (!real_dlclose) {
		errno = ENOSYS;
		return -1;
	}
	/* a dlclose from a destructor the outer one runs: what it unloads
	 * is the outer one's to note */
	if (tls.in_unload)
		return real_dlclose(handle);
	tls.in_unload = 1;
	pthread_mutex_lock(&unload_lock);
	n_segs = 0;
	segs_full = false;
	dl_iterate_phdr(note_segs, NULL);
	before = loader_subs();
	r = real_dlclose(handle);
	e = errno;
	if (loader_subs() != before) {
		note_gone();
		atomic_fetch_add(&unloads, 1);
		atomic_fetch_add(&stack_seed, UINT64_C(1) << 8);
		/* libunwind keeps each address's rule for good on x86-64:
		 * its full walk stepped through code loaded at an unloaded
		 * one's return addresses with the old code's rules (a frame
		 * of 0x30 bytes read as one of 0x10, the stack past it
		 * garbage). Its caches are flushed (each thread's at its
		 * next use); its fast trace's cannot be: a stack through
		 * the code unloaded is walked in full (agent_unwind.h,
		 * walk_trace) */
		if (unw_space)
			unw_flush(*unw_space, 0, 0);
	}
	pthread_mutex_unlock(&unload_lock);
	tls.in_unload = 0;
	errno = e;
	return r;
}
