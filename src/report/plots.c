/*
 * The charts of a result set: a metric's distribution and run sequence,
 * a load result's latency spectrum, a parameter scan with its fitted
 * complexity curve. Every run is drawn (as one path of zero-length
 * segments with round caps: a few bytes a run, not an element each).
 */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/views.h"
#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

#define PLOT_B (CHART_H - CHART_B)	/* the x axis, pixels */

/* A log axis when the values span more than a factor of 20. */
static bool wants_log(double lo, double hi)
{
	return lo > 0 && hi / lo > 20;
}

/* What one value of m is, for people: a load's latencies are of its
 * requests; anything else was measured per run. */
static const char *value_word(const struct metric *m, bool plural)
{
	if (!strncmp(m->name, METRIC_LATENCY, strlen(METRIC_LATENCY)))
		return plural ? "requests" : "request";
	return plural ? "runs" : "run";
}

static void figure_attrs(struct chart *c, const char *cls,
			 const struct metric *m, const char *label)
{
	char *l = xasprintf("%s: %s", m->name, label);

	chart_open(c, c->fp, cls, l);
	free(l);
}

static int cmp_dot(const void *a, const void *b)
{
	const long *p = a, *q = b;

	return p[0] != q[0] ? (p[0] > q[0]) - (p[0] < q[0])
			    : (p[1] > q[1]) - (p[1] < q[1]);
}

/*
 * The dots of (x[i], y[i]) as one path, each move relative to the last:
 * "M12 40h0m2 -6h0...". keep[i] false skips i. The dots are 3 px wide:
 * two whose centres fall on one point of a 2 px grid look as one, and are
 * drawn once (the picture is the same, the file far smaller).
 */
static void dots_path(FILE *fp, const char *cls, const long *x,
		      const long *y, const bool *keep, size_t n)
{
	long (*d)[2] = xcalloc(n + 1, sizeof(*d));
	long px = 0, py = 0;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		d[k][0] = x[i] / 2 * 2;
		d[k++][1] = y[i] / 2 * 2;
	}
	qsort(d, k, sizeof(*d), cmp_dot);
	for (size_t i = 0; i < k; i++) {
		if (i && d[i][0] == px && d[i][1] == py)
			continue;
		if (!i)
			fprintf(fp, "<path class=\"%s\" d=\"M%ld %ld", cls,
				d[i][0], d[i][1]);
		else
			fprintf(fp, "m%ld %ld", d[i][0] - px, d[i][1] - py);
		fputs("h0", fp);
		px = d[i][0];
		py = d[i][1];
	}
	if (k)
		fputs("\"/>\n", fp);
	free(d);
}

/* Dots of the runs, the outliers in their own class; with only_out,
 * the outliers alone. */
static void run_dots(FILE *fp, const struct metric *m, const long *x,
		     const long *y, size_t n, bool only_out)
{
	bool *in = xcalloc(n + 1, sizeof(bool)), *out = xcalloc(n + 1,
								  sizeof(bool));
	const struct summary *s = &m->summary;
	size_t nout = 0;

	for (size_t i = 0; i < n; i++) {
		double v = m->values[i];

		if (!isfinite(v))
			continue;
		if (v < s->low_fence || v > s->high_fence) {
			out[i] = true;
			nout++;
		} else {
			in[i] = true;
		}
	}
	if (!only_out)
		dots_path(fp, "dots", x, y, in, n);
	if (nout) {
		fprintf(fp, "<g class=\"outliers\" data-n=\"%zu\">", nout);
		dots_path(fp, "odots", x, y, out, n);
		fputs("</g>\n", fp);
	}
	free(in);
	free(out);
}

/* The dot plot: columns d px wide, a dot every d px up, d from DOT_MAX
 * down to DOT_MIN as the tallest stack needs. */
#define DOT_MIN 3
#define DOT_MAX 8
#define NCOL_MAX ((CHART_W - CHART_R - CHART_L) / DOT_MIN)
#define DOT_H (PLOT_B - CHART_T - 6)	/* the tallest stack, px */

/* One stack of dots per column from y0 up: a dotted line (dashes of
 * length 0 every d px, round caps), so a column costs a few bytes
 * whatever its runs. */
