/*
 * The agent's frame-pointer walk (`--unwind fp`), included by agent.c and
 * by tests/unit/test_heap.c, which walks garbage chains with it.
 *
 * The program's frame-pointer register may hold anything: code built
 * without frame pointers uses it as a general register, so a "frame"
 * may point anywhere, near 0 or near 2^64. The walk must never read
 * outside [lo, hi), the part of the thread's stack between the agent's
 * own frame and the stack's top, which is mapped; every bound is
 * checked by subtraction from lo, which cannot overflow.
 */
#ifndef YS_HEAP_AGENT_FP_H
#define YS_HEAP_AGENT_FP_H

#include <stdint.h>

/*
 * Up to max return addresses into ips, from the frame at fp (its saved
 * frame pointer at fp, its return address at fp + 8) up the chain, which
 * must rise strictly and stay 8-aligned inside [lo, hi). Returns how many.
 */
static inline int heap_fp_walk(void **ips, int max, uintptr_t fp,
			       uintptr_t lo, uintptr_t hi)
{
	int n = 0;

	if (hi < lo || hi - lo < 16)
		return 0;
	while (n < max && fp >= lo && fp - lo <= hi - lo - 16 && !(fp & 7)) {
		uintptr_t next = ((const uintptr_t *)fp)[0];
		uintptr_t ret = ((const uintptr_t *)fp)[1];

		if (!ret)
			break;
		ips[n++] = (void *)ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

#endif
