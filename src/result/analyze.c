/*
 * Comparisons, complexity fits and warnings over a summarized result. The
 * thresholds of the warnings are stated in their texts, so that a user can
 * tell why one was raised.
 */
#include "result/analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/metrics.h"
#include "util/strutil.h"

int analyze_compare(struct result *r, const struct benchmark *base,
		    const struct benchmark *cand, const char *metric,
		    struct rng *rng, size_t resamples, double alpha)
{
	const struct metric *a = benchmark_find_metric(base, metric);
	const struct metric *b = benchmark_find_metric(cand, metric);
	struct comparison c = { 0 };
	struct mann_whitney mw;
	double *va, *vb;
	size_t na, nb;
	int r2;

	if (!a || !b)
		return -1;
	va = metric_measured(a, &na);
	vb = metric_measured(b, &nb);
	r2 = na && nb &&
	     !stats_ratio_of_medians(va, na, vb, nb, rng, resamples, &c.ratio,
				     c.ratio_ci) &&
	     !stats_mann_whitney(va, na, vb, nb, &mw);
	free(va);
	free(vb);
	if (!r2)
		return -1;
	c.p_value = mw.p;
	c.baseline = base->name;
	c.candidate = cand->name;
	c.metric = (char *)metric;
	if (c.p_value < alpha && c.ratio_ci[1] < 1)
		c.verdict = CMP_FASTER;
	else if (c.p_value < alpha && c.ratio_ci[0] > 1)
		c.verdict = CMP_SLOWER;
	else
		c.verdict = CMP_UNCHANGED;
	result_add_comparison(r, &c);
	return 0;
}

int analyze_fit(struct result *r, const char *name, const char *param,
		const char *metric, const size_t *idx, const double *xs,
		size_t k)
{
	struct complexity_fit f = { 0 };
	double *ys = xcalloc(k, sizeof(double));
	double *ns = xcalloc(k, sizeof(double));
	size_t m = 0;
	int ret = -1;

	for (size_t i = 0; i < k; i++) {
		const struct metric *mt =
			benchmark_find_metric(&r->benchmarks[idx[i]], metric);

		if (!mt || mt->summary.n == 0 || xs[i] <= 0)
			continue;
		ns[m] = xs[i];
		ys[m] = mt->summary.median;
		m++;
	}
	if (m >= 2 && stats_fit_complexity(ns, ys, m, &f.best, f.all) == 0) {
		f.name = (char *)name;
		f.parameter = (char *)param;
		f.metric = (char *)metric;
		result_add_fit(r, &f);
		ret = 0;
	}
	free(ys);
	free(ns);
	return ret;
}

#define FEW_RUNS "only "

void analyze_warnings(struct benchmark *b)
{
	const struct metric *w = benchmark_find_metric(b, METRIC_WALL_TIME);
	const struct summary *s;

	if (b->timeouts)
		benchmark_add_warning(b, "%zu run(s) timed out and were killed; "
				      "they are not in the statistics",
				      b->timeouts);
	if (!w || w->summary.n == 0)
		return;
	s = &w->summary;
	if (s->n >= 2 && s->mean > 0 && s->stddev / s->mean > 0.10)
		benchmark_add_warning(b, "wall time varies a lot (coefficient "
			"of variation %.1f%%, over 10%%): close other "
			"programs, use --pin, raise --warmup, or run more "
			"times", 100 * s->stddev / s->mean);
	if (s->outliers_low + s->outliers_high > 0)
		benchmark_add_warning(b, "%zu of %zu runs are outliers in wall "
			"time (%zu high, %zu low, beyond Tukey's fences): "
			"the first runs may be cold (raise --warmup) or "
			"another program interfered (rerun on a quiet "
			"machine)", s->outliers_low + s->outliers_high, s->n,
			s->outliers_high, s->outliers_low);
	if (s->n < 100)
		benchmark_add_warning(b, FEW_RUNS "%zu run%s: p99 needs at "
			"least 100 runs%s to mean anything (use --runs or "
			"--min-runs)", s->n, s->n == 1 ? "" : "s",
			s->n < 20 ? " and p95 at least 20" : "");
}

bool analyze_is_few_runs(const char *w)
{
	return !strncmp(w, FEW_RUNS, strlen(FEW_RUNS)) &&
	       strstr(w, "p99 needs at least 100 runs");
}

void analyze_machine_warnings(struct result *r)
{
	const char *g = r->machine.governor;

	if (!g || !strcmp(g, "performance"))
		return;
	for (size_t i = 0; i < r->nbenchmarks; i++)
		benchmark_add_warning(&r->benchmarks[i], "the CPU frequency "
			"governor is '%s', not 'performance': clock speed "
			"may change during the runs (cpupower frequency-set "
			"-g performance)", g);
}
