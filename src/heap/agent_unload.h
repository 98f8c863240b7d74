/*
 * dlclose, wrapped by the agent (included by agent.c only, after the
 * exec family's REAL): an object unloaded leaves its addresses to the
 * next one the loader maps, whose code then has the return addresses the
 * unloaded one's stacks had. A dlclose that removed an object (the
 * loader's count of removals, dlpi_subs, moved) counts one more unload
 * (agent.c, unloads): stacks hash anew from then on (stack_seed), the
 * maps are sent again before the next new stack, and each thread's cache
 * of stacks is emptied at its next walk (agent_unwind.h). A dlclose that
 * only dropped a reference changes nothing. glibc's own unloads inside
 * the C library (NSS, iconv modules) do not come through here.
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
	before = loader_subs();
	r = real_dlclose(handle);
	e = errno;
	if (loader_subs() != before) {
		atomic_fetch_add(&unloads, 1);
		atomic_fetch_add(&stack_seed, UINT64_C(1) << 8);
	}
	errno = e;
	return r;
}
