/*
 * A run of several commands on one axis: the comparison sentences on top
 * (the result's own comparisons, as `run` judged them: never computed
 * here), then one strip per command under a shared x axis, every run a
 * dot and the median a bar, so that which is faster, and by how much,
 * reads at a glance.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/views.h"
#include "result/metrics.h"
#include "util/strutil.h"

#define STRIP_H 34		/* a command's strip: its name, its dots */
#define STRIPS_MAX 12		/* more than this: each its own charts */

/* The metric the strips show: the first benchmark's headline (wall_time),
 * when every benchmark has it measured; else NULL. */
static const char *shared_metric(const struct result *r)
{
	const struct metric *h;

	if (r->nbenchmarks < 2 || r->nbenchmarks > STRIPS_MAX || r->nfits)
		return NULL;
	h = metrics_headline_of(&r->benchmarks[0]);
	if (!h)
		return NULL;
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct metric *m = benchmark_find_metric(&r->benchmarks[i],
							       h->name);

		if (!m || !metric_has_summary(m) || strcmp(m->unit, h->unit))
			return NULL;
	}
	return h->name;
}

static void verdicts(FILE *fp, const struct result *r, const char *metric)
{
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct comparison *c = &r->comparisons[i];
		char *s;

		if (strcmp(c->metric, metric))
			continue;
		s = comparison_sentence(c);
		fprintf(fp, "<p class=\"verdict %s\">",
			cmp_verdict_name(c->verdict));
		fputs_xml(s, fp);
		fputs("</p>\n", fp);
		free(s);
	}
}

/* The strip of m at row k: its name over it, a dot per run, the median
 * a bar. */
static void strip(struct chart *c, const struct benchmark *b,
		  const struct metric *m, size_t k)
{
	FILE *fp = c->fp;
	double y = CHART_T + (double)k * STRIP_H;
	double med = axis_map(&c->x, m->summary.median);
	char *name = benchmark_display_name(b);

	fputs("<g class=\"strip\" data-name=\"", fp);
	fputs_xml(b->name, fp);
	fputs("\"", fp);
	html_num_attr(fp, "data-median", m->summary.median);
	fprintf(fp, "><text class=\"sname\" x=\"%d\" y=\"", CHART_L + 4);
	svg_num(fp, y + 11);
	fputs("\">", fp);
	fputs_xml(name, fp);
	fputs("</text>\n<path class=\"dots\" d=\"", fp);
	free(name);
	for (size_t i = 0; i < m->n; i++) {
		if (!isfinite(m->values[i]))
			continue;
		fputc('M', fp);
		svg_num(fp, axis_map(&c->x, m->values[i]));
		fputc(' ', fp);
		svg_num(fp, y + 23);
		fputs("h0", fp);
	}
	fputs("\"/><path class=\"mbar\" d=\"M", fp);
	svg_num(fp, med);
	fputc(' ', fp);
	svg_num(fp, y + 15);
	fputs("v16\"/></g>\n", fp);
}

void view_shared(FILE *fp, const struct result *r)
{
	const char *name = shared_metric(r);
	const struct metric *m;
	struct chart c = { .fp = fp, .no_yticks = true };
	double lo = INFINITY, hi = -INFINITY;
	char *title, *label;

	if (!name)
		return;
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		m = benchmark_find_metric(&r->benchmarks[i], name);
		lo = fmin(lo, m->summary.min);
		hi = fmax(hi, m->summary.max);
	}
	m = benchmark_find_metric(&r->benchmarks[0], name);
	c.xunit = m->unit;
	c.h = CHART_T + (int)r->nbenchmarks * STRIP_H + CHART_B;
	axis_init(&c.x, lo, hi, lo > 0 && hi / lo > 20, CHART_L,
		  CHART_W - CHART_R);
	c.y = (struct axis){ 0, 1, c.h - CHART_B, CHART_T, false };
	verdicts(fp, r, name);
	label = xasprintf("%s of every command on one axis", name);
	chart_open(&c, fp, "shared", label);
	free(label);
	title = chart_unit_title(name, m->unit);
	chart_axes(&c, true, title, NULL);
	free(title);
	for (size_t i = 0; i < r->nbenchmarks; i++)
		strip(&c, &r->benchmarks[i],
		      benchmark_find_metric(&r->benchmarks[i], name), i);
	chart_close(&c, "every run a dot, the median a bar: one axis for "
		    "every command");
}
