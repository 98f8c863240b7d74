/*
 * Memory for large arrays read at random (hash tables, a live-block
 * table): in huge pages where the kernel gives them (transparent huge
 * pages, in "madvise" mode as Debian ships it). Such an array is far
 * larger than what the TLB covers with 4 KiB pages, so each random read
 * is a page walk as well as a cache miss, twice as costly in a virtual
 * machine (the walk goes through the host's tables too). Small arrays
 * come from calloc as before.
 */
#ifndef YS_UTIL_HUGEMEM_H
#define YS_UTIL_HUGEMEM_H

#include <stddef.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* What n * size bytes take mapped (in whole huge pages), or 0 when they
 * are fewer than a huge page, or more than the address space holds
 * (calloc's, which refuses the latter). */
size_t huge_bytes(size_t n, size_t size);

/*
 * n * size zeroed bytes: mapped at a huge page's alignment and advised
 * into huge pages when huge_bytes says so (*mapped: that size), else, or if the mapping
 * fails, from xcalloc (*mapped: 0). Allocation failure aborts.
 */
void *huge_calloc(size_t n, size_t size, size_t *mapped);

/* p as huge_calloc gave it, with its *mapped. */
void huge_free(void *p, size_t mapped);

/* Ask for huge pages under [p, p + bytes) of memory already allocated
 * (an array that malloc mapped on its own: glibc maps blocks of 128 KiB
 * and more, and realloc moves the mapping, advice and all). Nothing for
 * less than a huge page; a refusal is ignored. */
void huge_advise(void *p, size_t bytes);

#endif
