/*
 * The history view: one benchmark's metric over the stored results,
 * oldest first: the median of each result with its 95% bootstrap CI as a
 * band, the change points (E-divisive, as `history --detect` finds them)
 * marked between the results around them, every point focusable and
 * clickable to show its result id and commit.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"
#include "report/views.h"
#include "stats/changepoint.h"
#include "util/strutil.h"
#include "util/term.h"

#define PLOT_B (CHART_H - CHART_B)
#define HIST_SEED 1ULL
#define HIST_RESAMPLES 1000

static const char *orq(const char *s)
{
	return s ? s : "";
}

static void band(struct chart *c, const struct summary *s, size_t n)
{
	FILE *fp = c->fp;

	fputs("<path class=\"band\" d=\"", fp);
	for (size_t i = 0; i < n; i++) {
		fputc(i ? 'L' : 'M', fp);
		svg_num(fp, axis_map(&c->x, (double)i));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, s[i].median_ci[1]));
	}
	for (size_t i = n; i-- > 0;) {
		fputc('L', fp);
		svg_num(fp, axis_map(&c->x, (double)i));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, s[i].median_ci[0]));
	}
	fputs("Z\"/>\n<path class=\"line\" d=\"", fp);
	for (size_t i = 0; i < n; i++) {
		fputc(i ? 'L' : 'M', fp);
		svg_num(fp, axis_map(&c->x, (double)i));
		fputc(' ', fp);
		svg_num(fp, axis_map(&c->y, s[i].median));
	}
	fputs("\"/>\n", fp);
}

static void point(struct chart *c, const struct report_history *h,
		  size_t i, const struct summary *s)
{
	FILE *fp = c->fp;
	const struct report_point *p = &h->points[i];
	char med[48];

	fmt_value(s->median, h->unit, med, sizeof(med));
	fprintf(fp, "<circle class=\"hpt\" tabindex=\"0\" role=\"button\" "
		"r=\"4\" data-out=\"hist-out\" data-id=\"%lld\" data-commit=\"",
		p->id);
	fputs_xml(orq(p->commit), fp);
	fputs(p->dirty ? "*" : "", fp);
	fputs("\" data-branch=\"", fp);
	fputs_xml(orq(p->branch), fp);
	fputs("\" data-created=\"", fp);
	fputs_xml(orq(p->created), fp);
	fputs("\" data-label=\"", fp);
	fputs_xml(med, fp);
	fputc('"', fp);
	html_num_attr(fp, "data-median", s->median);
	html_num_attr(fp, "data-median-ci-lo", s->median_ci[0]);
	html_num_attr(fp, "data-median-ci-hi", s->median_ci[1]);
	fputs(" cx=\"", fp);
	svg_num(fp, axis_map(&c->x, (double)i));
	fputs("\" cy=\"", fp);
	svg_num(fp, axis_map(&c->y, s->median));
	fprintf(fp, "\" aria-label=\"result %lld, median ", p->id);
	fputs_xml(med, fp);
	fprintf(fp, "\"><title>result %lld, commit ", p->id);
	fputs_xml(p->commit ? p->commit : "-", fp);
	fputs(": ", fp);
	fputs_xml(med, fp);
	fputs("</title></circle>\n", fp);
}

/* The first n - 1 bytes of a commit id (ours are hex), or "-". */
static void short_commit(const char *c, char *buf, size_t n)
{
	snprintf(buf, n, "%s", c ? c : "-");
}

/* Whether every point has its commit (results saved outside git have
 * none). */
static bool all_committed(const struct report_history *h)
{
	for (size_t i = 0; i < h->n; i++)
		if (!h->points[i].commit)
			return false;
	return true;
}

/* A tick per few points: its commit, or outside git its result id. */
static void xticks(struct chart *c, const struct report_history *h)
{
	size_t step = h->n / 8 + 1;
	char buf[32];

	for (size_t i = 0; i < h->n; i += step) {
		if (h->points[i].commit)
			short_commit(h->points[i].commit, buf, 9);
		else
			snprintf(buf, sizeof(buf), "#%lld", h->points[i].id);
		chart_xtick(c, (double)i, buf);
	}
}

static void cp_mark(struct chart *c, const struct report_history *h,
		    const struct change_point *cp)
{
	FILE *fp = c->fp;
	const struct report_point *at = &h->points[cp->index];
	double x = axis_map(&c->x, cp->index - 0.5);

	fprintf(fp, "<g class=\"cp\" data-id=\"%lld\" data-commit=\"",
		at->id);
	fputs_xml(orq(at->commit), fp);
	fputc('"', fp);
	html_num_attr(fp, "data-before", cp->before);
	html_num_attr(fp, "data-after", cp->after);
	fputs("><path class=\"cpl\" d=\"M", fp);
	svg_num(fp, x);
	fprintf(fp, " %dV%d\"/><text x=\"", CHART_T, PLOT_B);
	svg_num(fp, x + 3);
	fprintf(fp, "\" y=\"%d\">change at result %lld</text></g>\n",
		CHART_T + 10, at->id);
}

