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

static int param_cmp(const void *x, const void *y)
{
	const struct param *a = *(const struct param *const *)x;
	const struct param *b = *(const struct param *const *)y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->value, b->value);
}

char *compare_key(const struct benchmark *b)
{
	const struct param **ps = xmalloc((b->nparams + 1) * sizeof(*ps));
	char *key = xasprintf("%zu:%s", strlen(b->name), b->name);

	for (size_t i = 0; i < b->nparams; i++)
		ps[i] = &b->params[i];
	qsort(ps, b->nparams, sizeof(*ps), param_cmp);
	for (size_t i = 0; i < b->nparams; i++) {
		char *next = xasprintf("%s%zu:%s%zu:%s", key,
				       strlen(ps[i]->name), ps[i]->name,
				       strlen(ps[i]->value), ps[i]->value);

		free(key);
		key = next;
	}
	free(ps);
	return key;
}

static int compare_index(const struct result *r, const char *label,
			 struct hashmap *m, struct error *e)
{
	hashmap_init(m);
	for (size_t i = 0; r && i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		char *key = compare_key(b);
		int put = hashmap_put(m, key, strlen(key), (void *)b, NULL);

		free(key);
		if (put == 1) {
			char *name = benchmark_display_name(b);

			error_set(e, "%s holds benchmark '%s' twice (the same "
				  "name and parameters): which to compare "
				  "would be a guess; give each run a unique "
				  "name", label, name);
			free(name);
			hashmap_free(m);
			return -1;
		}
	}
	return 0;
}

int compare_index_pair(const struct result *base, const struct result *cand,
		       const char *base_label, const char *cand_label,
		       struct hashmap *mbase, struct hashmap *mcand,
		       struct error *e)
{
	if (compare_index(base, base_label ? base_label : "the baseline",
			  mbase, e))
		return -1;
	if (compare_index(cand, cand_label ? cand_label : "the candidate",
			  mcand, e)) {
		hashmap_free(mbase);
		return -1;
	}
	return 0;
}

const struct benchmark *compare_lookup(struct hashmap *m,
				       const struct benchmark *b)
{
	char *key = compare_key(b);
	const struct benchmark *found = hashmap_get(m, key, strlen(key));

	free(key);
	return found;
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

static enum cmp_verdict verdict_of(const struct metric_cmp *c, double alpha,
				   double noise)
{
	bool more = metrics_higher_is_better(c->metric, c->unit);

	/* one value each: nothing to test, the observed change decides */
	if (c->base_n == 1 && c->cand_n == 1) {
		if (c->change > noise)
			return more ? CMP_BETTER : CMP_SLOWER;
		if (c->change < -noise)
			return more ? CMP_WORSE : CMP_FASTER;
		return CMP_UNCHANGED;
	}
	if (!(c->p < alpha))
		return CMP_UNCHANGED;
	/* From a median of 0 any rise is beyond every relative threshold:
	 * the test, not the undefined ratio, decides. */
	if (c->base_median == 0 && c->cand_median != 0)
		return c->cand_median > 0 ? (more ? CMP_BETTER : CMP_SLOWER)
					  : (more ? CMP_WORSE : CMP_FASTER);
	if (!isfinite(c->change_ci[0]) && !isfinite(c->change_ci[1]))
		return CMP_UNCHANGED;
	if (c->change_ci[0] > noise)
		return more ? CMP_BETTER : CMP_SLOWER;
	if (c->change_ci[1] < -noise)
		return more ? CMP_WORSE : CMP_FASTER;
	return CMP_UNCHANGED;
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
		} else if (c->base_median == 0) {
			/* no ratio from 0: 0 -> 0 is no change, 0 -> x an
			 * infinite one (shown as such) */
			c->change = c->cand_median == 0 ? 0
				    : c->cand_median > 0 ? INFINITY
				    : -INFINITY;
		}
		return;
	}
	c->ci_method = "order statistics";
	if (stats_shift(a, na, b, nb, STAT_MEDIAN, &sh) == 0) {
		c->change = sh.rel;
		c->change_ci[0] = sh.rel_ci[0];
		c->change_ci[1] = sh.rel_ci[1];
	}
}

static const enum stat_kind pct_stats[COMPARE_NPCT] = {
	STAT_P90, STAT_P95, STAT_P99,
};

/* A percentile's change as gate judges it: `gate --max-increase
 * M.pNN=<noise>%` fails exactly when this says slower (worse). */
