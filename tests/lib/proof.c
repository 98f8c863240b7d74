/*
 * Benchmarks with a known truth, for tests/cli/libyardstick.sh:
 *  - chain: a dependent chain of L steps (xorshift, multiply); its time
 *    per iteration is L times the step's latency (chain_cal: L = 20000):
 *    linear in L, through 0;
 *  - ratio: one chain of 200 steps against one of 400 (group "ratio"):
 *    2:1;
 *  - empty: nothing at all;
 *  - alloc3: three malloc(64) and three free per iteration;
 *  - alloc_mix: calloc(1, 32), realloc to 100, posix_memalign of 16,
 *    aligned_alloc of 64 and three free: 4 allocations of 212 bytes, 3
 *    frees (the realloc moves or grows the calloc'd block, not a free);
 *  - setup: 1 MiB of setup before the loop (not timed, not counted);
 *  - threads: a body on 2 threads that checks it sees both indices;
 *  - work: declared items, bytes and flops.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <yardstick.h>

#include "chain.h"


static void bm_chain(ys_state *s)
{
	long n = (long)ys_param_int(s, "L");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, n);
		YS_KEEP(x);
	}
}
YS_BENCHMARK_WITH("chain", bm_chain, "L=50:400:50")
/* the step's latency, from a chain long enough for anything else to
 * vanish */
YS_BENCHMARK_WITH("chain_cal", bm_chain, "L=20000")

static void bm_ratio_one(ys_state *s)
{
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, 200);
		YS_KEEP(x);
	}
}
YS_GROUP("ratio", "one", bm_ratio_one)

static void bm_ratio_two(ys_state *s)
{
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, 400);
		YS_KEEP(x);
	}
}
YS_GROUP("ratio", "two", bm_ratio_two)

static void bm_empty(ys_state *s)
{
	YS_LOOP(s) {
	}
}
YS_BENCHMARK("empty", bm_empty)

static void bm_alloc3(ys_state *s)
{
	YS_LOOP(s) {
		void *a = malloc(64), *b = malloc(64), *c = malloc(64);

		ys_keep(a);
		ys_keep(b);
		ys_keep(c);
		free(a);
		free(b);
		free(c);
	}
}
YS_BENCHMARK("alloc3", bm_alloc3)

static void bm_alloc_mix(ys_state *s)
{
	YS_LOOP(s) {
		char *a = calloc(1, 32);
		void *b = NULL, *c;

		ys_keep(a);
		a = realloc(a, 100);
		ys_keep(a);
		if (posix_memalign(&b, 64, 16))
			ys_fail(s, "posix_memalign");
		ys_keep(b);
		c = aligned_alloc(64, 64);
		ys_keep(c);
		free(a);
		free(b);
		free(c);
	}
}
YS_BENCHMARK("alloc_mix", bm_alloc_mix)

static void bm_setup(ys_state *s)
{
	char *big = malloc(1 << 20);	/* setup: neither timed nor counted */
	uint64_t x = 0;

	memset(big, 1, 1 << 20);
	YS_LOOP(s) {
		x += (unsigned char)big[x & ((1 << 20) - 1)];
		YS_KEEP(x);
	}
	free(big);
}
YS_BENCHMARK("setup", bm_setup)

static atomic_int seen;

static void bm_threads(ys_state *s)
{
	uint64_t x = (uint64_t)ys_thread_index(s) + 1;

	atomic_fetch_or(&seen, 1 << ys_thread_index(s));
	ys_set_items(s, 1);
	YS_LOOP(s) {
		x = x * 3 + 1;
		YS_KEEP(x);
	}
	if (ys_thread_index(s) == 0 && ys_threads(s) == 2 &&
	    (atomic_load(&seen) & 3) != 3)
		ys_fail(s, "thread 1 did not run");
}
YS_BENCHMARK_WITH("threads", bm_threads, "threads=2")

static void bm_work(ys_state *s)
{
	static double a[256], b[256];
	double acc = 0;

	ys_set_items(s, 256);
	ys_set_bytes(s, 2 * 256 * sizeof(double));
	ys_set_flops(s, 2 * 256);
	YS_LOOP(s) {
		for (int i = 0; i < 256; i++)
			acc += a[i] * b[i];
		YS_KEEP(acc);
	}
}
YS_BENCHMARK("work", bm_work)
