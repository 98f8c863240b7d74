/*
 * Metric-by-metric comparison of two result sets: the median, p90, p95
 * and p99 of every metric both sides have, each judged by stats/judge.h
 * (a change either way beyond the noise level), the whole comparison one
 * family under Holm's correction.
 */
#include "result/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/metrics.h"
#include "stats/judge.h"
#include "stats/shift.h"
#include "util/strutil.h"


void compare_opts_init(struct compare_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = JUDGE_ALPHA;
	o->noise = 0.02;
	o->resamples = 1000;
	o->seed = 1;
	o->correction = JUDGE_HOLM;
}

static int param_cmp(const void *x, const void *y)
{
	const struct param *a = *(const struct param *const *)x;
	const struct param *b = *(const struct param *const *)y;
	int c = strcmp(a->name, b->name);

	return c ? c : strcmp(a->value, b->value);
}

/*
 * The identity a benchmark is matched by: its name and its parameters in
 * name order (not those that say how it came out: param_is_outcome), each
 * length-prefixed ("4:sort1:n3:100"), so that no name or value can pass
 * for another split. malloc'd.
 */
static char *compare_key(const struct benchmark *b)
{
	const struct param **ps = xmalloc((b->nparams + 1) * sizeof(*ps));
	char *key = xasprintf("%zu:%s", strlen(b->name), b->name);
	size_t n = 0;

	for (size_t i = 0; i < b->nparams; i++)
		if (!param_is_outcome(b->params[i].name))
			ps[n++] = &b->params[i];
	qsort(ps, n, sizeof(*ps), param_cmp);
	for (size_t i = 0; i < n; i++) {
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

int compare_units_agree(const struct benchmark *b, const struct metric *ma,
			const struct metric *mb, struct error *e)
{
	char *name;

	if (!ma->unit[0] || !mb->unit[0] || !strcmp(ma->unit, mb->unit))
		return 0;
	name = benchmark_display_name(b);
	error_set(e, "benchmark '%s': metric '%s' is in '%s' in the baseline "
		  "and in '%s' in the candidate: values in different units "
		  "cannot be compared", name, ma->name, ma->unit, mb->unit);
	free(name);
	return -1;
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

void compare_query(const struct compare_opts *o, const char *metric,
		   const char *unit, enum stat_kind k, size_t family,
		   struct judge_query *q)
{
	memset(q, 0, sizeof(*q));
	q->stat = k;
	metrics_judge_traits(metric, unit, &q->dir, &q->noisy);
	q->thr = JUDGE_NONE;
	q->relative = true;
	q->threshold = o->noise;
	q->alpha = o->alpha;
	q->family = family ? family : 1;
}

enum cmp_verdict compare_verdict_of(enum judge_verdict v)
{
	switch (v) {
	case JUDGE_FASTER: case JUDGE_LOWER: return CMP_FASTER;
	case JUDGE_SLOWER: case JUDGE_HIGHER: return CMP_SLOWER;
	case JUDGE_BETTER: return CMP_BETTER;
	case JUDGE_WORSE: return CMP_WORSE;
	case JUDGE_INCONCLUSIVE: return CMP_INCONCLUSIVE;
	default: return CMP_UNCHANGED;
	}
}

static const enum stat_kind pct_stats[COMPARE_NPCT] = {
	STAT_P90, STAT_P95, STAT_P99,
};

static void push_metric(struct metric_one_side **v, size_t *n,
			const struct benchmark *b, const char *metric)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[*n].benchmark = benchmark_display_name(b);
	(*v)[(*n)++].metric = xstrdup(metric);
}

/* Whether m holds a measured value (not every one null). */
static bool measured(const struct metric *m)
{
	for (size_t i = 0; i < m->n; i++)
		if (!isnan(m->values[i]))
			return true;
	return false;
}

static int add_row(struct compare_report *rep, const struct benchmark *ba,
		   const struct benchmark *bb, const struct metric *ma,
		   const struct metric *mb, const struct compare_opts *o)
{
	struct judge_sample sa, sb;
	struct metric_cmp c;
	struct judge_query q;

	memset(&c, 0, sizeof(c));
	metrics_judge_sample(ba, ma, &sa);
	metrics_judge_sample(bb, mb, &sb);
	compare_query(o, ma->name, ma->unit, STAT_MEDIAN, rep->family, &q);
	if (judge(&sa, &sb, &q, &c.j)) {
		/* no measured value on a side (every run timed out): said
		 * as a metric the other side alone measured */
		if (measured(ma) && !measured(mb))
			push_metric(&rep->mbase_only, &rep->n_mbase_only, bb,
				    ma->name);
		else if (measured(mb) && !measured(ma))
			push_metric(&rep->mcand_only, &rep->n_mcand_only, bb,
				    mb->name);
		return 0;
	}
	c.proportion = c.j.proportion;
	for (int i = 0; i < COMPARE_NPCT; i++) {
		c.pct[i].stat = pct_stats[i];
		q.stat = pct_stats[i];
		/* a proportion has no percentiles: one judgement, two
		 * tests in the family */
		if (!c.proportion)
			judge(&sa, &sb, &q, &c.pct[i].j);
	}
	c.benchmark = benchmark_display_name(bb);
	c.metric = xstrdup(ma->name);
	c.unit = xstrdup(ma->unit);
	rep->rows = xgrow(rep->rows, &rep->cap, rep->n + 1, sizeof(*rep->rows));
	rep->rows[rep->n++] = c;
	return 0;
}

/* Copy judgement j into the row's fields the views read. */
static void fill_pct(struct pct_cmp *pc)
{
	const struct judgement *j = &pc->j;

	pc->base = j->base;
	pc->cand = j->cand;
	pc->change = j->change;
	pc->change_ci[0] = j->ci[0];
	pc->change_ci[1] = j->ci[1];
	pc->p = j->p;
	pc->p_adj = j->p_adj;
	pc->approximate = j->approximate;
	pc->verdict = compare_verdict_of(j->verdict);
	pc->method = j->method;
}

static void fill_row(struct metric_cmp *c)
{
	const struct judgement *j = &c->j;

	c->base_n = j->na;
	c->cand_n = j->nb;
	c->base_median = j->base;
	c->cand_median = j->cand;
	c->change = j->change;
	c->change_ci[0] = j->ci[0];
	c->change_ci[1] = j->ci[1];
	c->p = j->p;
	c->p_adj = j->p_adj;
	c->approximate = j->approximate;
	c->verdict = compare_verdict_of(j->verdict);
	c->ci_method = j->method;
	/* a proportion has no percentiles: its one value in their place */
	c->base_p95 = c->proportion ? j->base : c->pct[1].j.base;
	c->cand_p95 = c->proportion ? j->cand : c->pct[1].j.cand;
	c->base_p99 = c->proportion ? j->base : c->pct[2].j.base;
	c->cand_p99 = c->proportion ? j->cand : c->pct[2].j.cand;
	for (int i = 0; i < COMPARE_NPCT && !c->proportion; i++)
		fill_pct(&c->pct[i]);
}

/* The judgements of row i, statistic s (0 the median, then pct[]). */
static struct judgement *row_judgement(struct compare_report *rep, size_t i,
				       int s)
{
	return s ? &rep->rows[i].pct[s - 1].j : &rep->rows[i].j;
}

/* Every test of the comparison (both directions of every statistic of
 * every row) is one family: Holm over them, then the words. */
static void finish(struct compare_report *rep, const struct compare_opts *o)
{
	size_t per = 2 * (COMPARE_NPCT + 1), k = rep->n * per;
	double *p = xmalloc((k ? k : 1) * sizeof(*p));

	for (size_t i = 0; i < rep->n; i++) {
		for (int s = 0; s <= COMPARE_NPCT; s++) {
			const struct judgement *j = row_judgement(rep, i, s);

			if (s && rep->rows[i].proportion) {
				p[i * per + 2 * s] = p[i * per + 2 * s + 1] =
					NAN;
				continue;
			}
			p[i * per + 2 * s] = j->tested ? j->p_up : NAN;
			p[i * per + 2 * s + 1] = j->tested ? j->p_down : NAN;
		}
	}
	rep->tests = 0;
	for (size_t i = 0; i < k; i++)
		rep->tests += !isnan(p[i]);
	if (rep->correction == JUDGE_HOLM) {
		size_t nj = rep->n * (COMPARE_NPCT + 1);
		struct judgement **js = xmalloc((nj ? nj : 1) * sizeof(*js));

		judge_holm(p, k, p);
		for (size_t i = 0; i < rep->n; i++)
			for (int s = 0; s <= COMPARE_NPCT; s++)
				js[i * (COMPARE_NPCT + 1) + s] =
					row_judgement(rep, i, s);
		judge_family(js, nj, o->alpha, rep->tests);
		free(js);
	}
	for (size_t i = 0; i < rep->n; i++) {
		for (int s = 0; s <= COMPARE_NPCT; s++) {
			struct judge_query q;

			if (s && rep->rows[i].proportion)
				continue;
			compare_query(o, rep->rows[i].metric, rep->rows[i].unit,
				   s ? pct_stats[s - 1]
				   : STAT_MEDIAN, rep->family, &q);
			judge_decide(row_judgement(rep, i, s), &q,
				     p[i * per + 2 * s],
				     p[i * per + 2 * s + 1]);
		}
		fill_row(&rep->rows[i]);
	}
	free(p);
}

static void push_name(char ***v, size_t *n, const struct benchmark *b)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = benchmark_display_name(b);
}

/* The metrics (compared ones: wanted, not settings) of `from` that `in`
 * lacks, into v. */
static void one_side(const struct benchmark *from, const struct benchmark *in,
		     const struct compare_opts *o,
		     struct metric_one_side **v, size_t *n)
{
	for (size_t k = 0; k < from->nmetrics; k++) {
		const char *name = from->metrics[k].name;

		if (wanted(o, name) && (o->metrics || !metric_is_setting(name))
		    && !benchmark_find_metric(in, name))
			push_metric(v, n, from, name);
	}
}

/* Rows of the metrics of ba and bb compared (count non-NULL: only
 * counted). -1 with a message when a metric's units differ. */
static int compare_benchmark(struct compare_report *rep,
			     const struct benchmark *ba,
			     const struct benchmark *bb,
			     const struct compare_opts *o, size_t *count,
			     struct error *e)
{
	for (size_t k = 0; k < ba->nmetrics; k++) {
		const struct metric *ma = &ba->metrics[k];
		const struct metric *mb = benchmark_find_metric(bb, ma->name);

		/* a setting (iterations) is chosen, not measured: its
		 * change is no verdict, unless asked for by name */
		if (!mb || !wanted(o, ma->name) ||
		    (!o->metrics && metric_is_setting(ma->name)))
			continue;
		if (compare_units_agree(bb, ma, mb, e))
			return -1;
		if (count)
			(*count)++;
		else
			add_row(rep, ba, bb, ma, mb, o);
	}
	return 0;
}

/* Rows (count non-NULL: only counted) of every benchmark both sides
 * have. -1 with a message when a metric's units differ. */
static int compare_all(struct compare_report *rep, const struct result *cand,
		       struct hashmap *mbase, const struct compare_opts *o,
		       size_t *count, struct error *e)
{
	for (size_t i = 0; i < cand->nbenchmarks; i++) {
		const struct benchmark *bb = &cand->benchmarks[i];
		const struct benchmark *ba = compare_lookup(mbase, bb);

		if (ba) {
			if (compare_benchmark(rep, ba, bb, o, count, e))
				return -1;
			if (!count) {
				one_side(ba, bb, o, &rep->mbase_only,
					 &rep->n_mbase_only);
				one_side(bb, ba, o, &rep->mcand_only,
					 &rep->n_mcand_only);
			}
		} else if (!count) {
			push_name(&rep->only_cand, &rep->n_only_cand, bb);
		}
	}
	return 0;
}

int compare_results(const struct result *base, const struct result *cand,
		    const struct compare_opts *o, struct compare_report *rep,
		    struct error *e)
{
	struct hashmap mbase, mcand;
	size_t rows = 0;

	memset(rep, 0, sizeof(*rep));
	rep->alpha = o->alpha;
	rep->noise = o->noise;
	if (compare_index_pair(base, cand, o->base_label, o->cand_label,
			       &mbase, &mcand, e))
		return -1;
	rep->correction = o->correction;
	/* counted first: the family sets the permutation budget, and a
	 * mismatch of units is refused before anything is judged */
	if (compare_all(rep, cand, &mbase, o, &rows, e)) {
		hashmap_free(&mbase);
		hashmap_free(&mcand);
		return -1;
	}
	rep->family = o->correction == JUDGE_HOLM
		? 2 * (COMPARE_NPCT + 1) * rows : 1;
	compare_all(rep, cand, &mbase, o, NULL, e);
	finish(rep, o);
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
	for (size_t i = 0; i < rep->n_mbase_only; i++) {
		free(rep->mbase_only[i].benchmark);
		free(rep->mbase_only[i].metric);
	}
	for (size_t i = 0; i < rep->n_mcand_only; i++) {
		free(rep->mcand_only[i].benchmark);
		free(rep->mcand_only[i].metric);
	}
	free(rep->mbase_only);
	free(rep->mcand_only);
	memset(rep, 0, sizeof(*rep));
}