static void judge_pct(struct pct_cmp *pc, const char *metric,
		      const char *unit, const double *a, size_t na, const double *b, size_t nb,
		      double alpha, double noise)
{
	bool more = metrics_higher_is_better(metric, unit);
	struct shift_test up, down;
	struct shift sh;

	stats_shift(a, na, b, nb, pc->stat, &sh);
	pc->base = sh.base;
	pc->cand = sh.cand;
	pc->change = sh.rel;
	pc->p = NAN;
	pc->verdict = CMP_UNCHANGED;
	if (na == 1 && nb == 1) {
		pc->method = "values";
		pc->change_ci[0] = pc->change_ci[1] = pc->change;
		if (pc->change > noise)
			pc->verdict = more ? CMP_BETTER : CMP_SLOWER;
		else if (pc->change < -noise)
			pc->verdict = more ? CMP_WORSE : CMP_FASTER;
		return;
	}
	if (stats_shift_test(a, na, b, nb, pc->stat, SHIFT_RELATIVE, false,
			     noise, alpha, &up) ||
	    stats_shift_test(a, na, b, nb, pc->stat, SHIFT_RELATIVE, true,
			     noise, alpha, &down) ||
	    stats_shift_ci(a, na, b, nb, pc->stat, SHIFT_RELATIVE,
			   pc->change_ci)) {
		pc->change_ci[0] = pc->change_ci[1] = NAN;
		return;
	}
	pc->method = up.method;
	if (!up.decidable) {
		pc->verdict = CMP_INCONCLUSIVE;
		return;
	}
	pc->p = pc->change >= 0 ? up.p : down.p;
	if (up.p < alpha)
		pc->verdict = more ? CMP_BETTER : CMP_SLOWER;
	else if (down.p < alpha)
		pc->verdict = more ? CMP_WORSE : CMP_FASTER;
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
	stats_sort(a, na);
	stats_sort(b, nb);
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
		c->change = a[0] != 0 ? b[0] / a[0] - 1
			    : b[0] == 0 ? 0 : b[0] > 0 ? INFINITY : -INFINITY;
		c->change_ci[0] = c->change_ci[1] = c->change;
	}
	c->verdict = verdict_of(c, o->alpha, o->noise);
	for (int i = 0; i < COMPARE_NPCT; i++) {
		c->pct[i].stat = pct_stats[i];
		judge_pct(&c->pct[i], c->metric, c->unit, a, na, b, nb,
			  o->alpha, o->noise);
	}
	free(a);
	free(b);
	return 0;
}

static void push_name(char ***v, size_t *n, const struct benchmark *b)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = benchmark_display_name(b);
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

static void compare_benchmark(struct compare_report *rep,
			      const struct benchmark *ba,
			      const struct benchmark *bb,
			      const struct compare_opts *o)
{
	struct rng rng;

	for (size_t k = 0; k < ba->nmetrics; k++) {
		const struct metric *ma = &ba->metrics[k];
		const struct metric *mb = benchmark_find_metric(bb, ma->name);

		/* a setting (iterations) is chosen, not measured: its
		 * change is no verdict, unless asked for by name */
		if (!mb || !wanted(o, ma->name) ||
		    (!o->metrics && metric_is_setting(ma->name)))
			continue;
		/* A generator per row, seeded by what it compares: a row's
		 * CI does not depend on the other rows. */
		rng_seed(&rng, o->seed ^ row_seed(bb->name, ma->name));
		add_row(rep, bb, ma, mb, o, &rng);
	}
}

int compare_results(const struct result *base, const struct result *cand,
		    const struct compare_opts *o, struct compare_report *rep,
		    struct error *e)
{
	struct hashmap mbase, mcand;

	memset(rep, 0, sizeof(*rep));
	rep->alpha = o->alpha;
	rep->noise = o->noise;
	if (compare_index_pair(base, cand, o->base_label, o->cand_label,
			       &mbase, &mcand, e))
		return -1;
	for (size_t i = 0; i < cand->nbenchmarks; i++) {
		const struct benchmark *bb = &cand->benchmarks[i];
		const struct benchmark *ba = compare_lookup(&mbase, bb);

		if (ba)
			compare_benchmark(rep, ba, bb, o);
		else
			push_name(&rep->only_cand, &rep->n_only_cand, bb);
	}
	for (size_t i = 0; i < base->nbenchmarks; i++)
		if (!compare_lookup(&mcand, &base->benchmarks[i]))
			push_name(&rep->only_base, &rep->n_only_base,
				  &base->benchmarks[i]);
	rep->probes = mbase.probes + mcand.probes;
	hashmap_free(&mbase);
	hashmap_free(&mcand);
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
