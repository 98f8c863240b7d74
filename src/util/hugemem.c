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
	size_t b;

	/* n * size past the address space: calloc's, which refuses it */
	if (__builtin_mul_overflow(n, size, &b) || b > SIZE_MAX / 2)
		return 0;
	return b < HUGE_PAGE ? 0 : (b + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
}

/*
 * b bytes (whole huge pages) mapped at an address aligned to a huge page,
 * or MAP_FAILED: b plus a huge page mapped, the ends beyond the aligned
 * b unmapped. A mapping the kernel places where it likes starts at any
 * page, and a huge page needs 2 MiB of the mapping aligned to 2 MiB: a
 * table of 2 MiB would get none.
 */
static void *map_aligned(size_t b)
{
	size_t span = b + HUGE_PAGE;
	uintptr_t p, lo;

	p = (uintptr_t)mmap(NULL, span, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if ((void *)p == MAP_FAILED)
		return MAP_FAILED;
	lo = (p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
	if (lo > p)
		munmap((void *)p, lo - p);
	if (p + span > lo + b)
		munmap((void *)(lo + b), p + span - (lo + b));
	return (void *)lo;
}

void *huge_calloc(size_t n, size_t size, size_t *mapped)
{
	size_t b = huge_bytes(n, size);
	void *p;

	*mapped = 0;
	if (!b)
		return xcalloc(n, size);
	p = map_aligned(b);
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
