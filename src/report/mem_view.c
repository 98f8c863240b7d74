/*
 * The report's view of a `mem` result: the heap and the resident set over
 * the program's run (the result's "timeline"), the peak marked.
 */
#include <math.h>
#include <stdio.h>

#include "report/chart.h"
#include "report/views.h"
#include "util/strutil.h"

#define PLOT_B (CHART_H - CHART_B)

/* The heap as an area under its line, from the first point to the last. */
static void heap_area(struct chart *c, const struct heap_timeline *tl)
{
	FILE *fp = c->fp;
	const char *sep = "M";

	fputs("<path class=\"bar heap-area\" d=\"", fp);
	for (size_t i = 0; i < tl->t.n; i++) {
		fputs(sep, fp);
		svg_num(fp, axis_map(&c->x, tl->t.v[i]));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, isfinite(tl->heap.v[i]) ?
					      tl->heap.v[i] : 0));
		sep = "L";
	}
	fputs("V", fp);
	svg_num(fp, axis_map(&c->y, 0));
	fputs("H", fp);
	svg_num(fp, axis_map(&c->x, tl->t.v[0]));
	fputs("Z\"/>\n", fp);
}

/* The RSS as a line, broken where no sample fell. */
static void rss_line(struct chart *c, const struct heap_timeline *tl)
{
	FILE *fp = c->fp;
	bool open = false;

	fputs("<path class=\"line2 rss\" d=\"", fp);
	for (size_t i = 0; i < tl->t.n; i++) {
		if (!isfinite(tl->rss.v[i])) {
			open = false;
			continue;
		}
		fputs(open ? "L" : "M", fp);
		svg_num(fp, axis_map(&c->x, tl->t.v[i]));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, tl->rss.v[i]));
		open = true;
	}
	fputs("\"/>\n", fp);
}

void plot_heap_timeline(FILE *fp, const struct benchmark *b)
{
	const struct heap_timeline *tl = &b->timeline;
	struct chart c = { .fp = fp, .xunit = "s", .yunit = "bytes" };
	double hi = 0, peak = -1, peak_t = 0;
	size_t nrss = 0;

	if (!tl->t.n)
		return;
	for (size_t i = 0; i < tl->t.n; i++) {
		if (isfinite(tl->heap.v[i]) && tl->heap.v[i] > peak) {
			peak = tl->heap.v[i];
			peak_t = tl->t.v[i];
		}
		hi = fmax(hi, isfinite(tl->heap.v[i]) ? tl->heap.v[i] : 0);
		if (isfinite(tl->rss.v[i])) {
			hi = fmax(hi, tl->rss.v[i]);
			nrss++;
		}
	}
	axis_init(&c.x, 0, fmax(tl->t.v[tl->t.n - 1], 1e-9), false, CHART_L,
		  CHART_W - CHART_R);
	axis_init(&c.y, 0, hi > 0 ? hi : 1, false, PLOT_B, CHART_T);
	chart_open(&c, fp, "timeline", "heap and RSS over the run");
	chart_axes(&c, true, "time", "memory");
	heap_area(&c, tl);
	if (nrss)
		rss_line(&c, tl);
	if (peak >= 0) {
		double x = axis_map(&c.x, peak_t), y = axis_map(&c.y, peak);

		fputs("<g class=\"peak\"", fp);
		html_num_attr(fp, "data-v", peak);
		html_num_attr(fp, "data-t", peak_t);
		fputs("><circle class=\"pt2\" r=\"4\" cx=\"", fp);
		svg_num(fp, x);
		fputs("\" cy=\"", fp);
		svg_num(fp, y);
		fputs("\"/><text class=\"peak-label\" y=\"", fp);
		svg_num(fp, y - 7 >= CHART_T + 10 ? y - 7 : y + 16);
		fputs("\" x=\"", fp);
		svg_num(fp, x);
		fprintf(fp, "\" text-anchor=\"%s\">peak ",
			x > CHART_W / 2 ? "end" : "start");
		html_value(fp, peak, "bytes");
		fputs(" at ", fp);
		html_value(fp, peak_t, "s");
		fputs("</text></g>\n", fp);
	}
	chart_close(&c, nrss ? "heap (area: the most bytes live in each of "
		    "the intervals) and RSS (orange line, where sampled); the "
		    "peak marked" : "heap (area: the most bytes live in each "
		    "of the intervals; no RSS sample); the peak marked");
}
