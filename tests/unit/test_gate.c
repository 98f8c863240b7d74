/*
 * Unit tests of src/result/gate and src/stats/shift: thresholds parsed to
 * base units, verdicts on synthetic result sets with known shifts, and the
 * false-alarm rate on identical distributions measured over many seeds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/compare.h"
#include "result/gate.h"

static void test_parse(void **state)
{
	struct gate_threshold t;
	struct error e;

	assert_int_equal(gate_parse("wall_time.p99=15ms", GATE_INCREASE, NULL,
				    &t, &e), 0);
	assert_string_equal(t.metric, "wall_time");
	assert_int_equal(t.stat, STAT_P99);
	assert_false(t.relative);
	assert_float_equal(t.value, 0.015, 1e-15);
	assert_string_equal(t.unit_class, "s");
	gate_threshold_free(&t);

	assert_int_equal(gate_parse("peak_rss=10%", GATE_INCREASE, "sort*",
				    &t, &e), 0);
	assert_int_equal(t.stat, STAT_MEDIAN);
	assert_true(t.relative);
	assert_float_equal(t.value, 0.10, 1e-15);
	assert_string_equal(t.pattern, "sort*");
	gate_threshold_free(&t);

	assert_int_equal(gate_parse("peak_rss.max=64MiB", GATE_LIMIT, NULL,
				    &t, &e), 0);
	assert_float_equal(t.value, 64.0 * 1048576, 1e-6);
	assert_string_equal(t.unit_class, "bytes");
	gate_threshold_free(&t);

	assert_int_equal(gate_parse("minor_faults=100", GATE_INCREASE, NULL,
				    &t, &e), 0);
	assert_float_equal(t.value, 100, 0);
	gate_threshold_free(&t);

	assert_int_equal(gate_parse("wall_time=250us", GATE_INCREASE, NULL,
				    &t, &e), 0);
	assert_float_equal(t.value, 250e-6, 1e-18);
	gate_threshold_free(&t);

	assert_int_equal(gate_parse("wall_time", GATE_INCREASE, NULL, &t, &e),
			 -1);
	assert_non_null(strstr(e.msg, "'wall_time'"));
	assert_int_equal(gate_parse("wall_time.p98=1ms", GATE_INCREASE, NULL,
				    &t, &e), -1);
	assert_non_null(strstr(e.msg, "unknown statistic 'p98'"));
	assert_int_equal(gate_parse("wall_time=3parsecs", GATE_INCREASE, NULL,
				    &t, &e), -1);
	assert_non_null(strstr(e.msg, "'3parsecs'"));
	assert_int_equal(gate_parse("wall_time=10%", GATE_LIMIT, NULL, &t, &e),
			 -1);
	assert_int_equal(gate_parse("wall_time=-1ms", GATE_INCREASE, NULL, &t,
				    &e), -1);
}

/* A result with one benchmark whose wall times are v[0..n-1]. */
static void make(struct result *r, const char *name, const double *v,
		 size_t n)
{
	char *argv[] = { "x", NULL };
	struct benchmark *b;
	struct metric *m;

	result_init(r, "run");
	b = result_add_benchmark(r, name, argv);
	m = benchmark_metric(b, "wall_time", "s");
	for (size_t i = 0; i < n; i++)
		metric_push(m, v[i]);
	m = benchmark_metric(b, "peak_rss", "bytes");
	for (size_t i = 0; i < n; i++)
		metric_push(m, 1048576);
	result_summarize(r, 1, 0);
}

/* 1000 evenly spread values from lo to lo + width, plus shift. */
static void grid(double *v, size_t n, double lo, double width, double shift)
{
	for (size_t i = 0; i < n; i++)
		v[i] = lo + width * (double)i / (double)(n - 1) + shift;
}

static struct gate_report judge_opts(const double *a, const double *b,
				     size_t n, const char *spec,
				     enum gate_kind kind,
				     const struct gate_opts *o)
{
	struct result base, cand;
	struct gate_threshold t;
	struct gate_report rep;
	struct error e;

	make(&base, "bench", a, n);
	make(&cand, "bench", b, n);
	assert_int_equal(gate_parse(spec, kind, NULL, &t, &e), 0);
	assert_int_equal(gate_evaluate(&base, &cand, &t, 1, o, &rep, &e), 0);
	gate_threshold_free(&t);
	result_free(&base);
	result_free(&cand);
	return rep;
}