static void stacks(FILE *fp, const char *cls, int d, size_t ncol,
		   const size_t *dots, const size_t *under)
{
	bool any = false;

	for (size_t k = 0; k < ncol; k++) {
		if (!dots[k])
			continue;
		if (!any)
			fprintf(fp, "<path class=\"%s\" style=\"stroke-width:"
				"%.1f;stroke-dasharray:0 %d\" d=\"", cls,
				d * 0.85, d);
		any = true;
		/* the j-th dot of a column spans (j-1)d to jd on the axis */
		fprintf(fp, "M%d ", CHART_L + (int)k * d + d / 2);
		svg_num(fp, PLOT_B - d / 2.0 -
			    (double)((under ? under[k] : 0) * d));
		fprintf(fp, "v-%zu.5", (dots[k] - 1) * d);
	}
	if (any)
		fputs("\"/>\n", fp);
}

/* Count the runs of m in columns d px wide, outliers apart; returns the
 * tallest column. */
static size_t columns(const struct metric *m, const struct axis *x, int d,
		      size_t *in, size_t *out, size_t *nout)
{
	const struct summary *s = &m->summary;
	size_t ncol = (CHART_W - CHART_R - CHART_L) / d, top = 1;

	memset(in, 0, ncol * sizeof(*in));
	memset(out, 0, ncol * sizeof(*out));
	*nout = 0;
	for (size_t i = 0; i < m->n; i++) {
		double v = m->values[i];
		long k;

		if (!isfinite(v))
			continue;
		k = lround(floor((axis_map(x, v) - CHART_L) / d));
		k = k < 0 ? 0 : k >= (long)ncol ? (long)ncol - 1 : k;
		if (v < s->low_fence || v > s->high_fence) {
			out[k]++;
			(*nout)++;
		} else {
			in[k]++;
		}
		if (in[k] + out[k] > top)
			top = in[k] + out[k];
	}
	return top;
}

/* The warm-up runs (w, n > 0) in a row above the stacks, at y: a hollow
 * mark each (data-v its value), labelled. */
static void warmup_row(struct chart *c, const struct series *w, double y)
{
	FILE *fp = c->fp;

	fprintf(fp, "<g class=\"warmup\" data-n=\"%zu\"><text class=\"tick\" "
		"x=\"%d\" y=\"", w->n, CHART_L - 4);
	svg_num(fp, y + 3.5);
	fputs("\" text-anchor=\"end\">warm-up</text>\n", fp);
	for (size_t i = 0; i < w->n; i++) {
		if (!isfinite(w->v[i]))	/* timed out: counted, not drawn */
			continue;
		fputs("<circle class=\"wdot\" r=\"3.5\"", fp);
		html_num_attr(fp, "data-v", w->v[i]);
		fputs(" cx=\"", fp);
		svg_num(fp, axis_map(&c->x, w->v[i]));
		fputs("\" cy=\"", fp);
		svg_num(fp, y);
		fputs("\"/>", fp);
	}
	fputs("</g>\n", fp);
}

