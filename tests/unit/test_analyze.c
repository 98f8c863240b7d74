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
#include "result/compare.h"
#include "stats/judge.h"

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
	struct analyze_pair pr;
	bool ok = false;

	around(a, n, base);
	around(b, n, cand);
	result_init(r, "run");
	bench(r, "a", a, n);
	bench(r, "b", b, n);
	result_summarize(r, 1, 1000);
	pr = (struct analyze_pair){ &r->benchmarks[0], &r->benchmarks[1],
				    "wall_time" };
	analyze_compare(r, &pr, 1, JUDGE_ALPHA, &ok);
	assert_true(ok);
	assert_int_equal(r->ncomparisons, 1);
	return &r->comparisons[0];
}

/* The values around() makes are evenly spaced: the Harrell-Davis median
 * (the judge's estimate) of each side is its middle, c (1 - 1/6000) for
 * 30, so the ratio of the two is that of the centres, exactly. */
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
	/* 30 v 30 without overlap: beyond every relabelling */
	/* (the budget of one pair's two tests: about 1200 relabellings) */
	assert_true(c->p_value < 0.002);
	/* one pair, both directions: Holm over 2 tests */
	assert_float_equal(c->p_adjusted, fmin(1, 2 * c->p_value), 1e-15);
	result_free(&r);
}

static void test_compare_faster(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.020, 0.010, 30, &r);

	assert_string_equal(cmp_verdict_name(c->verdict), "faster");
	assert_float_equal(c->ratio, 0.5, 1e-12);
	assert_true(c->ratio_ci[0] < 0.5 && c->ratio_ci[1] > 0.5);
	result_free(&r);
}

static void test_compare_unchanged(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.010, 0.010, 30, &r);
	char *s = comparison_sentence(c);

	assert_string_equal(cmp_verdict_name(c->verdict), "unchanged");
	assert_float_equal(c->ratio, 1.0, 1e-12);
	/* a change beyond compare's 2% either way: far from it */
	assert_true(c->p_value > 0.5);
	assert_non_null(strstr(s, "no significant difference"));
	free(s);
	result_free(&r);
}

/* 3 v 3 at alpha 0.01: the smallest p of an exact test is 1/20, so no
 * data can show a change: inconclusive, as compare and gate say. */
static void test_compare_too_few_runs(void **state)
{
	struct result r;
	const struct comparison *c = compare(0.010, 0.020, 3, &r);
	char *s = comparison_sentence(c);

	assert_string_equal(cmp_verdict_name(c->verdict), "inconclusive");
	assert_float_equal(c->p_value, 0.05, 1e-12);
	assert_float_equal(c->ratio, 2.0, 1e-12);
	assert_non_null(strstr(s, "inconclusive, 2"));
	free(s);
	result_free(&r);
}

static void test_compare_missing_metric(void **state)
{
	struct result r;
	double v[3] = { 1, 2, 3 };
	struct analyze_pair pr;
	bool ok = true;

	result_init(&r, "run");
	bench(&r, "a", v, 3);
	bench(&r, "b", v, 3);
	pr = (struct analyze_pair){ &r.benchmarks[0], &r.benchmarks[1],
				    "peak_rss" };
	analyze_compare(&r, &pr, 1, JUDGE_ALPHA, &ok);
	assert_false(ok);
	assert_int_equal(r.ncomparisons, 0);
	result_free(&r);
}

/* Equal to rounding: cmocka's assert_float_equal compares floats. */
#define assert_near(x, y) assert_true(fabs((x) - (y)) <= 1e-12)

/* Pseudo-random values: a * (1 + u) for u uniform in [0, spread). */
static void noisy(double *v, size_t n, double a, double spread,
		  unsigned *seed)
{
	for (size_t i = 0; i < n; i++) {
		*seed = *seed * 1103515245u + 12345u;
		v[i] = a * (1 + spread * (double)(*seed >> 8) / (1u << 24));
	}
}

