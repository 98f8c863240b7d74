/*
 * The kernels of bench/micro_kernels.h under libyardstick, with its
 * defaults: bench/libyardstick_vs_gbench.sh runs it against
 * micro_gbench.cc. The keep-alives match Google Benchmark's
 * (DoNotOptimize of the value, of the buffer with ClobberMemory).
 */
#include <yardstick.h>

#include "micro_kernels.h"

static void empty(ys_state *s)
{
	YS_LOOP(s) {
	}
}
YS_BENCHMARK("empty", empty)

static void hash(ys_state *s)
{
	uint64_t x = 1;

	YS_LOOP(s) {
		uint64_t h = micro_hash(x++);

		YS_KEEP(h);
	}
}
YS_BENCHMARK("hash", hash)

static char src[MICRO_COPY_BYTES], dst[MICRO_COPY_BYTES];

static void memcpy_4k(ys_state *s)
{
	memset(src, 1, sizeof(src));
	YS_LOOP(s) {
		memcpy(dst, src, sizeof(dst));
		ys_keep(dst);
	}
}
YS_BENCHMARK("memcpy_4k", memcpy_4k)

static int input[MICRO_SORT_N], work[MICRO_SORT_N];

static void sort_1000(ys_state *s)
{
	micro_sort_input(input);
	YS_LOOP(s) {
		micro_sort(work, input);
		ys_keep(work);
	}
}
YS_BENCHMARK("sort_1000", sort_1000)
