/* A registration with a bad spec: ys_main refuses it (exit 2), naming
 * the benchmark, its file and line, and what is wrong. */
#include <yardstick.h>

static void bm(ys_state *s)
{
	YS_LOOP(s) {
	}
}
YS_BENCHMARK("fine", bm)
YS_BENCHMARK_WITH("bad", bm, "n=10:1")
