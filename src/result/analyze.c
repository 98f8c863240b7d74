/*
 * Comparisons, complexity fits and warnings over a summarized result. The
 * thresholds of the warnings are stated in their texts, so that a user can
 * tell why one was raised.
 */
#include "result/analyze.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/compare.h"
#include "result/metrics.h"
#include "stats/judge.h"
#include "util/strutil.h"

/* One pair's judgement, before the family's correction: false when it
 * cannot be judged (analyze_compare). family: the tests of the family,
 * both directions of every pair, as compare counts them (the budget of
 * the permutations is set by it). */
static bool judge_pair(const struct analyze_pair *pr,
		       const struct compare_opts *o, size_t family,
		       struct judgement *j, struct judge_query *q)
{
	const struct metric *a = benchmark_find_metric(pr->base, pr->metric);
	const struct metric *b = benchmark_find_metric(pr->cand, pr->metric);
	struct judge_sample sa, sb;

	if (!a || !b)
		return false;
	metrics_judge_sample(pr->base, a, &sa);
	metrics_judge_sample(pr->cand, b, &sb);
	compare_query(o, pr->metric, a->unit, STAT_MEDIAN, family, q);
	return judge(&sa, &sb, q, j) == 0 && j->base > 0 && j->cand > 0 &&
	       isfinite(j->base) && isfinite(j->cand);
}

void analyze_compare(struct result *r, const struct analyze_pair *pairs,
		     size_t n, double alpha, bool *judged)
{
	struct judgement *js = xcalloc(n + 1, sizeof(*js));
	struct judge_query *qs = xcalloc(n + 1, sizeof(*qs));
	struct judgement **fam = xcalloc(n + 1, sizeof(*fam));
	double *p = xmalloc((2 * n + 1) * sizeof(*p));
	bool *ok = xcalloc(n + 1, sizeof(*ok));
	struct compare_opts o;
	size_t tests = 0, nf = 0;

	compare_opts_init(&o);
	o.alpha = alpha;
	for (size_t i = 0; i < n; i++) {
		ok[i] = judge_pair(&pairs[i], &o, 2 * n, &js[i], &qs[i]);
		p[2 * i] = ok[i] && js[i].tested ? js[i].p_up : NAN;
		p[2 * i + 1] = ok[i] && js[i].tested ? js[i].p_down : NAN;
		tests += !isnan(p[2 * i]) + !isnan(p[2 * i + 1]);
		if (ok[i])
			fam[nf++] = &js[i];
	}
	judge_holm(p, 2 * n, p);
	judge_family(fam, nf, alpha, tests);
	for (size_t i = 0; i < n; i++) {
		struct comparison c = { 0 };

		if (judged)
			judged[i] = ok[i];
		if (!ok[i])
			continue;
		judge_decide(&js[i], &qs[i], p[2 * i], p[2 * i + 1]);
		c.baseline = pairs[i].base->name;
		c.candidate = pairs[i].cand->name;
		c.metric = (char *)pairs[i].metric;
		c.ratio = js[i].cand / js[i].base;
		c.ratio_ci[0] = 1 + js[i].ci[0];
		c.ratio_ci[1] = 1 + js[i].ci[1];
		c.p_value = js[i].p;
		c.p_adjusted = js[i].p_adj;
		c.verdict = compare_verdict_of(js[i].verdict);
		result_add_comparison(r, &c);
	}
	free(ok);
	free(p);
	free(fam);
	free(qs);
	free(js);
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
			"--min-runs)", s->n, plural_s(s->n),
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
