/*
 * Unit tests of src/stats/proportion (two proportions compared by the
 * exact conditional test of their odds ratio) and of the judge on counts
 * of events out of trials (load's errors of its requests): values against
 * independent references, the judge's verdicts on the cases users meet,
 * and the false alarms under equal proportions, generated.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "stats/judge.h"
#include "stats/proportion.h"

/*
 * x1 of n1 against x2 of n2. The p columns are exact: the tails of the
 * conditional distribution summed in rational arithmetic (Python's
 * fractions.Fraction, math.comb; psi0 = 1, 51/50 and 49/50), rounded
 * once to double: P(X >= x2 | 1) is SciPy's fisher_exact(alternative=
 * "greater") p to its 1e-13. The estimate and interval are SciPy 1.10.1's
 * scipy.stats.contingency.odds_ratio([[x2, n2 - x2], [x1, n1 - x1]],
 * kind="conditional"): .statistic and .confidence_interval(0.95).
 */
struct ref {
	uint64_t x1, n1, x2, n2;
	double ge1, ge102, le098;	/* P(X >= x2 | 1), P(X >= x2 | 1.02),
					 * P(X <= x2 | 0.98) */
	double est, lo, hi;
};

static const struct ref refs[] = {
	/* 0 events against 60: the case that was "inconclusive" */
	{ 0, 600, 60, 600, 1.8360758798165301e-19, 3.3165103201546467e-19, 1,
	  INFINITY, 17.382775562041282, INFINITY },
	/* equal proportions */
	{ 30, 600, 30, 600, 0.55262091546494452, 0.58214428654815309,
	  0.58273658986579813, 1, 0.57411986672751003, 1.7417965445091084 },
	/* small n */
	{ 1, 5, 4, 5, 0.10317460317460317, 0.1063525421415607,
	  0.99622772712197616, 10.907327447657895, 0.45474021955309696,
	  978.98777677972475 },
	{ 2, 10, 9, 10, 0.0027387473207906646, 0.0029358267753320116,
	  0.99994565044095673, 27.326807509325139, 2.0579675591935929,
	  1766.9503569057019 },
	/* 0 against k */
	{ 0, 1000, 7, 1000, 0.0077306330998037302, 0.0082826077613032279, 1,
	  INFINITY, 1.4464423860684985, INFINITY },
	/* large n, unequal n, a fall */
	{ 120, 100000, 180, 100000, 0.00031415130280941918,
	  0.00058075214609578946, 0.9998964502768215, 1.5008986164858396,
	  1.1845424013632659, 1.9073589503420809 },
	{ 1000, 200000, 1100, 250000, 0.99841749837840665,
	  0.99966545439200694, 0.0071964739035368834, 0.87946991902246185,
	  0.80638592042642276, 0.95926356008168068 },
	{ 60, 600, 30, 600, 0.99969514441980267, 0.99978182047939357,
	  0.00093378587515816774, 0.47397135554887843, 0.29036076337918137,
	  0.75965095088150514 },
};

/* v within rel of want (equal when infinite) */
static void near(double v, double want, double rel)
{
	if (isinf(want)) {
		assert_true(v == want);
		return;
	}
	if (fabs(v - want) > rel * fabs(want) + 1e-300) {
		print_error("%.17g, want %.17g (rel %g)\n", v, want, rel);
		fail();
	}
}

static void test_reference(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(refs) / sizeof(*refs); i++) {
		const struct ref *r = &refs[i];
		struct prop_table t = { r->x1, r->n1, r->x2, r->n2 };
		double est, ci[2];

		near(prop_odds_p(&t, 1, true), r->ge1, 1e-9);
		near(prop_odds_p(&t, 1.02, true), r->ge102, 1e-9);
		near(prop_odds_p(&t, 0.98, false), r->le098, 1e-9);
		prop_odds(&t, 0.95, &est, ci);
		/* SciPy's own root-finding on its noncentral hypergeometric
		 * distribution: agreed to 1e-8 at worst */
		near(est, r->est, 1e-6);
		near(ci[0], r->lo, 1e-6);
		near(ci[1], r->hi, 1e-6);
		assert_true(ci[0] <= est && est <= ci[1]);
	}
}

/* Tables that say nothing of the odds ratio, and the hypotheses every
 * psi satisfies. */
