/*
 * The heap timeline: a fixed-size SVG chart with "nice" ticks (1, 2 or
 * 5 x 10^k of a unit chosen from the axis' maximum) on both axes.
 *
 * What to know before changing it: every coordinate goes through xpx/ypx,
 * which clamp into the plot, and the axes' maxima are never 0 (degenerate
 * input gets a default range), so no NaN or inf can reach the file. The
 * layout constants are relied on by tests/unit/test_timeline.c. Output is
 * a pure function of the input.
 */
#include "heap/timeline.h"
#include "profile/flametree.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

#define WIDTH 1000
#define HEIGHT 400
#define ML 80			/* margins: left (y labels), right, top */
#define MR 30
#define MT 50
#define MB 60			/* bottom: x labels and the legend */
#define PW (WIDTH - ML - MR)	/* the plot's size */
#define PH (HEIGHT - MT - MB)
#define LEGEND_Y (HEIGHT - 14)	/* its text's baseline */

/* One axis: 0 to max (in seconds or bytes), ticks every step units. */
struct axis {
	double max, unit;	/* seconds or bytes; unit: of the labels */
	const char *name;	/* of the unit */
	double step;		/* in units */
	int decimals;		/* of the labels */
};

struct chart {
	const struct heap_report *r;
	struct axis x, y;
	bool has_rss;
};

/* NaN goes to lo. */
static double clamp(double v, double lo, double hi)
{
	return v > lo ? (v < hi ? v : hi) : lo;
}

static double xpx(const struct chart *c, double t)
{
	return ML + clamp(t, 0, c->x.max) / c->x.max * PW;
}

static double ypx(const struct chart *c, double v)
{
	return MT + PH - clamp(v, 0, c->y.max) / c->y.max * PH;
}

/*
 * The smallest step of 1, 2 or 5 x 10^k giving fewer than 10 intervals;
 * as consecutive steps differ by at most 2.5 times, that is at least 4
 * intervals: 5 to 10 ticks from 0 to the maximum. Values within 1e-9 of
 * a round one count as it (1e-6 / 1e-6 s may not be exactly 1).
 */
static void axis_step(struct axis *a)
{
	static const int m[] = { 1, 2, 5, 10 };
	double range = a->max / a->unit;
	int k = (int)floor(log10(range) + 1e-9) - 1, i = 0;
	double base = pow(10, k);

	while (i < 3 && range / (m[i] * base) > 10 * (1 - 1e-9))
		i++;
	a->step = m[i] * base;
	k += m[i] == 10;
	a->decimals = k < 0 ? -k : 0;
}

static void time_axis(struct axis *a, double max)
{
	a->max = isfinite(max) && max > 1e-9 ? max : 1;	/* else a second */
	a->unit = a->max >= 1 ? 1 : a->max >= 1e-3 ? 1e-3 : 1e-6;
	a->name = a->max >= 1 ? "s" : a->max >= 1e-3 ? "ms" : "\xc2\xb5s";
	axis_step(a);
}

static void byte_axis(struct axis *a, double max)
{
	static const char *names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i;

	/* Nothing allocated (or a fraction of a byte, estimated): 1 KiB. */
	a->max = isfinite(max) && max >= 1 ? max : 1024;
	i = (int)fmin(4, floor(log2(a->max) / 10));
	a->unit = ldexp(1, 10 * i);
	a->name = names[i];
	axis_step(a);
}

/* The axes' ranges; NaN (no RSS sample) is ignored by fmax. */
static void chart_init(struct chart *c, const struct heap_report *r)
{
	const struct heap_point *p = r->timeline;
	double ymax = fmax(0, r->peak);

	*c = (struct chart){ .r = r };
	for (size_t i = 0; i < r->ntimeline; i++) {
		ymax = fmax(ymax, fmax(p[i].heap, p[i].rss));
		c->has_rss |= isfinite(p[i].rss);
	}
	time_axis(&c->x, r->ntimeline ? p[r->ntimeline - 1].t : 0);
	byte_axis(&c->y, ymax);
}

/* The lines and labels ("0", "0.5 MiB", "250 ms") of the y or x axis. */
static void draw_ticks(FILE *fp, const struct chart *c, bool is_y)
{
	const struct axis *a = is_y ? &c->y : &c->x;
	int n = (int)floor(a->max / a->unit / a->step * (1 + 1e-9));

	assert(n >= 1 && n <= 10);
	for (int i = 0; i <= n; i++) {
		double v = i * a->step * a->unit;

		if (is_y)
			fprintf(fp, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
				"y2=\"%.1f\"/>\n<text class=\"yt\" x=\"%d\" "
				"y=\"%.1f\">", ML, ypx(c, v), ML + PW,
				ypx(c, v), ML - 6, ypx(c, v) + 4);
		else
			fprintf(fp, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
				"y2=\"%d\"/>\n<text class=\"xt\" x=\"%.1f\" "
				"y=\"%d\">", xpx(c, v), MT + PH, xpx(c, v),
				MT + PH + 5, xpx(c, v), MT + PH + 18);
		fprintf(fp, "%.*f%s%s</text>\n", i ? a->decimals : 0,
			i * a->step, i ? " " : "", i ? a->name : "");
	}
}

static void put_point(FILE *fp, const struct chart *c, double t, double v)
{
	fprintf(fp, " %.1f,%.1f", xpx(c, t), ypx(c, v));
}

