/*
 * Summary statistics of one metric's samples: sorting, type-7 percentiles,
 * mean, standard deviation, median absolute deviation and Tukey fences;
 * the bootstrap CIs come from bootstrap.c.
 *
 * The definitions in stats.h follow NumPy, and the unit tests compare
 * against NumPy's numbers, so keep the arithmetic NumPy's where it can
 * differ in the last bits (see lerp and stats_median_sorted).
 * stats_summarize runs for every metric at the end of a benchmark: it
 * sorts one copy of the data and derives everything from it.
 */
#include "stats/stats.h"
#include "util/strutil.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Below this size insertion sort beats partitioning. */
#define SMALL_SORT 16

static inline void swap(double *a, double *b)
{
	double t = *a;

	*a = *b;
	*b = t;
}

static void insertion_sort(double *v, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		double x = v[i];

		for (j = i; j > 0 && x < v[j - 1]; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void sift_down(double *v, size_t root, size_t n)
{
	size_t child;

	while ((child = 2 * root + 1) < n) {
		if (child + 1 < n && v[child] < v[child + 1])
			child++;
		if (!(v[root] < v[child]))
			return;
		swap(&v[root], &v[child]);
		root = child;
	}
}

static void heap_sort(double *v, size_t n)
{
	size_t i;

	for (i = n / 2; i-- > 0;)
		sift_down(v, i, n);
	for (i = n; i-- > 1;) {
		swap(&v[0], &v[i]);
		sift_down(v, 0, i);
	}
}

/*
 * Hoare partition of v[0..n-1], n >= 3, around the median of the first,
 * middle and last values. Returns j with v[0..j] <= pivot <= v[j+1..n-1]
 * and 0 <= j < n - 1. The pivot sits at the middle index, never the last,
 * which is what keeps j < n - 1; the scans cannot run off the ends even
 * with NaNs, because each stops at an element the other scan left behind.
 */
static size_t partition(double *v, size_t n)
{
	size_t mid = (n - 1) / 2, i = 0, j = n - 1;
	double pivot;

	if (v[mid] < v[0])
		swap(&v[mid], &v[0]);
	if (v[n - 1] < v[mid])
		swap(&v[n - 1], &v[mid]);
	if (v[mid] < v[0])
		swap(&v[mid], &v[0]);
	pivot = v[mid];
	for (;;) {
		while (v[i] < pivot)
			i++;
		while (pivot < v[j])
			j--;
		if (i >= j)
			return j;
		swap(&v[i], &v[j]);
		i++;
		j--;
	}
}

/*
 * Introsort: quicksort that falls back to heapsort when the recursion gets
 * deep, so adversarial orders stay O(n log n). Recurses on the smaller side
 * only, so the stack stays O(log n).
 */
static void intro_sort(double *v, size_t n, int depth)
{
	while (n > SMALL_SORT) {
		size_t j;

		if (depth-- == 0) {
			heap_sort(v, n);
			return;
		}
		j = partition(v, n) + 1;
		if (j < n - j) {
			intro_sort(v, j, depth);
			v += j;
			n -= j;
		} else {
			intro_sort(v + j, n - j, depth);
			n = j;
		}
	}
	insertion_sort(v, n);
}

/* From here on radix_sort: O(n) where partitioning is O(n log n), 5-8
 * times faster on 100,000 values (`load`'s latency sample, sorted at the
 * end of every run). */
#define RADIX_MIN 2048

/* The bits of x as an unsigned key in the order of the doubles: negative
 * ones flipped whole, positive ones with the sign bit set. */
static inline uint64_t radix_key(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b >> 63 ? ~b : b | (1ULL << 63);
}

static inline double radix_value(uint64_t k)
{
	uint64_t b = k >> 63 ? k & ~(1ULL << 63) : ~k;
	double x;

	memcpy(&x, &b, sizeof(x));
	return x;
}

/*
 * Least significant digit first radix sort of v by radix_key, a byte a
 * pass; a pass whose byte is the same in every key (the exponent's, for
 * values of one magnitude) is skipped. False, v untouched, when v holds
 * a NaN (its key would sort it past the infinities), or when its 16
 * bytes a value cannot be had: the introsort, in place, sorts what it
 * can hold (an xmalloc here made a sort of half the memory left abort
 * the program).
 */
static bool radix_sort(double *v, size_t n)
{
	uint64_t *buf = n <= SIZE_MAX / 2 / sizeof(*buf) ?
			try_calloc(2 * n, sizeof(*buf)) : NULL, *a = buf, *b;
	size_t (*count)[256] = try_calloc(8, sizeof(*count));

	if (!buf || !count) {
		free(buf);
		free(count);
		return false;
	}
	b = buf + n;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i])) {
			free(buf);
			free(count);
			return false;
		}
		a[i] = radix_key(v[i]);
		for (int d = 0; d < 8; d++)
			count[d][(a[i] >> (8 * d)) & 255]++;
	}
	for (int d = 0; d < 8; d++) {
		size_t sum = 0, *c = count[d];
		uint64_t *t;

		if (c[(a[0] >> (8 * d)) & 255] == n)
			continue;
		for (int k = 0; k < 256; k++) {
			size_t here = c[k];

			c[k] = sum;
			sum += here;
		}
		for (size_t i = 0; i < n; i++)
			b[c[(a[i] >> (8 * d)) & 255]++] = a[i];
		t = a;
		a = b;
		b = t;
	}
	for (size_t i = 0; i < n; i++)
		v[i] = radix_value(a[i]);
	free(buf);
	free(count);
	return true;
}

