/* Benchmarks that misuse the loop: no YS_LOOP, a break out of it,
 * ys_fail, declared work that is no count. Each is reported failed; the
 * others still run; exit 1. */
#include <math.h>
#include <yardstick.h>

static void bm_ok(ys_state *s)
{
	YS_LOOP(s) {
	}
}
YS_BENCHMARK("ok", bm_ok)

static void bm_noloop(ys_state *s)
{
	(void)s;
}
YS_BENCHMARK("noloop", bm_noloop)

static void bm_break(ys_state *s)
{
	YS_LOOP(s) {
		break;
	}
}
YS_BENCHMARK("break", bm_break)

static void bm_fail(ys_state *s)
{
	ys_fail(s, "input file missing");
	YS_LOOP(s) {
	}
}
YS_BENCHMARK_WITH("fail", bm_fail, "threads=2")

static void bm_badwork(ys_state *s)
{
	ys_set_bytes(s, 64);
	ys_set_flops(s, ys_param_double(s, "f"));
	YS_LOOP(s) {
	}
}
YS_BENCHMARK_WITH("badwork", bm_badwork, "f=-1")

/* inf itself: a parameter "f=inf" is refused at the start now, as every
 * number a user writes is (util/number.h), so the work is made inf here */
static void bm_infwork(ys_state *s)
{
	ys_set_bytes(s, 64);
	ys_set_flops(s, ys_param_double(s, "f") * HUGE_VAL);
	YS_LOOP(s) {
	}
}
YS_BENCHMARK_WITH("infwork", bm_infwork, "f=1")