/* The heap as an area down to the x axis. */
static void draw_heap(FILE *fp, const struct chart *c)
{
	const struct heap_point *p = c->r->timeline;
	size_t n = c->r->ntimeline;

	if (!n)
		return;
	fprintf(fp, "<polygon class=\"heap\" points=\"");
	put_point(fp, c, p[0].t, 0);
	for (size_t i = 0; i < n; i++)
		put_point(fp, c, p[i].t, p[i].heap);
	put_point(fp, c, p[n - 1].t, 0);
	fprintf(fp, "\"/>\n");
}

/* RSS as one polyline per run of samples; a lone sample is a dot (its
 * point twice, drawn by the round line cap). */
static void draw_rss(FILE *fp, const struct chart *c)
{
	const struct heap_point *p = c->r->timeline;
	size_t n = c->r->ntimeline, j;

	for (size_t i = 0; i < n; i = j + 1) {
		for (j = i; j < n && isfinite(p[j].rss); j++)
			;
		if (j == i)
			continue;
		fprintf(fp, "<polyline class=\"rss\" points=\"");
		for (size_t k = i; k < j; k++)
			put_point(fp, c, p[k].t, p[k].rss);
		if (j == i + 1)
			put_point(fp, c, p[i].t, p[i].rss);
		fprintf(fp, "\"/>\n");
	}
}

/* "peak 3.000 MiB at 500.0 ms", beside the marker, inward. */
static void draw_peak(FILE *fp, const struct chart *c)
{
	const struct heap_report *r = c->r;
	double px = xpx(c, r->peak_t), py = ypx(c, r->peak);
	bool left = px > ML + PW / 2;
	char size[32], when[32];

	if (!r->ntimeline || !isfinite(r->peak) || r->peak <= 0)
		return;
	fmt_value(r->peak, "bytes", size, sizeof(size));
	fmt_value(clamp(r->peak_t, 0, 1e300), "s", when, sizeof(when));
	fprintf(fp, "<circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\"/>\n"
		"<text class=\"peak\" x=\"%.1f\" y=\"%.1f\"%s>peak %s at %s"
		"</text>\n", px, py, left ? px - 8 : px + 8,
		clamp(py + 4, MT + 12, MT + PH - 4),
		left ? " text-anchor=\"end\"" : "", size, when);
}

static void draw_legend(FILE *fp, const struct chart *c)
{
	fprintf(fp, "<rect class=\"heap\" x=\"%d\" y=\"%d\" width=\"14\" "
		"height=\"10\"/>\n<text x=\"%d\" y=\"%d\">heap (bytes live)%s"
		"</text>\n", ML, LEGEND_Y - 9, ML + 20, LEGEND_Y,
		c->r->estimated ? " (estimated)" : "");
	if (c->has_rss)
		fprintf(fp, "<line class=\"rss\" x1=\"%d\" y1=\"%d\" "
			"x2=\"%d\" y2=\"%d\"/>\n<text x=\"%d\" y=\"%d\">RSS"
			"</text>\n", ML + 260, LEGEND_Y - 4, ML + 274,
			LEGEND_Y - 4, ML + 280, LEGEND_Y);
}

static const char style[] =
	"<style>\n"
	"text{font-family:Verdana,sans-serif;font-size:12px;fill:#000}\n"
	"#title{font-size:17px;text-anchor:middle}\n"
	".grid line{stroke:#e4e4e4} .axis{fill:none;stroke:#000}\n"
	".yt{text-anchor:end;fill:#555} .xt{text-anchor:middle;fill:#555}\n"
	".heap{fill:#4e79a7;fill-opacity:.35;stroke:#4e79a7}\n"
	".rss{fill:none;stroke:#e15759;stroke-width:1.5;"
	"stroke-linecap:round;stroke-linejoin:round}\n"
	"circle.peak{fill:#f28e2b;stroke:#000}\n"
	"text.peak{paint-order:stroke;stroke:#fff;stroke-width:3}\n"
	"</style>\n";

static void write_svg(FILE *fp, const struct chart *c, const char *title)
{
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" "
		"standalone=\"no\"?>\n<svg version=\"1.1\" width=\"%d\" "
		"height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n%s"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"26\">", WIDTH, HEIGHT, WIDTH,
		HEIGHT, style, WIDTH / 2);
	ftree_put_text(fp, title ? title : "heap");
	fprintf(fp, "</text>\n<g class=\"grid\">\n");
	draw_ticks(fp, c, true);
	draw_ticks(fp, c, false);
	fprintf(fp, "</g>\n<path class=\"axis\" d=\"M%d %dV%dH%d\"/>\n",
		ML, MT, MT + PH, ML + PW);
	draw_heap(fp, c);
	draw_rss(fp, c);
	if (!c->r->ntimeline)
		fprintf(fp, "<text class=\"xt\" x=\"%d\" y=\"%d\">no samples"
			"</text>\n", ML + PW / 2, MT + PH / 2);
	draw_peak(fp, c);
	draw_legend(fp, c);
	fprintf(fp, "</svg>\n");
}

/* Written atomically; atomic_commit reports any failed write (ferror). */
int heap_write_timeline(const struct heap_report *r, const char *title,
			const char *path, struct error *e)
{
	struct atomic_file af;
	struct chart c;

	chart_init(&c, r);
	if (atomic_open(&af, path, e))
		return -1;
	write_svg(af.fp, &c, title);
	return atomic_commit(&af, e);
}
