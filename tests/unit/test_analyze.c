/* Unit tests of src/result/analyze: verdicts of comparisons, complexity
 * fits over benchmarks, and the warnings, on results built by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/analyze.h"

static struct benchmark *bench(struct result *r, const char *name,
			       const double *v, size_t n)
{
	char *argv[] = { (char *)name, NULL };
	struct benchmark *b = result_add_benchmark(r, name, argv);
	struct metric *m = benchmark_metric(b, "wall_time", "s");

	for (size_t i = 0; i < n; i++) {
		metric_push(m, v[i]);
		benchmark_push_exit(b, 0);
	}
	return b;
}

/* n values around c: c * (1 + 0.01 * k) for k = -n/2 .. n/2. */
static void around(double *v, size_t n, double c)
{
	for (size_t i = 0; i < n; i++)
		v[i] = c * (1 + 0.01 * ((double)i - (double)n / 2) / n);
}

static const struct comparison *compare(double base, double cand, size_t n,
					struct result *r)
{
	double a[64], b[64];
	struct rng rng;

	around(a, n, base);
	around(b, n, cand);
	result_init(r, "run");
	bench(r, "a", a, n);
	bench(r, "b", b, n);
	result_summarize(r, 1, 1000);
	rng_seed(&rng, 7);
	assert_int_equal(analyze_compare(r, &r->benchmarks[0],
					 &r->benchmarks[1], "wall_time", &rng,
					 1000, ANALYZE_ALPHA), 0);
	assert_int_equal(r->ncomparisons, 1);
	return &r->comparisons[0];
}

static void test_compare_slower(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.010, 0.015, 30, &r);

	assert_string_equal(c->baseline, "a");
	assert_string_equal(c->candidate, "b");
	assert_string_equal(cmp_verdict_name(c->verdict), "slower");
	assert_float_equal(c->ratio, 1.5, 1e-12);
	assert_true(c->ratio_ci[0] <= 1.5 && c->ratio_ci[1] >= 1.5);
	assert_true(c->ratio_ci[0] > 1.4 && c->ratio_ci[1] < 1.6);
	/* 30 v 30 without overlap: the normal approximation gives
	 * z = 6.65 (no ties), p = 2.9e-11. */
	assert_true(c->p_value < 1e-10 && c->p_value > 1e-12);
	result_free(&r);
}

static void test_compare_faster(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.020, 0.010, 30, &r);

	assert_string_equal(cmp_verdict_name(c->verdict), "faster");
	assert_float_equal(c->ratio, 0.5, 1e-12);
	result_free(&r);
}

static void test_compare_unchanged(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.010, 0.010, 30, &r);

	assert_string_equal(cmp_verdict_name(c->verdict), "unchanged");
	assert_float_equal(c->ratio, 1.0, 1e-12);
	assert_float_equal(c->p_value, 1.0, 1e-9);
	result_free(&r);
}

/* Significant but for few runs: 3 v 3 can never reach p < 0.05 with the
 * exact test (smallest two-sided p is 2/20 = 0.1): no verdict. */
static void test_compare_too_few_runs(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.010, 0.020, 3, &r);

	assert_float_equal(c->p_value, 0.1, 1e-12);
	assert_string_equal(cmp_verdict_name(c->verdict), "unchanged");
	result_free(&r);
}

static void test_compare_missing_metric(void **state)
{
	struct result r;
	double v[3] = { 1, 2, 3 };
	struct rng rng;

	result_init(&r, "run");
	bench(&r, "a", v, 3);
	bench(&r, "b", v, 3);
	rng_seed(&rng, 1);
	assert_int_equal(analyze_compare(&r, &r.benchmarks[0],
					 &r.benchmarks[1], "peak_rss", &rng,
					 100, ANALYZE_ALPHA), -1);
	assert_int_equal(r.ncomparisons, 0);
	result_free(&r);
}