static struct gate_report judge(const double *a, const double *b, size_t n,
				const char *spec, enum gate_kind kind)
{
	struct gate_opts o;

	gate_opts_init(&o);
	return judge_opts(a, b, n, spec, kind, &o);
}

/* A 15 ms threshold on p99 holds on both sides of the line. */
static void test_p99_threshold_both_sides(void **state)
{
	enum { N = 1000 };
	double a[N], b[N];
	struct gate_report rep;

	grid(a, N, 0.100, 0.010, 0);
	grid(b, N, 0.100, 0.010, 0.014);	/* +14 ms: pass */
	rep = judge(a, b, N, "wall_time.p99=15ms", GATE_INCREASE);
	assert_int_equal(rep.n, 1);
	assert_string_equal(rep.checks[0].verdict, "pass");
	assert_float_equal(rep.checks[0].change, 0.014, 1e-12);
	assert_true(rep.checks[0].p < 0.001);	/* significant, yet within */
	gate_report_free(&rep);

	grid(b, N, 0.100, 0.010, 0.016);	/* +16 ms: fail */
	rep = judge(a, b, N, "wall_time.p99=15ms", GATE_INCREASE);
	assert_string_equal(rep.checks[0].verdict, "fail");
	assert_int_equal(rep.failed, 1);
	assert_float_equal(rep.checks[0].change, 0.016, 1e-12);
	assert_true(rep.checks[0].change_ci[0] > 0.015);
	gate_report_free(&rep);
}

/* A 20% shift of the whole distribution is caught by a 10% threshold. */
static void test_twenty_percent_shift(void **state)
{
	enum { N = 200 };
	double a[N], b[N];
	struct gate_report rep;

	grid(a, N, 0.010, 0.002, 0);
	for (size_t i = 0; i < N; i++)
		b[i] = a[i] * 1.2;
	rep = judge(a, b, N, "wall_time=10%", GATE_INCREASE);
	assert_string_equal(rep.checks[0].verdict, "fail");
	assert_float_equal(rep.checks[0].change, 0.2, 1e-9);
	gate_report_free(&rep);
	/* ... and a decrease never fails an increase threshold. */
	rep = judge(b, a, N, "wall_time=10%", GATE_INCREASE);
	assert_string_equal(rep.checks[0].verdict, "pass");
	gate_report_free(&rep);
}

/* Beyond the threshold but not significant: noise, so it passes. */
static void test_not_significant(void **state)
{
	double a[5] = { 0.010, 0.030, 0.020, 0.050, 0.012 };
	double b[5] = { 0.011, 0.035, 0.026, 0.049, 0.018 };
	struct gate_report rep = judge(a, b, 5, "wall_time=1%", GATE_INCREASE);

	assert_true(rep.checks[0].change > 0.01);
	assert_true(rep.checks[0].p > 0.01);
	assert_string_equal(rep.checks[0].verdict, "pass");
	assert_non_null(strstr(rep.checks[0].note, "not significant"));
	gate_report_free(&rep);
}

/* From 0 to anything is an infinite relative increase: it fails. */
static void test_from_zero(void **state)
{
	double a[30] = { 0 }, b[30];
	struct gate_report rep;

	for (int i = 0; i < 30; i++)
		b[i] = 0.1;
	rep = judge(a, b, 30, "wall_time=10%", GATE_INCREASE);

	assert_string_equal(rep.checks[0].verdict, "fail");
	assert_true(isinf(rep.checks[0].change) && rep.checks[0].change > 0);
	gate_report_free(&rep);
	rep = judge(a, a, 30, "wall_time=10%", GATE_INCREASE);
	assert_string_equal(rep.checks[0].verdict, "pass");
	gate_report_free(&rep);
}

static void test_limit(void **state)
{
	enum { N = 101 };
	double a[N], b[N];
	struct gate_report rep;

	grid(a, N, 0.100, 0.100, 0);	/* p99 = 0.199 */
	grid(b, N, 0.100, 0.100, 0);
	rep = judge(a, b, N, "wall_time.p99=200ms", GATE_LIMIT);
	assert_string_equal(rep.checks[0].verdict, "pass");
	assert_float_equal(rep.checks[0].cand, 0.199, 1e-12);
	gate_report_free(&rep);
	rep = judge(a, b, N, "wall_time.p99=190ms", GATE_LIMIT);
	assert_string_equal(rep.checks[0].verdict, "fail");
	gate_report_free(&rep);
}

