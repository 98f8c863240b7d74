/*
 * The comparison view: per metric a forest plot, one row per benchmark:
 * the ratio of medians (candidate / baseline; Harrell-Davis medians, as
 * stats/judge.h estimates them) with its 95% CI on a log
 * axis shared by the rows, the noise band around 1 and the verdict's
 * colour; the numbers beside it in the same table row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "result/metrics.h"
#include "report/views.h"
#include "util/strutil.h"

#define FW 320			/* the plot cell, pixels */
#define FH 18

struct forest_axis {
	double span;		/* half the log10 range around 1 */
};

static double fx(const struct forest_axis *a, double ratio)
{
	double f = ratio > 0 ? log10(ratio) / a->span : -1;

	if (!isfinite(f) || f < -1)
		f = -1;
	if (f > 1)
		f = 1;
	return 6 + (f + 1) / 2 * (FW - 12);
}

static void forest_svg_open(FILE *fp, const struct forest_axis *a,
			    double noise, int h)
{
	fprintf(fp, "<svg viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"aria-hidden=\"true\"><rect class=\"noise\" x=\"", FW, h, FW,
		h);
	svg_num(fp, fx(a, 1 / (1 + noise)));
	fputs("\" y=\"0\" width=\"", fp);
	svg_num(fp, fx(a, 1 + noise) - fx(a, 1 / (1 + noise)));
	fprintf(fp, "\" height=\"%d\"/><path class=\"ref\" d=\"M", h);
	svg_num(fp, fx(a, 1));
	fprintf(fp, " 0V%d\"/>", h);
}

static void ratio_text(FILE *fp, double r, const char *suffix)
{
	if (isfinite(r))
		fprintf(fp, "%.3f%s", r, suffix);
	else
		fputs("–", fp);
}

/* Where a check of row m's threshold falls on the ratio of medians
 * (the row's baseline median is the 1): only a threshold on the median
 * has a place there (NaN otherwise). */
static double check_ratio(const struct gate_check *c,
			  const struct metric_cmp *m)
{
	double base = m->base_median;
	double f = c->relative ? c->limit : c->limit / base;

	if (c->stat != STAT_MEDIAN || !(base > 0))
		return NAN;
	switch (c->kind) {
	case GATE_INCREASE: return 1 + f;
	case GATE_DECREASE: return 1 - f;
	case GATE_LIMIT: return c->limit / base;
	}
	return NAN;
}

static bool check_of(const struct gate_check *c, const struct metric_cmp *m)
{
	return !strcmp(c->benchmark, m->benchmark) &&
	       !strcmp(c->metric, m->metric);
}

static void threshold_marks(FILE *fp, const struct forest_axis *a,
			    const struct gate_report *g,
			    const struct metric_cmp *m)
{
	for (size_t i = 0; g && i < g->n; i++) {
		double r = check_ratio(&g->checks[i], m);

		if (!check_of(&g->checks[i], m) || !isfinite(r) || r <= 0)
			continue;
		fprintf(fp, "<path class=\"thr\" data-threshold=\"");
		fputs_xml(g->checks[i].threshold, fp);
		fputc('"', fp);
		html_num_attr(fp, "data-ratio", r);
		fputs(" d=\"M", fp);
		svg_num(fp, fx(a, r));
		fprintf(fp, " 1V%d\"/>", FH - 1);
	}
}

static void gate_cell(FILE *fp, const struct gate_report *g,
		      const struct metric_cmp *m)
{
	bool any = false;

	fputs("<td class=\"gate\">", fp);
	for (size_t i = 0; g && i < g->n; i++) {
		const struct gate_check *c = &g->checks[i];
		const char *v = gate_verdict_name(c->verdict);

		if (!check_of(c, m))
			continue;
		fprintf(fp, "%s<span class=\"check %s\" data-verdict=\"%s\"",
			any ? "<br>" : "", c->fails ? "fails" : "passes", v);
		/* the judge's numbers, the same compare's row shows when
		 * the threshold is the noise level */
		html_num_attr(fp, "data-change", c->change);
		html_num_attr(fp, "data-lo", c->change_ci[0]);
		html_num_attr(fp, "data-hi", c->change_ci[1]);
		html_num_attr(fp, "data-p", c->p);
		html_num_attr(fp, "data-p-adjusted", c->p_adj);
		fputc('>', fp);
		fputs_xml(c->threshold, fp);
		fprintf(fp, ": %s</span>", v);
		any = true;
	}
	fputs("</td>", fp);
}

