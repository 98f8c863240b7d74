/*
 * Has a statistic of a measurement changed between two samples? The
 * tests and intervals under stats/judge.h, which every verdict calls.
 *
 * The estimate of a quantile is Harrell-Davis's (a weighted mean of all
 * order statistics: tied values, as counts are, still move it), of the
 * mean the mean, of min and max the extreme value: the printed estimate is
 * the statistic the test tests. stats_shift gives the estimates and their
 * standard errors: Maritz-Jarrett's for a quantile (the weighted standard
 * deviation of the order statistics under Harrell-Davis's weights),
 * Welch's for the mean; the change cand - base has SE = sqrt(SE_base^2 +
 * SE_cand^2), a 95% interval of +-1.96 SE; the relative change cand/base
 * - 1 its interval by the delta method.
 *
 * stats_shift_test and stats_shift_ci judge a change against a threshold.
 * While both samples together hold at most SHIFT_PERM_MAX runs, or up to
 * SHIFT_TIED_MAX when a sample is tied (counts: more than one value in ten
 * repeats another), or when a standard error is 0 or infinite, or for min
 * and max, by a one-sided permutation test: the candidate is moved back
 * by the threshold (cand - thr, or cand / (1 + thr) for a relative one),
 * the two samples are pooled, and p is the share of relabellings of the
 * pool whose statistic is at least the observed one. The statistic is the
 * difference of the estimates divided by its standard error (studentized,
 * Chung and Romano 2013), except for min and max: under "no change"
 * (identical distributions) the test is exact, a false alarm has
 * probability at most alpha at any sample size; and when the samples
 * differ in spread or in size but not in the statistic, studentizing keeps
 * the false alarms near alpha, where the plain difference gave 3-16% at
 * alpha 1%. p is counted over every labelling when there are at most 5000
 * (up to 7 runs a side; method "exact permutation"), and otherwise
 * estimated from up to ceil(6 family / alpha) random ones (the budget
 * Holm's first step needs), drawn lazily from the end of the pool nearer
 * the quantile, with a seed drawn from the values (reproducible), and
 * stopped once p >= alpha is certain (such a p is coarse; only p < alpha
 * is estimated to a few per cent). Beyond those sizes, the normal
 * approximation with the standard errors above.
 *
 * The 95% interval of the change is the test's: where the normal test
 * judges, +-1.96 of its standard error; where the permutation test does,
 * the set of thresholds it does not reject at 2.5% each side, found by
 * bisection (10 steps of 199 relabellings), widened where needed to hold
 * the estimate (the test never rejects the change observed).
 *
 * No test can reach p < alpha when 1 / C(na + nb, na) >= alpha (2 to 4
 * runs a side at alpha = 0.01; 3 a side at 0.05, whose smallest p is 0.05
 * exactly, not below): the sample cannot decide, which stats_shift_test
 * reports with the runs a side that could.
 */
#ifndef YS_STATS_SHIFT_H
#define YS_STATS_SHIFT_H

#include "stats/special.h"
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
/* Runs on both sides together up to which tied samples stay on it. */
#define SHIFT_TIED_MAX 20000

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
	const char *method;	/* "exact permutation", "permutation"
				 * or "normal" */
	/* the cost of a random permutation test: its relabellings, and the
	 * labels they drew one at a time (runs that no weight reaches are
	 * counted whole, so a tied sample of n costs about sqrt(n) a
	 * relabelling, not n) */
	size_t relabellings, scanned;
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

/* stats_shift_test, with the permutation budget for a family of `family`
 * tests corrected by Holm (stats/judge.h): p down to alpha / family. */
int stats_shift_test_family(const double *a, size_t na, const double *b,
			    size_t nb, enum stat_kind k, enum shift_mode mode,
			    bool decrease, double thr, double alpha,
			    size_t family, struct shift_test *out);

/* Whether na and nb runs can reach p < alpha at all (1 / C(na + nb, na)
 * below alpha, with room for rounding: p = alpha is no rejection). */
bool stats_shift_decidable(size_t na, size_t nb, double alpha);


/*
 * The 95% interval of the change of statistic k from sorted a to sorted b:
 * of stat(b) - stat(a) (absolute) or stat(b) / stat(a) - 1 (relative),
 * consistent with stats_shift_test (see above). A bound the samples cannot
 * set is -inf / +inf (-1 below for a relative change of non-negative
 * values). Returns 0, or -1 for an empty sample or a bad k.
 */
int stats_shift_ci(const double *a, size_t na, const double *b, size_t nb,
		   enum stat_kind k, enum shift_mode mode, double ci[2]);

#endif
