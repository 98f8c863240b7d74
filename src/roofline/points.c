/* The points of a roofline from a result: see points.h. */
#include "result/metrics.h"
#include "roofline/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofline/ceilings.h"
#include "stats/stats.h"
#include "util/strutil.h"

/* The median of m's measured values; NaN when m is NULL or has none. */
static double median_of(const struct metric *m)
{
	double *v, med = NAN;
	size_t n;

	if (!m)
		return NAN;
	v = metric_measured(m, &n);
	if (n)
		med = stats_percentile_select(v, n, 50);
	free(v);
	return med;
}

static const char *param_of(const struct benchmark *b, const char *name)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i].name, name))
			return b->params[i].value;
	return NULL;
}

static const char *setting_str(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return r->settings[i].str;
	return NULL;
}

/* A declared count's metric, else the PMU's: its median and where it
 * came from (malloc'd, NULL when neither has a value). */
static double work_of(const struct result *r, const struct benchmark *b,
		      const char *declared, const char *pmu, char **from)
{
	double v = median_of(benchmark_find_metric(b, declared));
	const char *how;

	*from = NULL;
	if (isfinite(v)) {
		how = setting_str(r, declared);
		*from = how ? xasprintf("%s (%s)", declared, how) :
			      xstrdup(declared);
		return v;
	}
	v = median_of(benchmark_find_metric(b, pmu));
	if (isfinite(v))
		*from = xasprintf("%s (PMU)", pmu);
	return v;
}

static void point_run(struct roof_point *p, const struct result *r,
		      const struct benchmark *b)
{
	double flops = work_of(r, b, "work_flops", "flops", &p->flops_from);
	double bytes = work_of(r, b, "work_bytes", "dram_bytes",
			       &p->bytes_from);
	double wall = median_of(benchmark_find_metric(b, METRIC_WALL_TIME));

	if (!p->flops_from && !p->bytes_from)
		p->unplaced = xstrdup("no work declared: use --work or "
				      "--count");
	else if (!p->flops_from)
		p->unplaced = xstrdup("no FLOPs declared: use --work "
				      "flops=EXPR or --count");
	else if (!p->bytes_from)
		p->unplaced = xstrdup("no bytes declared: use --work "
				      "bytes=EXPR or --count");
	else if (!(flops > 0) || !(bytes > 0))
		p->unplaced = xasprintf("%g FLOPs and %g bytes per run: "
					"both must be above 0", flops, bytes);
	else if (!(wall > 0))
		p->unplaced = xstrdup("no wall_time measured");
	else {
		p->flops = flops / wall;
		p->ai = flops / bytes;
	}
}

static void point_bench(struct roof_point *p, const struct benchmark *b)
{
	double rate = median_of(benchmark_find_metric(b,
						      "flops_per_second"));
	double ai = median_of(benchmark_find_metric(b,
						    "arithmetic_intensity"));

	if (isfinite(rate))
		p->flops_from = xstrdup("declared (ys_set_flops)");
	if (isfinite(ai))
		p->bytes_from = xstrdup("declared (ys_set_bytes)");
	if (!isfinite(rate) && !isfinite(ai))
		p->unplaced = xstrdup("no work declared: use ys_set_flops "
				      "and ys_set_bytes");
	else if (!isfinite(rate))
		p->unplaced = xstrdup("no FLOPs declared: use ys_set_flops");
	else if (!isfinite(ai))
		p->unplaced = xstrdup("no bytes declared: use ys_set_bytes");
	else if (!(rate > 0) || !(ai > 0))
		p->unplaced = xasprintf("%g FLOP/s at %g FLOP/B: both must be "
					"above 0", rate, ai);
	else {
		p->flops = rate;
		p->ai = ai;
	}
}

/* The parameters that choose the point's ceilings; a value that is not
 * one makes the point unplaced. */
static void point_params(struct roof_point *p, const struct benchmark *b)
{
	const char *t = param_of(b, "threads"), *prec = param_of(b,
								  "precision");
	long n;

	if (t && (parse_long(t, &n) || n < 1 || n > 1 << 20)) {
		p->unplaced = xasprintf("parameter threads '%s' is not a "
					"number of threads", t);
		return;
	}
	p->threads = t ? (int)n : 0;
	if (prec && strcmp(prec, "fp64") && strcmp(prec, "fp32")) {
		p->unplaced = xasprintf("parameter precision '%s' is neither "
					"fp64 nor fp32", prec);
		return;
	}
	snprintf(p->precision, sizeof(p->precision), "%s", prec ? prec : "");
}

int roof_points_add(struct roof_points *pts, const struct result *r,
		    struct error *e)
{
	bool bench = r->kind && !strcmp(r->kind, "bench");

	if (r->kind && !strcmp(r->kind, ROOF_KIND))
		return error_set(e, "a result of kind '%s' holds ceilings, not "
				 "benchmarks: give it with --ceilings; the "
				 "benchmarks to place are results with work "
				 "(run --work, roofline --count -- PROGRAM)",
				 ROOF_KIND);
	pts->p = xrealloc(pts->p, (pts->n + r->nbenchmarks + 1) *
			  sizeof(*pts->p));
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		struct roof_point *p = &pts->p[pts->n++];

		memset(p, 0, sizeof(*p));
		p->name = benchmark_display_name(b);
		p->flops = p->ai = NAN;
		if (bench)
			point_bench(p, b);
		else
			point_run(p, r, b);
		if (!p->unplaced)
			point_params(p, b);
		if (p->unplaced)
			p->flops = p->ai = NAN;
	}
	return 0;
}

void roof_points_free(struct roof_points *pts)
{
	for (size_t i = 0; i < pts->n; i++) {
		free(pts->p[i].name);
		free(pts->p[i].flops_from);
		free(pts->p[i].bytes_from);
		free(pts->p[i].unplaced);
	}
	free(pts->p);
	pts->p = NULL;
	pts->n = 0;
}
