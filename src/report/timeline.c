/*
 * --trace: a trace's timeline, drawn as one SVG, and its zone table.
 * One row per thread (its process and thread name): the on-CPU slices in
 * a thin lane, the zones below nested by depth with their names; then
 * the async spans (lanes given greedily), each counter as a step chart,
 * the marks as ticks on their thread's row; a time axis in ms from the
 * trace's first event. Every drawn item has a <title> (the tooltip) with
 * its name and duration. At most TL_MAX_DRAWN events are drawn, in time
 * order, with a note of how many were left out; CPU samples and page
 * faults are not drawn (they are a profile's, not a timeline's).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/timeline.h"
#include "report/views.h"
#include "stats/stats.h"
#include "util/strutil.h"
#include "util/term.h"

#define TL_MAX_DRAWN 20000
#define TL_W 1060		/* the svg's width */
#define TL_L 170		/* the row labels */
#define TL_R 12
#define TL_AXIS 26		/* the time axis on top */
#define TL_CPU 7		/* the on-CPU lane */
#define TL_ZONE 16		/* a zone lane */
#define TL_MAXDEPTH 12		/* deeper zones drawn at this depth */
#define TL_ASYNC_LANES 8
#define TL_COUNTER 34
#define TL_GAP 8
#define TL_MAX_THREADS 256	/* rows of threads drawn */

struct tl {
	FILE *fp;
	const struct trace *t;
	double t0, span;	/* ns */
	bool *drawn;		/* per event: within the cap */
	size_t ndrawn, left_out;
};

static double tl_x(const struct tl *v, uint64_t ns)
{
	double f = ((double)ns - v->t0) / v->span;

	return TL_L + f * (TL_W - TL_L - TL_R);
}

static void put_ms(FILE *fp, double ns)
{
	html_value(fp, ns / 1e9, "s");
}

/* <title>NAME (TEXT) DURATION EXTRA</title> */
static void title(FILE *fp, const struct trace_event *e, const char *extra)
{
	fputs("<title>", fp);
	fputs_xml(e->name ? e->name : "", fp);
	if (e->text && e->kind != TRACE_SAMPLE) {
		fputs(" (", fp);
		fputs_xml(e->text, fp);
		fputc(')', fp);
	}
	if (e->end > e->start || e->kind != TRACE_INSTANT) {
		fputs(": ", fp);
		put_ms(fp, (double)(e->end - e->start));
	}
	if (extra)
		fputs(extra, fp);
	if (e->flags & TRACE_ZONE_UNFINISHED && e->kind != TRACE_ONCPU)
		fputs(" (unfinished)", fp);
	fputs("</title>", fp);
}

/* A rectangle from start to end at y, h high, never thinner than a
 * third of a pixel, with its tooltip and (when wide enough) its name. */
static void bar(const struct tl *v, const struct trace_event *e,
		const char *cls, double y, double h, bool label,
		const char *extra)
{
	FILE *fp = v->fp;
	double x0 = tl_x(v, e->start), x1 = tl_x(v, e->end);
	double w = x1 - x0 < 0.3 ? 0.3 : x1 - x0;

	fprintf(fp, "<g class=\"%s\" data-name=\"", cls);
	fputs_xml(e->name ? e->name : "", fp);
	fputs("\">", fp);
	title(fp, e, extra);
	fputs("<rect", fp);
	fputs(" x=\"", fp);
	svg_num(fp, x0);
	fputs("\" y=\"", fp);
	svg_num(fp, y);
	fputs("\" width=\"", fp);
	svg_num(fp, w);
	fprintf(fp, "\" height=\"%g\"/>", h);
	if (label && w >= 28) {
		/* a nested svg clips the name to its zone */
		fputs("<svg x=\"", fp);
		svg_num(fp, x0);
		fputs("\" y=\"", fp);
		svg_num(fp, y);
		fputs("\" width=\"", fp);
		svg_num(fp, w);
		fprintf(fp, "\" height=\"%g\"><text x=\"3\" y=\"%g\">", h,
			h - 4);
		fputs_xml(e->name ? e->name : "", fp);
		fputs("</text></svg>", fp);
	}
	fputs("</g>\n", fp);
}

static void row_label(FILE *fp, double y, const char *a, const char *b)
{
	fprintf(fp, "<text class=\"tl-row\" x=\"4\" y=\"%g\">", y);
	fputs_xml(a, fp);
	if (b) {
		fputs("<tspan class=\"tick\"> ", fp);
		fputs_xml(b, fp);
		fputs("</tspan>", fp);
	}
	fputs("</text>\n", fp);
}

static int tl_depth(const struct trace_event *e)
{
	return e->depth > TL_MAXDEPTH ? TL_MAXDEPTH : e->depth;
}

