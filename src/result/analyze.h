/*
 * Analysis of a summarized result: comparisons between benchmarks, the
 * complexity fit of a numeric scan, and the warnings that say when numbers
 * deserve suspicion. Used by `run` now and by `compare` later.
 */
#ifndef YS_RESULT_ANALYZE_H
#define YS_RESULT_ANALYZE_H

#include "result/result.h"

/* One comparison a result holds: cand's metric against base's. */
struct analyze_pair {
	const struct benchmark *base, *cand;
	const char *metric;
};

/*
 * Append to r the comparisons of pairs[0..n), in their order, each judged
 * as `yardstick compare` judges a benchmark's median (compare_query: a
 * change either way beyond compare's default noise level, at alpha) by
 * the one judge, stats/judge.h — the same Harrell-Davis estimate, 95%
 * interval and p, processes as the unit where both sides say which
 * process measured each value — and all n one family under Holm's
 * correction. judged (may be NULL) gets, per pair, whether it was
 * compared: not when a side lacks the metric or a measured value, or its
 * median is not above 0 (no ratio).
 */
void analyze_compare(struct result *r, const struct analyze_pair *pairs,
		     size_t n, double alpha, bool *judged);

/*
 * Fit the medians of metric over benchmarks[idx[0..k-1]], whose values of
 * parameter `param` are numbers xs[0..k-1], and append the fit under
 * `name`. Returns 0, or -1 when fewer than 2 distinct values.
 */
int analyze_fit(struct result *r, const char *name, const char *param,
		const char *metric, const size_t *idx, const double *xs,
		size_t k);

/*
 * Add to b the warnings its numbers deserve: a high coefficient of
 * variation of wall time, outliers, too few runs for p95/p99, timeouts.
 * The governor warning is added by analyze_machine_warnings.
 */
void analyze_warnings(struct benchmark *b);
/* Whether w is analyze_warnings' "too few runs for p95/p99": it is about
 * the percentiles a table shows, so a command that shows none (-q) may
 * leave it in the result and off the terminal. */
bool analyze_is_few_runs(const char *w);
/* Machine-level warnings (frequency governor), added to every benchmark. */
void analyze_machine_warnings(struct result *r);

#endif
