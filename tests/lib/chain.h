/*
 * The known workload of the libyardstick tests: a dependent chain of n
 * steps, each a xorshift and a multiply (no closed form a compiler could
 * find, no two steps in parallel), so its time is n times one step's
 * latency.
 */
#ifndef YS_TESTS_LIB_CHAIN_H
#define YS_TESTS_LIB_CHAIN_H

#include <stdint.h>

static uint64_t mult = 6364136223846793005ull;

#define CHAIN(x, k, n)                                                      \
	for (long i_ = 0; i_ < (n); i_++) {                                 \
		(x) ^= (x) >> 29;                                           \
		(x) *= (k);                                                 \
	}

#endif
