/* Axes, ticks and the SVG frame of the report's charts. */
#include "report/chart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

void svg_num(FILE *fp, double v)
{
	long t = lround(v * 10);

	if (t % 10 == 0)
		fprintf(fp, "%ld", t / 10);
	else
		fprintf(fp, "%s%ld.%ld", t < 0 ? "-" : "", labs(t) / 10,
			labs(t) % 10);
}

/* The widest range an axis spans: every value a tick loop computes
 * from it (a fifth beyond, steps of 1-2-5 x 10^k) stays a normal double,
 * so each step moves. */
#define AXIS_MAX 1e300
#define AXIS_MIN 1e-300

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void axis_init(struct axis *a, double lo, double hi, bool log, double p0,
	       double p1)
{
	if (!isfinite(lo) || !isfinite(hi) || lo > hi) {
		lo = log ? 1 : 0;
		hi = 1;
	}
	lo = clampd(lo, -AXIS_MAX, AXIS_MAX);
	hi = clampd(hi, -AXIS_MAX, AXIS_MAX);
	if (log) {
		if (lo <= 0)
			lo = hi > 0 ? hi / 10 : 1;
		lo = fmax(lo, AXIS_MIN);
		if (hi <= lo)
			hi = lo * 10;
		/* a fifth beyond the data each way, and a factor of 4 at
		 * least, so that the 1-2-5 ticks have two to show */
		lo /= 1.2;
		hi *= 1.2;
		if (hi < lo * 4) {
			double mid = sqrt(lo) * sqrt(hi); /* lo * hi may
							       underflow */

			lo = mid / 2;
			hi = mid * 2;
		}
	} else {
		/* a span of at least a billionth of the values' size (and of
		 * AXIS_MIN): tick steps then move every value they add to */
		double least = fmax(fmax(fabs(lo), fabs(hi)) * 1e-9, AXIS_MIN);
		double pad = (hi - lo) * 0.05;

		if (pad < least)
			pad = lo ? fmax(fabs(lo) * 0.1, least) : 1;
		/* a range of positive values starts at zero when it is
		 * close to it, as a cost does */
		lo = lo >= 0 && lo - pad < (hi - lo) ? 0 : lo - pad;
		hi += pad;
	}
	a->lo = lo;
	a->hi = hi;
	a->log = log;
	a->p0 = p0;
	a->p1 = p1;
}

double axis_map(const struct axis *a, double v)
{
	double f;

	if (a->log)
		f = v > 0 ? (log10(v) - log10(a->lo)) /
			    (log10(a->hi) - log10(a->lo)) : -0.05;
	else
		f = (v - a->lo) / (a->hi - a->lo);
	if (!isfinite(f))
		f = 0;
	if (f < -0.05)
		f = -0.05;
	if (f > 1.05)
		f = 1.05;
	return a->p0 + f * (a->p1 - a->p0);
}

/* The chart's height: its own, else CHART_H. */
static int chart_height(const struct chart *c)
{
	return c->h ? c->h : CHART_H;
}

void chart_open(struct chart *c, FILE *fp, const char *cls,
		const char *label)
{
	c->fp = fp;
	/* as wide as its column (the page's CSS), the viewBox scaled */
	fprintf(fp, "<figure class=\"chart %s\"><svg viewBox=\"0 0 %d %d\" "
		"width=\"100%%\" role=\"img\" aria-label=\"", cls, CHART_W,
		chart_height(c));
	fputs_xml(label, fp);
	fputs("\"><title>", fp);
	fputs_xml(label, fp);
	fputs("</title>\n", fp);
}

/* The ticks of a linear axis: 1, 2 or 5 times a power of ten, at most
 * about 5 of them. */