void stats_sort(double *v, size_t n)
{
	int depth = 0;
	size_t m;

	if (n >= RADIX_MIN && radix_sort(v, n))
		return;
	for (m = n; m > 1; m >>= 1)
		depth += 2;
	intro_sort(v, n, depth);
}

/*
 * NumPy 1.24's linear interpolation: exact at both ends (t = 0 gives a,
 * t = 1 gives b) and computed from the nearer end.
 */
static double lerp(double a, double b, double t)
{
	double d = b - a;

	/* equal ends, infinite ones included (a bootstrap's ratio from a
	 * median of 0): inf - inf would make a NaN */
	if (a == b)
		return a;
	return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
}

/* Split a type-7 percentile into its lower rank and fraction. */
static size_t rank7(size_t n, double p, double *frac)
{
	double h, fl;

	*frac = 0;
	if (!(p > 0))
		return 0;
	if (p >= 100)
		return n - 1;
	h = (double)(n - 1) * (p / 100.0);
	fl = floor(h);
	*frac = h - fl;
	return (size_t)fl;
}

double stats_percentile_sorted(const double *sorted, size_t n, double p)
{
	double frac;
	size_t i;

	assert(n > 0);
	i = rank7(n, p, &frac);
	if (i >= n - 1)
		return sorted[n - 1];
	return lerp(sorted[i], sorted[i + 1], frac);
}

/* Reorder v so that v[k] is its k-th smallest value (Hoare's selection). */
static void select_kth(double *v, size_t n, size_t k)
{
	int budget = 64;

	while (n > SMALL_SORT) {
		size_t j;

		if (budget-- == 0) {
			/* Selection is going badly: sorting is O(n log n). */
			stats_sort(v, n);
			return;
		}
		j = partition(v, n) + 1;
		if (k < j) {
			n = j;
		} else {
			v += j;
			n -= j;
			k -= j;
		}
	}
	insertion_sort(v, n);
}

double stats_percentile_select(double *v, size_t n, double p)
{
	double frac, next;
	size_t i, k;

	assert(n > 0);
	i = rank7(n, p, &frac);
	if (i >= n - 1)
		i = n - 1;
	select_kth(v, n, i);
	if (i == n - 1 || frac == 0)
		return v[i];
	/* Everything after v[i] is >= v[i]; the next rank is their least. */
	next = v[i + 1];
	for (k = i + 2; k < n; k++)
		if (v[k] < next)
			next = v[k];
	return lerp(v[i], next, frac);
}

