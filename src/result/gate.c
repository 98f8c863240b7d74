/*
 * Gate thresholds: parsing "wall_time.p99=15ms" and judging them on two
 * result sets (the statistics are stats_shift_test's, see stats/shift.h).
 * Values are converted to the metric's base unit (seconds, bytes, counts)
 * when parsed; the unit class is checked against the metric's unit when
 * judged.
 */
#include "result/gate.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/compare.h"
#include "stats/judge.h"
#include "result/metrics.h"
#include "util/hashmap.h"
#include "util/strutil.h"

#define Z95_GATE 1.959963984540054

static const char *const gate_verdict_names[] = {
	[GATE_PASS] = "pass", [GATE_FAIL] = "fail",
	[GATE_MISSING] = "missing", [GATE_INCONCLUSIVE] = "inconclusive",
};

const char *gate_verdict_name(enum gate_verdict v)
{
	return gate_verdict_names[v];
}

/* The units a threshold may carry, each of one dimension: the class is
 * the metric unit it must be compared with ("rate": any "X/s"). */
static const struct unit {
	const char *suffix, *cls;
	double scale;
} units[] = {
	{ "ns", "s", 1e-9 }, { "us", "s", 1e-6 }, { "\xc2\xb5s", "s", 1e-6 },
	{ "ms", "s", 1e-3 }, { "s", "s", 1 },
	{ "B", "bytes", 1 }, { "KiB", "bytes", 1024.0 },
	{ "MiB", "bytes", 1048576.0 }, { "GiB", "bytes", 1073741824.0 },
	{ "TiB", "bytes", 1099511627776.0 }, { "kB", "bytes", 1e3 },
	{ "KB", "bytes", 1e3 }, { "MB", "bytes", 1e6 }, { "GB", "bytes", 1e9 },
	{ "TB", "bytes", 1e12 },
	{ "B/s", "bytes/s", 1 }, { "KiB/s", "bytes/s", 1024.0 },
	{ "MiB/s", "bytes/s", 1048576.0 },
	{ "GiB/s", "bytes/s", 1073741824.0 },
	{ "kB/s", "bytes/s", 1e3 }, { "MB/s", "bytes/s", 1e6 },
	{ "GB/s", "bytes/s", 1e9 },
	{ "/s", "rate", 1 }, { "k/s", "rate", 1e3 }, { "M/s", "rate", 1e6 },
	{ "G/s", "rate", 1e9 }, { "T/s", "rate", 1e12 },
};

static int parse_value(const char *v, struct gate_threshold *t)
{
	const char *end;
	double x;

	/* decimal (util/number.h): "0x10ms" is no threshold */
	if (parse_decimal_prefix(v, &end, &x))
		return -1;
	if (!*end) {
		/* 0 is 0 in every unit: leaked_bytes=0 needs none */
		t->unit_class = x == 0 ? NULL : xstrdup("count");
		t->value = x;
		return 0;
	}
	if (!strcmp(end, "%")) {
		t->relative = true;
		t->value = x / 100;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].suffix)) {
			t->unit_class = xstrdup(units[i].cls);
			t->value = x * units[i].scale;
			return 0;
		}
	}
	return -1;
}

/* The dimension of a threshold's unit class. */
static enum metric_dim class_dim(const char *cls)
{
	if (!strcmp(cls, "bytes/s") || !strcmp(cls, "rate"))
		return DIM_RATE;
	return metrics_unit_dim(cls);
}

/* The longest number a unit hint quotes (the rest of a longer one is
 * left out), and a hint's buffer: the rate's hint quotes the number
 * three times around 41 characters of its own. */
#define HINT_NUM_MAX 20
#define HINT_MAX (3 * HINT_NUM_MAX + 64)

