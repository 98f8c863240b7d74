/*
 * bench/processes_verdict.sh's kernel, one the tests never saw: a
 * dependent chain of VERDICT_STEPS xorshift-multiply steps an iteration
 * over a 4 KiB table lookup, so that time per operation is proportional
 * to VERDICT_STEPS. Built three times (bench/meson.build): twice the same
 * (an identical rebuild) and once with 10% more steps (a 10% regression).
 */
#include <stdint.h>

#include <yardstick.h>

#ifndef VERDICT_STEPS
#define VERDICT_STEPS 400
#endif

static uint32_t table[1024];

static void bm_chain(ys_state *s)
{
	uint64_t x = 88172645463325252ULL;

	for (uint32_t i = 0; i < 1024; i++)
		table[i] = i * 2654435761u;
	YS_LOOP(s) {
		for (int i = 0; i < VERDICT_STEPS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			x += table[x & 1023];
		}
		ys_keep(&x);
	}
}
YS_BENCHMARK("chain", bm_chain)
