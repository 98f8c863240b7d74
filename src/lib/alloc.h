/*
 * The interface between libyardstick and libyardstick_alloc (alloc.c),
 * the allocation counting a benchmark program links only when it asks
 * for it (-lyardstick_alloc). libyardstick finds it by a weak reference
 * (lib_internal.h): absent, the allocation metrics are not counted and
 * the program's malloc is the C library's, untouched.
 *
 * The name carries the layout's version: a libyardstick expecting
 * another layout does not find this one, and reports "not counted"
 * rather than reading the wrong fields.
 */
#ifndef YS_LIB_ALLOC_H
#define YS_LIB_ALLOC_H

#include <stdint.h>

/* One thread's allocations since it started: they only grow (a
 * thread's timed region counts their change). */
struct ys__alloc_counts {
	uint64_t allocs;	/* calls that succeeded */
	uint64_t bytes;		/* bytes they asked for */
	uint64_t frees;		/* frees of a non-NULL pointer */
};

/* The calling thread's counters (valid while the thread lives). */
const struct ys__alloc_counts *ys__alloc_counts_v1(void);

#endif