/* What to write for a metric of dimension d, in words and examples. */
static const char *unit_hint(enum metric_dim d, char *buf, size_t n,
			     const char *num)
{
	switch (d) {
	case DIM_TIME:
		snprintf(buf, n, "a time needs a unit: %sms, %ss or 5%%", num,
			 num);
		break;
	case DIM_BYTES:
		snprintf(buf, n, "a size needs a unit: %sMiB, %sMB or 5%%",
			 num, num);
		break;
	case DIM_RATE:
		snprintf(buf, n, "a rate needs a unit: %s/s, %sk/s, %sMiB/s "
			 "or 5%%", num, num, num);
		break;
	default:
		snprintf(buf, n, "a %s takes a bare number or a %%",
			 metrics_dim_name(d));
		break;
	}
	return buf;
}

/* A metric's unit that a threshold may be written in too ("ms", "KiB"):
 * its entry of units[], or NULL ("s", "bytes" and the others are their
 * class itself). */
static const struct unit *unit_entry(const char *unit)
{
	for (size_t i = 0; unit && i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(unit, units[i].suffix))
			return &units[i];
	return NULL;
}

/* The dimension of a metric's unit, "ms" and "KiB" included. */
static enum metric_dim unit_dim(const char *unit)
{
	const struct unit *u = unit_entry(unit);

	return u ? class_dim(u->cls) : metrics_unit_dim(unit);
}

/* Whether a threshold of class cls can be held against a metric of
 * unit unit (metric name, for the vocabulary's dimension): its own unit,
 * or another of its class (5ms against a metric in s or in ms). */
static bool class_fits(const char *cls, const char *name, const char *unit)
{
	enum metric_dim d = metrics_lookup(name, unit)->dim;
	const struct unit *u = unit_entry(unit);

	if (!strcmp(cls, "count"))
		return d == DIM_COUNT || d == DIM_RATIO;
	if (!strcmp(cls, "rate"))
		return d == DIM_RATE;
	return !strcmp(cls, unit) || (u && !strcmp(cls, u->cls));
}

bool gate_unit_fits(const struct gate_threshold *t, const char *unit)
{
	return t->relative || !t->unit_class ||
	       class_fits(t->unit_class, t->metric, unit);
}

/* A unit the metric's dimension refuses (a bare number for a time,
 * bytes for a time), for a metric the vocabulary knows: -1 with a
 * message saying what to write. */
static int check_dim(const char *spec, const char *value,
		     const struct gate_threshold *t, struct error *e)
{
	const struct metric_info *m = metrics_lookup(t->metric, NULL);
	char num[HINT_NUM_MAX + 1], hint[HINT_MAX];
	size_t len = strspn(value, "0123456789.+-eE");

	if (t->relative || !t->unit_class || !metrics_known(t->metric) ||
	    class_fits(t->unit_class, t->metric, m->unit))
		return 0;
	snprintf(num, sizeof(num), "%.*s",
		 (int)(len < HINT_NUM_MAX ? len : HINT_NUM_MAX), value);
	if (!strcmp(t->unit_class, "count"))
		return error_set(e, "'%s': %s", spec,
				 unit_hint(m->dim, hint, sizeof(hint), num));
	return error_set(e, "'%s': %s is a %s (%s), '%s' is not: %s", spec,
			 t->metric, metrics_dim_name(m->dim), m->unit,
			 value + len,
			 unit_hint(m->dim, hint, sizeof(hint), num));
}