void plot_distribution(FILE *fp, const struct metric *m,
		       const struct series *warmup)
{
	const struct summary *s = &m->summary;
	struct chart c = { .fp = fp, .xunit = m->unit, .yunit = "count" };
	size_t in[NCOL_MAX], out[NCOL_MAX], din[NCOL_MAX], dout[NCOL_MAX];
	size_t top, per = 1, nout, ncol;
	int d = DOT_MAX, dot_h = DOT_H;
	double lo = s->min, hi = s->max;
	char med[48];
	char *cap, *title, *wcap = xstrdup("");

	if (warmup && !warmup->n)
		warmup = NULL;
	for (size_t i = 0; warmup && i < warmup->n; i++)
		if (isfinite(warmup->v[i])) {
			lo = fmin(lo, warmup->v[i]);
			hi = fmax(hi, warmup->v[i]);
		}
	if (warmup) {	/* their row above the stacks */
		dot_h -= 14;
		free(wcap);
		wcap = xasprintf("; the %zu warm-up run%s apart (hollow, "
				 "top row: not in the statistics)",
				 warmup->n, plural_s(warmup->n));
	}
	axis_init(&c.x, lo, hi, wants_log(lo, hi), CHART_L,
		  CHART_W - CHART_R);
	/* the largest dots whose tallest stack fits; at the smallest, a
	 * dot per `per` runs (rounded up: a column of one run keeps its
	 * dot) */
	while ((top = columns(m, &c.x, d, in, out, &nout)) * d > (size_t)dot_h &&
	       d > DOT_MIN)
		d--;
	while ((top + per - 1) / per > (size_t)(dot_h / d))
		per++;
	ncol = (CHART_W - CHART_R - CHART_L) / d;
	for (size_t k = 0; k < ncol; k++) {
		din[k] = (in[k] + per - 1) / per;
		dout[k] = (out[k] + per - 1) / per;
	}
	c.y = (struct axis){ 0, (double)(dot_h / d * per), PLOT_B,
			     PLOT_B - dot_h / d * d, false };
	figure_attrs(&c, "dist", m, !strcmp(value_word(m, false), "run") ?
		     "distribution of every run" :
		     "distribution of every request");
	fputs("<g data-metric=\"", fp);
	fputs_xml(m->name, fp);
	fprintf(fp, "\" data-per-dot=\"%zu\">\n", per);
	title = chart_unit_title(m->name, m->unit);
	chart_axes(&c, true, title, value_word(m, true));
	free(title);
	stacks(fp, "dots dash", d, ncol, din, NULL);
	if (nout) {
		fprintf(fp, "<g class=\"outliers\" data-n=\"%zu\">", nout);
		stacks(fp, "odots dash", d, ncol, dout, din);
		fputs("</g>\n", fp);
	}
	if (warmup)
		warmup_row(&c, warmup, CHART_T + 6);
	fputs("<path class=\"med\" d=\"M", fp);
	svg_num(fp, axis_map(&c.x, s->median));
	fprintf(fp, " %dV%d\"/>\n</g>", CHART_T + (warmup ? 14 : 0), PLOT_B);
	fmt_value(s->median, m->unit, med, sizeof(med));
	if (per == 1)
		cap = xasprintf("%zu %s, every %s a dot (outliers beyond "
				"Tukey's fences in red: %zu), median %s "
				"dashed%s", s->n, value_word(m, true),
				value_word(m, false), nout, med, wcap);
	else
		cap = xasprintf("%zu %s, a dot per %zu %s of a column "
				"(outliers beyond Tukey's fences in red: "
				"%zu), median %s dashed%s", s->n,
				value_word(m, true), per, value_word(m, true),
				nout, med, wcap);
	chart_close(&c, cap);
	free(cap);
	free(wcap);
}

/* A sequence of more values than this is drawn binned: a line through
 * every value would be a solid band. */
#define SEQ_BIN_FROM 400
#define SEQ_BINS 100

/* The values i0 .. i1 - 1 of m that are finite, sorted, into buf;
 * returns how many. */
static size_t bin_values(const struct metric *m, size_t i0, size_t i1,
			 double *buf)
{
	size_t k = 0;

	for (size_t i = i0; i < i1; i++)
		if (isfinite(m->values[i]))
			buf[k++] = m->values[i];
	stats_sort(buf, k);
	return k;
}

/* Many values (a load's 4,000 requests): in SEQ_BINS bins of equal
 * count, in order, the median of each bin as a line and its 10th to 90th
 * percentile as a band: the level and its drift show, not a band of
 * noise. A bin without a value breaks both. */
static void sequence_binned(FILE *fp, const struct chart *c,
			    const struct metric *m)
{
	size_t per = (m->n + SEQ_BINS - 1) / SEQ_BINS;
	size_t nb = (m->n + per - 1) / per;
	double *buf = xcalloc(per, sizeof(double));
	double (*q)[4] = xcalloc(nb, sizeof(*q));	/* x, p10, p50, p90 */

	for (size_t b = 0; b < nb; b++) {
		size_t i0 = b * per, i1 = i0 + per < m->n ? i0 + per : m->n;
		size_t k = bin_values(m, i0, i1, buf);

		q[b][0] = axis_map(&c->x, (double)(i0 + i1 + 1) / 2);
		q[b][1] = k ? axis_map(&c->y, stats_percentile_sorted(buf, k, 10)) : NAN;
		q[b][2] = k ? axis_map(&c->y, stats_percentile_sorted(buf, k, 50)) : NAN;
		q[b][3] = k ? axis_map(&c->y, stats_percentile_sorted(buf, k, 90)) : NAN;
	}
	fputs("<path class=\"band\" d=\"", fp);
	for (size_t b = 0; b < nb; b++) {	/* one polygon per unbroken run */
		size_t e = b;

		if (isnan(q[b][1]))
			continue;
		while (e + 1 < nb && !isnan(q[e + 1][1]))
			e++;
		for (size_t j = b; j <= e; j++) {
			fputc(j == b ? 'M' : 'L', fp);
			svg_num(fp, q[j][0]);
			fputc(' ', fp);
			svg_num(fp, q[j][3]);
		}
		for (size_t j = e + 1; j-- > b;) {
			fputc('L', fp);
			svg_num(fp, q[j][0]);
			fputc(' ', fp);
			svg_num(fp, q[j][1]);
		}
		fputc('Z', fp);
		b = e;
	}
	fputs("\"/>\n<path class=\"line\" d=\"", fp);
	for (size_t b = 0; b < nb; b++) {
		if (isnan(q[b][2]))
			continue;
		fputc(b && !isnan(q[b - 1][2]) ? 'L' : 'M', fp);
		svg_num(fp, q[b][0]);
		fputc(' ', fp);
		svg_num(fp, q[b][2]);
	}
	fprintf(fp, "\" data-per-bin=\"%zu\"/>\n", per);
	free(buf);
	free(q);
}

