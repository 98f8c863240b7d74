/*
 * The one judge of a change (see judge.h): picks the unit (runs or
 * processes), says when a sample cannot decide, and calls the tests and
 * intervals of shift.c. The one thing to know before changing it: every
 * verdict in yardstick comes from here, so a change of rule changes
 * compare, gate, report and bench --baseline at once, which is the point.
 */
#include "stats/judge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/proportion.h"
#include "stats/stats.h"
#include "util/strutil.h"

static const char *const verdict_names[] = {
	[JUDGE_PASS] = "pass", [JUDGE_FAIL] = "fail",
	[JUDGE_INCONCLUSIVE] = "inconclusive",
	[JUDGE_UNCHANGED] = "unchanged", [JUDGE_FASTER] = "faster",
	[JUDGE_SLOWER] = "slower", [JUDGE_BETTER] = "better",
	[JUDGE_WORSE] = "worse", [JUDGE_HIGHER] = "higher",
	[JUDGE_LOWER] = "lower",
};

const char *judge_verdict_name(enum judge_verdict v)
{
	return verdict_names[v];
}

const char *judge_correction_name(enum judge_correction c)
{
	return c == JUDGE_HOLM ? "holm" : "none";
}

int judge_correction_parse(const char *s, enum judge_correction *c)
{
	if (!strcmp(s, "holm"))
		*c = JUDGE_HOLM;
	else if (!strcmp(s, "none"))
		*c = JUDGE_NO_CORRECTION;
	else
		return -1;
	return 0;
}

/* ---- the unit: runs, or processes ---- */

/* The measured values of s, sorted (NaN skipped). */
static double *sorted_copy(const struct judge_sample *s, size_t *n)
{
	double *v = xmalloc((s->n ? s->n : 1) * sizeof(*v));

	*n = 0;
	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->v[i]))
			v[(*n)++] = s->v[i];
	stats_sort(v, *n);
	return v;
}

static int uint_cmp(const void *x, const void *y)
{
	unsigned a = *(const unsigned *)x, b = *(const unsigned *)y;

	return (a > b) - (a < b);
}

/* The distinct processes of s's measured values, sorted; their count. */
static size_t processes(const struct judge_sample *s, unsigned **ids)
{
	unsigned *p = xmalloc((s->n ? s->n : 1) * sizeof(*p));
	size_t m = 0, k = 0;

	for (size_t i = 0; i < s->n; i++)
		if (!isnan(s->v[i]))
			p[m++] = s->proc[i];
	qsort(p, m, sizeof(*p), uint_cmp);
	for (size_t i = 0; i < m; i++)
		if (!k || p[i] != p[k - 1])
			p[k++] = p[i];
	*ids = p;
	return k;
}

/* The statistic k of one sorted sample, as stats_shift estimates it. */
static double statistic(const double *v, size_t n, enum stat_kind k)
{
	struct shift sh;

	stats_shift(v, n, v, n, k, &sh);
	return sh.base;
}

/* Each process of s reduced to its statistic k, sorted: the
 * process-level sample (np values). */
static double *per_process(const struct judge_sample *s, enum stat_kind k,
			   size_t *np)
{
	unsigned *ids;
	size_t m = processes(s, &ids);
	double *out = xmalloc(m * sizeof(*out));
	double *buf = xmalloc((s->n ? s->n : 1) * sizeof(*buf));

	for (size_t j = 0; j < m; j++) {
		size_t n = 0;

		for (size_t i = 0; i < s->n; i++)
			if (!isnan(s->v[i]) && s->proc[i] == ids[j])
				buf[n++] = s->v[i];
		stats_sort(buf, n);
		out[j] = statistic(buf, n, k);
	}
	free(buf);
	free(ids);
	stats_sort(out, m);
	*np = m;
	return out;
}

static size_t process_count(const struct judge_sample *s)
{
	unsigned *ids;
	size_t m;

	if (!s->proc)
		return 0;
	m = processes(s, &ids);
	free(ids);
	return m;
}

/* ---- the judgement ---- */

static void inconclusive(struct judgement *j, const char *why)
{
	j->verdict = JUDGE_INCONCLUSIVE;
	j->method = "none";
	j->p = j->p_up = j->p_down = NAN;
	j->tested = false;
	/* nothing the samples rule out */
	j->ci[0] = j->relative_floor;
	j->ci[1] = INFINITY;
	snprintf(j->why, sizeof(j->why), "%s", why);
}