double stats_median_sorted(const double *sorted, size_t n)
{
	assert(n > 0);
	if (n % 2)
		return sorted[n / 2];
	return 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

/*
 * Raw MAD of sorted[0..n-1] around its median m. The deviations m - x[i]
 * for i < n/2, read from the middle outwards, never decrease, and neither
 * do x[i] - m for i >= n/2; merging the two runs up to the middle gives
 * the median deviation in O(n) without a second sort.
 */
static double mad_sorted(const double *x, size_t n, double m)
{
	size_t left = n / 2, right = n / 2;
	size_t lo = (n - 1) / 2, hi = n / 2, k;
	double d = 0, at_lo = 0;

	for (k = 0; k <= hi; k++) {
		if (left > 0 && (right >= n || m - x[left - 1] <= x[right] - m))
			d = m - x[--left];
		else
			d = x[right++] - m;
		if (k == lo)
			at_lo = d;
	}
	return lo == hi ? d : 0.5 * (at_lo + d);
}

static void moments(const double *x, size_t n, struct summary *out)
{
	double sum = 0, ss = 0;
	size_t i;

	if (x[0] == x[n - 1]) {
		/* Summing n copies of v need not give n * v exactly. */
		out->mean = x[0];
		out->stddev = 0;
		return;
	}
	for (i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	for (i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->stddev = n < 2 ? 0 : sqrt(ss / (double)(n - 1));
}

static void tukey(const double *x, size_t n, struct summary *out)
{
	double iqr = out->p75 - out->p25;
	size_t i;

	out->low_fence = out->p25 - 1.5 * iqr;
	out->high_fence = out->p75 + 1.5 * iqr;
	for (i = 0; i < n && x[i] < out->low_fence; i++)
		out->outliers_low++;
	for (i = n; i > 0 && x[i - 1] > out->high_fence; i--)
		out->outliers_high++;
}

/* Everything but the CIs, from sorted data. */
static void describe(const double *x, size_t n, struct summary *out)
{
	out->n = n;
	moments(x, n, out);
	out->min = x[0];
	out->max = x[n - 1];
	out->median = stats_median_sorted(x, n);
	out->mad = mad_sorted(x, n, out->median);
	out->p25 = stats_percentile_sorted(x, n, 25);
	out->p75 = stats_percentile_sorted(x, n, 75);
	out->p90 = stats_percentile_sorted(x, n, 90);
	out->p95 = stats_percentile_sorted(x, n, 95);
	out->p99 = stats_percentile_sorted(x, n, 99);
	tukey(x, n, out);
}

double *stats_sorted_copy(const double *v, size_t n)
{
	double *s;

	if (n == 0 || n > SIZE_MAX / sizeof(*s))
		return NULL;
	s = xmalloc(n * sizeof(*s));
	memcpy(s, v, n * sizeof(*s));
	stats_sort(s, n);
	return s;
}

/*
 * The 0-based rank m of the lower end of the median's 95% interval from
 * the order statistics: the largest m with P(B <= m) <= 2.5%, B ~
 * Binomial(n, 1/2) the count of values below the median; the upper end
 * is rank n - 1 - m, so each tail holds at most 2.5% and the coverage is
 * 1 - 2 P(B <= m) >= 95%. False for n < 6, where even P(B = 0) = 2^-n is
 * more than 2.5%. P(B = k) from lgamma at k0, ten standard deviations
 * below n/2 (what lies below is under 1e-23), then the ratio
 * P(k+1)/P(k) = (n-k)/(k+1): O(sqrt n).
 */
static bool median_ci_rank(size_t n, size_t *m)
{
	double nd = (double)n, k0 = floor(nd / 2 - 5 * sqrt(nd));
	double p, cdf = 0;
	size_t k;

	if (k0 < 0)
		k0 = 0;
	p = exp(lgamma(nd + 1) - lgamma(k0 + 1) - lgamma(nd - k0 + 1) -
		nd * log(2.0));
	for (k = (size_t)k0; k <= n; k++) {
		cdf += p;
		if (cdf > 0.025)
			break;
		p *= (nd - (double)k) / ((double)k + 1);
	}
	if (k == (size_t)k0)
		return false;
	*m = k - 1;
	return true;
}

/*
 * Where the bootstrap would cost too much, the intervals it stands for:
 * the mean's Student t interval (mean +- t(97.5%, n - 1) sd / sqrt n, as
 * the bootstrap-t falls back to; from 0 for values of at least 0), the median's between the order
 * statistics of median_ci_rank (the whole range for n < 6).
 */
static void analytic_cis(const double *sorted, size_t n, struct summary *out)
{
	size_t m = 0;

	stats_student_mean_ci(out->mean, out->stddev / sqrt((double)n), n,
			      sorted[0], out->mean_ci);
	if (!median_ci_rank(n, &m))
		m = 0;
	out->median_ci[0] = sorted[m];
	out->median_ci[1] = sorted[n - 1 - m];
}

size_t stats_max_draws(double setting)
{
	if (setting >= 1 && setting < 1e18 && setting == floor(setting))
		return (size_t)setting;
	return STATS_BOOTSTRAP_BUDGET;
}

void stats_summarize(const double *values, size_t n, struct rng *r,
		     size_t resamples, struct summary *out)
{
	stats_summarize_budget(values, n, r, resamples, STATS_BOOTSTRAP_BUDGET,
			       out);
}

void stats_summarize_budget(const double *values, size_t n, struct rng *r,
			    size_t resamples, size_t max_draws,
			    struct summary *out)
{
	double *sorted;

	memset(out, 0, sizeof(*out));
	if (n == 0)
		return;
	sorted = stats_sorted_copy(values, n);
	describe(sorted, n, out);
	if (resamples == 0) {
		out->mean_ci[0] = out->mean_ci[1] = out->mean;
		out->median_ci[0] = out->median_ci[1] = out->median;
	} else if (n > max_draws / resamples) {
		analytic_cis(sorted, n, out);
	} else {
		/* Cannot fail: n and resamples are > 0. */
		stats_bootstrap_sorted(sorted, n, r, resamples, out->mean_ci,
				       out->median_ci);
	}
	free(sorted);
}