int gate_parse(const char *spec, enum gate_kind kind, const char *pattern,
	       struct gate_threshold *t, struct error *e)
{
	const char *eq = strchr(spec, '=');
	char *lhs, *dot;

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	t->stat = STAT_MEDIAN;
	if (!eq || eq == spec || !eq[1])
		return error_set(e, "'%s' is not METRIC[.STAT]=VALUE", spec);
	lhs = xstrndup(spec, (size_t)(eq - spec));
	dot = strchr(lhs, '.');
	if (dot) {
		*dot = '\0';
		if (stats_stat_parse(dot + 1, &t->stat)) {
			error_set(e, "'%s': unknown statistic '%s' (mean, "
				  "median, p90, p95, p99, min, max)", spec,
				  dot + 1);
			free(lhs);
			return -1;
		}
	}
	t->metric = lhs;
	if (parse_value(eq + 1, t)) {
		error_set(e, "'%s': '%s' is not a number with a unit (ns, us, "
			  "ms, s; B, KiB, MiB, GiB, kB, MB, GB; /s, k/s, M/s, "
			  "MiB/s, MB/s; %%)", spec, eq + 1);
		gate_threshold_free(t);
		return -1;
	}
	if (check_dim(spec, eq + 1, t, e)) {
		gate_threshold_free(t);
		return -1;
	}
	if (kind == GATE_LIMIT && t->relative) {
		error_set(e, "'%s': a limit is absolute, not a percentage",
			  spec);
		gate_threshold_free(t);
		return -1;
	}
	if (t->value < 0) {
		error_set(e, "'%s': a threshold cannot be negative", spec);
		gate_threshold_free(t);
		return -1;
	}
	t->pattern = pattern ? xstrdup(pattern) : NULL;
	t->text = xstrdup(spec);
	return 0;
}

void gate_threshold_free(struct gate_threshold *t)
{
	free(t->pattern);
	free(t->metric);
	free(t->unit_class);
	free(t->text);
	memset(t, 0, sizeof(*t));
}

static struct gate_check *new_check(struct gate_report *rep,
				    const struct benchmark *b,
				    const struct gate_threshold *t)
{
	struct gate_check *c;

	rep->checks = xgrow(rep->checks, &rep->cap, rep->n + 1,
			    sizeof(*rep->checks));
	c = &rep->checks[rep->n++];
	memset(c, 0, sizeof(*c));
	c->benchmark = benchmark_display_name(b);
	c->metric = xstrdup(t->metric);
	c->threshold = xstrdup(t->text);
	c->stat = t->stat;
	c->kind = t->kind;
	c->relative = t->relative;
	c->limit = t->value;
	c->base = c->cand = c->change = c->p = c->p_adj = NAN;
	c->change_ci[0] = c->change_ci[1] = NAN;
	return c;
}

static void missing(struct gate_report *rep, struct gate_check *c,
		    const char *why)
{
	c->verdict = GATE_MISSING;
	c->note = xstrdup(why);
	c->fails = !rep->missing_pass;
	rep->missing++;
	rep->failed += c->fails;
}

/* Sorted measured values of the metrics judged so far, by the metric's
 * address: several thresholds on one metric sort 100,000 runs once. */
struct sorted_values {
	double *v;
	size_t n;
};

static double *sorted_values(struct hashmap *cache, const struct metric *m,
			     size_t *n)
{
	struct sorted_values *sv = hashmap_get(cache, &m, sizeof(m));

	if (!sv) {
		sv = xmalloc(sizeof(*sv));
		sv->v = metric_measured(m, &sv->n);
		stats_sort(sv->v, sv->n);
		hashmap_put(cache, &m, sizeof(m), sv, NULL);
	}
	*n = sv->n;
	return sv->v;
}

static void cache_free(struct hashmap *cache)
{
	for (size_t i = 0; i < cache->cap; i++) {
		struct sorted_values *sv = cache->slots[i].value;

		if (cache->slots[i].key) {
			free(sv->v);
			free(sv);
		}
	}
	hashmap_free(cache);
}

/*
 * Statistic k of metric m as its result shows it (run, report, export,
 * history): its summary (type-7 percentiles of its values; `load`'s
 * latencies from the histogram of every request), or of its sorted
 * values b[0..nb) when it has none.
 */
static double shown_stat(const struct metric *m, const double *b, size_t nb,
			 enum stat_kind k)
{
	const struct summary *s = &m->summary;
	bool sum = m->summarized == m->n && s->n;
	double mean = 0;

