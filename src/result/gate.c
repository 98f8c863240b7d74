/*
 * Gate thresholds: parsing "wall_time.p99=15ms" and judging them on two
 * result sets. Values are converted to the metric's base unit (seconds,
 * bytes, counts) when parsed; the unit class is checked against the
 * metric's unit when judged.
 */
#include "result/gate.h"

#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/compare.h"
#include "util/strutil.h"

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
};

static int parse_value(const char *v, struct gate_threshold *t)
{
	char *end;
	double x = strtod(v, &end);

	if (end == v || !isfinite(x))
		return -1;
	if (!*end) {
		t->unit_class = xstrdup("count");
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
		error_set(e, "'%s': '%s' is not a number with a unit (s, ms, "
			  "us, ns, B, KiB, MiB, GiB, %%)", spec, eq + 1);
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
	c->base = c->cand = c->change = c->p = NAN;
	c->change_ci[0] = c->change_ci[1] = NAN;
	return c;
}

static void missing(struct gate_report *rep, struct gate_check *c,
		    const char *why)
{
	c->verdict = "missing";
	c->note = xstrdup(why);
	rep->missing++;
}

/* Sorted measured values of the metrics judged so far: several
 * thresholds on one metric sort 100,000 runs once. */
struct sorted_cache {
	const struct metric **m;
	double **v;
	size_t *n;
	size_t len;
};

static double *sorted_values(struct sorted_cache *c, const struct metric *m,
			     size_t *n)
{
	double *v;

	for (size_t i = 0; i < c->len; i++) {
		if (c->m[i] == m) {
			*n = c->n[i];
			return c->v[i];
		}
	}
	v = metric_measured(m, n);
	stats_sort(v, *n);
	c->m = xrealloc(c->m, (c->len + 1) * sizeof(*c->m));
	c->v = xrealloc(c->v, (c->len + 1) * sizeof(*c->v));
	c->n = xrealloc(c->n, (c->len + 1) * sizeof(*c->n));
	c->m[c->len] = m;
	c->v[c->len] = v;
	c->n[c->len++] = *n;
	return v;
}

static void cache_free(struct sorted_cache *c)
{
	for (size_t i = 0; i < c->len; i++)
		free(c->v[i]);
	free(c->m);
	free(c->v);
	free(c->n);
}

static void judge_limit(struct gate_report *rep, struct gate_check *c,
			const double *b, size_t nb)
{
	struct shift sh;

	/* The candidate against itself gives its statistic and SE. */
	stats_shift(b, nb, b, nb, c->stat, &sh);
	c->cand = sh.cand;
	c->change = c->cand - c->limit;
	if (c->cand > c->limit) {
		c->verdict = "fail";
		c->note = xasprintf("%s is above the limit",
				    stats_stat_name(c->stat));
		rep->failed++;
	} else {
		c->verdict = "pass";
		c->note = xasprintf("%s is within the limit",
				    stats_stat_name(c->stat));
	}
}

static void judge_increase(struct gate_report *rep, struct gate_check *c,
			   const double *a, size_t na, const double *b,
			   size_t nb)
{
	struct shift sh;
	bool over, significant;

	stats_shift(a, na, b, nb, c->stat, &sh);
	c->base = sh.base;
	c->cand = sh.cand;
	c->p = sh.p;
	c->change = c->relative ? sh.rel : sh.diff;
	c->change_ci[0] = c->relative ? sh.rel_ci[0] : sh.diff_ci[0];
	c->change_ci[1] = c->relative ? sh.rel_ci[1] : sh.diff_ci[1];
	over = c->kind == GATE_DECREASE ? -c->change > c->limit
					 : c->change > c->limit;
	/* min and max have no standard error: the observed change decides */
	significant = isnan(sh.p) || sh.p < rep->alpha;
	if (over && significant) {
		c->verdict = "fail";
		c->note = xasprintf(isnan(sh.p)
				    ? "%s beyond the threshold; one value "
				      "each, nothing to test: judged on the "
				      "values"
				    : "%s beyond the threshold, and "
				      "significant",
				    c->kind == GATE_DECREASE ? "decrease"
							     : "increase");
		rep->failed++;
	} else {
		c->verdict = "pass";
		c->note = xstrdup(!over ? "within the threshold"
				  : "beyond the threshold, but not "
				    "significant: noise cannot be ruled out");
	}
}

static int judge(struct gate_report *rep, struct sorted_cache *cache,
		 const struct benchmark *ba, const struct benchmark *bb,
		 const struct gate_threshold *t, struct error *e)
{
	const struct metric *mb = benchmark_find_metric(bb, t->metric);
	const struct metric *ma = ba ? benchmark_find_metric(ba, t->metric)
				     : NULL;
	struct gate_check *c = new_check(rep, bb, t);
	double *a = NULL, *b;
	size_t na = 0, nb;

	if (!mb)
		return missing(rep, c, "the candidate lacks this metric"), 0;
	c->unit = xstrdup(mb->unit);
	if (t->unit_class && strcmp(t->unit_class, "count") &&
	    strcmp(t->unit_class, mb->unit))
		return error_set(e, "'%s': %s is measured in %s, the threshold "
				 "is in %s", t->text, t->metric, mb->unit,
				 t->unit_class);
	b = sorted_values(cache, mb, &nb);
	if (t->kind != GATE_LIMIT) {
		if (ma)
			a = sorted_values(cache, ma, &na);
		if (!na || !nb)
			missing(rep, c, !ma ? "the baseline lacks this metric"
				: "no measured values to compare");
		else
			judge_increase(rep, c, a, na, b, nb);
	} else if (nb) {
		judge_limit(rep, c, b, nb);
	} else {
		missing(rep, c, "no measured values");
	}
	return 0;
}

static const struct benchmark *match(const struct result *r,
				     const struct benchmark *b)
{
	char *key = compare_key(b);
	const struct benchmark *found = NULL;

	for (size_t i = 0; r && i < r->nbenchmarks && !found; i++) {
		char *k = compare_key(&r->benchmarks[i]);

		if (!strcmp(k, key))
			found = &r->benchmarks[i];
		free(k);
	}
	free(key);
	return found;
}

static bool metric_anywhere(const struct result *r, const char *metric)
{
	for (size_t i = 0; i < r->nbenchmarks; i++)
		if (benchmark_find_metric(&r->benchmarks[i], metric))
			return true;
	return false;
}

int gate_evaluate(const struct result *base, const struct result *cand,
		  const struct gate_threshold *t, size_t nt, double alpha,
		  struct gate_report *rep, struct error *e)
{
	struct sorted_cache cache = { 0 };
	int ret = 0;

	memset(rep, 0, sizeof(*rep));
	rep->alpha = alpha;
	for (size_t k = 0; k < nt && !ret; k++) {
		if (!metric_anywhere(cand, t[k].metric)) {
			ret = error_set(e, "'%s': the candidate has no metric "
					"'%s' (a typo would turn the check "
					"off)", t[k].text, t[k].metric);
			break;
		}
		for (size_t i = 0; i < cand->nbenchmarks; i++) {
			const struct benchmark *bb = &cand->benchmarks[i];
			const struct benchmark *ba = match(base, bb);

			if (t[k].pattern && fnmatch(t[k].pattern, bb->name, 0))
				continue;
			if (t[k].kind != GATE_LIMIT && !ba) {
				missing(rep, new_check(rep, bb, &t[k]),
					"not in the baseline");
				continue;
			}
			if (judge(rep, &cache, ba, bb, &t[k], e)) {
				ret = -1;
				break;
			}
		}
	}
	cache_free(&cache);
	return ret;
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
	memset(rep, 0, sizeof(*rep));
}
