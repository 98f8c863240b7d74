// The kernels of bench/micro_kernels.h under Google Benchmark, with its
// defaults: bench/libyardstick_vs_gbench.sh runs it against micro_ys.c.
#include <benchmark/benchmark.h>

#include "micro_kernels.h"

static void empty(benchmark::State &state)
{
	for (auto _ : state) {
	}
}
BENCHMARK(empty);

static void hash(benchmark::State &state)
{
	uint64_t x = 1;

	for (auto _ : state) {
		uint64_t h = micro_hash(x++);

		benchmark::DoNotOptimize(h);
	}
}
BENCHMARK(hash);

static void memcpy_4k(benchmark::State &state)
{
	static char src[MICRO_COPY_BYTES], dst[MICRO_COPY_BYTES];

	memset(src, 1, sizeof(src));
	for (auto _ : state) {
		memcpy(dst, src, sizeof(dst));
		benchmark::DoNotOptimize(dst);
		benchmark::ClobberMemory();
	}
}
BENCHMARK(memcpy_4k);

static void sort_1000(benchmark::State &state)
{
	static int input[MICRO_SORT_N], work[MICRO_SORT_N];

	micro_sort_input(input);
	for (auto _ : state) {
		micro_sort(work, input);
		benchmark::DoNotOptimize(work);
		benchmark::ClobberMemory();
	}
}
BENCHMARK(sort_1000);

BENCHMARK_MAIN();
