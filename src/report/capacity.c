/*
 * The capacity chart of a `load --find-max` result: for each step (a
 * benchmark with the parameters offered_rate and slo_met,
 * result-format.md), the achieved throughput and the latency's p50 and
 * p99 against the offered rate, the steps that failed their objectives
 * marked, the max throughput and the knee drawn as vertical lines. Two
 * charts over one x axis: throughput above, latency (log) below.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/views.h"
#include "result/metrics.h"
#include "util/strutil.h"

struct cap_step {
	double offered, achieved, p50, p99;
	bool met;
};

/* Where the search found its max and its knee (NAN: not found). */
struct cap_marks { double best, knee; };

/* The achieved throughput: 2xx/3xx responses / seconds measured, else
 * the mean of the throughput of each second. */
static double achieved(const struct benchmark *b)
{
	const struct load_detail *d = &b->load;
	const struct metric *tp = benchmark_find_metric(b, METRIC_THROUGHPUT);

	for (size_t i = 0; d->present && d->elapsed > 0 && i < d->ncounts;
	     i++)
		if (!strcmp(d->counts[i].key, "ok"))
			return d->counts[i].value / d->elapsed;
	return tp && metric_has_summary(tp) ? tp->summary.mean : NAN;
}

/* Step b into s and its marks into mk; false when b is no step. */
static bool cap_step(const struct benchmark *b, struct cap_step *s,
		     struct cap_marks *mk)
{
	const char *rate = benchmark_param(b, "offered_rate");
	const char *met = benchmark_param(b, PARAM_SLO_MET);
	const char *found = benchmark_param(b, PARAM_FOUND);
	const struct metric *lat = benchmark_find_metric(b, METRIC_LATENCY);
	bool lok = lat && metric_has_summary(lat);

	if (!rate || !met || parse_double(rate, &s->offered) ||
	    !(s->offered > 0) || !isfinite(s->offered))
		return false;
	s->met = !strcmp(met, "yes");
	s->achieved = achieved(b);
	s->p50 = lok ? lat->summary.median : NAN;
	s->p99 = lok ? lat->summary.p99 : NAN;
	if (found && strstr(found, "max"))
		mk->best = s->offered;
	if (found && strstr(found, "knee"))
		mk->knee = s->offered;
	return true;
}

static int by_offered(const void *a, const void *b)
{
	const struct cap_step *x = a, *y = b;

	return (x->offered > y->offered) - (x->offered < y->offered);
}

/* The steps of r, by offered rate, and the marks; their number. */
static size_t cap_steps(const struct result *r, struct cap_step *out,
			struct cap_marks *mk)
{
	size_t n = 0;

	mk->best = mk->knee = NAN;
	for (size_t i = 0; i < r->nbenchmarks; i++)
		n += cap_step(&r->benchmarks[i], &out[n], mk);
	qsort(out, n, sizeof(*out), by_offered);
	return n;
}

/* A polyline through the finite (x, y) of the steps; field picks y. */
static void polyline(struct chart *c, const struct cap_step *s, size_t n,
		     size_t field, const char *cls)
{
	bool first = true;

	fprintf(c->fp, "<path class=\"%s\" d=\"", cls);
	for (size_t i = 0; i < n; i++) {
		double y = *(const double *)((const char *)&s[i] + field);

		if (!isfinite(y) || y <= 0)
			continue;
		fputc(first ? 'M' : 'L', c->fp);
		svg_num(c->fp, axis_map(&c->x, s[i].offered));
		fputc(' ', c->fp);
		svg_num(c->fp, axis_map(&c->y, y));
		first = false;
	}
	fputs("\"/>\n", c->fp);
}

static void points(struct chart *c, const struct cap_step *s, size_t n,
		   size_t field, const char *cls, const char *what,
		   const char *unit)
{
	for (size_t i = 0; i < n; i++) {
		double y = *(const double *)((const char *)&s[i] + field);

		if (!isfinite(y) || y <= 0)
			continue;
		fprintf(c->fp, "<circle class=\"%s%s\" r=\"3.5\" cx=\"", cls,
			s[i].met ? "" : " worse");
		svg_num(c->fp, axis_map(&c->x, s[i].offered));
		fputs("\" cy=\"", c->fp);
		svg_num(c->fp, axis_map(&c->y, y));
		fprintf(c->fp, "\" data-offered=\"%.6g\" data-met=\"%d\">"
			"<title>%.4g/s offered: %s ", s[i].offered, s[i].met,
			s[i].offered, what);
		html_value(c->fp, y, unit);
		fputs(s[i].met ? "" : " (objectives not met)", c->fp);
		fputs("</title></circle>\n", c->fp);
	}
}