/* One thread's row from y; returns its height. */
static double thread_row(struct tl *v, const struct trace_thread *th,
			 double y)
{
	const struct trace *t = v->t;
	const struct trace_thread *main = NULL;
	char id[48];
	int depth = -1;

	for (size_t i = 0; i < t->n; i++)
		if (v->drawn[i] && t->ev[i].kind == TRACE_ZONE &&
		    t->ev[i].pid == th->pid && t->ev[i].tid == th->tid &&
		    tl_depth(&t->ev[i]) > depth)
			depth = tl_depth(&t->ev[i]);
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == th->pid && t->threads[i].pid == th->pid)
			main = &t->threads[i];
	fprintf(v->fp, "<g class=\"tl-thread\" data-tid=\"%u\">\n", th->tid);
	snprintf(id, sizeof(id), "%u/%u", th->pid, th->tid);
	row_label(v->fp, y + 11, th->name ? th->name : "thread", id);
	if (main && main != th && (main->process_name || main->name)) {
		fprintf(v->fp, "<text class=\"tick\" x=\"4\" y=\"%g\">"
			"process ", y + 24);
		fputs_xml(main->process_name ? main->process_name : main->name,
			  v->fp);
		fputs("</text>\n", v->fp);
	}
	fputs("<line class=\"grid\" x1=\"0\"", v->fp);
	fprintf(v->fp, " x2=\"%d\" y1=\"%g\" y2=\"%g\"/>\n", TL_W, y - 2,
		y - 2);
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];

		if (!v->drawn[i] || e->pid != th->pid || e->tid != th->tid)
			continue;
		if (e->kind == TRACE_ONCPU)
			bar(v, e, "tl-cpu", y, TL_CPU, false,
			    e->flags & TRACE_LEFT_PREEMPTED ? ", then preempted"
			    : e->flags & TRACE_LEFT_BLOCKED ? ", then blocked"
			    : NULL);
		else if (e->kind == TRACE_ZONE)
			bar(v, e, "tl-zone", y + TL_CPU + 2 +
			    tl_depth(e) * (TL_ZONE + 1), TL_ZONE, true, NULL);
		else if (e->kind == TRACE_INSTANT) {
			double x = tl_x(v, e->start);

			fputs("<g class=\"tl-mark\" data-name=\"", v->fp);
			fputs_xml(e->name ? e->name : "", v->fp);
			fputs("\">", v->fp);
			title(v->fp, e, NULL);
			fputs("<path d=\"M", v->fp);
			svg_num(v->fp, x);
			fprintf(v->fp, " %gl-4 -6h8z\"/></g>\n", y + TL_CPU);
		}
	}
	fputs("</g>\n", v->fp);
	return TL_CPU + 2 + (depth + 1) * (TL_ZONE + 1) + TL_GAP + 6;
}

/* The async spans: lanes given greedily, one row. */
static double async_rows(struct tl *v, double y)
{
	const struct trace *t = v->t;
	uint64_t lane_end[TL_ASYNC_LANES] = { 0 };
	int used = 0;
	char extra[80];

	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		int l = 0;

		if (!v->drawn[i] || e->kind != TRACE_ASYNC)
			continue;
		while (l < TL_ASYNC_LANES - 1 && lane_end[l] > e->start)
			l++;
		if (lane_end[l] < e->end)
			lane_end[l] = e->end;
		if (l + 1 > used) {
			if (!used)
				row_label(v->fp, y + 11, "async spans", NULL);
			used = l + 1;
		}
		snprintf(extra, sizeof(extra), ", thread %u to %u", e->tid,
			 e->end_tid);
		bar(v, e, "tl-async", y + l * (TL_ZONE + 1), TL_ZONE, true,
		    extra);
	}
	return used ? used * (TL_ZONE + 1) + TL_GAP + 6 : 0;
}