	switch (k) {
	case STAT_MEDIAN:
		return sum ? s->median : stats_percentile_sorted(b, nb, 50);
	case STAT_P90:
		return sum ? s->p90 : stats_percentile_sorted(b, nb, 90);
	case STAT_P95:
		return sum ? s->p95 : stats_percentile_sorted(b, nb, 95);
	case STAT_P99:
		return sum ? s->p99 : stats_percentile_sorted(b, nb, 99);
	case STAT_MIN:
		return sum ? s->min : b[0];
	case STAT_MAX:
		return sum ? s->max : b[nb - 1];
	default:
		if (sum)
			return s->mean;
		for (size_t i = 0; i < nb; i++)
			mean += b[i];
		return mean / (double)nb;
	}
}

/* A limit holds a statistic as the result shows it, not the judge's
 * Harrell-Davis estimate of it (the p95 of 19 runs of 0.1 s and one of
 * 0.5 s is 0.12 s shown, 0.348 s by Harrell-Davis). */
static void judge_limit(struct gate_report *rep, struct gate_check *c,
			const struct metric *m, const double *b, size_t nb)
{
	c->cand = shown_stat(m, b, nb, c->stat);
	c->change = c->cand - c->limit;
	if (c->cand > c->limit) {
		c->verdict = GATE_FAIL;
		c->fails = true;
		c->note = xasprintf("%s is above the limit",
				    stats_stat_name(c->stat));
		rep->failed++;
	} else {
		c->verdict = GATE_PASS;
		c->note = xasprintf("%s is within the limit",
				    stats_stat_name(c->stat));
	}
}

static const char *direction(const struct gate_check *c)
{
	return c->kind == GATE_DECREASE ? "decrease" : "increase";
}

/*
 * The note of a change beyond the threshold that is not significant, with
 * the runs a side that would likely tell: the interval narrows as
 * 1/sqrt(runs), so its near side clears the threshold at about
 * n (width / margin)^2, scaled from the 95% interval's 1.96 to the test's
 * one-sided quantile at its level (2.33 at alpha 0.01; under Holm, the
 * family's first test's, alpha / family). A rough guide, said as one, and
 * only when it asks for more runs than the check had.
 */
static char *beyond_note(const struct gate_report *rep,
			 const struct gate_check *c, size_t n, bool decrease)
{
	double margin = decrease ? -c->change - c->limit : c->change - c->limit;
	double width = decrease ? c->change_ci[1] - c->change
				: c->change - c->change_ci[0];
	/* the test's level: alpha, and under Holm the first of the family's
	 * tests is held to alpha / family */
	double level = rep->alpha / (double)(rep->correction == JUDGE_HOLM &&
					     rep->family ? rep->family : 1);
	double z = stats_normal_quantile(1 - level);
	double need = n * pow(width / margin * z / Z95_GATE, 2);

	/* no more than it had: the rough guide does not fit this sample
	 * (ties, a skewed spread), and says nothing rather than a number
	 * the check already had */
	if (!isfinite(need) || margin <= 0 || need > 1e7 || need <= (double)n)
		return xstrdup("beyond the threshold, but not significant: "
			       "noise cannot be ruled out");
	return xasprintf("beyond the threshold, but not significant: noise "
			 "cannot be ruled out; about %.0f %s a side could "
			 "tell", ceil(need), c->j.proportion
			 ? metrics_lookup(c->metric, c->unit)->trials
			 : c->j.by_process ? "processes" : "runs");
}

/* The question a check asks the judge. */
static void check_query(const struct gate_report *rep,
			const struct gate_check *c, struct judge_query *q)
{
	memset(q, 0, sizeof(*q));
	q->stat = c->stat;
	metrics_judge_traits(c->metric, c->unit, &q->dir, &q->noisy);
	q->thr = c->kind == GATE_DECREASE ? JUDGE_DECREASE : JUDGE_INCREASE;
	q->relative = c->relative;
	q->threshold = c->limit;
	q->alpha = rep->alpha;
	q->family = rep->family ? rep->family : 1;
}

/* Judge a check (its verdict waits for the family's correction, in
 * finish_check). */
