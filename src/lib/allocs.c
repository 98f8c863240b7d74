/*
 * libyardstick's side of the allocation counting: whether the program
 * linked libyardstick_alloc (alloc.c, a library of its own: a program
 * that does not ask for counting keeps the C library's malloc), and
 * whether its malloc is the one the program calls. The counting and the
 * reading of the counters around a timed region are runner.c's.
 */
#include <stdlib.h>

#include "lib/lib_internal.h"

/* An allocation through a pointer the compiler cannot see through, so
 * that it is not elided. */
static void *(*volatile probe_malloc)(size_t) = malloc;

enum lib_alloc_state lib_alloc_probe(bool asked)
{
	const struct ys__alloc_counts *c;
	uint64_t allocs, bytes;
	void *p;

	if (!asked)
		return LIB_ALLOC_OFF;
	if (!ys__alloc_counts_v1)
		return LIB_ALLOC_NOT_LINKED;
	c = ys__alloc_counts_v1();
	allocs = c->allocs;
	bytes = c->bytes;
	p = probe_malloc(24);
	allocs = c->allocs - allocs;
	bytes = c->bytes - bytes;
	free(p);
	return allocs == 1 && bytes == 24 ? LIB_ALLOC_COUNTED
					  : LIB_ALLOC_NOT_FIRST;
}

const char *lib_alloc_setting(enum lib_alloc_state st)
{
	switch (st) {
	case LIB_ALLOC_COUNTED:
		return "counted";
	case LIB_ALLOC_OFF:
		return "off";
	case LIB_ALLOC_NOT_LINKED:
		return "not counted (link -lyardstick_alloc)";
	case LIB_ALLOC_NOT_FIRST:
		break;
	}
	return "not counted (another malloc comes first)";
}
