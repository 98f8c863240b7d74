/*
 * The keep-alive and the clobber, each without and with
 * (tests/cli/libyardstick.sh runs this compiled by gcc and clang at -O2
 * and -O3): the body computes a dependent chain of n steps (a xorshift and
 * a multiply: no closed form a compiler could find). Without a keep-alive
 * the result is unused and the compiler removes the chain, so the time
 * does not grow with n; with YS_KEEP(x) or ys_keep(&x) it grows linearly.
 * The clobber: the result is stored into a local whose address escaped
 * (to ys_keep) and whose life ends with the iteration, so the store is
 * dead — and the chain with it — unless ys_clobber() says memory is read.
 */
#include <yardstick.h>

#include "chain.h"


static void bm_none(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, n);
	}
}
YS_BENCHMARK_WITH("none", bm_none, "n=100,1000")

static void bm_keep(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, n);
		YS_KEEP(x);
	}
}
YS_BENCHMARK_WITH("keep", bm_keep, "n=100,1000")

static void bm_keep_inner(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult;

	YS_LOOP(s) {
		uint64_t x = 1;	/* a local of the loop's body */

		CHAIN(x, k, n);
		YS_KEEP(x);
	}
}
YS_BENCHMARK_WITH("keep_inner", bm_keep_inner, "n=100,1000")

static void bm_keep_ptr(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		CHAIN(x, k, n);
		ys_keep(&x);
	}
}
YS_BENCHMARK_WITH("keep_ptr", bm_keep_ptr, "n=100,1000")

/* A large object kept in place: a memory operand, no copy. */
struct big {
	uint64_t v[512];
};

static void bm_keep_big(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult;
	struct big b = { { 1 } };

	YS_LOOP(s) {
		CHAIN(b.v[0], k, n);
		YS_KEEP(b);
	}
}
YS_BENCHMARK_WITH("keep_big", bm_keep_big, "n=100,1000")

static void bm_store_none(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		uint64_t a[1];

		ys_keep(a);
		CHAIN(x, k, n);
		a[0] = x;
	}
}
YS_BENCHMARK_WITH("store_none", bm_store_none, "n=100,1000")

static void bm_store_clobber(ys_state *s)
{
	long n = (long)ys_param_int(s, "n");
	uint64_t k = mult, x = 1;

	YS_LOOP(s) {
		uint64_t a[1];

		ys_keep(a);
		CHAIN(x, k, n);
		a[0] = x;
		ys_clobber();
	}
}
YS_BENCHMARK_WITH("store_clobber", bm_store_clobber, "n=100,1000")