static void cp_table(FILE *fp, const struct report_history *h,
		     const struct change_point *cp, size_t ncp)
{
	char a[48], b[48], c0[13], c1[13];

	fprintf(fp, "<table class=\"changes\"><caption>%zu change point%s"
		"</caption><thead><tr><th>between</th><th>and</th>"
		"<th>median before</th><th>after</th><th>change</th>"
		"<th>p</th></tr></thead><tbody>\n", ncp, plural_s(ncp));
	for (size_t i = 0; i < ncp; i++) {
		const struct report_point *p0 = &h->points[cp[i].index - 1];
		const struct report_point *p1 = &h->points[cp[i].index];

		short_commit(p0->commit, c0, sizeof(c0));
		short_commit(p1->commit, c1, sizeof(c1));
		fprintf(fp, "<tr data-id=\"%lld\"><td>result %lld, commit ",
			p1->id, p0->id);
		fputs_xml(c0, fp);
		fprintf(fp, "</td><td>result %lld, commit ", p1->id);
		fputs_xml(c1, fp);
		fputs("</td><td>", fp);
		fputs_xml(fmt_value(cp[i].before, h->unit, a, sizeof(a)), fp);
		fputs("</td><td>", fp);
		fputs_xml(fmt_value(cp[i].after, h->unit, b, sizeof(b)), fp);
		fprintf(fp, "</td><td>%+.1f%%</td><td>%.3f</td></tr>\n",
			cp[i].before ? 100 * (cp[i].after / cp[i].before - 1)
				     : 0, cp[i].p_value);
	}
	fputs("</tbody></table>\n", fp);
}

/* Whether t is a ceiling of the median of h's metric that applies to its
 * benchmark (and in its unit): drawn as a line. */
static bool drawn_limit(const struct report_history *h,
			const struct gate_threshold *t)
{
	return t->kind == GATE_LIMIT && t->stat == STAT_MEDIAN &&
	       !strcmp(t->metric, h->metric) &&
	       (!t->pattern || !fnmatch(t->pattern, h->benchmark, 0)) &&
	       gate_unit_fits(t, h->unit);
}

static void limit_lines(struct chart *c, const struct report_history *h)
{
	FILE *fp = c->fp;

	for (size_t i = 0; i < h->nthresholds; i++) {
		const struct gate_threshold *t = &h->thresholds[i];
		double y = axis_map(&c->y, t->value);

		if (!drawn_limit(h, t))
			continue;
		fputs("<g class=\"limit\" data-threshold=\"", fp);
		fputs_xml(t->text, fp);
		fputc('"', fp);
		html_num_attr(fp, "data-v", t->value);
		fprintf(fp, "><path class=\"cpl\" d=\"M%d ", CHART_L);
		svg_num(fp, y);
		fprintf(fp, "H%d\"/><text x=\"%d\" y=\"", CHART_W - CHART_R,
			CHART_W - CHART_R - 4);
		svg_num(fp, y - 4);
		fputs("\" text-anchor=\"end\">gate limit ", fp);
		fputs_xml(t->text, fp);
		fputs("</text></g>\n", fp);
	}
}

static void chart(FILE *fp, const struct report_history *h,
		  const struct summary *s, const struct change_point *cp,
		  size_t ncp)
{
	struct chart c = { .fp = fp, .xunit = "count", .yunit = h->unit };
	double lo = INFINITY, hi = 0;
	char *label;

	for (size_t i = 0; i < h->n; i++) {
		lo = fmin(lo, s[i].median_ci[0]);
		hi = fmax(hi, s[i].median_ci[1]);
	}
	for (size_t i = 0; i < h->nthresholds; i++)
		if (drawn_limit(h, &h->thresholds[i]))
			hi = fmax(hi, h->thresholds[i].value);
	axis_init(&c.x, 0, h->n > 1 ? (double)h->n - 1 : 1, false, CHART_L,
		  CHART_W - CHART_R);
	axis_init(&c.y, lo, hi, lo > 0 && hi / lo > 20, PLOT_B, CHART_T);
	label = xasprintf("%s of %s over %zu results", h->metric,
			  h->benchmark, h->n);
	chart_open(&c, fp, "history", label);
	free(label);
	chart_axes(&c, false, all_committed(h) ? "commit (oldest first)" :
		   "result id (oldest first)", h->metric);
	xticks(&c, h);
	band(&c, s, h->n);
	limit_lines(&c, h);
	for (size_t i = 0; i < ncp; i++)
		cp_mark(&c, h, &cp[i]);
	for (size_t i = 0; i < h->n; i++)
		point(&c, h, i, &s[i]);
	chart_close(&c, "the median of each result with its 95% CI (band); "
		    "dashed: a change point. Click a point, or focus it and "
		    "press Enter, for its result and commit");
}

void view_history(FILE *fp, const struct report_history *h)
{
	struct summary *s = xcalloc(h->n + 1, sizeof(*s));
	double *med = xcalloc(h->n + 1, sizeof(double));
	struct cp_opts o = { .alpha = 0.05, .permutations = 199,
			     .min_size = 3 };
	struct change_point *cp = NULL;
	size_t ncp = 0;
	struct rng rng;

	rng_seed(&rng, HIST_SEED);
	for (size_t i = 0; i < h->n; i++) {
		const struct report_point *p = &h->points[i];

		/* as the result summarized them: the same interval */
		stats_summarize_budget(p->values, p->n, &rng, HIST_RESAMPLES,
				       p->max_draws ? p->max_draws :
				       STATS_BOOTSTRAP_BUDGET, &s[i]);
		med[i] = s[i].median;
	}
	rng_seed(&rng, 1);
	cp_detect(med, h->n, &o, &rng, &cp, &ncp);
	fputs("<section class=\"history\" id=\"history\"><h2>history of ",
	      fp);
	fputs_xml(h->benchmark, fp);
	fputs(" (", fp);
	fputs_xml(h->metric, fp);
	fprintf(fp, ")</h2>\n");
	if (h->n) {
		chart(fp, h, s, cp, ncp);
		fputs("<output id=\"hist-out\" aria-live=\"polite\">"
		      "</output>\n", fp);
		cp_table(fp, h, cp, ncp);
	} else {
		fputs("<p>no stored results match</p>\n", fp);
	}
	fputs("</section>\n", fp);
	free(cp);
	free(med);
	free(s);
}
