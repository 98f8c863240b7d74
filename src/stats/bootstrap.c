/*
 * Bootstrap confidence intervals: of the mean (bootstrap-t) and median
 * (percentile) of one sample, for stats_summarize, and of a ratio of
 * medians (percentile).
 *
 * Design notes. This runs for about a dozen metrics of up to a thousand
 * values each at the end of every benchmark, inside a budget of a few
 * milliseconds, so:
 *  1. The data is sorted once. A resample is then a multiset of indices
 *     into the sorted array, drawn with one rng_fill_below call: the sum
 *     of the values drawn gives the mean, per-index counts give the
 *     median. No resample is ever sorted or copied.
 *  2. The median of a resample lies within a few sqrt(n) ranks of the
 *     middle, so it is found by walking the counts outwards from index
 *     n / 2, starting from the number of draws below n / 2 (counted while
 *     drawing) rather than from index 0.
 *  3. The mean and the median CIs share the same resamples.
 *  4. All-equal data has a one-point bootstrap distribution, so it is not
 *     resampled at all (and consumes nothing from the generator).
 *  5. The CI endpoints are found by selection, O(resamples), not by
 *     sorting the bootstrap distribution.
 * What remains is resamples * n generator draws, about two thirds of the
 * time. The unit tests replay the same draws through a bootstrap that
 * sorts every resample and expect the same intervals.
 */
#include "stats/stats.h"
#include "util/strutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct resampler {
	const double *x;	/* sorted sample */
	size_t n;
	uint64_t *idx;		/* n indices of the current resample */
	size_t *count;		/* n counters, all zero between resamples */
};

static void resampler_init(struct resampler *rs, const double *sorted,
			   size_t n)
{
	rs->x = sorted;
	rs->n = n;
	rs->idx = xcalloc(n, sizeof(*rs->idx));
	rs->count = xcalloc(n, sizeof(*rs->count));
}

static void resampler_release(struct resampler *rs)
{
	free(rs->idx);
	free(rs->count);
}

/*
 * Index into the sorted sample of the k-th smallest (0-based) value of the
 * current resample, given below = the number of draws under index n / 2.
 * The walk starts from the middle because that is where the median of a
 * resample lands, within a few sqrt(n) indices: this visits O(sqrt n)
 * counters rather than n / 2.
 */
static size_t order_stat(const size_t *count, size_t n, size_t below,
			 size_t k)
{
	size_t i = n / 2, lt = below;	/* lt: draws under index i */

	if (k < lt) {
		do
			lt -= count[--i];
		while (lt > k);
	} else {
		while (lt + count[i] <= k)
			lt += count[i++];
	}
	return i;
}

/*
 * Median of the current resample, defined as stats_median_sorted defines
 * it, from the per-index counts; zeroes the counts for the next resample.
 */
static double counted_median(struct resampler *rs, size_t below)
{
	size_t n = rs->n, lo = (n - 1) / 2, hi = n / 2;
	double a = rs->x[order_stat(rs->count, n, below, lo)];
	double b = lo == hi ? a : rs->x[order_stat(rs->count, n, below, hi)];

	memset(rs->count, 0, n * sizeof(*rs->count));
	return lo == hi ? a : 0.5 * (a + b);
}

/*
 * Draw `resamples` resamples and store each one's mean in means[] (if not
 * NULL), its standard deviation (n - 1) in sds[] (if not NULL) and its
 * median in medians[].
 */
static void resample(struct resampler *rs, struct rng *r, size_t resamples,
		     double *means, double *sds, double *medians)
{
	const double *x = rs->x;
	const uint64_t *idx = rs->idx;
	size_t *count = rs->count;
	size_t n = rs->n, half = n / 2, b, i;

	/* squares are summed around the middle value: no cancellation
	 * where the values are large and close together */
	const double c = x[n / 2];

	if (x[0] == x[n - 1]) {
		for (b = 0; b < resamples; b++) {
			if (means)
				means[b] = x[0];
			if (sds)
				sds[b] = 0;
			medians[b] = x[0];
		}
		return;
	}
	for (b = 0; b < resamples; b++) {
		/* Four sums, so that additions need not wait on each other. */
		double s0 = 0, s1 = 0, s2 = 0, s3 = 0, q = 0;
		size_t below = 0;

		rng_fill_below(r, n, rs->idx, n);
		for (i = 0; i + 4 <= n; i += 4) {
			/* Read all four first: count[] may alias idx[]. */
			uint64_t i0 = idx[i], i1 = idx[i + 1];
			uint64_t i2 = idx[i + 2], i3 = idx[i + 3];

			s0 += x[i0];
			s1 += x[i1];
			s2 += x[i2];
			s3 += x[i3];
			if (sds)
				q += (x[i0] - c) * (x[i0] - c) +
				     (x[i1] - c) * (x[i1] - c) +
				     (x[i2] - c) * (x[i2] - c) +
				     (x[i3] - c) * (x[i3] - c);
			below += (i0 < half) + (i1 < half) + (i2 < half) +
				 (i3 < half);
			count[i0]++;
			count[i1]++;
			count[i2]++;
			count[i3]++;
		}
		for (; i < n; i++) {
			s0 += x[idx[i]];
			if (sds)
				q += (x[idx[i]] - c) * (x[idx[i]] - c);
			below += idx[i] < half;
			count[idx[i]]++;
		}
		if (means)
			means[b] = ((s0 + s1) + (s2 + s3)) / (double)n;
		if (sds) {
			double dm = ((s0 + s1) + (s2 + s3)) / (double)n - c;
			double var = (q - (double)n * dm * dm) / (double)(n - 1);

			sds[b] = var > 0 ? sqrt(var) : 0;
		}
		medians[b] = counted_median(rs, below);
	}
}