static void test_fit_quadratic(void **state)
{
	struct result r;
	double xs[5] = { 100, 200, 400, 800, 1600 };
	size_t idx[5];

	result_init(&r, "run");
	for (size_t i = 0; i < 5; i++) {
		/* 1 ms start-up plus 2 ns * n^2, three identical runs */
		double y = 0.001 + 2e-9 * xs[i] * xs[i];
		double v[3] = { y, y, y };

		bench(&r, "q", v, 3);
		idx[i] = i;
	}
	result_summarize(&r, 1, 0);
	assert_int_equal(analyze_fit(&r, "q {n}", "n", "wall_time", idx, xs,
				     5), 0);
	assert_int_equal(r.nfits, 1);
	assert_int_equal(r.fits[0].best.model, O_N2);
	assert_float_equal(r.fits[0].best.coef, 2e-9, 1e-15);
	assert_float_equal(r.fits[0].best.intercept, 0.001, 1e-12);
	assert_string_equal(r.fits[0].name, "q {n}");
	assert_string_equal(r.fits[0].parameter, "n");
	result_free(&r);
}

static int has_warning(const struct benchmark *b, const char *text)
{
	for (size_t i = 0; i < b->nwarnings; i++)
		if (strstr(b->warnings[i], text))
			return 1;
	return 0;
}

static void test_warnings(void **state)
{
	struct result r;
	double steady[120], noisy[120];
	struct benchmark *b1, *b2;

	for (size_t i = 0; i < 120; i++) {
		steady[i] = 1.0 + 0.001 * (i % 7);
		noisy[i] = i % 2 ? 1.0 : 1.5;	/* CV 20% */
	}
	steady[0] = 1.1;			/* one high outlier */
	result_init(&r, "run");
	b1 = bench(&r, "steady", steady, 120);
	b2 = bench(&r, "noisy", noisy, 10);
	b2->timeouts = 2;
	result_summarize(&r, 1, 0);
	b1 = &r.benchmarks[0];
	b2 = &r.benchmarks[1];
	analyze_warnings(b1);
	analyze_warnings(b2);
	assert_true(has_warning(b1, "1 of 120 runs are outliers"));
	assert_true(has_warning(b1, "1 high, 0 low"));
	assert_false(has_warning(b1, "varies a lot"));
	assert_false(has_warning(b1, "p99 needs"));
	assert_true(has_warning(b2, "coefficient of variation 21.1%"));
	assert_true(has_warning(b2, "only 10 runs"));
	assert_true(has_warning(b2, "p95 at least 20"));
	assert_true(has_warning(b2, "2 run(s) timed out"));
	/* the few-runs warning, and it alone, is known as such (-q leaves
	 * it off the terminal) */
	for (size_t i = 0; i < b2->nwarnings; i++)
		assert_int_equal(analyze_is_few_runs(b2->warnings[i]),
				 strstr(b2->warnings[i], "only 10 runs") != NULL);
	for (size_t i = 0; i < b1->nwarnings; i++)
		assert_false(analyze_is_few_runs(b1->warnings[i]));
	assert_false(analyze_is_few_runs("only a test"));
	result_free(&r);
}

static void test_governor_warning(void **state)
{
	struct result r;
	double v[3] = { 1, 2, 3 };

	result_init(&r, "run");
	bench(&r, "a", v, 3);
	bench(&r, "b", v, 3);
	r.machine.governor = strdup("powersave");
	analyze_machine_warnings(&r);
	assert_true(has_warning(&r.benchmarks[0], "governor is 'powersave'"));
	assert_true(has_warning(&r.benchmarks[1], "governor is 'powersave'"));
	assert_int_equal(r.benchmarks[0].nwarnings, 1);
	free(r.machine.governor);
	r.machine.governor = strdup("performance");
	analyze_machine_warnings(&r);
	assert_int_equal(r.benchmarks[0].nwarnings, 1);
	result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_slower),
		cmocka_unit_test(test_compare_faster),
		cmocka_unit_test(test_compare_unchanged),
		cmocka_unit_test(test_compare_too_few_runs),
		cmocka_unit_test(test_compare_missing_metric),
		cmocka_unit_test(test_fit_quadratic),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_governor_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
