/*
 * Benchmarks that push libyardstick at its edges, for
 * tests/cli/libyardstick.sh (issue 25):
 *  - tiny: an empty body with declared work: too short to time, so no
 *    rate may come out of it;
 *  - huge: declared work whose rate overflows a double;
 *  - allocfail: every allocation entry point failing (sizes too large,
 *    bad alignments, overflowing products) around one malloc(16) and its
 *    free: exactly 1 allocation of 16 bytes and 1 free per iteration;
 *  - big: parameters above 2^53 (the body fails unless ys_param_int gives
 *    back the very integer of the spec);
 *  - "a [k=1]" and "a" with k=1: names that collide once parameters are
 *    added;
 *  - tfail: a threads=2 benchmark whose second thread fails.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yardstick.h>

static void bm_tiny(ys_state *s)
{
	ys_set_items(s, 1);
	ys_set_bytes(s, 8);
	YS_LOOP(s) {
	}
}
YS_BENCHMARK("tiny", bm_tiny)

static void bm_huge(ys_state *s)
{
	uint64_t x = 1;

	ys_set_bytes(s, 1e308);
	ys_set_items(s, 1);
	YS_LOOP(s) {
		x = x * 6364136223846793005u + 1;
		YS_KEEP(x);
	}
}
YS_BENCHMARK("huge", bm_huge)

/* sizes the compiler cannot see */
static volatile size_t too_big = SIZE_MAX, two = 2, sixteen = 16;

static void fail_all(void *keep)
{
	void *q = NULL;

	if (malloc(too_big) || calloc(1, too_big) || calloc(too_big, two) ||
	    realloc(keep, too_big) || realloc(NULL, too_big) ||
	    reallocarray(keep, too_big, two) ||
	    memalign(64, too_big) || aligned_alloc(64, too_big) ||
	    valloc(too_big) || pvalloc(too_big) ||
	    posix_memalign(&q, 3, sixteen) != EINVAL ||
	    posix_memalign(&q, 64, too_big) != ENOMEM)
		abort();
	free(NULL);
}

static void bm_allocfail(ys_state *s)
{
	void *keep = malloc(32);	/* not timed: not counted */

	YS_LOOP(s) {
		void *p = malloc(sixteen);

		ys_keep(p);
		fail_all(keep);
		free(p);
	}
	free(keep);
}
YS_BENCHMARK("allocfail", bm_allocfail)

static void bm_big(ys_state *s)
{
	char back[32];
	const char *name[] = { "k", "j" };

	for (int i = 0; i < 2; i++) {
		snprintf(back, sizeof(back), "%lld",
			 ys_param_int(s, name[i]));
		if (strcmp(back, ys_param(s, name[i])))
			ys_fail(s, "ys_param_int lost the parameter's value");
	}
	YS_LOOP(s) {
	}
}
YS_BENCHMARK_WITH("big", bm_big,
		  "k=9007199254740993:9007199254740995;"
		  "j=9223372036854775806,-9223372036854775808")

static void bm_a(ys_state *s)
{
	uint64_t x = 1;

	YS_LOOP(s) {
		x = x * 6364136223846793005u + 1;
		YS_KEEP(x);
	}
}
YS_BENCHMARK("a [k=1]", bm_a)
YS_BENCHMARK_WITH("a", bm_a, "k=1")

static void bm_tfail(ys_state *s)
{
	if (ys_thread_index(s) == 1)
		ys_fail(s, "thread 1 gave up");
	YS_LOOP(s) {
	}
}
YS_BENCHMARK_WITH("tfail", bm_tfail, "threads=2,3")
