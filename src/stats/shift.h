/*
 * Has a statistic of a measurement changed between two samples? What
 * `gate` and `compare` judge a change by.
 *
 * stats_shift gives the point estimates and, for large samples, analytic
 * standard errors:
 *  - a quantile's from its distribution-free confidence interval (the
 *    order statistics whose ranks the normal approximation to Binomial(n,
 *    q) puts at q*n +- 1.96*sqrt(n q (1-q))): SE = (x(hi) - x(lo)) /
 *    (2 * 1.96), infinite when those ranks fall outside the sample, as
 *    p99's do below ~500 runs;
 *  - the mean's from the sample variance (Welch);
 *  - the change cand - base has SE = sqrt(SE_base^2 + SE_cand^2), a 95%
 *    interval of +-1.96 SE; the relative change cand/base - 1 its interval
 *    by the delta method.
 *
 * stats_shift_test and stats_shift_ci judge a change against a threshold.
 * While both samples together hold at most SHIFT_PERM_MAX runs, or when an
 * analytic standard error is infinite (a tail quantile of a small sample),
 * or for min and max, by a one-sided permutation test of the statistic:
 * the candidate is moved back by the threshold (cand - thr, or cand /
 * (1 + thr) for a relative one), the two samples are pooled, and p is the
 * share of relabellings of the pool whose statistic difference is at
 * least the observed one. The statistic is the mean, min or max, and for
 * a quantile its Harrell-Davis estimate (a weighted mean of all order
 * statistics: tied values, as counts are, still move it). Under "no
 * change" (identical distributions) the test is exact: a false alarm has
 * probability at most alpha at any sample size, however heavy the tails,
 * for every statistic. It uses the whole sample: with 10 runs a side,
 * every candidate run 15 ms above every baseline run gives p = 1/184756
 * for p99. p is counted over every labelling when there are at most 5000
 * (up to 7 runs a side), and otherwise estimated from up to
 * ceil(6 / alpha) random ones (1/600 at the least for alpha 0.01), drawn
 * lazily from the end of the pool nearer the quantile, so that a p99
 * relabelling costs a few draws, with a seed drawn from the values
 * (reproducible), and stopped once p >= alpha is certain. Beyond those
 * sizes, the normal approximation with the analytic errors above.
 *
 * The 95% interval of the change is the test's: where the normal test
 * judges, +-1.96 of its standard error; where the permutation test does,
 * the set of thresholds it does not reject at 2.5% each side, found by
 * bisection (10 steps of 199 relabellings: a bound is good to a few per
 * cent of the interval's width, enough to read, while the verdict comes
 * from the test itself). Either way a change significantly beyond a
 * threshold has its interval beyond it.
 *
 * No test can reach p < alpha when 1 / C(na + nb, na) >= alpha (2 to 4
 * runs a side at alpha = 0.01): the sample cannot decide, which
 * stats_shift_test reports with the runs a side that could.
 */
#ifndef YS_STATS_SHIFT_H
#define YS_STATS_SHIFT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * The smallest significance level a test can be asked for: below it the
 * random relabellings (at most a million) could never reach p < alpha, and
 * every check would pass without being judged.
 */
#define SHIFT_ALPHA_MIN 1e-5

/* Runs on both sides together up to which the permutation test judges. */
#define SHIFT_PERM_MAX 2000

enum stat_kind { STAT_MEAN, STAT_MEDIAN, STAT_P90, STAT_P95, STAT_P99,
		 STAT_MIN, STAT_MAX, STAT_COUNT };

/* "mean", "median", "p90", "p95", "p99", "min", "max". */
const char *stats_stat_name(enum stat_kind k);
/* Returns 0 and *k for a name above, -1 otherwise. */
int stats_stat_parse(const char *name, enum stat_kind *k);

struct shift {
	double base, cand;		/* the statistic of each side */
	double base_se, cand_se;	/* their standard errors */
	double diff, diff_ci[2];	/* cand - base, 95% interval */
	double rel, rel_ci[2];		/* cand / base - 1; from a base of 0:
					 * +-inf (0 if both are 0), CI NaN */
	double p;			/* two-sided, "no change"; NaN for
					 * min and max, which have no SE */
};

/*
 * Compare statistic k of sorted samples a (base) and b (candidate), both
 * non-empty and sorted ascending. Returns 0, or -1 for an empty sample.
 */
int stats_shift(const double *a, size_t na, const double *b, size_t nb,
		enum stat_kind k, struct shift *out);

/* How a threshold is given: an amount of the metric's unit, or a
 * fraction of the baseline's statistic. */
enum shift_mode { SHIFT_ABSOLUTE, SHIFT_RELATIVE };

struct shift_test {
	double p;		/* one-sided: that the change is within thr */
	bool decidable;		/* false: no sample this size could reach
				 * p < alpha (then p is 1) */
	size_t runs_needed;	/* runs a side that could, when !decidable */
	const char *method;	/* "permutation" or "normal" */
};

/*
 * Test whether statistic k grew from sorted a (base) to sorted b
 * (candidate) by more than thr (absolute: stat(b) - stat(a) > thr;
 * relative: stat(b) / stat(a) - 1 > thr), or with `decrease` fell by more
 * than thr (stat(a) - stat(b) > thr; stat(b) / stat(a) - 1 < -thr). thr
 * >= 0, alpha in (0, 1). Values are non-negative for a relative test.
 * Returns 0, or -1 for an empty sample or a bad k.
 */
int stats_shift_test(const double *a, size_t na, const double *b, size_t nb,
		     enum stat_kind k, enum shift_mode mode, bool decrease,
		     double thr, double alpha, struct shift_test *out);

/*
 * The 95% interval of the change of statistic k from sorted a to sorted b:
 * of stat(b) - stat(a) (absolute) or stat(b) / stat(a) - 1 (relative),
 * consistent with stats_shift_test (see above). A bound the samples cannot
 * set is -inf / +inf (-1 below for a relative change of non-negative
 * values). Returns 0, or -1 for an empty sample or a bad k.
 */
int stats_shift_ci(const double *a, size_t na, const double *b, size_t nb,
		   enum stat_kind k, enum shift_mode mode, double ci[2]);

/* Standard normal distribution function. */
double stats_normal_cdf(double z);

#endif