static void forest_row(FILE *fp, const struct forest_axis *a,
		       const struct metric_cmp *m, double noise,
		       const struct gate_report *g)
{
	const char *v = cmp_verdict_name(m->verdict);
	double r = 1 + m->change, lo = 1 + m->change_ci[0];
	double hi = 1 + m->change_ci[1];

	fprintf(fp, "<tr class=\"frow %s\" data-verdict=\"%s\"", v, v);
	html_num_attr(fp, "data-ratio", r);
	html_num_attr(fp, "data-lo", lo);
	html_num_attr(fp, "data-hi", hi);
	html_num_attr(fp, "data-p", m->p);
	html_num_attr(fp, "data-p-adjusted", m->p_adj);
	fputs("><td>", fp);
	fputs_xml(m->benchmark, fp);
	fputs("</td><td>", fp);
	if (m->proportion)	/* events of trials: "60 of 600" */
		fprintf(fp, "%.0f of %.0f</td><td>%.0f of %.0f", m->j.events[0],
			m->j.trials[0], m->j.events[1], m->j.trials[1]);
	else {
		html_value(fp, m->base_median, m->unit);
		fputs("</td><td>", fp);
		html_value(fp, m->cand_median, m->unit);
	}
	fputs("</td><td class=\"ratio\">", fp);
	ratio_text(fp, r, "×");
	fputs(" [", fp);
	ratio_text(fp, lo, "");
	fputs(", ", fp);
	ratio_text(fp, hi, "");
	fputs("]</td><td class=\"plot\">", fp);
	forest_svg_open(fp, a, noise, FH);
	if (isfinite(lo) && isfinite(hi)) {
		fprintf(fp, "<path class=\"%s\" stroke-width=\"2\" d=\"M", v);
		svg_num(fp, fx(a, lo));
		fprintf(fp, " %dH", FH / 2);
		svg_num(fp, fx(a, hi));
		fputs("\"/>", fp);
	}
	threshold_marks(fp, a, g, m);
	fprintf(fp, "<circle class=\"%s\" r=\"4.5\" cy=\"%d\" cx=\"", v,
		FH / 2);
	svg_num(fp, fx(a, r));
	fprintf(fp, "\"/></svg></td><td class=\"verdict %s\">%s</td><td>",
		v, v);
	if (isfinite(m->p))
		fprintf(fp, "%.3g", m->p);
	fputs("</td>", fp);
	if (g)
		gate_cell(fp, g, m);
	fputs("</tr>\n", fp);
}

/* The shared axis under the rows: ticks at round ratios. */
static void forest_axis_row(FILE *fp, const struct forest_axis *a,
			    double noise, bool gate)
{
	static const double t[] = { 0.1, 0.2, 0.5, 0.8, 0.9, 1, 1.1, 1.25,
				    2, 5, 10 };
	double last = -100;

	fputs("<tr class=\"faxis\"><td colspan=\"4\">ratio candidate / "
	      "baseline (log axis; grey: the noise band)</td><td>", fp);
	forest_svg_open(fp, a, noise, 20);
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		double x = fx(a, t[i]);

		if (fabs(log10(t[i])) > a->span || x - last < 38)
			continue;
		fputs("<text class=\"tick\" text-anchor=\"middle\" y=\"15\" "
		      "x=\"", fp);
		svg_num(fp, x);
		fprintf(fp, "\">%g×</text>", t[i]);
		last = x;
	}
	fprintf(fp, "</svg></td><td colspan=\"%d\">%s</td></tr>\n",
		gate ? 3 : 2, gate ? "black ticks: the gate's thresholds on "
		"the median" : "");
}

