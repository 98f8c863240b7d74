/*
 * Analysis of a summarized result: comparisons between benchmarks, the
 * complexity fit of a numeric scan, and the warnings that say when numbers
 * deserve suspicion. Used by `run` now and by `compare` later.
 */
#ifndef YS_RESULT_ANALYZE_H
#define YS_RESULT_ANALYZE_H

#include "result/result.h"

/* Significance level of the verdicts `run` gives. */
#define ANALYZE_ALPHA 0.05

/*
 * Compare metric of cand against base: ratio of medians cand/base with a
 * bootstrap 95% CI and a Mann-Whitney U p-value. The verdict is "faster"
 * (or "slower") when p < alpha and the whole CI lies below (above) 1,
 * "unchanged" otherwise. Appends to r->comparisons. Returns 0, or -1 when
 * a side lacks the metric or has no values (nothing appended).
 */
int analyze_compare(struct result *r, const struct benchmark *base,
		    const struct benchmark *cand, const char *metric,
		    struct rng *rng, size_t resamples, double alpha);

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