/* One counter's step chart from y (its drawn events). */
static double counter_row(struct tl *v, const char *name, double y)
{
	const struct trace *t = v->t;
	double lo = INFINITY, hi = -INFINITY;
	FILE *fp = v->fp;
	char buf[48], range[120];
	bool first = true;

	for (size_t i = 0; i < t->n; i++)
		if (v->drawn[i] && t->ev[i].kind == TRACE_COUNTER &&
		    t->ev[i].name == name) {
			lo = fmin(lo, t->ev[i].value);
			hi = fmax(hi, t->ev[i].value);
		}
	if (lo > hi)
		return 0;
	row_label(fp, y + 11, name, NULL);
	snprintf(range, sizeof(range), "%s", fmt_value(lo, "count", buf,
						       sizeof(buf)));
	snprintf(range + strlen(range), sizeof(range) - strlen(range),
		 " .. %s", fmt_value(hi, "count", buf, sizeof(buf)));
	fprintf(fp, "<text class=\"tick\" x=\"4\" y=\"%g\">", y + 24);
	fputs_xml(range, fp);
	fputs("</text>\n<g class=\"tl-counter\" data-name=\"", fp);
	fputs_xml(name, fp);
	fputs("\"><title>", fp);
	fputs_xml(name, fp);
	fputs(": ", fp);
	fputs_xml(range, fp);
	fputs("</title><path d=\"", fp);
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		double x, yy;

		if (!v->drawn[i] || e->kind != TRACE_COUNTER || e->name != name)
			continue;
		x = tl_x(v, e->start);
		yy = y + TL_COUNTER - 4 - (hi > lo ? (e->value - lo) /
					   (hi - lo) : 0.5) * (TL_COUNTER - 8);
		if (first) {
			fputs("M", fp);
			svg_num(fp, x);
			fputc(' ', fp);
			svg_num(fp, yy);
			first = false;
		} else {
			fputs("H", fp);
			svg_num(fp, x);
			fputs("V", fp);
			svg_num(fp, yy);
		}
	}
	fputs("H", fp);
	svg_num(fp, TL_W - TL_R);
	fputs("\"/></g>\n", fp);
	return TL_COUNTER + TL_GAP;
}

/* The time axis: ticks at 1, 2 or 5 x 10^k ms from the first event. */
static void time_axis(struct tl *v, double height)
{
	double ms = v->span / 1e6, step = pow(10, floor(log10(ms / 8)));
	FILE *fp = v->fp;

	if (ms / step > 40)
		step *= 5;
	else if (ms / step > 16)
		step *= 2;
	for (double s = 0; s <= ms * 1.0001 && step > 0; s += step) {
		double x = tl_x(v, (uint64_t)(v->t0 + s * 1e6));

		fputs("<line class=\"grid\" x1=\"", fp);
		svg_num(fp, x);
		fputs("\" x2=\"", fp);
		svg_num(fp, x);
		fprintf(fp, "\" y1=\"%d\" y2=\"%g\"/><text class=\"tick\" "
			"text-anchor=\"middle\" x=\"", TL_AXIS - 6, height);
		svg_num(fp, x);
		fprintf(fp, "\" y=\"%d\">%g ms</text>\n", TL_AXIS - 10, s);
	}
}

/* The counters' names, each once, in order of first appearance. */
static size_t counter_names(const struct tl *v, const char ***out)
{
	const struct trace *t = v->t;
	const char **names = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < t->n; i++) {
		size_t k;

		if (!v->drawn[i] || t->ev[i].kind != TRACE_COUNTER)
			continue;
		for (k = 0; k < n && names[k] != t->ev[i].name; k++)
			;
		if (k == n && n < 64) {
			names = xgrow(names, &cap, n + 1, sizeof(*names));
			names[n++] = t->ev[i].name;
		}
	}
	*out = names;
	return n;
}

static bool drawable(const struct trace_event *e)
{
	return e->kind != TRACE_SAMPLE && e->kind != TRACE_FAULT;
}

/* The rows, into a memory buffer first: the svg's height is known at
 * the end. */
static void timeline_svg(struct tl *v)
{
	const struct trace *t = v->t;
	FILE *real = v->fp;
	const char **names;
	char *body = NULL;
	size_t len = 0, nnames;
	double y = TL_AXIS;

	v->fp = open_memstream(&body, &len);
	if (!v->fp)
		abort();
	for (size_t i = 0; i < t->nthreads && i < TL_MAX_THREADS; i++)
		y += thread_row(v, &t->threads[i], y);
	y += async_rows(v, y);
	nnames = counter_names(v, &names);
	for (size_t k = 0; k < nnames; k++)
		y += counter_row(v, names[k], y);
	free(names);
	fclose(v->fp);
	v->fp = real;
	fprintf(real, "<figure class=\"timeline\"><svg class=\"tl\" "
		"role=\"img\" aria-label=\"timeline\" viewBox=\"0 0 %d %g\" "
		"width=\"%d\" height=\"%g\">\n", TL_W, y, TL_W, y);
	time_axis(v, y);
	fwrite(body, 1, len, real);
	free(body);
	fputs("</svg><figcaption>time from the first event; hover a zone "
	      "for its name and duration. On-CPU slices in the thin lane of "
	      "each thread, zones below it by depth, marks as "
	      "triangles.</figcaption></figure>\n", real);
}

static int by_name(const void *a, const void *b)
{
	const struct trace_event *const *x = a, *const *y = b;
	int c = strcmp((*x)->name, (*y)->name);

	return c ? c : (*x)->start < (*y)->start ? -1
		       : (*x)->start > (*y)->start;
}

/* Per zone name (all zones of the trace, drawn or not): count, total,
 * p50/p95/p99, max. */
