/*
 * What counting allocations costs (bench/alloc_count_cost.sh): the same
 * allocation-heavy kernels under three harnesses, chosen at compile time.
 *   -DHARNESS_NATIVE  a plain loop timed with CLOCK_MONOTONIC: the
 *                     median of 201 runs of N iterations (one run about
 *                     50 us, short as libyardstick's epochs, so that a
 *                     busy machine spoils few), printed "kernel
 *                     seconds-per-iteration";
 *                     linked alone, with libyardstick (which leaves
 *                     malloc alone) or with libyardstick_alloc too (its
 *                     counting malloc & co., counting on every call);
 *                     with arguments "KERNEL N", KERNEL N times, untimed
 *   -DHARNESS_GBENCH  Google Benchmark (benchmark::DoNotOptimize)
 *   -DHARNESS_YS      libyardstick (YS_LOOP), linked with
 *                     libyardstick_alloc (run with and without
 *                     --no-alloc-count) or without it
 * Kernels: malloc24 (malloc(24) + free), umap (an unordered_map<int,int>
 * of 1000 inserts, built and destroyed), and two held out of the tuning:
 * map (std::map, 1000 inserts) and vec (a vector growing by 1000
 * push_back).
 */
#include "alloc_kernels.h"

#if defined(HARNESS_NATIVE)
#include <algorithm>
#include <ctime>

static double now()
{
	timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void run(const char *name, void (*fn)())
{
	long n = 1;
	double t, v[201];

	for (;;) {	/* iterations for about 50 us */
		double t0 = now();

		for (long i = 0; i < n; i++)
			fn();
		t = now() - t0;
		if (t > 50e-6)
			break;
		n *= 2;
	}
	for (double &x : v) {
		double t0 = now();

		for (long i = 0; i < n; i++)
			fn();
		x = (now() - t0) / n;
	}
	std::sort(v, v + 201);
	printf("%s %.6e\n", name, v[100]);
}

/* "KERNEL N": run KERNEL N times, untimed (for an instruction count
 * under valgrind); no argument: time each kernel */
int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)();
	} kernels[] = { { "malloc24", k_malloc24 }, { "umap", k_umap },
			{ "map", k_map }, { "vec", k_vec } };

	for (const auto &k : kernels) {
		if (argc == 3 && !strcmp(argv[1], k.name))
			for (long i = atol(argv[2]); i > 0; i--)
				k.fn();
		else if (argc != 3)
			run(k.name, k.fn);
	}
	return 0;
}
#elif defined(HARNESS_GBENCH)
#include <benchmark/benchmark.h>

#define GB(name, fn)                                                        \
	static void gb_##name(benchmark::State &st)                         \
	{                                                                   \
		for (auto _ : st)                                           \
			fn();                                               \
	}                                                                   \
	BENCHMARK(gb_##name)->Name(#name);
GB(malloc24, k_malloc24)
GB(umap, k_umap)
GB(map, k_map)
GB(vec, k_vec)
BENCHMARK_MAIN();
#elif defined(HARNESS_YS)
#include <yardstick.h>

#define YSB(name, fn)                                                       \
	static void ys_##name(ys_state *s)                                  \
	{                                                                   \
		YS_LOOP(s) {                                                \
			fn();                                               \
		}                                                           \
	}                                                                   \
	YS_BENCHMARK(#name, ys_##name)
YSB(malloc24, k_malloc24)
YSB(umap, k_umap)
YSB(map, k_map)
YSB(vec, k_vec)

int main(int argc, char **argv)
{
	return ys_main(argc, argv);
}
#else
#error "define HARNESS_NATIVE, HARNESS_GBENCH or HARNESS_YS"
#endif