/* The sequence's line: "M x y" then relative "l" steps, broken (a new
 * M) at a run that did not measure the metric. */
static void sequence_line(FILE *fp, const struct metric *m, const long *x,
			  const long *y)
{
	bool pen = false;
	long px = 0, py = 0;

	fputs("<path class=\"line\" d=\"", fp);
	for (size_t i = 0; i < m->n; i++) {
		if (!isfinite(m->values[i])) {
			pen = false;
			continue;
		}
		if (!pen)
			fprintf(fp, "M%ld %ld l", x[i], y[i]);
		else
			fprintf(fp, "%ld %ld ", x[i] - px, y[i] - py);
		px = x[i];
		py = y[i];
		pen = true;
	}
	fputs("\"/>\n", fp);
}

void plot_sequence(FILE *fp, const struct metric *m)
{
	const struct summary *s = &m->summary;
	bool per_second = !strcmp(m->name, METRIC_THROUGHPUT) ||
			  !strcmp(m->name, METRIC_ERROR_RATE);
	struct chart c = { .fp = fp, .xunit = "count", .yunit = m->unit };
	long *x = xcalloc(m->n + 1, sizeof(long));
	long *y = xcalloc(m->n + 1, sizeof(long));
	char *title;

	axis_init(&c.x, 1, (double)m->n, false, CHART_L, CHART_W - CHART_R);
	axis_init(&c.y, s->min, s->max, wants_log(s->min, s->max), PLOT_B,
		  CHART_T);
	for (size_t i = 0; i < m->n; i++) {
		x[i] = lround(axis_map(&c.x, (double)(i + 1)));
		y[i] = isfinite(m->values[i]) ?
		       lround(axis_map(&c.y, m->values[i])) : 0;
	}
	figure_attrs(&c, "seq", m, per_second ? "each second of the load" :
		     !strcmp(value_word(m, false), "run") ? "value by run index" :
		     "value by request index");
	fputs("<g data-metric=\"", fp);
	fputs_xml(m->name, fp);
	fputs("\">\n", fp);
	title = chart_unit_title(m->name, m->unit);
	chart_axes(&c, true, per_second ? "second of the load (s)" :
		   !strcmp(value_word(m, false), "run") ? "run (index)" :
		   "request (index)", title);
	free(title);
	if (m->n > SEQ_BIN_FROM)
		sequence_binned(fp, &c, m);
	else
		sequence_line(fp, m, x, y);
	/* every run a dot while they are far apart; beyond that the line
	 * (or the bins) shows them, and the outliers are marked */
	run_dots(fp, m, x, y, m->n, m->n > 200);
	fputs("</g>", fp);
	chart_close(&c, per_second ? "per second, in order: a drop or a "
		    "stall is visible" : m->n > SEQ_BIN_FROM ?
		    "in order, in bins of equal count: each bin's median a line, "
		    "its 10th to 90th percentile a band, the outliers marked" :
		    strcmp(value_word(m, false), "run") ?
		    "in the order sent: drift and a cold start are visible" :
		    "in run order (the measured runs; warm-up runs are in the "
		    "distribution): drift and cold starts are visible");
	free(x);
	free(y);
}

/* The latency spectrum's percentiles, and where each is read. */
static const struct { const char *name; double q; const char *extra; }
spectrum_q[] = {
	{ "p50", 50, NULL }, { "p90", 90, NULL }, { "p99", 99, NULL },
	{ "p99.9", 99.9, "p99_9" }, { "p99.99", 99.99, "p99_99" },
};
#define NSPEC (sizeof(spectrum_q) / sizeof(spectrum_q[0]))