/* Tail quantiles of few runs: the estimate leans on the largest values,
 * and no interval is known to cover 95% under a change of shape. */
static const char *approx_reason(enum stat_kind k, size_t n)
{
	if (k == STAT_P99 && n < 100)
		return "p99 of fewer than 100 runs a side rests on the "
		       "largest few";
	if (k == STAT_P95 && n < 20)
		return "p95 of fewer than 20 runs a side rests on the "
		       "largest few";
	if (k == STAT_P90 && n < 10)
		return "p90 of fewer than 10 runs a side rests on the "
		       "largest few";
	if (k == STAT_MIN || k == STAT_MAX)
		return "an extreme value has no sampling distribution to "
		       "speak of";
	return NULL;
}

static enum judge_verdict word(enum judge_dir dir, bool up)
{
	if (dir == JUDGE_HIGHER_BETTER)
		return up ? JUDGE_BETTER : JUDGE_WORSE;
	if (dir == JUDGE_LOWER_BETTER)
		return up ? JUDGE_SLOWER : JUDGE_FASTER;
	return up ? JUDGE_HIGHER : JUDGE_LOWER;
}

/* The change judged on the values themselves (a deterministic measure
 * that no test could decide): beyond the threshold or not. */
static void judge_values(struct judgement *j, const struct judge_query *q)
{
	double up = q->threshold, c = j->change;

	j->method = "values";
	j->ci[0] = j->ci[1] = c;
	j->p = j->p_up = j->p_down = NAN;
	j->tested = false;
	if (q->thr == JUDGE_INCREASE)
		j->verdict = c > up ? JUDGE_FAIL : JUDGE_PASS;
	else if (q->thr == JUDGE_DECREASE)
		j->verdict = -c > up ? JUDGE_FAIL : JUDGE_PASS;
	else
		j->verdict = c > up ? word(q->dir, true)
			   : -c > up ? word(q->dir, false) : JUDGE_UNCHANGED;
}

static void run_tests(struct judgement *j, const struct judge_query *q,
		      const double *a, size_t na, const double *b, size_t nb)
{
	enum shift_mode mode = q->relative ? SHIFT_RELATIVE : SHIFT_ABSOLUTE;
	struct shift_test t;

	j->p_up = j->p_down = NAN;
	if (q->thr != JUDGE_DECREASE) {
		stats_shift_test_family(a, na, b, nb, q->stat, mode, false,
					q->threshold, q->alpha, q->family, &t);
		j->p_up = t.p;
		j->method = t.method;
	}
	if (q->thr != JUDGE_INCREASE) {
		stats_shift_test_family(a, na, b, nb, q->stat, mode, true,
					q->threshold, q->alpha, q->family, &t);
		j->p_down = t.p;
		j->method = t.method;
	}
	if (q->thr == JUDGE_INCREASE)
		j->p = j->p_up;
	else if (q->thr == JUDGE_DECREASE)
		j->p = j->p_down;
	else
		j->p = j->change >= 0 ? j->p_up : j->p_down;
	j->tested = true;
	if (!strcmp(j->method, "normal"))
		j->approx_why = "the normal approximation of a large sample";
	if (q->p_only)
		return;
	stats_shift_ci(a, na, b, nb, q->stat, mode, j->ci);
}

/* Why j's na and nb units cannot decide at alpha over k tests (Holm's:
 * at alpha / k; k 1: alone), into why. */
static void undecidable_why(char *why, size_t size,
			    const struct judgement *j, double alpha, size_t k,
			    size_t na, size_t nb)
{
	const char *unit = j->proportion ? "trials"
			   : j->by_process ? "processes" : "runs";
	size_t m = 1;
	char over[64] = "";

	while (!stats_shift_decidable(m, m, alpha / (double)k))
		m++;
	if (k > 1)
		snprintf(over, sizeof(over), " over %zu tests (Holm's "
			 "correction)", k);
	snprintf(why, size, "%zu and %zu %s cannot show a change at alpha "
		 "%g%s: %zu %s a side could", na, nb, unit, alpha, over, m,
		 unit);
}