static void test_uninformative(void **state)
{
	struct prop_table none = { 0, 600, 0, 600 }, all = { 5, 5, 7, 7 };
	struct prop_table t = { 0, 600, 60, 600 };
	double est, ci[2];

	(void)state;
	assert_false(prop_informative(&none));
	assert_false(prop_informative(&all));
	assert_true(prop_odds_p(&none, 1, true) == 1);
	prop_odds(&none, 0.95, &est, ci);
	assert_true(isnan(est) && isnan(ci[0]) && isnan(ci[1]));
	assert_true(prop_odds_p(&t, 0, false) == 1);
	assert_true(prop_odds_p(&t, INFINITY, true) == 1);
	assert_true(prop_odds_p(&t, 0, true) == 0);
}

static struct judge_query query(enum judge_thr thr, bool relative,
				double threshold)
{
	struct judge_query q = {
		.stat = STAT_MEDIAN, .dir = JUDGE_LOWER_BETTER, .noisy = true,
		.thr = thr, .relative = relative, .threshold = threshold,
		.alpha = JUDGE_ALPHA, .family = 1,
	};

	return q;
}

/* x1 of n1 against x2 of n2, one count a side as load writes it, judged
 * and decided alone. */
static void judge_counts(double x1, double n1, double x2, double n2,
			 const struct judge_query *q, struct judgement *j)
{
	struct judge_sample a = { &x1, 1, NULL, n1 }, b = { &x2, 1, NULL, n2 };

	assert_int_equal(judge(&a, &b, q, j), 0);
	judge_decide(j, q, j->p_up, j->p_down);
}

/* compare's question (a change beyond 2% either way): 0 of 600 failed
 * against 60 of 600 was "inconclusive" (one value a side); it is worse,
 * with the exact p and interval. */
static void test_judge_zero_against_sixty(void **state)
{
	struct judge_query q = query(JUDGE_NONE, true, 0.02);
	struct judgement j;

	(void)state;
	judge_counts(0, 600, 60, 600, &q, &j);
	assert_true(j.proportion);
	assert_string_equal(j.method, "exact conditional");
	assert_int_equal(j.verdict, JUDGE_WORSE);
	near(j.base, 0, 0);
	near(j.cand, 0.1, 1e-15);
	near(j.change, INFINITY, 0);
	near(j.ci[0], 17.382775562041282 - 1, 1e-6);
	near(j.ci[1], INFINITY, 0);
	near(j.p, 3.3165103201546467e-19, 1e-9);
	assert_true(j.tested);
	assert_int_equal(j.na, 600);
	near(j.events[1], 60, 0);
	near(j.trials[0], 600, 0);

	/* the same backwards: better */
	judge_counts(60, 600, 0, 600, &q, &j);
	assert_int_equal(j.verdict, JUDGE_BETTER);
	near(j.change, -1, 0);
}

/* gate --max-increase errors=2%: 0 against 3 of 600 is a rise from 0,
 * beyond every relative threshold, but not significant; 60 fails. */
static void test_judge_gate(void **state)
{
	struct judge_query q = query(JUDGE_INCREASE, true, 0.02);
	struct judge_query q0 = query(JUDGE_INCREASE, false, 0);
	struct judge_query q5 = query(JUDGE_INCREASE, false, 5);
	struct judgement j;

	(void)state;
	judge_counts(0, 600, 3, 600, &q, &j);
	assert_int_equal(j.verdict, JUDGE_PASS);
	near(j.p, 0.12842764237663226, 1e-9);
	judge_counts(0, 600, 60, 600, &q, &j);
	assert_int_equal(j.verdict, JUDGE_FAIL);
	/* errors=0: the same test at psi 1, Fisher's */
	judge_counts(0, 600, 3, 600, &q0, &j);
	near(j.p, 0.12468723936613844, 1e-9);
	assert_int_equal(j.verdict, JUDGE_PASS);
	judge_counts(0, 1000, 7, 1000, &q0, &j);
	near(j.p, 0.0077306330998037302, 1e-9);
	assert_int_equal(j.verdict, JUDGE_FAIL);
	/* errors=5: a count out of different trials is no amount */
	judge_counts(0, 600, 60, 600, &q5, &j);
	assert_int_equal(j.verdict, JUDGE_INCONCLUSIVE);
	assert_non_null(strstr(j.why, "relative threshold"));
}

/* Equal proportions, none, all, too few trials, and a count beyond its
 * trials. */