/* The percentile q of m: the summary's (which `load` fills from its
 * histogram of every request), an extra of `load`'s, else the sample's. */
static double spectrum_value(const struct metric *m, size_t k,
			     const double *sorted, size_t n)
{
	const struct summary *s = &m->summary;

	switch (k) {
	case 0: return s->median;
	case 1: return s->p90;
	case 2: return s->p99;
	}
	for (size_t i = 0; i < m->nextra; i++)
		if (!strcmp(m->extra[i].key, spectrum_q[k].extra))
			return m->extra[i].value;
	return stats_percentile_sorted(sorted, n, spectrum_q[k].q);
}

static double nines(double q)
{
	return -log10(1 - q / 100);
}

/* A label's box in the chart's pixels, its width estimated from its
 * length (the font is 11 px: digits and letters about 6.5 px wide), y
 * its baseline. */
struct label_box {
	double x0, x1, y;
};

#define LABEL_CHAR_W 6.5
#define LABEL_H 12

/* Over the point at (px, py): starting right of it, or with end, ending
 * left of it. */
static struct label_box label_at(bool end, double px, double py,
				 const char *text)
{
	double w = LABEL_CHAR_W * (double)strlen(text);
	struct label_box b = { end ? px - 4 - w : px + 4, end ? px - 4 : px + 4 + w,
			       py - 7 };

	return b;
}

/* The same label under its point. */
static struct label_box label_below(struct label_box b, double py)
{
	b.y = py + 7 + LABEL_H;
	return b;
}

static bool boxes_overlap(const struct label_box *a,
			  const struct label_box *b)
{
	return a->x0 < b->x1 && b->x0 < a->x1 &&
	       fabs(a->y - b->y) < LABEL_H;
}

static void spectrum_series(struct chart *c, const struct metric *m,
			    const double *v, bool labels)
{
	FILE *fp = c->fp;
	char buf[48];
	struct label_box prev = { 0, 0, 0 };

	fprintf(fp, "<path class=\"%s\" d=\"", labels ? "line" : "line2");
	for (size_t k = 0; k < NSPEC; k++) {
		fputc(k ? 'L' : 'M', fp);
		svg_num(fp, axis_map(&c->x, nines(spectrum_q[k].q)));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, v[k]));
	}
	fputs("\"/>\n", fp);
	for (size_t k = 0; k < NSPEC; k++) {
		double px = axis_map(&c->x, nines(spectrum_q[k].q));
		double py = axis_map(&c->y, v[k]);

		fprintf(fp, "<circle class=\"%s\" r=\"3.5\" cx=\"",
			labels ? "pt" : "pt2");
		svg_num(fp, px);
		fputs("\" cy=\"", fp);
		svg_num(fp, py);
		fprintf(fp, "\"><title>%s %s: ", m->name, spectrum_q[k].name);
		html_value(fp, v[k], m->unit);
		fputs("</title></circle>\n", fp);
		if (!labels)
			continue;
		char *text = xasprintf("%s %s", spectrum_q[k].name,
				       fmt_value(v[k], m->unit, buf,
						 sizeof(buf)));
		struct label_box box = label_at(k == NSPEC - 1, px, py, text);

		/* over the point, or under it where that would cover the
		 * label before (p99.9's and p99.99's, a few pixels apart) */
		if (k && boxes_overlap(&box, &prev))
			box = label_below(box, py);
		prev = box;
		fprintf(fp, "<text class=\"pct\" data-p=\"%s\"",
			spectrum_q[k].name);
		html_num_attr(fp, "data-v", v[k]);
		fputs(" x=\"", fp);
		svg_num(fp, k == NSPEC - 1 ? box.x1 : box.x0);
		fputs("\" y=\"", fp);
		svg_num(fp, box.y);
		fprintf(fp, "\"%s>", k == NSPEC - 1 ?
			" text-anchor=\"end\"" : "");
		fputs_xml(text, fp);
		fputs("</text>\n", fp);
		free(text);
	}
}

static bool spectrum_of(const struct metric *m, double *v)
{
	size_t n;
	double *sorted;

	if (!m || !metric_has_summary(m))
		return false;
	sorted = metric_measured(m, &n);
	stats_sort(sorted, n);
	for (size_t k = 0; k < NSPEC; k++)
		v[k] = spectrum_value(m, k, sorted, n);
	free(sorted);
	return true;
}