static void undecidable(struct judgement *j, const struct judge_query *q,
			size_t na, size_t nb)
{
	char why[192];

	undecidable_why(why, sizeof(why), j, q->alpha, 1, na, nb);
	inconclusive(j, why);
}

void judge_family(struct judgement *const *js, size_t n, double alpha,
		  size_t k)
{
	if (k < 2)
		return;
	for (size_t i = 0; i < n; i++)
		if (js[i]->tested &&
		    stats_shift_decidable(js[i]->na, js[i]->nb,
					  alpha / (double)k))
			return;
	/* the estimate, its interval and p stand: each test on its own
	 * says what it says; the family cannot conclude */
	for (size_t i = 0; i < n; i++) {
		if (!js[i]->tested)
			continue;
		undecidable_why(js[i]->why, sizeof(js[i]->why), js[i], alpha,
				k, js[i]->na, js[i]->nb);
		js[i]->verdict = JUDGE_INCONCLUSIVE;
		js[i]->p_adj = NAN;
	}
}

/* The estimates of both sides and the change, without a test (and the
 * shift they came from, with both sides' standard errors, in *sh). */
static void estimates(struct judgement *j, const struct judge_query *q,
		      const double *a, size_t na, const double *b, size_t nb,
		      struct shift *out)
{
	struct shift sh;

	stats_shift(a, na, b, nb, q->stat, &sh);
	if (out)
		*out = sh;
	j->base = sh.base;
	j->cand = sh.cand;
	j->diff = sh.diff;
	j->rel = sh.rel;
	j->change = q->relative ? sh.rel : sh.diff;
	j->relative_floor = q->relative ? -1 : -INFINITY;
	j->na = na;
	j->nb = nb;
	j->approx_why = approx_reason(q->stat, na < nb ? na : nb);
	j->approximate = j->approx_why != NULL;
}

/*
 * units_needed (judge.h): the units a side at which the standard error of
 * the change, S / sqrt(n) from both sides' errors now, reaches
 * margin / (z(alpha / family) + z(power)): a one-sided test at that size
 * finds a change `margin` beyond the threshold with that power (normal
 * approximation; the permutation test's power is about the same). On
 * the log scale for a relative threshold, where the margin is a ratio.
 */
#define JUDGE_PLAN_VARIANCE 2.0

static void plan_units(struct judgement *j, const struct judge_query *q,
		       const struct shift *sh)
{
	double t = q->threshold, s2, margin, z, n;
	size_t have = j->na > j->nb ? j->na : j->nb;
	double units = (double)(j->na < j->nb ? j->na : j->nb);

	if (!(sh->base_se >= 0 && sh->cand_se >= 0))
		return;
	if (q->relative) {
		if (!(sh->base > 0 && sh->cand > 0))
			return;
		margin = log1p((fmax(2 * t, t + 0.02) - t) / (1 + t));
		s2 = j->na * pow(sh->base_se / sh->base, 2) +
		     j->nb * pow(sh->cand_se / sh->cand, 2);
		/* the test's own interval, where it is wider than the
		 * errors say (a median between two clusters of values) */
		if (j->ci[0] > -1 && isfinite(j->ci[1]))
			s2 = fmax(s2, units * pow((log1p(j->ci[1]) -
					 log1p(j->ci[0])) / (2 * 1.96), 2));
	} else {
		margin = t > 0 ? t : 0.02 * fabs(sh->base);
		s2 = j->na * pow(sh->base_se, 2) +
		     j->nb * pow(sh->cand_se, 2);
		if (isfinite(j->ci[0]) && isfinite(j->ci[1]))
			s2 = fmax(s2, units * pow((j->ci[1] - j->ci[0]) /
						 (2 * 1.96), 2));
	}
	z = stats_normal_quantile(1 - q->alpha / (q->family ? q->family : 1))
	    + stats_normal_quantile(JUDGE_POWER);
	/* the errors of a few units understate a spread in clusters (a
	 * median between them): planned with twice their variance, which
	 * tests/stats/judge_sim's clustered processes need for 90% */
	n = JUDGE_PLAN_VARIANCE * s2 * pow(z / margin, 2);
	if (!(margin > 0) || !isfinite(n))
		return;
	j->units_needed = n > 1e9 ? (size_t)1e9 : (size_t)ceil(n);
	if (j->units_needed < have)
		j->units_needed = have;
}

