/*
 * The capacity chart of a `load --find-max` result: for each step (a
 * benchmark whose throughput carries the extras target_rate and slo_met,
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

static bool extra(const struct metric *m, const char *key, double *v)
{
	for (size_t i = 0; m && i < m->nextra; i++) {
		if (!strcmp(m->extra[i].key, key)) {
			*v = m->extra[i].value;
			return isfinite(*v);
		}
	}
	return false;
}

/* The steps of r, by offered rate; their number. */
static int by_offered(const void *a, const void *b)
{
	const struct cap_step *x = a, *y = b;

	return (x->offered > y->offered) - (x->offered < y->offered);
}

static size_t cap_steps(const struct result *r, struct cap_step *out)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct metric *tp = benchmark_find_metric(b,
							METRIC_THROUGHPUT);
		const struct metric *lat = benchmark_find_metric(b,
							METRIC_LATENCY);
		struct cap_step s;
		double met;

		if (!extra(tp, "target_rate", &s.offered) ||
		    !extra(tp, "slo_met", &met) ||
		    !extra(tp, "rate", &s.achieved) || s.offered <= 0)
			continue;
		s.met = met != 0;
		s.p50 = lat && metric_has_summary(lat) ? lat->summary.median
			: NAN;
		s.p99 = lat && metric_has_summary(lat) ? lat->summary.p99
			: NAN;
		out[n++] = s;
	}
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

struct cap_marks { double best, knee; };

static void marks_of(const struct result *r, struct cap_marks *mk)
{
	mk->best = mk->knee = NAN;
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct metric *m = benchmark_find_metric(
			&r->benchmarks[i], METRIC_MAX_THROUGHPUT);

		if (m) {
			extra(m, "offered_rate", &mk->best);
			extra(m, "knee_rate", &mk->knee);
		}
	}
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
	fputs("<path class=\"ref\" d=\"", fp);
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
	size_t n = cap_steps(r, s);
	struct cap_marks mk;

	if (n) {
		marks_of(r, &mk);
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