static void judge_change(struct gate_report *rep, struct gate_check *c,
			 const struct benchmark *ba, const struct metric *ma,
			 const struct benchmark *bb, const struct metric *mb)
{
	struct judge_sample sa, sb;
	struct judge_query q;
	struct judgement *j = &c->j;

	metrics_judge_sample(ba, ma, &sa);
	metrics_judge_sample(bb, mb, &sb);
	check_query(rep, c, &q);
	if (judge(&sa, &sb, &q, j))
		abort();	/* cannot be: both samples have values */
	c->judged = true;
	/* a proportion's change is relative (its odds ratio's) whatever
	 * the threshold: an absolute one is 0 (judge.h) */
	if (j->proportion)
		c->relative = true;
	c->base = j->base;
	c->cand = j->cand;
	c->change = j->change;
	c->change_ci[0] = j->ci[0];
	c->change_ci[1] = j->ci[1];
	c->p = j->p;
	c->method = j->method;
	c->approximate = j->approximate;
}

/* The verdict of a judged check at its corrected p, and its note. */
static void finish_check(struct gate_report *rep, struct gate_check *c,
			 double adj)
{
	struct judge_query q;
	bool decrease = c->kind == GATE_DECREASE, over;

	check_query(rep, c, &q);
	judge_decide(&c->j, &q, decrease ? NAN : adj, decrease ? adj : NAN);
	c->p_adj = c->j.p_adj;
	over = decrease ? -c->change > c->limit : c->change > c->limit;
	if (c->j.verdict == JUDGE_INCONCLUSIVE) {
		c->verdict = GATE_INCONCLUSIVE;
		c->fails = !rep->inconclusive_pass;
		c->note = xstrdup(c->j.why);
		rep->inconclusive++;
	} else if (c->j.verdict == JUDGE_FAIL) {
		c->verdict = GATE_FAIL;
		c->fails = true;
		c->note = !strcmp(c->method, "values")
			? xasprintf("%s beyond the threshold; a deterministic "
				    "measure no test could decide: judged on "
				    "the values", direction(c))
			: xasprintf("%s beyond the threshold, and significant",
				    direction(c));
	} else {
		c->verdict = GATE_PASS;
		c->note = over && strcmp(c->method, "values")
			? beyond_note(rep, c, c->j.na > c->j.nb ? c->j.na
							       : c->j.nb,
				      decrease)
			: xstrdup("within the threshold");
	}
	rep->failed += c->fails;
}

/* Holm (or no correction) over the tested checks, then every judged
 * check's verdict. */
static void finish(struct gate_report *rep)
{
	double *p = xmalloc((rep->n ? rep->n : 1) * sizeof(*p));

	rep->tested = 0;
	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];

		p[i] = c->judged && c->j.tested ? c->p : NAN;
		rep->tested += !isnan(p[i]);
	}
	if (rep->correction == JUDGE_HOLM) {
		struct judgement **js = xmalloc((rep->n ? rep->n : 1) *
						sizeof(*js));
		size_t nj = 0;

		judge_holm(p, rep->n, p);
		for (size_t i = 0; i < rep->n; i++)
			if (rep->checks[i].judged)
				js[nj++] = &rep->checks[i].j;
		judge_family(js, nj, rep->alpha, rep->tested);
		free(js);
	}
	for (size_t i = 0; i < rep->n; i++)
		if (rep->checks[i].judged)
			finish_check(rep, &rep->checks[i], p[i]);
	free(p);
}

/* The message of a threshold whose unit the metric's refuses. */
static int unit_mismatch(const struct gate_threshold *t, const char *unit,
			 struct error *e)
{
	const char *eq = strchr(t->text, '=');
	size_t len = eq ? strspn(eq + 1, "0123456789.+-eE") : 0;
	char num[HINT_NUM_MAX + 1], hint[HINT_MAX];