static void test_unit_mismatch_and_missing(void **state)
{
	double a[3] = { 1, 2, 3 };
	struct result base, cand;
	struct gate_threshold t;
	struct gate_report rep;
	struct gate_opts o;
	struct error e;

	make(&base, "bench", a, 3);
	make(&cand, "other", a, 3);
	assert_int_equal(gate_parse("wall_time=10MiB", GATE_INCREASE, NULL, &t,
				    &e), 0);
	gate_opts_init(&o);
	assert_int_equal(gate_evaluate(&cand, &cand, &t, 1, &o, &rep, &e), -1);
	assert_non_null(strstr(e.msg, "measured in s"));
	gate_report_free(&rep);
	gate_threshold_free(&t);
	/* A benchmark absent from the baseline is missing, not a pass. */
	assert_int_equal(gate_parse("wall_time=10%", GATE_INCREASE, NULL, &t,
				    &e), 0);
	assert_int_equal(gate_evaluate(&base, &cand, &t, 1, &o, &rep, &e), 0);
	/* one check for 'other' (not in the baseline), one for 'bench'
	 * (not in the candidate): neither can be made, both fail */
	assert_int_equal(rep.n, 2);
	assert_string_equal(rep.checks[0].verdict, "missing");
	assert_string_equal(rep.checks[1].verdict, "missing");
	assert_string_equal(rep.checks[1].benchmark, "bench");
	assert_non_null(strstr(rep.checks[1].note, "not in the candidate"));
	assert_int_equal(rep.missing, 2);
	assert_int_equal(rep.failed, 2);
	gate_report_free(&rep);
	/* ... unless allowed */
	o.missing_pass = true;
	assert_int_equal(gate_evaluate(&base, &cand, &t, 1, &o, &rep, &e), 0);
	assert_int_equal(rep.missing, 2);
	assert_int_equal(rep.failed, 0);
	gate_report_free(&rep);
	gate_threshold_free(&t);
	result_free(&base);
	result_free(&cand);
}

/* xorshift + Box-Muller: lognormal samples, independent of the code under
 * test's own generator. */
static uint64_t xs_state;

static double unif(void)
{
	xs_state ^= xs_state << 13;
	xs_state ^= xs_state >> 7;
	xs_state ^= xs_state << 17;
	return ((xs_state >> 11) + 0.5) / 9007199254740992.0;
}

static double lognormal(void)
{
	double z = sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());

	return 0.010 * exp(0.25 * z);
}

/*
 * Identical distributions: over 1000 seeds, the share of gates that fail a
 * 0% threshold (any significant increase) must stay at or below alpha.
 */
static double false_alarms(const char *spec, size_t n, int seeds)
{
	double a[400], b[400];
	int fails = 0;

	for (int s = 0; s < seeds; s++) {
		struct gate_report rep;

		xs_state = 0x9e3779b97f4a7c15ULL * (uint64_t)(s + 1);
		for (size_t i = 0; i < n; i++) {
			a[i] = lognormal();
			b[i] = lognormal();
		}
		rep = judge(a, b, n, spec, GATE_INCREASE);
		fails += !strcmp(rep.checks[0].verdict, "fail");
		gate_report_free(&rep);
	}
	return (double)fails / seeds;
}

static void test_false_alarm_rate(void **state)
{
	static const struct { const char *spec; size_t n; } cases[] = {
		{ "wall_time=0%", 30 }, { "wall_time=0%", 200 },
		{ "wall_time.mean=0%", 50 }, { "wall_time.p95=0%", 200 },
		{ "wall_time.p99=0%", 400 }, { "wall_time.p99=0%", 25 },
		{ "wall_time.p99=0%", 100 }, { "wall_time.p95=0%", 100 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double rate = false_alarms(cases[i].spec, cases[i].n, 1000);

		print_message("false alarms, %s, n = %zu: %.3f (alpha 0.01)\n",
			      cases[i].spec, cases[i].n, rate);
		/* 1000 seeds: one binomial sd at 0.01 is 0.003 */
		assert_true(rate <= 0.01 + 0.006);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_p99_threshold_both_sides),
		cmocka_unit_test(test_twenty_percent_shift),
		cmocka_unit_test(test_not_significant),
		cmocka_unit_test(test_from_zero),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_unit_mismatch_and_missing),
		cmocka_unit_test(test_false_alarm_rate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