static void zone_table(FILE *fp, const struct trace *t)
{
	const struct trace_event **z = xcalloc(t->n + 1, sizeof(*z));
	double *d = xcalloc(t->n + 1, sizeof(*d));
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].kind == TRACE_ZONE && t->ev[i].name)
			z[n++] = &t->ev[i];
	qsort(z, n, sizeof(*z), by_name);
	fputs("<table class=\"zones\"><thead><tr><th>zone</th><th>count</th>"
	      "<th>total</th><th>p50</th><th>p95</th><th>p99</th><th>max</th>"
	      "</tr></thead><tbody>\n", fp);
	for (size_t i = 0, j; i < n; i = j) {
		double total = 0;

		for (j = i; j < n && !strcmp(z[j]->name, z[i]->name); j++) {
			d[j - i] = (double)(z[j]->end - z[j]->start) / 1e9;
			total += d[j - i];
		}
		stats_sort(d, j - i);
		fputs("<tr data-zone=\"", fp);
		fputs_xml(z[i]->name, fp);
		fputs("\"><td>", fp);
		fputs_xml(z[i]->name, fp);
		fprintf(fp, "</td><td class=\"count\">%zu</td>", j - i);
		fputs("<td>", fp);
		html_value(fp, total, "s");
		fputs("</td><td class=\"p50\">", fp);
		html_value(fp, stats_percentile_sorted(d, j - i, 50), "s");
		fputs("</td><td class=\"p95\">", fp);
		html_value(fp, stats_percentile_sorted(d, j - i, 95), "s");
		fputs("</td><td class=\"p99\">", fp);
		html_value(fp, stats_percentile_sorted(d, j - i, 99), "s");
		fputs("</td><td>", fp);
		html_value(fp, d[j - i - 1], "s");
		fputs("</td></tr>\n", fp);
	}
	if (!n)
		fputs("<tr><td>no zones</td><td></td><td></td><td></td><td>"
		      "</td><td></td><td></td></tr>\n", fp);
	fputs("</tbody></table>\n", fp);
	free(z);
	free(d);
}

void view_timeline(FILE *fp, const struct trace *t, uint64_t lost,
		   const char *label)
{
	struct tl v = { .fp = fp, .t = t };
	size_t ndrawable = 0;

	v.drawn = xcalloc(t->n + 1, sizeof(*v.drawn));
	for (size_t i = 0; i < t->n; i++) {
		if (!drawable(&t->ev[i]))
			continue;
		ndrawable++;
		if (v.ndrawn < TL_MAX_DRAWN) {
			v.drawn[i] = true;
			v.ndrawn++;
		}
	}
	v.left_out = ndrawable - v.ndrawn;
	v.t0 = (double)t->first;
	v.span = t->last > t->first ? (double)(t->last - t->first) : 1;
	fputs("<section id=\"trace\"><style>.tl-cpu rect{fill:var(--faster)}"
	      ".tl-zone rect{fill:var(--band);stroke:var(--acc);"
	      "stroke-width:.5}.tl-async rect{fill:var(--warn);opacity:.45}"
	      ".tl-counter path{stroke:var(--acc);fill:none;stroke-width:1.2}"
	      ".tl-mark{fill:var(--out)}.tl-row{font-weight:600}"
	      "figure.timeline{overflow-x:auto;margin:8px 0}</style>\n<h2>"
	      "timeline: ", fp);
	fputs_xml(label, fp);
	fprintf(fp, "</h2>\n<p class=\"meta\">%zu thread%s, %zu event%s over ",
		t->nthreads, plural_s(t->nthreads), t->n, plural_s(t->n));
	put_ms(fp, v.span);
	fputs("</p>\n", fp);
	if (v.left_out)
		fprintf(fp, "<p class=\"warn tl-cap\" data-left-out=\"%zu\">"
			"%zu events after the first %d are not drawn (the "
			"page stays small); the zone table counts every zone"
			"</p>\n", v.left_out, v.left_out, TL_MAX_DRAWN);
	if (t->nthreads > TL_MAX_THREADS)
		fprintf(fp, "<p class=\"warn\">the rows of %zu threads past "
			"the first %d are not drawn</p>\n",
			t->nthreads - TL_MAX_THREADS, TL_MAX_THREADS);
	if (t->dropped || lost)
		fprintf(fp, "<p class=\"warn\">%llu events were lost or cut "
			"when tracing or reading: the timeline is "
			"incomplete</p>\n",
			(unsigned long long)(t->dropped + lost));
	if (t->n)
		timeline_svg(&v);
	else
		fputs("<p>no events</p>\n", fp);
	zone_table(fp, t);
	fputs("</section>\n", fp);
	free(v.drawn);
}