static void judge_sorted(struct judgement *j, const struct judge_query *q,
			 const double *a, size_t na, const double *b,
			 size_t nb)
{
	struct shift sh;

	estimates(j, q, a, na, b, nb, &sh);
	/* one value in every run of both (no major faults either side):
	 * nothing a test could find, and no test to count in the family,
	 * where Holm's number of tests would hold the others to a lower
	 * level for it */
	if (a[0] == a[na - 1] && b[0] == b[nb - 1] && a[0] == b[0] &&
	    stats_shift_decidable(na, nb, q->alpha)) {
		judge_values(j, q);
		return;
	}
	if (!stats_shift_decidable(na, nb, q->alpha)) {
		if (!q->noisy)
			judge_values(j, q);
		else if (na == 1 && nb == 1)
			inconclusive(j, "one run a side of a noisy metric: "
				     "a change cannot be told from noise");
		else
			undecidable(j, q, na, nb);
	} else {
		run_tests(j, q, a, na, b, nb);
		if (q->noisy)
			plan_units(j, q, &sh);
	}
	j->approximate = j->approx_why != NULL;
}

/* ---- a proportion: events out of trials ---- */

/* The events of s (the sum of its values), or -1 when they are not a
 * count within its trials (a file's values are checked, not trusted). */
static double events_of(const struct judge_sample *s)
{
	double sum = 0;

	for (size_t i = 0; i < s->n; i++) {
		if (isnan(s->v[i]))
			continue;
		if (s->v[i] < 0 || s->v[i] != floor(s->v[i]))
			return -1;
		sum += s->v[i];
	}
	return sum <= s->trials && s->trials < 0x1p53 &&
	       s->trials == floor(s->trials) ? sum : -1;
}

/* The exact conditional tests of the odds ratio (judge.h): one-sided at
 * 1 + t for an increase, 1 - t for a decrease (a fall of 100% or more
 * every psi satisfies: p 1). */
static void proportion_tests(struct judgement *j, const struct judge_query *q,
			     const struct prop_table *t)
{
	double est, ci[2];

	j->p_up = q->thr != JUDGE_DECREASE
		? prop_odds_p(t, 1 + q->threshold, true) : NAN;
	j->p_down = q->thr != JUDGE_INCREASE
		? prop_odds_p(t, 1 - q->threshold, false) : NAN;
	/* for simulations, no estimate either: the estimate exceeds 1
	 * exactly when the candidate's proportion exceeds the baseline's,
	 * and j->rel says which way */
	if (!q->p_only) {
		prop_odds(t, 0.95, &est, ci);
		j->change = est - 1;
		j->ci[0] = ci[0] - 1;
		j->ci[1] = ci[1] - 1;
	}
	j->p = q->thr == JUDGE_INCREASE ? j->p_up
	       : q->thr == JUDGE_DECREASE ? j->p_down
	       : j->change >= 0 ? j->p_up : j->p_down;
	j->method = "exact conditional";
	j->tested = true;
}

static void judge_proportion(struct judgement *j, const struct judge_sample *a,
			     const struct judge_sample *b,
			     const struct judge_query *q)
{
	double ea = events_of(a), eb = events_of(b);
	struct prop_table t;

	j->proportion = true;
	j->relative_floor = -1;
	j->trials[0] = a->trials;
	j->trials[1] = b->trials;
	j->events[0] = ea;
	j->events[1] = eb;
	j->na = (size_t)a->trials;
	j->nb = (size_t)b->trials;
	if (ea < 0 || eb < 0) {
		inconclusive(j, "the events are not a count within their "
			     "trials");
		return;
	}
	j->base = ea / a->trials;
	j->cand = eb / b->trials;
	j->diff = j->cand - j->base;
	j->rel = j->base > 0 ? j->cand / j->base - 1
		 : j->cand > 0 ? INFINITY : 0;
	j->change = j->rel;
	t = (struct prop_table){ (uint64_t)ea, (uint64_t)a->trials,
				 (uint64_t)eb, (uint64_t)b->trials };
	if (!q->relative && q->threshold > 0) {
		inconclusive(j, "a proportion of trials takes a relative "
			     "threshold (%), or 0: a count out of different "
			     "trials is no amount to compare");
		return;
	}
	if (!prop_informative(&t)) {
		/* 0 events both sides, or every trial an event on both:
		 * every odds ratio fits, and no test is made */
		j->change = 0;
		judge_values(j, q);
		return;
	}
	if (!stats_shift_decidable(j->na, j->nb, q->alpha)) {
		undecidable(j, q, j->na, j->nb);
		return;
	}
	proportion_tests(j, q, &t);
}