	snprintf(num, sizeof(num), "%.*s",
		 (int)(len < HINT_NUM_MAX ? len : HINT_NUM_MAX),
		 eq ? eq + 1 : "");
	unit_hint(unit_dim(unit), hint, sizeof(hint), num);
	if (!strcmp(t->unit_class, "count"))
		return error_set(e, "'%s': %s is measured in %s: %s", t->text,
				 t->metric, unit, hint);
	return error_set(e, "'%s': %s is measured in %s, the threshold is "
			 "a %s: %s", t->text, t->metric, unit,
			 metrics_dim_name(class_dim(t->unit_class)), hint);
}

static int judge_check(struct gate_report *rep, struct hashmap *cache,
		 const struct benchmark *ba, const struct benchmark *bb,
		 const struct gate_threshold *t, struct error *e)
{
	const struct metric *mb = benchmark_find_metric(bb, t->metric);
	const struct metric *ma = ba ? benchmark_find_metric(ba, t->metric)
				     : NULL;
	struct gate_check *c = new_check(rep, bb, t);
	size_t na = 0, nb;
	double *b;

	if (!mb)
		return missing(rep, c, "the candidate lacks this metric"), 0;
	c->unit = xstrdup(mb->unit);
	if (!gate_unit_fits(t, mb->unit))
		return unit_mismatch(t, mb->unit, e);
	/* an absolute threshold in the metric's own unit (5ms: 5 when the
	 * values are in ms) */
	if (!t->relative && t->unit_class && unit_entry(mb->unit) &&
	    !strcmp(unit_entry(mb->unit)->cls, t->unit_class))
		c->limit = t->value / unit_entry(mb->unit)->scale;
	b = sorted_values(cache, mb, &nb);
	if (t->kind != GATE_LIMIT) {
		if (ma && compare_units_agree(bb, ma, mb, e))
			return -1;
		if (ma)
			sorted_values(cache, ma, &na);
		if (!ma)
			missing(rep, c, "the baseline lacks this metric");
		else if (!nb)
			missing(rep, c, "no measured value in the candidate: "
				"did every run time out or fail?");
		else if (!na)
			missing(rep, c, "no measured value in the baseline: "
				"did every run time out or fail?");
		else
			judge_change(rep, c, ba, ma, bb, mb);
	} else if (nb) {
		judge_limit(rep, c, mb, b, nb);
	} else {
		missing(rep, c, "no measured value in the candidate: did "
			"every run time out or fail?");
	}
	return 0;
}

/* The tests one gate invocation may make: every threshold on a change,
 * on every candidate benchmark it matches (an upper bound: a check that
 * cannot be made or decided makes no test; the budget only needs it). */
static size_t family_size(const struct result *cand,
			  const struct gate_threshold *t, size_t nt)
{
	size_t k = 0;

	for (size_t i = 0; i < nt; i++) {
		if (t[i].kind == GATE_LIMIT)
			continue;
		for (size_t j = 0; j < cand->nbenchmarks; j++)
			k += (!t[i].pattern ||
			      !fnmatch(t[i].pattern, cand->benchmarks[j].name,
				       0)) &&
			     benchmark_find_metric(&cand->benchmarks[j],
						   t[i].metric);
	}
	return k ? k : 1;
}

void gate_opts_init(struct gate_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->alpha = JUDGE_ALPHA;
	o->correction = JUDGE_HOLM;
}

/* Whether b (may be NULL) has metric: a benchmark that has the
 * threshold's metric on neither side is not about it (the steps of a
 * `load --find-max` result have no max_throughput): no check. A metric
 * no benchmark of the candidate has is an error before (a typo). */
static bool has_metric(const struct benchmark *b, const char *metric)
{
	return b && benchmark_find_metric(b, metric);
}

/* Checks of threshold t on every benchmark of cand it matches, and on
 * those of base the candidate lacks. */