static void test_judge_edges(void **state)
{
	struct judge_query q = query(JUDGE_NONE, true, 0.02);
	struct judgement j;

	(void)state;
	judge_counts(30, 600, 30, 600, &q, &j);
	assert_int_equal(j.verdict, JUDGE_UNCHANGED);
	near(j.change, 0, 0);
	near(j.ci[0], 0.57411986672751003 - 1, 1e-6);
	near(j.ci[1], 1.7417965445091084 - 1, 1e-6);
	/* no event either side: nothing to test, unchanged on the values */
	judge_counts(0, 600, 0, 600, &q, &j);
	assert_int_equal(j.verdict, JUDGE_UNCHANGED);
	assert_string_equal(j.method, "values");
	assert_false(j.tested);
	/* 2 requests a side: no table reaches 0.01 (1 / C(4, 2)) */
	judge_counts(0, 2, 2, 2, &q, &j);
	assert_int_equal(j.verdict, JUDGE_INCONCLUSIVE);
	assert_non_null(strstr(j.why, "2 and 2 trials cannot show a change"));
	judge_counts(7, 5, 0, 5, &q, &j);
	assert_int_equal(j.verdict, JUDGE_INCONCLUSIVE);
	/* not a count of trials on a side (0): one value a side, as
	 * before; trials unknown on a side (NaN: a result from the store):
	 * inconclusive, saying so */
	{
		double x1 = 0, x2 = 60;
		struct judge_sample a = { &x1, 1, NULL, 0 };
		struct judge_sample b = { &x2, 1, NULL, 600 };

		assert_int_equal(judge(&a, &b, &q, &j), 0);
		assert_false(j.proportion);
		assert_int_equal(j.verdict, JUDGE_INCONCLUSIVE);
		a.trials = NAN;
		assert_int_equal(judge(&a, &b, &q, &j), 0);
		assert_int_equal(j.verdict, JUDGE_INCONCLUSIVE);
		assert_non_null(strstr(j.why, "a result saved before load "
					   "kept its requests"));
	}
}

/* xorshift64*: draws independent of the code under test */
static uint64_t xs = 0x9e3779b97f4a7c15ULL;

static double unif(void)
{
	xs ^= xs >> 12;
	xs ^= xs << 25;
	xs ^= xs >> 27;
	return (double)((xs * 2685821657736338717ULL) >> 11) * 0x1p-53;
}

static double binomial(unsigned n, double p)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		k += unif() < p;
	return k;
}

/*
 * Equal proportions: the false alarms of each one-sided test at alpha
 * (JUDGE_ALPHA, compare's), over generated pairs of small and large n and
 * of rare and common events. The conditional test is exact: at most alpha
 * at every n and p (Fisher's test is conservative, discrete: well under
 * it). Counted against alpha itself, not alpha plus Monte Carlo error.
 */
static void test_null_false_alarms(void **state)
{
	static const struct { unsigned n1, n2; double p; unsigned pairs; } cfg[] = {
		{ 20, 20, 0.3, 3000 }, { 50, 80, 0.05, 3000 },
		{ 600, 600, 0.01, 2000 }, { 600, 600, 0.1, 1500 },
		{ 2000, 1000, 0.002, 1500 }, { 2000, 2000, 0.5, 500 },
	};
	size_t pairs = 0, up = 0, down = 0;

	(void)state;
	for (size_t c = 0; c < sizeof(cfg) / sizeof(*cfg); c++) {
		size_t cup = 0, cdown = 0;

		for (unsigned i = 0; i < cfg[c].pairs; i++) {
			struct judge_query q = query(JUDGE_NONE, true, 0);
			struct judgement j;

			q.p_only = true;
			judge_counts(binomial(cfg[c].n1, cfg[c].p), cfg[c].n1,
				     binomial(cfg[c].n2, cfg[c].p), cfg[c].n2,
				     &q, &j);
			cup += j.p_up < JUDGE_ALPHA;
			cdown += j.p_down < JUDGE_ALPHA;
		}
		/* each configuration on its own too, with room for the
		 * Monte Carlo error of its fewer pairs (4 sigma) */
		assert_true((double)cup <= cfg[c].pairs * JUDGE_ALPHA +
			    4 * sqrt(cfg[c].pairs * JUDGE_ALPHA));
		assert_true((double)cdown <= cfg[c].pairs * JUDGE_ALPHA +
			    4 * sqrt(cfg[c].pairs * JUDGE_ALPHA));
		up += cup;
		down += cdown;
		pairs += cfg[c].pairs;
	}
	print_message("false alarms under equal proportions: %zu up, %zu "
		      "down of %zu pairs at alpha %g\n", up, down, pairs,
		      JUDGE_ALPHA);
	assert_true((double)up <= JUDGE_ALPHA * (double)pairs);
	assert_true((double)down <= JUDGE_ALPHA * (double)pairs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference),
		cmocka_unit_test(test_uninformative),
		cmocka_unit_test(test_judge_zero_against_sixty),
		cmocka_unit_test(test_judge_gate),
		cmocka_unit_test(test_judge_edges),
		cmocka_unit_test(test_null_false_alarms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