void plot_spectrum(FILE *fp, const struct benchmark *b)
{
	const struct metric *cor = benchmark_find_metric(b, METRIC_LATENCY);
	const struct metric *unc = benchmark_find_metric(b,
							 "latency_uncorrected");
	double vc[NSPEC], vu[NSPEC], lo = INFINITY, hi = 0;
	bool hc = spectrum_of(cor, vc), hu = spectrum_of(unc, vu);
	struct chart c = { .fp = fp, .xunit = "count" };

	if (!hc)
		return;
	for (size_t k = 0; k < NSPEC; k++) {
		lo = fmin(lo, fmin(vc[k], hu ? vu[k] : vc[k]));
		hi = fmax(hi, fmax(vc[k], hu ? vu[k] : vc[k]));
	}
	c.yunit = cor->unit;
	c.x = (struct axis){ 0, 4.4, CHART_L, CHART_W - CHART_R, false };
	axis_init(&c.y, lo, hi, lo > 0, PLOT_B, CHART_T);
	chart_open(&c, fp, "spectrum", "latency percentile spectrum");
	chart_axes(&c, false, "percentile (nines axis)", "latency");
	for (size_t k = 0; k < NSPEC; k++)
		chart_xtick(&c, nines(spectrum_q[k].q), spectrum_q[k].name);
	if (hu)
		spectrum_series(&c, unc, vu, false);
	spectrum_series(&c, cor, vc, true);
	chart_close(&c, hu ? "latency (blue, labelled: counted from when "
		    "each request was due, corrected for coordinated "
		    "omission) and latency_uncorrected (orange: from when it "
		    "was sent); p99.9 and p99.99 of every request when load "
		    "wrote them, else of the sample" : "latency percentiles");
}

/* The benchmarks of the fit: those whose name is the template with the
 * parameter's value put in (run makes "NAME [n=10]" of a name without
 * it), or with no template (f->name NULL) every benchmark with the
 * parameter; each a point (the parameter, the metric's median). */
static size_t scan_points(const struct result *r,
			  const struct complexity_fit *f, double *xs,
			  const struct metric **ms)
{
	char *pat = xasprintf("{%s}", f->parameter);
	size_t k = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct metric *m = benchmark_find_metric(b, f->metric);
		double x;

		for (size_t p = 0; p < b->nparams; p++) {
			if (strcmp(b->params[p].name, f->parameter) ||
			    parse_double(b->params[p].value, &x) || x <= 0 ||
			    !m || !metric_has_summary(m))
				continue;
			char *name = f->name ? str_replace(f->name, pat,
						b->params[p].value) : NULL;
			size_t len = name ? strlen(name) : 0;

			if (!name || (!strncmp(b->name, name, len) &&
				      (!b->name[len] || b->name[len] == ' '))) {
				xs[k] = x;
				ms[k++] = m;
			}
			free(name);
		}
	}
	free(pat);
	return k;
}

static double model_g(enum complexity c, double n)
{
	switch (c) {
	case O_1: return 0;
	case O_LOG_N: return log(n);
	case O_N: return n;
	case O_N_LOG_N: return n * log(n);
	case O_N2: return n * n;
	case O_N3: return n * n * n;
	default: return 0;
	}
}

static void scan_curve(struct chart *c, const struct fit *fit)
{
	FILE *fp = c->fp;
	double l0 = log10(c->x.lo), l1 = log10(c->x.hi);
	bool pen = false;

	fputs("<path class=\"fit\" d=\"", fp);
	for (int i = 0; i <= 60; i++) {
		double n = pow(10, l0 + (l1 - l0) * i / 60);
		double y = fit->intercept + fit->coef * model_g(fit->model, n);

		if (!(y >= c->y.lo && y <= c->y.hi)) {
			pen = false;
			continue;
		}
		fputc(pen ? 'L' : 'M', fp);
		svg_num(fp, axis_map(&c->x, n));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, y));
		pen = true;
	}
	fputs("\"/>\n", fp);
}

