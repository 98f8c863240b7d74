/*
 * Huge-page memory for large random-access arrays (hugemem.h).
 */
#include "util/hugemem.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/strutil.h"

size_t huge_bytes(size_t n, size_t size)
{
	size_t b = n * size;

	return b < HUGE_PAGE ? 0 : (b + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

void *huge_calloc(size_t n, size_t size, size_t *mapped)
{
	size_t b = huge_bytes(n, size);
	void *p;

	*mapped = 0;
	if (!b)
		return xcalloc(n, size);
	p = mmap(NULL, b, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return xcalloc(n, size);
	madvise(p, b, MADV_HUGEPAGE);
	*mapped = b;
	return p;
}

void huge_free(void *p, size_t mapped)
{
	if (mapped)
		munmap(p, mapped);
	else
		free(p);
}

void huge_advise(void *p, size_t bytes)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t hi = ((uintptr_t)p + bytes) & ~(page - 1);

	if (bytes >= HUGE_PAGE && hi > lo)
		madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
}
