/*
 * Unit tests of src/stats/changepoint.c. Planted steps must be found where
 * they were planted; series without a change must give a false-positive
 * rate near alpha (measured over 200 seeds and printed for the record);
 * changes later undone (a reverted regression, a short spike) must give
 * both their edges; and every decision and p-value must equal that of a
 * deliberately plain re-implementation below, which takes each Q(tau,
 * kappa) from a summed-area table of the distance matrix (itself checked
 * against the double sums of Matteson & James) and consumes the generator
 * the same way (one Fisher-Yates shuffle of each segment per
 * permutation).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stats/changepoint.h"

#define SEEDS 200
/*
 * With alpha = 0.05 and 199 permutations the exact rate is 9/200 = 0.045;
 * the binomial sd over 200 seeds is sqrt(0.045 * 0.955 / 200) = 0.015, so
 * 0.08 is 2.4 sd above it (a correct implementation fails about 1% of
 * seed sets; ours are fixed, so the test is deterministic).
 */
#define FPR_MAX 0.08

static double gauss(struct rng *r, double mean, double sd)
{
	double u1 = 1.0 - rng_uniform(r), u2 = rng_uniform(r);

	return mean + sd * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* x[from..to) drawn from N(mean, sd). */
static void fill(struct rng *r, double *x, size_t from, size_t to,
		 double mean, double sd)
{
	size_t i;

	for (i = from; i < to; i++)
		x[i] = gauss(r, mean, sd);
}

static size_t detect(const double *x, size_t n, const struct cp_opts *o,
		     uint64_t seed, struct change_point **cp)
{
	struct rng r;
	size_t k = 99;

	rng_seed(&r, seed);
	cp_detect(x, n, o, &r, cp, &k);
	assert_true(k == 0 || *cp != NULL);
	if (k == 0)
		assert_null(*cp);
	return k;
}

static void test_step(void **state)
{
	struct change_point *cp;
	struct rng r;
	double x[60];
	size_t k;

	rng_seed(&r, 1);
	fill(&r, x, 0, 30, 10, 0.1);
	fill(&r, x, 30, 60, 12, 0.1);
	k = detect(x, 60, NULL, 7, &cp);
	assert_int_equal(k, 1);
	assert_in_range(cp[0].index, 29, 31);
	assert_true(cp[0].p_value < 0.01);
	/* No permutation comes near a 20-sd step: p is (1 + 0) / 200. */
	assert_true(cp[0].p_value == 1.0 / 200);
	assert_true(fabs(cp[0].before - 10) < 0.1);
	assert_true(fabs(cp[0].after - 12) < 0.1);
	free(cp);
}

static void test_two_steps(void **state)
{
	struct change_point *cp;
	struct rng r;
	double x[75];
	size_t k;

	rng_seed(&r, 2);
	fill(&r, x, 0, 25, 10, 0.1);
	fill(&r, x, 25, 50, 12, 0.1);
	fill(&r, x, 50, 75, 11, 0.1);
	k = detect(x, 75, NULL, 7, &cp);
	assert_int_equal(k, 2);
	assert_in_range(cp[0].index, 24, 26);
	assert_in_range(cp[1].index, 49, 51);
	assert_true(fabs(cp[0].before - 10) < 0.1);
	assert_true(fabs(cp[0].after - 12) < 0.1);
	assert_true(fabs(cp[1].before - 12) < 0.1);
	assert_true(fabs(cp[1].after - 11) < 0.1);
	assert_true(cp[0].p_value < 0.01 && cp[1].p_value < 0.01);
	free(cp);
}

/* Medians come from the final segments, not from the first split. */
static void test_medians_of_final_segments(void **state)
{
	static const double x[] = {
		1, 1, 1, 1, 1, 1, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5,
		9, 9, 9, 9, 9, 9, 9, 9,
	};
	struct change_point *cp;
	size_t k;

	k = detect(x, 24, NULL, 3, &cp);
	assert_int_equal(k, 2);
	assert_int_equal(cp[0].index, 8);
	assert_int_equal(cp[1].index, 16);
	assert_true(cp[0].before == 1 && cp[0].after == 5);
	assert_true(cp[1].before == 5 && cp[1].after == 9);
	free(cp);
}

/* Fraction of SEEDS series of 50 points with at least one change point. */
static double false_positive_rate(double outlier_rate, double outlier_factor)
{
	size_t seed, hits = 0;

	for (seed = 1; seed <= SEEDS; seed++) {
		struct change_point *cp;
		struct rng r;
		double x[50];
		size_t i;

		rng_seed(&r, 1000 + seed);
		for (i = 0; i < 50; i++) {
			x[i] = gauss(&r, 10, 1);
			if (rng_uniform(&r) < outlier_rate)
				x[i] *= outlier_factor;
		}
		if (detect(x, 50, NULL, seed, &cp) > 0)
			hits++;
		free(cp);
	}
	return (double)hits / SEEDS;
}

static void test_fpr_normal(void **state)
{
	double rate = false_positive_rate(0, 1);

	print_message("changepoint: false-positive rate, N(10, 1), n = 50, "
		      "alpha 0.05, 199 permutations, %d seeds: %.3f\n", SEEDS,
		      rate);
	assert_true(rate <= FPR_MAX);
}

static void test_fpr_heavy_tailed(void **state)
{
	double rate = false_positive_rate(0.05, 3);

	print_message("changepoint: false-positive rate, N(10, 1) with 5%% "
		      "outliers x3, n = 50, %d seeds: %.3f\n", SEEDS, rate);
	assert_true(rate <= FPR_MAX);
}

/*
 * One wild point (x3) at the start, in the middle or at the end of 40
 * quiet ones (N(10, 0.1)): with min_size 3 it is a change point no more
 * often than a false positive (the nominal 0.045; an outlier at an end,
 * not being exchangeable with the rest, measured 0.06 over 400 seeds),
 * while with min_size 1 a split isolates an end outlier in about a third
 * of the series.
 */
static void test_single_outlier(void **state)
{
	static const size_t where[] = { 0, 20, 39 };
	struct cp_opts one = { 0.05, 199, 1 };
	size_t w, seed, hits = 0, isolated = 0;

	for (w = 0; w < 3; w++) {
		for (seed = 1; seed <= 100; seed++) {
			struct change_point *cp;
			struct rng r;
			double x[40];

			rng_seed(&r, seed);
			fill(&r, x, 0, 40, 10, 0.1);
			x[where[w]] *= 3;
			hits += detect(x, 40, NULL, seed, &cp) > 0;
			free(cp);
			if (where[w] == 20)
				continue;
			if (detect(x, 40, &one, seed, &cp) > 0)
				isolated += cp[0].index == (where[w] ? 39 : 1);
			free(cp);
		}
	}
	print_message("changepoint: one outlier x3 in 40 points: change points "
		      "in %.3f of 300 series with min_size 3; an end outlier "
		      "isolated in %.3f of 200 with min_size 1\n",
		      hits / 300.0, isolated / 200.0);
	assert_true(hits / 300.0 <= FPR_MAX);
	assert_true(isolated / 200.0 >= 0.2);
}

static void test_degenerate(void **state)
{
	struct cp_opts o = { 0.05, 199, 3 };
	static const double step5[] = { 10, 10, 10, 20, 20 };
	struct change_point *cp;
	double c[100];
	size_t i;

	for (i = 0; i < 100; i++)
		c[i] = 42.5;
	assert_int_equal(detect(c, 100, NULL, 1, &cp), 0);
	assert_int_equal(detect(step5, 5, &o, 1, &cp), 0);
	assert_int_equal(detect(step5, 0, &o, 1, &cp), 0);
	assert_int_equal(detect(NULL, 0, NULL, 1, &cp), 0);
	/* No permutations (p = 1) or alpha 0: nothing is significant. */
	for (i = 0; i < 100; i++)
		c[i] = i < 50 ? 1 : 2;
	o.permutations = 0;
	assert_int_equal(detect(c, 100, &o, 1, &cp), 0);
	o.permutations = 199;
	o.alpha = 0;
	assert_int_equal(detect(c, 100, &o, 1, &cp), 0);
	o.alpha = 0.05;
	assert_int_equal(detect(c, 100, &o, 1, &cp), 1);
	assert_int_equal(cp[0].index, 50);
	free(cp);
}

/*
 * The shortest series: a clean step in 10 points is found; in 6 (3 + 3,
 * the only split min_size allows) no permutation test can reach p < 0.05.
 */
static void test_small_steps(void **state)
{
	struct cp_opts o = { 0.05, 199, 3 };
	struct change_point *cp;
	double x[10] = { 10, 10.1, 9.9, 10, 10.2, 20, 20.1, 19.9, 20, 20.2 };

	/* 10 points, 5 + 5: a permutation as good has chance 2/252. */
	assert_int_equal(detect(x, 10, &o, 5, &cp), 1);
	assert_int_equal(cp[0].index, 5);
	free(cp);
	/* 6 points, 3 + 3: 2/20 = 0.1 is the best p possible. */
	x[3] = 20;
	x[4] = 20;
	assert_int_equal(detect(x, 6, &o, 5, &cp), 0);
}

static void test_deterministic(void **state)
{
	struct change_point *a, *b;
	struct rng r;
	double x[90];
	size_t ka, kb;

	rng_seed(&r, 9);
	fill(&r, x, 0, 30, 10, 1);
	fill(&r, x, 30, 60, 12, 1);
	fill(&r, x, 60, 90, 10, 1);
	ka = detect(x, 90, NULL, 77, &a);
	kb = detect(x, 90, NULL, 77, &b);
	assert_int_equal(ka, kb);
	assert_true(ka >= 2);
	assert_memory_equal(a, b, ka * sizeof(*a));
	free(a);
	free(b);
}

/*
 * Timings in nanoseconds sit far from zero: the answer must not depend on
 * the offset, down to every p-value (which hang on close comparisons of
 * permuted statistics). The values are multiples of 1/4 so that x + 2^48,
 * and the mean of two such, are exact: the two series differ only by the
 * offset, which is 2^48 times the noise.
 */
static void test_offset_invariant(void **state)
{
	size_t seed, i, compared = 0;

	for (seed = 1; seed <= 40; seed++) {
		struct change_point *a, *b;
		double x[60], y[60];
		struct rng r;
		size_t ka, kb;

		rng_seed(&r, seed);
		fill(&r, x, 0, 60, 0, 1);
		for (i = 30; i < 60 && seed % 3 == 0; i++)
			x[i] += 1.5;
		for (i = 0; i < 60; i++) {
			x[i] = round(x[i] * 4) / 4;
			y[i] = x[i] + 0x1p48;
		}
		ka = detect(x, 60, NULL, seed, &a);
		kb = detect(y, 60, NULL, seed, &b);
		assert_int_equal(ka, kb);
		for (i = 0; i < ka; i++) {
			assert_int_equal(a[i].index, b[i].index);
			assert_true(a[i].p_value == b[i].p_value);
			assert_true(b[i].before - 0x1p48 == a[i].before);
			assert_true(b[i].after - 0x1p48 == a[i].after);
		}
		compared += ka;
		free(a);
		free(b);
	}
	assert_true(compared >= 5);
}

/*
 * Non-finite points are skipped; indices stay those of the input, the
 * change point being the first finite point after the change.
 */
static void test_non_finite(void **state)
{
	struct change_point *cp, *ref;
	struct rng r;
	double x[62], y[60];
	size_t i, k;

	rng_seed(&r, 1);
	fill(&r, y, 0, 30, 10, 0.1);
	fill(&r, y, 30, 60, 12, 0.1);
	for (i = 0; i < 60; i++)
		x[i < 30 ? i : i + 2] = y[i];
	x[30] = NAN;
	x[31] = INFINITY;
	assert_int_equal(detect(y, 60, NULL, 7, &ref), 1);
	k = detect(x, 62, NULL, 7, &cp);
	assert_int_equal(k, 1);
	assert_int_equal(cp[0].index, ref[0].index < 30 ? ref[0].index :
			 ref[0].index + 2);
	assert_true(cp[0].p_value == ref[0].p_value);
	assert_true(cp[0].before == ref[0].before);
	assert_true(cp[0].after == ref[0].after);
	free(cp);
	free(ref);

	for (i = 0; i < 60; i++)
		y[i] = NAN;
	assert_int_equal(detect(y, 60, NULL, 7, &cp), 0);
}

/* ---- Segments that come back: the search over kappa ---- */

/*
 * One stored result: the median of 10 runs with 5% noise, as history
 * passes them (sd of the median about 2% of the level).
 */
static double result(struct rng *r, double level)
{
	double v[10];
	size_t i, j;

	for (i = 0; i < 10; i++)
		v[i] = gauss(r, level, 0.05 * level);
	for (i = 1; i < 10; i++)	/* insertion sort of 10 */
		for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
			double t = v[j];

			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return (v[4] + v[5]) / 2;
}

/* x[from..to) results at level. */
static void results(struct rng *r, double *x, size_t from, size_t to,
		    double level)
{
	size_t i;

	for (i = from; i < to; i++)
		x[i] = result(r, level);
}

/*
 * The reviewer's series: a regression (10 ms -> 20 ms) reverted 7 results
 * later. With kappa fixed at the series' end neither split stands out
 * from the permutations (0 change points in 21 results); searched over
 * kappa, [7, 14) differs from both sides. Same seed as history (1), and
 * 20 draws of the noise, each of which must give exactly 7 and 14.
 */
static void test_reverted_regression(void **state)
{
	uint64_t seed;

	for (seed = 1; seed <= 20; seed++) {
		struct change_point *cp;
		struct rng r;
		double x[21];

		rng_seed(&r, seed);
		results(&r, x, 0, 7, 10);
		results(&r, x, 7, 14, 20);
		results(&r, x, 14, 21, 10);
		assert_int_equal(detect(x, 21, NULL, 1, &cp), 2);
		assert_int_equal(cp[0].index, 7);
		assert_int_equal(cp[1].index, 14);
		assert_true(fabs(cp[0].before - 10) < 1);
		assert_true(fabs(cp[0].after - 20) < 1);
		assert_true(fabs(cp[1].after - 10) < 1);
		assert_true(cp[0].p_value < 0.05 && cp[1].p_value < 0.05);
		free(cp);
	}
}

/* A short spike: 10 results at 10 ms, 4 at 20 ms, 10 at 10 ms. */
static void test_short_spike(void **state)
{
	uint64_t seed;

	for (seed = 1; seed <= 20; seed++) {
		struct change_point *cp;
		struct rng r;
		double x[24];

		rng_seed(&r, 100 + seed);
		results(&r, x, 0, 10, 10);
		results(&r, x, 10, 14, 20);
		results(&r, x, 14, 24, 10);
		assert_int_equal(detect(x, 24, NULL, 1, &cp), 2);
		assert_int_equal(cp[0].index, 10);
		assert_int_equal(cp[1].index, 14);
		free(cp);
	}
}

/*
 * Generated layouts: 2 to 6 segments of 4 to 20 results, each level at
 * least 1.4 times or at most 1/1.4 of the one before (a step of 17 sd of
 * a result or more), going up or down at random so that levels come
 * back. Every planted change point must be found within one result; the
 * spurious extra ones (each further segment is tested at alpha) are
 * counted and printed.
 */
static void test_generated_layouts(void **state)
{
	size_t layout, planted = 0, found = 0, extra = 0;

	for (layout = 0; layout < 100; layout++) {
		size_t bounds[7], nseg, n = 0, s, i, k;
		double x[120], level = 10;
		struct change_point *cp;
		struct rng gen;

		rng_seed(&gen, 7000 + layout);
		nseg = 2 + (size_t)rng_below(&gen, 5);
		for (s = 0; s < nseg; s++) {
			size_t len = 4 + (size_t)rng_below(&gen, 17);

			if (s > 0) {
				double f = 1.4 + rng_uniform(&gen);

				level = rng_below(&gen, 2) || level < 2 ?
					level * f : level / f;
			}
			bounds[s] = n;
			results(&gen, x, n, n + len, level);
			n += len;
		}
		k = detect(x, n, NULL, layout, &cp);
		for (s = 1; s < nseg; s++) {
			int hit = 0;

			for (i = 0; i < k; i++)
				hit |= cp[i].index + 1 >= bounds[s] &&
				       cp[i].index <= bounds[s] + 1;
			if (!hit)
				print_message("changepoint: layout %zu: no "
					      "change point near %zu\n",
					      layout, bounds[s]);
			assert_true(hit);
			found++;
		}
		planted += nseg - 1;
		extra += k > nseg - 1 ? k - (nseg - 1) : 0;
		free(cp);
	}
	print_message("changepoint: %zu of %zu planted change points found "
		      "within one result in 100 layouts; %zu extra\n", found,
		      planted, extra);
}

/*
 * Flat generated series: 200 series of 10 to 100 results at a random
 * level, with the noise of a result. The first test is an exact
 * permutation test of an exchangeable series, so at most 9/200 = 0.045
 * of them may get a false alarm; over 200 series the count is then
 * binomial with mean 9 (continuous values have no ties) and sd 2.9. The
 * bounds, 1 to 22 false alarms, leave out 1e-4 of it below and 4e-5
 * above: a correct implementation with other seeds fails them about once
 * in 7000 seed sets (ours are fixed, so the test is deterministic).
 */
static void test_fpr_generated(void **state)
{
	size_t series, hits = 0;

	for (series = 0; series < 200; series++) {
		struct change_point *cp;
		struct rng gen;
		size_t n;
		double x[100];

		rng_seed(&gen, 9000 + series);
		n = 10 + (size_t)rng_below(&gen, 91);
		results(&gen, x, 0, n, 1 + 99 * rng_uniform(&gen));
		hits += detect(x, n, NULL, series, &cp) > 0;
		free(cp);
	}
	print_message("changepoint: false alarms in %zu of 200 flat "
		      "generated series (%.3f; alpha 0.05)\n", hits,
		      hits / 200.0);
	assert_in_range(hits, 1, 22);
}

/* ---- The naive reference ---- */

/* Q(tau) of y[0..m-1] straight from the definition. */
static double naive_q(const double *y, size_t m, size_t tau)
{
	double cross = 0, wx = 0, wy = 0, nx = tau, ny = m - tau, e;
	size_t i, j;

	for (i = 0; i < tau; i++)
		for (j = tau; j < m; j++)
			cross += fabs(y[i] - y[j]);
	for (i = 0; i < tau; i++)
		for (j = i + 1; j < tau; j++)
			wx += fabs(y[i] - y[j]);
	for (i = tau; i < m; i++)
		for (j = i + 1; j < m; j++)
			wy += fabs(y[i] - y[j]);
	e = 2 * cross / (nx * ny);
	if (tau > 1)
		e -= 2 * wx / (nx * (nx - 1));
	if (m - tau > 1)
		e -= 2 * wy / (ny * (ny - 1));
	return nx * ny / m * e;
}

/*
 * The same Q(t, k) of y[0..k-1] from a summed-area table of the distance
 * matrix: sat[i * (m + 1) + j] = sum of |y_u - y_v| over u < i, v < j.
 * A different road to the numbers from the running sums of changepoint.c.
 */
static double block(const double *sat, size_t m, size_t i0, size_t i1,
		    size_t j0, size_t j1)
{
	size_t s = m + 1;

	return sat[i1 * s + j1] - sat[i0 * s + j1] - sat[i1 * s + j0] +
	       sat[i0 * s + j0];
}

static void naive_sat(const double *y, size_t m, double *sat)
{
	size_t i, j, s = m + 1;

	for (j = 0; j <= m; j++)
		sat[j] = 0;
	for (i = 1; i <= m; i++) {
		sat[i * s] = 0;
		for (j = 1; j <= m; j++)
			sat[i * s + j] = sat[(i - 1) * s + j] +
					 sat[i * s + j - 1] -
					 sat[(i - 1) * s + j - 1] +
					 fabs(y[i - 1] - y[j - 1]);
	}
}

static double sat_q(const double *sat, size_t m, size_t t, size_t k)
{
	double cross = block(sat, m, 0, t, t, k);
	double wx = block(sat, m, 0, t, 0, t) / 2;
	double wy = block(sat, m, t, k, t, k) / 2;
	double nx = t, ny = k - t, e = 2 * cross / (nx * ny);

	if (t > 1)
		e -= 2 * wx / (nx * (nx - 1));
	if (k - t > 1)
		e -= 2 * wy / (ny * (ny - 1));
	return nx * ny / k * e;
}

/*
 * The best Q(t, k) over ms <= t, t + ms <= k <= m, ties to the smallest
 * k, then the smallest t (Matteson & James search both; kappa is k).
 */
static double naive_best(const double *y, size_t m, size_t ms, size_t *tau)
{
	double best = -INFINITY, *sat = malloc((m + 1) * (m + 1) *
					       sizeof(*sat));
	size_t t, k;

	assert_non_null(sat);
	naive_sat(y, m, sat);
	for (k = 2 * ms; k <= m; k++)
		for (t = ms; t + ms <= k; t++) {
			double q = sat_q(sat, m, t, k);

			if (q > best) {
				best = q;
				*tau = t;
			}
		}
	free(sat);
	return best;
}

/* The summed-area table gives Q as the definition's double sums do. */
static void test_sat_matches_definition(void **state)
{
	struct rng r;
	double y[40], sat[41 * 41];
	size_t t, k;

	rng_seed(&r, 4);
	fill(&r, y, 0, 40, 5, 2);
	naive_sat(y, 40, sat);
	for (k = 2; k <= 40; k++)
		for (t = 1; t < k; t++) {
			double a = naive_q(y, k, t), b = sat_q(sat, 40, t, k);

			assert_true(fabs(a - b) <= 1e-9 * fmax(1, fabs(a)));
		}
}

static void naive_shuffle(struct rng *r, double *v, size_t m)
{
	size_t i;

	for (i = m; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		double t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/*
 * E-divisive over x[0..n-1] (finite): bounds[0..nb] are the segment
 * edges; returns the number of change points, with their p-values in p[].
 */
static size_t naive_detect(const double *x, size_t n, const struct cp_opts *o,
			   struct rng *r, size_t *bounds, double *p)
{
	double *y = malloc(n * sizeof(*y));
	size_t nb = 1, s, i;

	assert_non_null(y);
	bounds[0] = 0;
	bounds[1] = n;
	for (;;) {
		double best = -INFINITY, pv;
		size_t at = 0, ge = 0, tau = 0;

		for (s = 0; s < nb; s++) {
			size_t m = bounds[s + 1] - bounds[s];
			double q = naive_best(x + bounds[s], m, o->min_size,
					      &tau);

			if (q > best) {
				best = q;
				at = bounds[s] + tau;
			}
		}
		if (best == -INFINITY)
			break;
		for (i = 0; i < o->permutations; i++) {
			double pmax = -INFINITY;

			if ((1.0 + ge) / (o->permutations + 1) >= o->alpha)
				break;
			for (s = 0; s < nb; s++) {
				size_t a = bounds[s], m = bounds[s + 1] - a;
				double q;

				if (m < 2 * o->min_size)
					continue;
				memcpy(y, x + a, m * sizeof(*y));
				naive_shuffle(r, y, m);
				q = naive_best(y, m, o->min_size, &tau);
				if (q > pmax)
					pmax = q;
			}
			if (pmax >= best - 1e-10 * fabs(best))
				ge++;
		}
		pv = (1.0 + ge) / (o->permutations + 1);
		if (!(pv < o->alpha))
			break;
		for (s = nb; bounds[s] > at; s--) {
			bounds[s + 1] = bounds[s];
			p[s] = p[s - 1];
		}
		bounds[s + 1] = at;
		p[s] = pv;
		nb++;
	}
	free(y);
	return nb - 1;
}

/*
 * Random series with 0..3 steps of random size, a third of them with one
 * outlier, against the reference.
 */
static void test_matches_naive(void **state)
{
	size_t trial, compared = 0;

	for (trial = 0; trial < 60; trial++) {
		struct cp_opts o = { 0.05, 99, 1 + trial % 5 };
		size_t n = 20 + trial * 2, bounds[200], k, nk, i;
		double x[200], p[200], level = 0;
		struct change_point *cp;
		struct rng gen, r;

		rng_seed(&gen, 500 + trial);
		for (i = 0; i < n; i++) {
			if (i % (n / 4) == 0 && rng_uniform(&gen) < 0.5)
				level += gauss(&gen, 0, 2);
			x[i] = gauss(&gen, level, 1);
		}
		/* A lone outlier makes a side of one point the best split. */
		if (trial % 3 == 0)
			x[rng_below(&gen, n)] += 8;
		if (trial % 7 == 0)
			o.alpha = 0.2;
		k = detect(x, n, &o, trial, &cp);
		rng_seed(&r, trial);
		nk = naive_detect(x, n, &o, &r, bounds, p);
		assert_int_equal(k, nk);
		for (i = 0; i < k; i++) {
			assert_int_equal(cp[i].index, bounds[i + 1]);
			assert_true(cp[i].p_value == p[i]);
		}
		compared += k;
		free(cp);
	}
	/* The series must exercise the recursion, not only "none". */
	print_message("changepoint: %zu change points matched the naive "
		      "reference\n", compared);
	assert_true(compared >= 30);
}

/* The process's CPU time: what the work cost, whatever else runs. */
static double cpu_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * A long history: 4 steps of 200 results each, found where they are.
 * Its cost is printed, not asserted: speed is measured in bench/, never
 * in a test (a bound of 60 s failed in the sanitized build on a loaded
 * machine, and the search's cost depends on the data too much for a
 * ratio of two sizes to tell a blow-up: its permutation tests stop
 * early when the answer is clear).
 */
static void test_performance(void **state)
{
	static const double level[] = { 100, 103, 101, 106, 104 };
	static double x[1000];
	struct change_point *cp;
	struct rng r;
	double t;
	size_t i, k;

	rng_seed(&r, 3);
	for (i = 0; i < 5; i++)
		fill(&r, x, i * 200, (i + 1) * 200, level[i], 1);
	t = cpu_seconds();
	k = detect(x, 1000, NULL, 11, &cp);
	t = cpu_seconds() - t;
	assert_int_equal(k, 4);
	for (i = 0; i < 4; i++)
		assert_in_range(cp[i].index, 200 * (i + 1) - 2,
				200 * (i + 1) + 2);
	free(cp);
	print_message("changepoint: n = 1000, 4 steps, 199 permutations: "
		      "%.1f ms of CPU\n", t * 1e3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_medians_of_final_segments),
		cmocka_unit_test(test_fpr_normal),
		cmocka_unit_test(test_fpr_heavy_tailed),
		cmocka_unit_test(test_single_outlier),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_small_steps),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_offset_invariant),
		cmocka_unit_test(test_non_finite),
		cmocka_unit_test(test_reverted_regression),
		cmocka_unit_test(test_short_spike),
		cmocka_unit_test(test_generated_layouts),
		cmocka_unit_test(test_fpr_generated),
		cmocka_unit_test(test_sat_matches_definition),
		cmocka_unit_test(test_matches_naive),
		cmocka_unit_test(test_performance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
