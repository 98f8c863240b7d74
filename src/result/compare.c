/*
 * Metric-by-metric comparison of two result sets. The CI of the change of
 * the median is a bootstrap of the ratio of medians while both samples
 * together hold at most BOOTSTRAP_MAX values, and beyond that (where the
 * bootstrap would cost seconds) the order-statistics interval of
 * stats_shift, which agrees with it for large samples.
 */
#include "result/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/shift.h"
#include "util/strutil.h"

#define BOOTSTRAP_MAX 20000

void compare_opts_init(struct compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = 0.01;
	o->noise = 0.02;
	o->resamples = 1000;
	o->seed = 1;
}

bool metric_higher_is_better(const char *name)
{
	return !strcmp(name, "throughput") || !strcmp(name, "ipc") ||
	       !strcmp(name, "flops_per_second");
}

char *compare_key(const struct benchmark *b)
{
	char *key = xstrdup(b->name);

	for (size_t i = 0; i < b->nparams; i++) {
		char *next = xasprintf("%s\x1f%s=%s", key, b->params[i].name,
				       b->params[i].value);

		free(key);
		key = next;
	}
	return key;
}

static const struct benchmark *find_match(const struct result *r,
					  const char *key)
{
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		char *k = compare_key(&r->benchmarks[i]);
		bool same = !strcmp(k, key);

		free(k);
		if (same)
			return &r->benchmarks[i];
	}
	return NULL;
}

static bool wanted(const struct compare_opts *o, const char *metric)
{
	if (!o->metrics)
		return true;
	for (const char *const *m = o->metrics; *m; m++)
		if (!strcmp(*m, metric))
			return true;
	return false;
}

static const char *verdict_of(const struct metric_cmp *c, double alpha,
			      double noise)
{
	bool more = metric_higher_is_better(c->metric);

	/* one value each: nothing to test, the observed change decides */
	if (c->base_n == 1 && c->cand_n == 1) {
		if (c->change > noise)
			return more ? "better" : "slower";
		if (c->change < -noise)
			return more ? "worse" : "faster";
		return "unchanged";
	}
	if (!(c->p < alpha) || !isfinite(c->change_ci[0]))
		return "unchanged";
	if (c->change_ci[0] > noise)
		return more ? "better" : "slower";
	if (c->change_ci[1] < -noise)
		return more ? "worse" : "faster";
	return "unchanged";
}

/* The relative change of the median and its CI. */
static void median_change(double *a, size_t na, double *b,
			  size_t nb, struct rng *rng, size_t resamples,
			  struct metric_cmp *c)
{
	double ratio, ci[2];
	struct shift sh;

	c->change = c->change_ci[0] = c->change_ci[1] = NAN;
	if (na + nb <= BOOTSTRAP_MAX && resamples > 0) {
		c->ci_method = "bootstrap";
		if (stats_ratio_of_medians(a, na, b, nb, rng, resamples,
					   &ratio, ci) == 0) {
			c->change = ratio - 1;
			c->change_ci[0] = ci[0] - 1;
			c->change_ci[1] = ci[1] - 1;
		}
		return;
	}
	c->ci_method = "order statistics";
	stats_sort(a, na);
	stats_sort(b, nb);
	if (stats_shift(a, na, b, nb, STAT_MEDIAN, &sh) == 0) {
		c->change = sh.rel;
		c->change_ci[0] = sh.rel_ci[0];
		c->change_ci[1] = sh.rel_ci[1];
	}
}

static int add_row(struct compare_report *rep, const struct benchmark *bb,
		   const struct metric *ma, const struct metric *mb,
		   const struct compare_opts *o, struct rng *rng)
{
	struct metric_cmp *c;
	struct mann_whitney mw;
	double *a, *b;
	size_t na, nb;

	a = metric_measured(ma, &na);
	b = metric_measured(mb, &nb);
	if (!na || !nb) {
		free(a);
		free(b);
		return 0;
	}
	rep->rows = xgrow(rep->rows, &rep->cap, rep->n + 1, sizeof(*rep->rows));
	c = &rep->rows[rep->n++];
	memset(c, 0, sizeof(*c));
	c->benchmark = benchmark_display_name(bb);
	c->metric = xstrdup(ma->name);
	c->unit = xstrdup(ma->unit);
	c->base_n = na;
	c->cand_n = nb;
	c->base_median = ma->summary.median;
	c->base_p95 = ma->summary.p95;
	c->base_p99 = ma->summary.p99;
	c->cand_median = mb->summary.median;
	c->cand_p95 = mb->summary.p95;
	c->cand_p99 = mb->summary.p99;
	c->p = stats_mann_whitney(a, na, b, nb, &mw) == 0 ? mw.p : NAN;
	median_change(a, na, b, nb, rng, o->resamples, c);
	if (na == 1 && nb == 1) {
		c->p = NAN;
		c->change = a[0] != 0 ? b[0] / a[0] - 1 : NAN;
		c->change_ci[0] = c->change_ci[1] = c->change;
	}
	c->verdict = verdict_of(c, o->alpha, o->noise);
	free(a);
	free(b);
	return 0;
}

static void push_name(char ***v, size_t *n, const char *name)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(name);
}

static uint64_t row_seed(const char *bench, const char *metric)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const char *p = bench; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	h = (h ^ 0xff) * 0x100000001b3ULL;
	for (const char *p = metric; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	return h;
}

int compare_results(const struct result *base, const struct result *cand,
		    const struct compare_opts *o, struct compare_report *rep)
{
	struct rng rng;

	memset(rep, 0, sizeof(*rep));
	rep->alpha = o->alpha;
	rep->noise = o->noise;
	for (size_t i = 0; i < cand->nbenchmarks; i++) {
		const struct benchmark *bb = &cand->benchmarks[i];
		char *key = compare_key(bb);
		const struct benchmark *ba = find_match(base, key);

		free(key);
		if (!ba) {
			push_name(&rep->only_cand, &rep->n_only_cand, bb->name);
			continue;
		}
		for (size_t k = 0; k < ba->nmetrics; k++) {
			const struct metric *ma = &ba->metrics[k];
			const struct metric *mb =
				benchmark_find_metric(bb, ma->name);

			if (!mb || !wanted(o, ma->name))
				continue;
			/* A generator per row, seeded by what it compares:
			 * a row's CI does not depend on the other rows. */
			rng_seed(&rng, o->seed ^ row_seed(bb->name, ma->name));
			if (add_row(rep, bb, ma, mb, o, &rng))
				return -1;
		}
	}
	for (size_t i = 0; i < base->nbenchmarks; i++) {
		char *key = compare_key(&base->benchmarks[i]);

		if (!find_match(cand, key))
			push_name(&rep->only_base, &rep->n_only_base,
				  base->benchmarks[i].name);
		free(key);
	}
	return 0;
}

void compare_report_free(struct compare_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		free(rep->rows[i].benchmark);
		free(rep->rows[i].metric);
		free(rep->rows[i].unit);
	}
	free(rep->rows);
	for (size_t i = 0; i < rep->n_only_base; i++)
		free(rep->only_base[i]);
	for (size_t i = 0; i < rep->n_only_cand; i++)
		free(rep->only_cand[i]);
	free(rep->only_base);
	free(rep->only_cand);
	memset(rep, 0, sizeof(*rep));
}