int judge(const struct judge_sample *a, const struct judge_sample *b,
	  const struct judge_query *q, struct judgement *j)
{
	size_t pa = process_count(a), pb = process_count(b), na, nb;
	double *va, *vb;

	memset(j, 0, sizeof(*j));
	j->p = j->p_up = j->p_down = j->p_adj = NAN;
	j->ci[0] = j->ci[1] = NAN;
	j->method = "none";
	va = sorted_copy(a, &na);
	vb = sorted_copy(b, &nb);
	if (!na || !nb) {
		free(va);
		free(vb);
		return -1;
	}
	if (a->trials > 0 && b->trials > 0) {
		judge_proportion(j, a, b, q);
	} else if (isnan(a->trials) || isnan(b->trials)) {
		estimates(j, q, va, na, vb, nb, NULL);
		inconclusive(j, "a count of events out of trials that a side "
			     "does not hold (a result saved before load kept "
			     "its requests as a metric): compare the result "
			     "files");
	} else if (q->noisy && pa >= 2 && pb >= 2) {
		/* the process is the unit: its statistic, then the typical
		 * process's (their median; their mean for the mean): one
		 * process that landed on a busy CPU moves a mean of 20 by
		 * its whole excess, the median not at all */
		struct judge_query pq = *q;
		double *xa = per_process(a, q->stat, &na);
		double *xb = per_process(b, q->stat, &nb);

		pq.stat = q->stat == STAT_MEAN ? STAT_MEAN : STAT_MEDIAN;
		j->by_process = true;
		judge_sorted(j, &pq, xa, na, xb, nb);
		free(xa);
		free(xb);
	} else if (q->noisy && (pa == 1 || pb == 1)) {
		estimates(j, q, va, na, vb, nb, NULL);
		inconclusive(j, "one process: epochs of one process are not "
			     "independent; use bench --processes N");
	} else {
		judge_sorted(j, q, va, na, vb, nb);
	}
	free(va);
	free(vb);
	return 0;
}

void judge_decide(struct judgement *j, const struct judge_query *q,
		  double adj_up, double adj_down)
{
	bool up = adj_up < q->alpha, down = adj_down < q->alpha;

	/* inconclusive, or judged on the values: final already */
	if ((j->verdict == JUDGE_INCONCLUSIVE && j->why[0]) ||
	    !strcmp(j->method, "values"))
		return;
	if (q->thr == JUDGE_INCREASE) {
		j->p_adj = adj_up;
		j->verdict = up ? JUDGE_FAIL : JUDGE_PASS;
	} else if (q->thr == JUDGE_DECREASE) {
		j->p_adj = adj_down;
		j->verdict = down ? JUDGE_FAIL : JUDGE_PASS;
	} else {
		j->p_adj = j->change >= 0 ? adj_up : adj_down;
		/* more failures are worse, not slower */
		j->verdict = up == down ? JUDGE_UNCHANGED
			   : j->proportion && q->dir != JUDGE_NEITHER
			   ? ((q->dir == JUDGE_LOWER_BETTER) == up
			      ? JUDGE_WORSE : JUDGE_BETTER)
			   : word(q->dir, up);
	}
}

struct ranked {
	double p;
	size_t i;
};

static int ranked_cmp(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;

	return (a->p > b->p) - (a->p < b->p);
}

void judge_holm(const double *p, size_t k, double *adj)
{
	struct ranked *r = xmalloc((k ? k : 1) * sizeof(*r));
	size_t m = 0;
	double run = 0;

	for (size_t i = 0; i < k; i++) {
		if (!isnan(p[i]))
			r[m++] = (struct ranked){ p[i], i };
		else
			adj[i] = NAN;
	}
	qsort(r, m, sizeof(*r), ranked_cmp);
	for (size_t i = 0; i < m; i++) {
		double a = fmin(1, (double)(m - i) * r[i].p);

		run = fmax(run, a);
		adj[r[i].i] = run;
	}
	free(r);
}
