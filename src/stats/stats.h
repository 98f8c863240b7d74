/*
 * Descriptive and inferential statistics over per-run samples.
 *
 * Definitions (the documentation repeats them):
 *  - percentiles: linear interpolation between closest ranks, Hyndman-Fan
 *    type 7 (NumPy's and R's default): h = (n-1)p, x[floor h] + frac(h) *
 *    (x[floor h + 1] - x[floor h]);
 *  - stddev: sample standard deviation (n-1 denominator), 0 when n < 2;
 *  - mad: raw median absolute deviation (no 1.4826 scale);
 *  - outliers: Tukey's fences, Q1 - 1.5 IQR and Q3 + 1.5 IQR (type-7
 *    quartiles); values strictly beyond a fence are outliers;
 *  - confidence intervals: percentile bootstrap, 95%, with a seeded
 *    generator so that a result is reproducible.
 *
 * No function here allocates on behalf of the caller except where said, and
 * none prints.
 */
#ifndef YS_STATS_STATS_H
#define YS_STATS_STATS_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** pseudo-random generator. */
struct rng {
	uint64_t s[4];
};

void rng_seed(struct rng *r, uint64_t seed);
uint64_t rng_next(struct rng *r);
/* Uniform integer in [0, n), without modulo bias. n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/*
 * Fill out[0..count-1] with independent uniform integers in [0, n), n > 0.
 * About twice as fast as count calls of rng_below: for n <= 2^28 one
 * generator output yields two or four values, so the values differ from
 * what rng_below would return (they are still determined by the state, n
 * and count).
 */
void rng_fill_below(struct rng *r, uint64_t n, uint64_t *out, size_t count);
/* Uniform double in [0, 1). */
double rng_uniform(struct rng *r);

struct summary {
	size_t n;
	double mean, stddev, min, max, median, mad;
	double p25, p75, p90, p95, p99;
	double mean_ci[2], median_ci[2];
	double low_fence, high_fence;
	size_t outliers_low, outliers_high;
};

/* Sort v[0..n-1] ascending. NaNs leave the order unspecified. */
void stats_sort(double *v, size_t n);

/*
 * A sorted copy of v[0..n-1] that the caller frees; NULL when n is 0.
 */
double *stats_sorted_copy(const double *v, size_t n);

/* Percentile p (0..100) of sorted[0..n-1], type 7. n > 0. */
double stats_percentile_sorted(const double *sorted, size_t n, double p);

/*
 * Percentile p (0..100) of v[0..n-1], type 7, by selection in O(n) rather
 * than by sorting; v is reordered. n > 0.
 */
double stats_percentile_select(double *v, size_t n, double p);

/*
 * Median of sorted[0..n-1]: the middle value, or for even n the mean of
 * the two middle values (as NumPy computes it). n > 0.
 */
double stats_median_sorted(const double *sorted, size_t n);

/* Beyond n x resamples = 2e7 draws (20,000 runs at 1000 resamples) the
 * bootstrap would take a second per metric: stats_summarize then gives the
 * analytic intervals (Student t for the mean, the binomial order
 * statistics for the median: docs/statistics.md). */
#define STATS_BOOTSTRAP_BUDGET 20000000

/*
 * Summarize values[0..n-1] (need not be sorted; not modified). Bootstrap
 * CIs use `resamples` resamples drawn from r (0 resamples: CIs collapse to
 * the point estimate, and r may be NULL). n == 0 gives an all-zero summary.
 */
void stats_summarize(const double *values, size_t n, struct rng *r,
		    size_t resamples, struct summary *out);
/* A result's setting bootstrap_max_draws as a budget: a whole number
 * from 1 to under 1e18 as it is, anything else (NaN: no setting)
 * STATS_BOOTSTRAP_BUDGET. Every reader of the setting goes through this,
 * so that all summarize a result's values alike. */
size_t stats_max_draws(double setting);
/* The same with max_draws in place of STATS_BOOTSTRAP_BUDGET: beyond n x
 * resamples = max_draws, the analytic intervals (a result's setting
 * bootstrap_max_draws, which `load` sets: its samples run to 100,000). */
void stats_summarize_budget(const double *values, size_t n, struct rng *r,
			    size_t resamples, size_t max_draws,
			    struct summary *out);

/* Student's t distribution's 97.5th percentile with df degrees of
 * freedom (INFINITY for 0). */
double stats_t975(size_t df);

/*
 * The mean's Student t interval, mean +- t(97.5%, n - 1) se, of a sample
 * of n values whose smallest is min: with min >= 0 (a time, a size, a
 * count) its lower bound is at least 0, which no mean of such values is
 * under (three runs of 1, 5 and 8 ms gave [-4.07 ms, 13.4 ms]); not
 * clamped to the sample's range, which at n = 3 misses a symmetric
 * distribution's mean a quarter of the time.
 */
void stats_student_mean_ci(double mean, double se, size_t n, double min,
			   double ci[2]);

/*
 * 95% CIs of the mean and of the median of sorted[0..n-1] from
 * `resamples` resamples drawn from r. The median's: the type-7 2.5th and
 * 97.5th percentiles of the resampled medians. The mean's: bootstrap-t,
 * [m - T(97.5%) se, m - T(2.5%) se] with T the type-7 percentiles of the
 * resamples' (mean - m) / (sd / sqrt n) (those with sd > 0), se the
 * sample's sd / sqrt n; below 5 values, or with fewer than half of the
 * resamples having a spread, Student's m +- t(n-1) se. When all
 * values are equal both CIs are [v, v] and r is not used. Each resample
 * draws its n indices with one rng_fill_below call. Returns 0, or -1 if n
 * or resamples is 0. stats_summarize calls this.
 */
int stats_bootstrap_sorted(const double *sorted, size_t n, struct rng *r,
			   size_t resamples, double mean_ci[2],
			   double median_ci[2]);

enum complexity {
	O_1, O_LOG_N, O_N, O_N_LOG_N, O_N2, O_N3, O_COUNT
};

struct fit {
	enum complexity model;
	double coef;		/* y ~= coef * g(n) (+ intercept) */
	double intercept;
	double r2;		/* coefficient of determination */
};

/* "O(1)", "O(log n)", ... */
const char *stats_complexity_name(enum complexity c);

/*
 * Fit each model y = intercept + coef * g(n) by least squares to the points
 * (n[i], y[i]), i < k (k >= 2, n[i] > 0), and return the best in *best:
 * the highest R^2 among the models with a positive coefficient, ties (R^2
 * within 1e-9) to the simpler model; O(1) (coef 0, intercept = mean,
 * r2 = 0) when no model explains at least half the variance or when
 * max(y) - min(y) is under 5% of |mean(y)|. log is the natural logarithm.
 * The intercept absorbs a fixed cost such as process start-up. all[]
 * (O_COUNT entries, all[O_1] being the O(1) fit above) may be NULL.
 * Returns 0, or -1 when fewer than 2 distinct n are given or an n is not
 * a positive finite number or a y is not finite.
 */
int stats_fit_complexity(const double *n, const double *y, size_t k,
			 struct fit *best, struct fit *all);

#endif