static void scan_point(struct chart *c, double x, const struct metric *m)
{
	FILE *fp = c->fp;
	const struct summary *s = &m->summary;
	double px = axis_map(&c->x, x);

	fputs("<path class=\"axis\" d=\"M", fp);
	svg_num(fp, px);
	fputc(' ', fp);
	svg_num(fp, axis_map(&c->y, s->median_ci[0]));
	fputs("V", fp);
	svg_num(fp, axis_map(&c->y, s->median_ci[1]));
	fputs("\"/><circle class=\"pt\" r=\"3.5\" cx=\"", fp);
	svg_num(fp, px);
	fputs("\" cy=\"", fp);
	svg_num(fp, axis_map(&c->y, s->median));
	fprintf(fp, "\"><title>%g: ", x);
	html_value(fp, s->median, m->unit);
	fputs("</title></circle>\n", fp);
}

void plot_scan(FILE *fp, const struct result *r,
	       const struct complexity_fit *f)
{
	double *xs = xcalloc(r->nbenchmarks + 1, sizeof(double));
	const struct metric **ms = xcalloc(r->nbenchmarks + 1, sizeof(*ms));
	size_t k = scan_points(r, f, xs, ms);
	double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0;
	struct chart c = { .fp = fp, .xunit = "count" };
	char *label;

	for (size_t i = 0; i < k; i++) {
		xlo = fmin(xlo, xs[i]);
		xhi = fmax(xhi, xs[i]);
		ylo = fmin(ylo, ms[i]->summary.median_ci[0]);
		yhi = fmax(yhi, ms[i]->summary.median_ci[1]);
	}
	if (k) {
		c.yunit = ms[0]->unit;
		axis_init(&c.x, xlo, xhi, true, CHART_L, CHART_W - CHART_R);
		axis_init(&c.y, ylo, yhi, true, PLOT_B, CHART_T);
		label = xasprintf("%s against %s", f->metric, f->parameter);
		fputs("<section class=\"scan\" data-name=\"", fp);
		fputs_xml(f->name ? f->name : f->parameter, fp);
		fputs("\"><h3>scan: ", fp);
		fputs_xml(f->name ? f->name : f->parameter, fp);
		fputs(f->name ? "</h3>\n" : " (fitted by the report: the "
		      "result has no fit)</h3>\n", fp);
		chart_open(&c, fp, "scan", label);
		chart_axes(&c, true, f->parameter, f->metric);
		scan_curve(&c, &f->best);
		for (size_t i = 0; i < k; i++)
			scan_point(&c, xs[i], ms[i]);
		fprintf(fp, "<text class=\"fit-label\" data-model=\"%s\"",
			stats_complexity_name(f->best.model));
		html_num_attr(fp, "data-r2", f->best.r2);
		fprintf(fp, " x=\"%d\" y=\"%d\">best fit %s, R² = %.4f</text>\n",
			CHART_L + 8, CHART_T + 12,
			stats_complexity_name(f->best.model), f->best.r2);
		chart_close(&c, "the median of each value of the parameter "
			    "with its 95% CI, log axes; the curve is the "
			    "fitted model");
		fputs("</section>\n", fp);
		free(label);
	}
	free(xs);
	free(ms);
}

/* How many distinct values xs[0..k-1] holds (k is small: a scan). */
static size_t distinct(const double *xs, size_t k)
{
	size_t n = 0;

	for (size_t i = 0; i < k; i++) {
		size_t j = 0;

		while (j < i && xs[j] != xs[i])
			j++;
		n += j == i;
	}
	return n;
}

void plot_scans_unfitted(FILE *fp, const struct result *r)
{
	double *xs = xcalloc(r->nbenchmarks + 1, sizeof(double));
	double *ys = xcalloc(r->nbenchmarks + 1, sizeof(double));
	const struct metric **ms = xcalloc(r->nbenchmarks + 1, sizeof(*ms));

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t p = 0; p < b->nparams; p++) {
			struct complexity_fit f = {
				.parameter = b->params[p].name,
				.metric = METRIC_WALL_TIME };
			bool seen = false;
			size_t k;

			/* each parameter once: at its first benchmark */
			for (size_t j = 0; j < i && !seen; j++)
				for (size_t q = 0; q < r->benchmarks[j].nparams;
				     q++)
					seen |= !strcmp(r->benchmarks[j]
							.params[q].name,
							f.parameter);
			if (seen)
				continue;
			k = scan_points(r, &f, xs, ms);
			for (size_t j = 0; j < k; j++)
				ys[j] = ms[j]->summary.median;
			if (distinct(xs, k) >= 3 &&
			    !stats_fit_complexity(xs, ys, k, &f.best, f.all))
				plot_scan(fp, r, &f);
		}
	}
	free(xs);
	free(ys);
	free(ms);
}