static void forest(FILE *fp, const struct compare_report *rep,
		   const struct gate_report *g, const char *metric)
{
	struct forest_axis a = { log10(1 + rep->noise) * 2 };

	for (size_t i = 0; i < rep->n; i++) {
		const struct metric_cmp *m = &rep->rows[i];

		if (strcmp(m->metric, metric))
			continue;
		for (int k = 0; k < 2; k++) {
			double r = 1 + m->change_ci[k];

			if (r > 0 && isfinite(r))
				a.span = fmax(a.span, fabs(log10(r)) * 1.1);
		}
		for (size_t k = 0; g && k < g->n; k++) {
			double r = check_ratio(&g->checks[k], m);

			if (check_of(&g->checks[k], m) && r > 0 &&
			    isfinite(r))
				a.span = fmax(a.span, fabs(log10(r)) * 1.1);
		}
	}
	if (a.span <= 0)
		a.span = 0.05;
	fputs("<figure class=\"chart forest\" data-metric=\"", fp);
	fputs_xml(metric, fp);
	fputs("\"><table><caption>", fp);
	fputs_xml(metric, fp);
	/* a count of events out of trials is judged by its odds ratio */
	fputs(metrics_lookup(metric, NULL)->trials
	      ? ": odds ratio of the candidate's events of trials to the "
		"baseline's (exact conditional), 95% CI"
	      : ": median of the candidate / median of the baseline, 95% CI",
	      fp);
	fputs("</caption><thead><tr><th>benchmark</th><th>baseline</th>"
	      "<th>candidate</th><th>ratio [95% CI]</th><th>forest plot</th>"
	      "<th>verdict</th><th>p</th>", fp);
	fputs(g ? "<th>gate</th></tr></thead><tbody>\n" :
	      "</tr></thead><tbody>\n", fp);
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->rows[i].metric, metric))
			forest_row(fp, &a, &rep->rows[i], rep->noise, g);
	forest_axis_row(fp, &a, rep->noise, g != NULL);
	fputs("</tbody></table></figure>\n", fp);
}

/* Whether metric gets a forest plot: one of charts ("all": every one),
 * else a headline metric of the vocabulary (result/metrics.h), else the
 * first metric compared when there is none. */
static bool forest_shown(const struct compare_report *rep,
			 const char *metric, const char *const *charts)
{
	bool any = false;

	if (charts) {
		for (; *charts; charts++)
			if (!strcmp(*charts, "all") || !strcmp(*charts, metric))
				return true;
		return false;
	}
	for (size_t i = 0; i < rep->n && !any; i++)
		any = metrics_lookup(rep->rows[i].metric,
				     rep->rows[i].unit)->headline > 0;
	if (any)
		return metrics_lookup(metric, NULL)->headline > 0;
	return !strcmp(metric, rep->rows[0].metric);
}

void view_compare(FILE *fp, const struct compare_report *rep,
		  const struct gate_report *gate, const char *label,
		  const char *baseline, size_t idx,
		  const char *const *charts)
{
	fprintf(fp, "<section class=\"compare\" id=\"c%zu\"><h2>", idx);
	fputs_xml(label, fp);
	fputs(" against ", fp);
	fputs_xml(baseline, fp);
	fprintf(fp, "</h2>\n<p class=\"meta\">a change counts when p < %g "
		"and its whole CI lies beyond the noise band (±%g%%)</p>\n",
		rep->alpha, rep->noise * 100);
	for (size_t i = 0; i < rep->n; i++) {
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(rep->rows[k].metric,
				       rep->rows[i].metric);
		if (!seen && forest_shown(rep, rep->rows[i].metric, charts))
			forest(fp, rep, gate, rep->rows[i].metric);
	}
	if (!rep->n)
		fputs("<p>no benchmark in common</p>\n", fp);
	html_list(fp, "meta", "only in the baseline", rep->only_base,
		  rep->n_only_base);
	html_list(fp, "meta", "only in the candidate", rep->only_cand,
		  rep->n_only_cand);
	fputs("</section>\n", fp);
}
