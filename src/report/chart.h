/*
 * The report's charts: an SVG plot area with linear or logarithmic axes,
 * their ticks and labels, drawn with classes that the page's CSS colours
 * (so that dark mode and print apply to the charts too). Coordinates are
 * written rounded to whole or tenth pixels: a chart of 1000 runs stays a
 * few kilobytes.
 */
#ifndef YS_REPORT_CHART_H
#define YS_REPORT_CHART_H

#include <stdbool.h>
#include <stdio.h>

#define CHART_W 640
#define CHART_H 210
#define CHART_L 78		/* left margin: the y tick labels */
#define CHART_R 18
#define CHART_T 14
#define CHART_B 40		/* bottom margin: x ticks and label */
/* At most this many ticks on an axis, whatever the values (subnormal,
 * 1e308, equal, none): axis_init keeps the range to [1e-300, 1e300] in
 * size, so that every tick loop advances */
#define CHART_MAX_TICKS 24

struct axis {
	double lo, hi;		/* data range */
	double p0, p1;		/* pixels of lo and hi */
	bool log;
};

struct chart {
	FILE *fp;
	struct axis x, y;
	const char *xunit, *yunit;	/* for tick labels (fmt_value) */
	int h;			/* height in pixels; 0: CHART_H */
	bool no_yticks;		/* rows, not values, up the chart */
};

/*
 * Set the axis to [lo, hi] widened a little (on a log axis by a fifth
 * each way, to a factor of 4 at least; a lo <= 0 becomes hi / 10), drawn
 * from pixel p0 to p1.
 */
void axis_init(struct axis *a, double lo, double hi, bool log, double p0,
	       double p1);
double axis_map(const struct axis *a, double v);

/* Open <figure><svg> with a class, its accessible name (escaped) and
 * the plot area's axes set up by the caller before. */
void chart_open(struct chart *c, FILE *fp, const char *cls,
		const char *label);
/* Ticks and grid: x ticks when xticks, y ticks always; the axis titles
 * (escaped, either may be NULL). */
void chart_axes(struct chart *c, bool xticks, const char *xtitle,
		const char *ytitle);
/* One x tick at data value v labelled text (escaped). */
void chart_xtick(struct chart *c, double v, const char *text);
/* An axis title: the metric's name, with its unit when the tick labels
 * do not carry it (units other than s, bytes and count). malloc'd. */
char *chart_unit_title(const char *name, const char *unit);
/* Close the svg; caption (escaped) under it; close the figure. */
void chart_close(struct chart *c, const char *caption);

/* A coordinate, rounded to a tenth of a pixel, without trailing zeros. */
void svg_num(FILE *fp, double v);

#endif