/*
 * One judge: a comparison in a result says what `compare` says of the
 * same two samples (its median row: estimate, interval, p), for samples
 * small enough that the judge's permutation test is exact (its p then
 * does not depend on the family's budget). Generated cases, each side
 * 6 values, changes from none to twice.
 */
static void test_compare_as_compare(void **state)
{
	unsigned seed = 12345;

	for (int k = 0; k < 40; k++) {
		double a[6], b[6];
		struct result r, ra, rb;
		struct compare_opts o;
		struct compare_report rep;
		struct analyze_pair pr;
		const struct comparison *c;
		struct error e;
		bool ok = false;

		noisy(a, 6, 0.010, 0.2, &seed);
		noisy(b, 6, 0.010 * (1 + 0.025 * k), 0.2, &seed);
		result_init(&r, "run");
		bench(&r, "a", a, 6);
		bench(&r, "b", b, 6);
		pr = (struct analyze_pair){ &r.benchmarks[0],
					    &r.benchmarks[1], "wall_time" };
		analyze_compare(&r, &pr, 1, JUDGE_ALPHA, &ok);
		assert_true(ok);
		result_init(&ra, "run");
		result_init(&rb, "run");
		bench(&ra, "x", a, 6);
		bench(&rb, "x", b, 6);
		result_summarize(&ra, 1, 100);
		result_summarize(&rb, 1, 100);
		compare_opts_init(&o);
		memset(&rep, 0, sizeof(rep));
		assert_int_equal(compare_results(&ra, &rb, &o, &rep, &e), 0);
		assert_int_equal(rep.n, 1);
		assert_string_equal(rep.rows[0].ci_method,
				    "exact permutation");
		c = &r.comparisons[0];
		assert_near(c->ratio - 1, rep.rows[0].change);
		assert_near(c->ratio_ci[0] - 1, rep.rows[0].change_ci[0]);
		assert_near(c->ratio_ci[1] - 1, rep.rows[0].change_ci[1]);
		assert_float_equal(r.comparisons[0].p_value, rep.rows[0].p,
				   1e-12);
		compare_report_free(&rep);
		result_free(&ra);
		result_free(&rb);
		result_free(&r);
	}
}

/* Several comparisons are one family: Holm's step-down over both
 * directions of each, the verdicts at the adjusted p. */
static void test_compare_family(void **state)
{
	double a[30], b[30], c[30];
	struct analyze_pair pr[2];
	struct result r;
	bool ok[2];
	double p0, p1;

	around(a, 30, 0.010);
	around(b, 30, 0.015);
	around(c, 30, 0.0101);	/* 1%: inside compare's noise level */
	result_init(&r, "run");
	bench(&r, "a", a, 30);
	bench(&r, "b", b, 30);
	bench(&r, "c", c, 30);
	pr[0] = (struct analyze_pair){ &r.benchmarks[0], &r.benchmarks[1],
				       "wall_time" };
	pr[1] = (struct analyze_pair){ &r.benchmarks[0], &r.benchmarks[2],
				       "wall_time" };
	analyze_compare(&r, pr, 2, JUDGE_ALPHA, ok);
	assert_true(ok[0] && ok[1]);
	assert_int_equal(r.ncomparisons, 2);
	p0 = r.comparisons[0].p_value;
	p1 = r.comparisons[1].p_value;
	/* the smallest of four p values is multiplied by 4 */
	assert_true(p0 < p1);
	assert_float_equal(r.comparisons[0].p_adjusted, fmin(1, 4 * p0),
			   1e-15);
	assert_true(r.comparisons[1].p_adjusted >= p1);
	assert_string_equal(cmp_verdict_name(r.comparisons[0].verdict),
			    "slower");
	assert_string_equal(cmp_verdict_name(r.comparisons[1].verdict),
			    "unchanged");
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
		cmocka_unit_test(test_compare_as_compare),
		cmocka_unit_test(test_compare_family),
		cmocka_unit_test(test_fit_quadratic),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_governor_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