static double tick_step(const struct axis *a)
{
	double raw = (a->hi - a->lo) / 5, p = pow(10, floor(log10(raw)));
	double f = raw / p;

	return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void tick(struct chart *c, bool xaxis, double v, const char *text)
{
	FILE *fp = c->fp;
	double p = axis_map(xaxis ? &c->x : &c->y, v);

	if (xaxis) {
		fputs("<path class=\"grid\" d=\"M", fp);
		svg_num(fp, p);
		fprintf(fp, " %dV%d\"/><text class=\"tick\" x=\"", CHART_T,
			chart_height(c) - CHART_B);
		svg_num(fp, p);
		/* low enough that the label of the y axis's lowest tick,
		 * beside the axis's origin, is clear of it */
		fprintf(fp, "\" y=\"%d\" text-anchor=\"middle\">",
			chart_height(c) - CHART_B + 18);
	} else {
		fprintf(fp, "<path class=\"grid\" d=\"M%d ", CHART_L);
		svg_num(fp, p);
		fprintf(fp, "H%d\"/><text class=\"tick\" x=\"%d\" y=\"",
			CHART_W - CHART_R, CHART_L - 4);
		svg_num(fp, p + 4);
		fputs("\" text-anchor=\"end\">", fp);
	}
	fputs_xml(text, fp);
	fputs("</text>\n", fp);
}

void chart_xtick(struct chart *c, double v, const char *text)
{
	tick(c, true, v, text);
}

/* A log axis: 1, 2, 5 x 10^k over at most 2 decades, else every
 * decade, or every few so that at most about 10 show. */
static void log_ticks(struct chart *c, bool xaxis, const struct axis *a,
		      const char *unit)
{
	static const double mult[] = { 1, 2, 5 };
	double decades = log10(a->hi) - log10(a->lo);	/* the ratio may
							   overflow */
	int every = decades > 10 ? (int)ceil(decades / 10) : 1;
	int k0 = (int)floor(log10(a->lo)), k1 = (int)ceil(log10(a->hi));
	int n = 0;
	char buf[48];

	if (!isfinite(decades) || k1 < k0)
		return;
	for (int k = k0; k <= k1 && n < CHART_MAX_TICKS; k += every) {
		double d = pow(10, k);

		for (int j = 0; j < (decades <= 2 ? 3 : 1); j++) {
			double v = d * mult[j];

			if (v >= a->lo && v <= a->hi * 1.0001 &&
			    n++ < CHART_MAX_TICKS)
				tick(c, xaxis, v,
				     fmt_value(v, unit, buf, sizeof(buf)));
		}
	}
}

/* The unit of a linear axis's tick labels: seconds and bytes in the
 * unit that suits the axis's largest value (ms, MiB), so that the ticks
 * are plain numbers at round values of it (0.5 MiB, 1 MiB: a binary
 * step for bytes) and the axis title says the unit; any other unit as it
 * is, NULL none. */
struct tick_scale {
	double div;
	const char *unit;
};

static struct tick_scale axis_scale(const struct axis *a, const char *unit)
{
	static const char *tu[] = { "s", "ms", "µs", "ns" };
	static const char *bu[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double m = fmax(fabs(a->lo), fabs(a->hi));
	struct tick_scale t = { 1, unit };
	int i = 0;

	if (unit && !strcmp(unit, "s") && !a->log) {
		for (; i < 3 && m / t.div < 1; i++)
			t.div /= 1000;
		t.unit = tu[i];
	} else if (unit && !strcmp(unit, "bytes") && !a->log) {
		for (; i < 4 && m / t.div >= 1024; i++)
			t.div *= 1024;
		t.unit = bu[i];
	}
	return t;
}

/* A linear axis's tick label: v, in the scale's unit, a plain number
 * with the decimals its step needs (999.5, 1000, 1000.5: never three
 * "1.000 k"); a million and beyond (or any value of an unscaled
 * unit that is not a count) as fmt_value writes it. */
static const char *scaled_label(double v, double step, const char *unit,
				char *buf, size_t n)
{
	int dec = step > 0 ? (int)ceil(-log10(step) - 1e-9) : 0;

	if (fabs(v) >= 1e6 || (unit && strcmp(unit, "count")))
		return fmt_value(v, unit, buf, n);
	snprintf(buf, n, "%.*f", dec > 0 ? (dec < 12 ? dec : 12) : 0, v);
	return buf;
}

static void ticks(struct chart *c, bool xaxis)
{
	const struct axis *a = xaxis ? &c->x : &c->y;
	const char *unit = xaxis ? c->xunit : c->yunit;
	struct tick_scale ts = axis_scale(a, unit);
	bool scaled = unit && (!strcmp(unit, "s") || !strcmp(unit, "bytes"));
	char buf[48];

	/* a log axis's ticks carry their own units (seconds and bytes
	 * scaled per tick); any other unit ("requests/s") is the axis
	 * title's (chart_axes) */
	if (!unit || (strcmp(unit, "s") && strcmp(unit, "bytes")))
		unit = "count";

	if (a->log) {
		log_ticks(c, xaxis, a, unit);
		return;
	}
	/* the steps are taken in the scale's unit: 1-2-5 of ms or of MiB */
	struct axis sa = *a;

	sa.lo /= ts.div;
	sa.hi /= ts.div;
	double step = tick_step(&sa);
	int n = 0;

	/* axis_init keeps step a normal double and at least a billionth of
	 * the values: v always moves; the count is a second guard */
	for (double v = ceil(sa.lo / step) * step;
	     v <= sa.hi + step / 1e6 && n < CHART_MAX_TICKS; v += step, n++) {
		double r = fabs(v) < step / 1e6 ? 0 : v;

		tick(c, xaxis, r * ts.div,
		     scaled_label(r, step, scaled ? "count" : unit, buf,
				  sizeof(buf)));
	}
}

/* The axis title with its unit in parentheses at the end: the title as
 * given when it has one, else the tick labels' unit. malloc'd. */
static char *titled(const char *title, const struct axis *a,
		    const char *unit)
{
	size_t n = strlen(title);
	struct tick_scale ts = axis_scale(a, unit);

	if ((n && title[n - 1] == ')') || !ts.unit)
		return xstrdup(title);
	return xasprintf("%s (%s)", title, ts.unit);
}

void chart_axes(struct chart *c, bool xticks, const char *xtitle,
		const char *ytitle)
{
	FILE *fp = c->fp;

	if (xticks)
		ticks(c, true);
	if (!c->no_yticks)
		ticks(c, false);
	fprintf(fp, "<path class=\"axis\" d=\"M%d %dV%dH%d\"/>\n", CHART_L,
		CHART_T, chart_height(c) - CHART_B, CHART_W - CHART_R);
	if (xtitle) {
		fprintf(fp, "<text class=\"atitle\" x=\"%d\" y=\"%d\" "
			"text-anchor=\"middle\">", (CHART_L + CHART_W) / 2,
			chart_height(c) - 6);
		char *t = titled(xtitle, &c->x, c->xunit);

		fputs_xml(t, fp);
		free(t);
		fputs("</text>\n", fp);
	}
	if (ytitle) {
		fprintf(fp, "<text class=\"atitle\" transform=\"translate(12 "
			"%d) rotate(-90)\" text-anchor=\"middle\">",
			(CHART_T + chart_height(c) - CHART_B) / 2);
		char *t = titled(ytitle, &c->y, c->yunit);

		fputs_xml(t, fp);
		free(t);
		fputs("</text>\n", fp);
	}
}

char *chart_unit_title(const char *name, const char *unit)
{
	const char *label = metrics_lookup(name, unit)->label;

	/* seconds and bytes: chart_axes adds the scaled unit of the ticks */
	if (!label)
		label = name;
	if (!unit || !strcmp(unit, "s") || !strcmp(unit, "bytes"))
		return xstrdup(label);
	return xasprintf("%s (%s)", label, unit);
}

void chart_close(struct chart *c, const char *caption)
{
	fputs("</svg>", c->fp);
	if (caption) {
		fputs("<figcaption>", c->fp);
		fputs_xml(caption, c->fp);
		fputs("</figcaption>", c->fp);
	}
	fputs("</figure>\n", c->fp);
}
