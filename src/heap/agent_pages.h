/*
 * The agent's tables that are read before they are written (included by
 * agent.c, before the tables' code, and by tests/unit/test_heap.c, which
 * checks with the mapping's resident pages that no page is read as the
 * zero page first): the stacks already sent, a
 * thread's walked stacks and its frames' rules, the Python code objects
 * and lines known. Their pages are written first.
 *
 * Why: a read of an anonymous private page never written maps the
 * kernel's shared zero page, and the first write after it faults again
 * and replaces that mapping, which flushes the page's translation on
 * every processor the program's threads have run on: an interrupt to
 * each, an exit to the hypervisor in a virtual machine. A hashed table
 * spreads its first look-ups over all its pages, so a program's first
 * samples paid this for nearly every one: under `mem --sample`, a tenth
 * of a three-threaded 0.1 s program's time (seed 41385's 20,000
 * samples; bench/RESULTS.md, session 27). A page written first costs one
 * fault, and no flush.
 *
 * So a look-up first writes the page it is about to read, once per page,
 * as the table's bitmap of pages written says: a locked `or` of 0, which
 * changes nothing, whoever else writes the page at the same time. The
 * bitmap is read on every look-up (one bit of a line the look-ups share)
 * and written once per page. A table that its first uses fill whole
 * (the sampled blocks', agent_sample.h) is mapped populated instead.
 */
#ifndef YS_HEAP_AGENT_PAGES_H
#define YS_HEAP_AGENT_PAGES_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define WRITTEN_PAGE_SHIFT 12	/* 4 KiB: x86-64's small page */

/* The bitmap's words for a table of bytes. */
#define WRITTEN_WORDS(bytes) \
	((((bytes) + ((size_t)1 << WRITTEN_PAGE_SHIFT) - 1) >> \
	  WRITTEN_PAGE_SHIFT) / 64 + 1)

static inline void page_write(volatile unsigned char *p)
{
	__asm__ volatile("lock; orb $0, %0" : "+m"(*p) : : "memory");
}

/* Before the first read of p in the table at base (page aligned: a
 * mapping of its own), whose pages' bitmap is bits. */
#define PAGES_INLINE static inline __attribute__((always_inline))

PAGES_INLINE void write_first(_Atomic uint64_t *bits, const void *base,
			      const void *p)
{
	size_t pg = ((uintptr_t)p - (uintptr_t)base) >> WRITTEN_PAGE_SHIFT;
	uint64_t m = (uint64_t)1 << (pg % 64);

	if (__builtin_expect(atomic_load_explicit(&bits[pg / 64],
						  memory_order_relaxed) & m, 1))
		return;
	page_write((volatile unsigned char *)base +
		   (pg << WRITTEN_PAGE_SHIFT));
	atomic_fetch_or_explicit(&bits[pg / 64], m, memory_order_relaxed);
}

/* The same for the len bytes at p (len above 0). */
PAGES_INLINE void write_first_range(_Atomic uint64_t *bits,
				    const void *base, const void *p,
				    size_t len)
{
	uintptr_t a = (uintptr_t)p, end = a + len - 1;

	for (;;) {
		write_first(bits, base, (const void *)a);
		a = (a | (((uintptr_t)1 << WRITTEN_PAGE_SHIFT) - 1)) + 1;
		if (a > end)
			break;
	}
}

#endif