/* A vertical line at offered rate x, labelled. */
static void marker(struct chart *c, double x, const char *cls,
		   const char *label, int dy)
{
	double px;

	if (!(x > 0))
		return;
	px = axis_map(&c->x, x);
	fprintf(c->fp, "<g class=\"%s\"><path class=\"cpl\" d=\"M", cls);
	svg_num(c->fp, px);
	fprintf(c->fp, " %dV", CHART_T);
	svg_num(c->fp, c->y.p0);
	fputs("\"/><text x=\"", c->fp);
	svg_num(c->fp, px + 4);
	fprintf(c->fp, "\" y=\"%d\">", CHART_T + 10 + dy);
	fputs_xml(label, c->fp);
	fputs("</text></g>\n", c->fp);
}

static void throughput_chart(FILE *fp, const struct cap_step *s, size_t n,
			     const struct cap_marks *mk, double xlo,
			     double xhi)
{
	struct chart c = { .fp = fp, .xunit = "count", .yunit = "count" };
	double yhi = 0;

	for (size_t i = 0; i < n; i++)
		yhi = fmax(yhi, fmax(s[i].achieved, s[i].offered));
	axis_init(&c.x, xlo, xhi, true, CHART_L, CHART_W - CHART_R);
	axis_init(&c.y, 0, yhi, false, CHART_H - CHART_B, CHART_T);
	chart_open(&c, fp, "capacity-throughput",
		   "achieved throughput against offered rate");
	chart_axes(&c, true, "offered rate (requests/s)",
		   "achieved (requests/s)");
	/* where achieved equals offered: a curve on the log x axis */
	fputs("<path class=\"ref\" fill=\"none\" d=\"", fp);
	for (int i = 0; i <= 32; i++) {
		double top = fmin(c.x.hi, c.y.hi);
		double x = c.x.lo * pow(top / c.x.lo, i / 32.0);

		fputc(i ? 'L' : 'M', fp);
		svg_num(fp, axis_map(&c.x, x));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c.y, x));
	}
	fputs("\"/>\n", fp);
	polyline(&c, s, n, offsetof(struct cap_step, achieved), "line");
	points(&c, s, n, offsetof(struct cap_step, achieved), "pt",
	       "achieved", "requests/s");
	marker(&c, mk->best, "cap-max", "max", 0);
	marker(&c, mk->knee, "cap-knee", "knee", 14);
	chart_close(&c, "each step's achieved throughput (dots; red: the "
		    "objectives not met) against the rate offered, log x; "
		    "dashed: achieved = offered");
}

static void latency_chart(FILE *fp, const struct cap_step *s, size_t n,
			  const struct cap_marks *mk, double xlo, double xhi)
{
	struct chart c = { .fp = fp, .xunit = "count", .yunit = "s" };
	double ylo = INFINITY, yhi = 0;

	for (size_t i = 0; i < n; i++) {
		if (isfinite(s[i].p50) && s[i].p50 > 0)
			ylo = fmin(ylo, s[i].p50);
		if (isfinite(s[i].p99))
			yhi = fmax(yhi, s[i].p99);
	}
	if (!(yhi > 0) || !isfinite(ylo))
		return;
	axis_init(&c.x, xlo, xhi, true, CHART_L, CHART_W - CHART_R);
	axis_init(&c.y, ylo, yhi, true, CHART_H - CHART_B, CHART_T);
	chart_open(&c, fp, "capacity-latency",
		   "latency p50 and p99 against offered rate");
	chart_axes(&c, true, "offered rate (requests/s)", "latency");
	polyline(&c, s, n, offsetof(struct cap_step, p50), "line");
	polyline(&c, s, n, offsetof(struct cap_step, p99), "line2");
	points(&c, s, n, offsetof(struct cap_step, p50), "pt", "p50", "s");
	points(&c, s, n, offsetof(struct cap_step, p99), "pt2", "p99", "s");
	marker(&c, mk->best, "cap-max", "max", 0);
	marker(&c, mk->knee, "cap-knee", "knee", 14);
	chart_close(&c, "each step's latency, p50 (blue) and p99 (orange), "
		    "against the rate offered, log axes; red dots: the "
		    "objectives not met");
}

void view_capacity(FILE *fp, const struct result *r)
{
	struct cap_step *s = xcalloc(r->nbenchmarks + 1, sizeof(*s));
	struct cap_marks mk;
	size_t n = cap_steps(r, s, &mk);

	if (n) {
		fputs("<section class=\"capacity\"><h3>capacity: throughput "
		      "and latency against offered rate</h3>\n"
		      "<div class=\"figs\">\n", fp);
		throughput_chart(fp, s, n, &mk, s[0].offered,
				 s[n - 1].offered);
		latency_chart(fp, s, n, &mk, s[0].offered, s[n - 1].offered);
		fputs("</div></section>\n", fp);
	}
	free(s);
}