static int evaluate_one(struct gate_report *rep, struct hashmap *cache,
			const struct result *base, struct hashmap *mbase,
			const struct result *cand, struct hashmap *mcand,
			const struct gate_threshold *t, struct error *e)
{
	bool matched = false;	/* the pattern matched a benchmark */

	for (size_t i = 0; i < cand->nbenchmarks; i++) {
		const struct benchmark *bb = &cand->benchmarks[i];
		const struct benchmark *ba = compare_lookup(mbase, bb);

		if (t->pattern && fnmatch(t->pattern, bb->name, 0))
			continue;
		matched = true;
		if (!has_metric(bb, t->metric) && !has_metric(ba, t->metric))
			continue;
		if (t->kind != GATE_LIMIT && !ba) {
			missing(rep, new_check(rep, bb, t), "not in the "
				"baseline: new, or renamed?");
			continue;
		}
		if (judge_check(rep, cache, ba, bb, t, e))
			return -1;
	}
	for (size_t i = 0; base && t->kind != GATE_LIMIT &&
	     i < base->nbenchmarks; i++) {
		const struct benchmark *ba = &base->benchmarks[i];

		if (t->pattern && fnmatch(t->pattern, ba->name, 0))
			continue;
		matched = true;
		if (!has_metric(ba, t->metric))
			continue;
		if (!compare_lookup(mcand, ba))
			missing(rep, new_check(rep, ba, t), "in the baseline "
				"but not in the candidate: removed, or "
				"renamed?");
	}
	/* a benchmark it matches without the metric is no check, as
	 * without a pattern: only a pattern that matched none is named */
	if (!matched && t->pattern) {
		rep->unmatched = xrealloc(rep->unmatched, (rep->nunmatched + 1)
					  * sizeof(*rep->unmatched));
		rep->unmatched[rep->nunmatched++] =
			xasprintf("'%s' for '%s'", t->text, t->pattern);
	}
	return 0;
}

int gate_evaluate(const struct result *base, const struct result *cand,
		  const struct gate_threshold *t, size_t nt,
		  const struct gate_opts *o, struct gate_report *rep,
		  struct error *e)
{
	struct hashmap cache, mbase, mcand;
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	rep->alpha = o->alpha;
	rep->missing_pass = o->missing_pass;
	rep->inconclusive_pass = o->inconclusive_pass;
	if (compare_index_pair(base, cand, o->base_label, o->cand_label,
			       &mbase, &mcand, e))
		return -1;
	rep->correction = o->correction;
	rep->family = o->correction == JUDGE_HOLM
		? family_size(cand, t, nt) : 1;
	hashmap_init(&cache);
	for (size_t k = 0; k < nt && !ret; k++) {
		if (!result_has_metric(cand, t[k].metric)) {
			const char *near = result_metric_near(cand,
							      t[k].metric);

			ret = error_set(e, "'%s': the candidate has no metric "
					"'%s' (a typo would turn the check "
					"off)%s%s%s", t[k].text, t[k].metric,
					near ? "; did you mean '" : "",
					near ? near : "", near ? "'?" : "");
			break;
		}
		ret = evaluate_one(rep, &cache, base, &mbase, cand, &mcand,
				   &t[k], e);
	}
	if (!ret)
		finish(rep);
	cache_free(&cache);
	hashmap_free(&mbase);
	hashmap_free(&mcand);
	return ret;
}

size_t gate_units_needed(const struct gate_report *rep)
{
	size_t n = 0;

	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];

		if (c->judged && c->j.tested && c->j.units_needed > n)
			n = c->j.units_needed;
	}
	return n;
}

void gate_report_free(struct gate_report *rep)
{
	for (size_t i = 0; i < rep->n; i++) {
		struct gate_check *c = &rep->checks[i];

		free(c->benchmark);
		free(c->metric);
		free(c->unit);
		free(c->threshold);
		free(c->note);
	}
	free(rep->checks);
	for (size_t i = 0; i < rep->nunmatched; i++)
		free(rep->unmatched[i]);
	free(rep->unmatched);
	memset(rep, 0, sizeof(*rep));
}