static void ci95(double *dist, size_t resamples, double ci[2])
{
	ci[0] = stats_percentile_select(dist, resamples, 2.5);
	ci[1] = stats_percentile_select(dist, resamples, 97.5);
}

double stats_t975(size_t df)
{
	/* Student's t, 97.5th percentile, df 1..30 (SciPy's t.ppf) */
	static const double t[] = {
		12.706204736, 4.302652730, 3.182446305, 2.776445105,
		2.570581836, 2.446911851, 2.364624252, 2.306004135,
		2.262157163, 2.228138852, 2.200985160, 2.178812830,
		2.160368656, 2.144786688, 2.131449546, 2.119905299,
		2.109815578, 2.100922040, 2.093024054, 2.085963447,
		2.079613845, 2.073873068, 2.068657610, 2.063898562,
		2.059538553, 2.055529439, 2.051830516, 2.048407142,
		2.045229642, 2.042272456,
	};
	const double z = 1.959963984540054;
	double d = (double)df;

	if (df == 0)
		return INFINITY;
	if (df <= sizeof(t) / sizeof(t[0]))
		return t[df - 1];
	/* Cornish-Fisher beyond 30: within 1e-5 of the exact value */
	return z + (z * z * z + z) / (4 * d) +
	       (5 * pow(z, 5) + 16 * pow(z, 3) + 3 * z) / (96 * d * d) +
	       (3 * pow(z, 7) + 19 * pow(z, 5) + 17 * pow(z, 3) - 15 * z) /
	       (384 * d * d * d);
}

void stats_student_mean_ci(double mean, double se, size_t n, double min,
			   double ci[2])
{
	double h = n > 1 ? stats_t975(n - 1) * se : 0;

	ci[0] = mean - h;
	ci[1] = mean + h;
	if (min >= 0 && ci[0] < 0)
		ci[0] = 0;
}

/*
 * The mean's 95% interval from the studentized (bootstrap-t) resamples:
 * [m - t(97.5%) se, m - t(2.5%) se], t the resamples' (mean - m) / (sd /
 * sqrt n). Its coverage holds where the percentile bootstrap's falls
 * short on small skewed samples (lognormal sigma 0.5, n = 10: 95% against
 * 88%; bench/RESULTS.md). Resamples with no spread have no t and are
 * left out; with fewer than half of them left, or n < 5, the Student t
 * interval instead. The bootstrap-t interval is kept within the sample's
 * range [min, max].
 */
static void mean_ci95(const double *sorted, size_t n, double *means,
		      const double *sds, size_t resamples, double ci[2])
{
	double m = 0, ss = 0, se;
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		m += sorted[i];
	m /= (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (sorted[i] - m) * (sorted[i] - m);
	se = sqrt(ss / (double)(n - 1) / (double)n);
	for (size_t b = 0; b < resamples; b++)
		if (sds[b] > 0)
			means[k++] = (means[b] - m) / (sds[b] /
						       sqrt((double)n));
	if (n < 5 || 2 * k < resamples || !(se > 0)) {
		stats_student_mean_ci(m, se, n, sorted[0], ci);
		return;
	}
	ci[0] = m - stats_percentile_select(means, k, 97.5) * se;
	ci[1] = m - stats_percentile_select(means, k, 2.5) * se;
	/*
	 * Within the sample's range: no resample's mean lies outside it, and
	 * a bound beyond it comes from resamples of a tight cluster alone
	 * (sd near 0, t huge): ten epochs at 1.000 ms and one at 4.66 ms
	 * gave [0.90 ms, 805 ms] unclamped.
	 */
	if (ci[0] < sorted[0])
		ci[0] = sorted[0];
	if (ci[1] > sorted[n - 1])
		ci[1] = sorted[n - 1];
}

int stats_bootstrap_sorted(const double *sorted, size_t n, struct rng *r,
			   size_t resamples, double mean_ci[2],
			   double median_ci[2])
{
	struct resampler rs;
	double *means;

	if (n == 0 || resamples == 0)
		return -1;
	if (sorted[0] == sorted[n - 1]) {
		mean_ci[0] = mean_ci[1] = sorted[0];
		median_ci[0] = median_ci[1] = sorted[0];
		return 0;
	}
	if (resamples > SIZE_MAX / 3 / sizeof(*means))
		return -1;
	means = xmalloc(3 * resamples * sizeof(*means));
	resampler_init(&rs, sorted, n);
	resample(&rs, r, resamples, means, means + 2 * resamples,
		 means + resamples);
	ci95(means + resamples, resamples, median_ci);
	mean_ci95(sorted, n, means, means + 2 * resamples, resamples,
		  mean_ci);
	resampler_release(&rs);
	free(means);
	return 0;
}
