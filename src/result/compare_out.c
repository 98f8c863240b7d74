/*
 * The comparison report for people (terminal, Markdown) and for programs
 * (JSON: {"alpha", "noise_threshold", "comparisons": [...], "only_in_baseline",
 * "only_in_candidate"}).
 */
#include "result/compare.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_emit.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

static const char *fmt_pct(double v, char *buf, size_t n)
{
	return fmt_change_pct(v, buf, n);
}

static void fmt_rel(double base, double change, const double ci[2],
		    char *buf, size_t n)
{
	char x[32], lo[32], hi[32];

	if (base == 0 && change == 0) {
		snprintf(buf, n, "0 → 0");
		return;
	}
	if (isnan(change)) {
		snprintf(buf, n, "-");
		return;
	}
	if (base == 0) {
		snprintf(buf, n, "from 0");
		return;
	}
	fmt_pct(change, x, sizeof(x));
	if (isnan(ci[0]) && isnan(ci[1]))
		snprintf(buf, n, "%s", x);
	else
		snprintf(buf, n, "%s [%s, %s]", x, fmt_pct(ci[0], lo, sizeof(lo)),
			 fmt_pct(ci[1], hi, sizeof(hi)));
}

static void fmt_change(const struct metric_cmp *c, char *buf, size_t n)
{
	char x[32], lo[32], hi[32];

	/* a proportion's change is its odds ratio's, from 0 as well */
	if (c->proportion && c->j.tested) {
		snprintf(buf, n, "%s [%s, %s]", fmt_pct(c->change, x, sizeof(x)),
			 fmt_pct(c->change_ci[0], lo, sizeof(lo)),
			 fmt_pct(c->change_ci[1], hi, sizeof(hi)));
		return;
	}
	fmt_rel(c->base_median, c->change, c->change_ci, buf, n);
}

/* A side's value: the statistic in the metric's unit, or a proportion's
 * "60 of 600" (side 0 the baseline). */
static const char *fmt_side(const struct metric_cmp *c, int side, char *buf,
			    size_t n)
{
	if (c->proportion && c->j.events[side] >= 0)
		snprintf(buf, n, "%.0f of %.0f", c->j.events[side],
			 c->j.trials[side]);
	else
		fmt_value(side ? c->cand_median : c->base_median, c->unit, buf,
			  n);
	return buf;
}

/* The statistics a row shows: the median and the percentiles, or a
 * proportion alone. */
static int row_stats(const struct metric_cmp *c)
{
	return c->proportion ? 1 : COMPARE_NPCT + 1;
}

/* "~" before an approximate interval's change. */
static void approx_mark(char *ch, size_t n)
{
	size_t len = strlen(ch);

	if (len + 2 > n)
		return;
	memmove(ch + 1, ch, len + 1);
	ch[0] = '~';
}

static const char *colour_of(enum cmp_verdict verdict, bool on)
{
	if (verdict == CMP_SLOWER || verdict == CMP_WORSE)
		return term_red(on);
	if (verdict == CMP_FASTER || verdict == CMP_BETTER)
		return term_green(on);
	return "";
}

static void print_pct(FILE *fp, const struct metric_cmp *c,
		      const struct pct_cmp *pc, bool color)
{
	char a[32], b[32], ch[96], p[32];

	fmt_rel(pc->base, pc->change, pc->change_ci, ch, sizeof(ch));
	if (pc->approximate)
		approx_mark(ch, sizeof(ch));
	fmt_p_value(pc->p, p, sizeof(p));
	fprintf(fp, "  %-22s    %s ", "", stats_stat_name(pc->stat));
	term_pad(fp, fmt_value(pc->base, c->unit, a, sizeof(a)), 15, true);
	fputs(" → ", fp);
	term_pad(fp, fmt_value(pc->cand, c->unit, b, sizeof(b)), 15, false);
	fputc(' ', fp);
	term_pad(fp, ch, 28, false);	/* "∞" is one column, three bytes */
	fprintf(fp, " %-11s %s%s%s\n", isnan(pc->p) ? "" : p,
		colour_of(pc->verdict, color), cmp_verdict_name(pc->verdict),
		term_reset(color));
}

/* Why the inconclusive statistics are: each reason once (one family's
 * is every row's). */
static void print_whys(FILE *fp, const struct compare_report *rep)
{
	const char **seen = xmalloc((rep->n * (COMPARE_NPCT + 1) + 1) *
				    sizeof(*seen));
	size_t n = 0;

	for (size_t i = 0; i < rep->n; i++) {
		for (int s = 0; s < row_stats(&rep->rows[i]); s++) {
			const char *w = s ? rep->rows[i].pct[s - 1].j.why
					  : rep->rows[i].j.why;
			size_t k = 0;

			while (k < n && strcmp(seen[k], w))
				k++;
			if (!w[0] || k < n)
				continue;
			seen[n++] = w;
			fputs("inconclusive: ", fp);
			term_puts(fp, w);
			fputc('\n', fp);
		}
	}
	free(seen);
}

/* "x: metric wall_time not measured in the candidate (only in the
 * baseline)". */
static void print_one_side(FILE *fp, const struct metric_one_side *v,
			   size_t n, const char *where)
{
	for (size_t i = 0; i < n; i++) {
		term_puts(fp, v[i].benchmark);
		fputs(": metric ", fp);
		term_puts(fp, v[i].metric);
		fprintf(fp, " %s\n", where);
	}
}

void compare_print(const struct compare_report *rep, FILE *fp)
{
	bool color = term_use_color(fp);
	const char *last = NULL;
	size_t shown = 0;
	bool any_prop = false, any_dist = false, any_approx = false;

	for (size_t i = 0; i < rep->n; i++) {
		const struct metric_cmp *c = &rep->rows[i];
		char a[32], b[32], ch[96], p[32];

		/* Zero on both sides (major faults, migrations): nothing to
		 * read; the JSON still has it. */
		if (c->base_p99 == 0 && c->cand_p99 == 0 &&
		    c->base_median == 0 && c->cand_median == 0)
			continue;
		shown += (size_t)row_stats(c);
		any_prop |= c->proportion;
		any_dist |= !c->proportion;
		any_approx |= c->approximate;
		for (int k = 0; k + 1 < row_stats(c); k++)
			any_approx |= c->pct[k].approximate;
		if (!last || strcmp(last, c->benchmark)) {
			fputs(term_bold(color), fp);
			term_puts(fp, c->benchmark);
			fprintf(fp, "%s\n", term_reset(color));
			last = c->benchmark;
		}
		fmt_change(c, ch, sizeof(ch));
		if (c->approximate)
			approx_mark(ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fputs("  ", fp);
		term_pad(fp, c->metric, 22, false);
		fputs(c->proportion ? " odds   " : " median ", fp);
		term_pad(fp, fmt_side(c, 0, a, sizeof(a)), 15, true);
		fputs(" → ", fp);
		term_pad(fp, fmt_side(c, 1, b, sizeof(b)), 15, false);
		fputc(' ', fp);
		term_pad(fp, ch, 28, false);
		fprintf(fp, " %-11s %s%s%s\n", p,
			colour_of(c->verdict, color),
			cmp_verdict_name(c->verdict),
			term_reset(color));
		for (int k = 0; k + 1 < row_stats(c); k++)
			print_pct(fp, c, &c->pct[k], color);
	}
	for (size_t i = 0; i < rep->n_only_base; i++) {
		fputs("missing from the candidate (only in the baseline): ",
		      fp);
		term_puts(fp, rep->only_base[i]);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->n_only_cand; i++) {
		fputs("missing from the baseline (only in the candidate): ",
		      fp);
		term_puts(fp, rep->only_cand[i]);
		fputc('\n', fp);
	}
	print_one_side(fp, rep->mbase_only, rep->n_mbase_only,
		       "not measured in the candidate (only in the baseline)");
	print_one_side(fp, rep->mcand_only, rep->n_mcand_only,
		       "not measured in the baseline (only in the candidate)");
	print_whys(fp, rep);
	fprintf(fp, "%s(%zu comparison%s, %zu test%s: a change counts when "
		"the one-sided test against ±%g%% gives p < %g%s%s%s)%s\n",
		term_dim(color), shown, plural_s(shown), rep->tests,
		plural_s(rep->tests),
		100 * rep->noise, rep->alpha, rep->correction == JUDGE_HOLM
		? " after Holm's correction over all of them" : "",
		any_dist ? "; estimates Harrell-Davis" : "",
		any_approx ? "; ~: an approximate interval" : "",
		term_reset(color));
	if (any_prop)
		fprintf(fp, "%s(odds: events of trials, such as failed "
			"requests; the change is the odds ratio's, by the "
			"exact conditional test)%s\n", term_dim(color),
			term_reset(color));
}

static json_t *one_side_json(const struct metric_one_side *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();

		json_object_set_new(o, "benchmark", json_text(v[i].benchmark));
		json_object_set_new(o, "metric", json_text(v[i].metric));
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *row_json(const struct metric_cmp *c)
{
	json_t *o = json_object(), *pcts = json_array();

	json_object_set_new(o, "benchmark", json_text(c->benchmark));
	json_object_set_new(o, "metric", json_text(c->metric));
	json_object_set_new(o, "unit", json_text(c->unit));
	json_object_set_new(o, "baseline", json_pack("{s:o,s:o,s:o,s:I}",
		"median", json_number(c->base_median), "p95", json_number(c->base_p95),
		"p99", json_number(c->base_p99), "n", (json_int_t)c->base_n));
	json_object_set_new(o, "candidate", json_pack("{s:o,s:o,s:o,s:I}",
		"median", json_number(c->cand_median), "p95", json_number(c->cand_p95),
		"p99", json_number(c->cand_p99), "n", (json_int_t)c->cand_n));
	if (c->proportion) {
		/* new keys: the counts behind the proportions */
		json_t *ob = json_object_get(o, "baseline");
		json_t *oc = json_object_get(o, "candidate");

		json_object_set_new(ob, "events", json_number(c->j.events[0]));
		json_object_set_new(ob, "trials", json_number(c->j.trials[0]));
		json_object_set_new(oc, "events", json_number(c->j.events[1]));
		json_object_set_new(oc, "trials", json_number(c->j.trials[1]));
		json_object_set_new(o, "statistic", json_string("odds"));
	}
	json_object_set_new(o, "change", json_number(c->change));
	json_object_set_new(o, "change_ci", json_pack("[o,o]",
		json_number(c->change_ci[0]), json_number(c->change_ci[1])));
	json_object_set_new(o, "ci_method", json_string(c->ci_method ?
		c->ci_method : "none"));
	json_object_set_new(o, "p_value", json_number(c->p));
	json_object_set_new(o, "p_adjusted", json_number(c->p_adj));
	json_object_set_new(o, "approximate", json_boolean(c->approximate));
	json_object_set_new(o, "verdict",
			    json_string(cmp_verdict_name(c->verdict)));
	if (c->j.why[0])
		json_object_set_new(o, "why", json_string(c->j.why));
	json_object_set_new(o, "percentiles", pcts);
	for (int k = 0; k + 1 < row_stats(c); k++) {
		const struct pct_cmp *pc = &c->pct[k];
		json_t *po = json_pack(
			"{s:s,s:o,s:o,s:o,s:[o,o],s:o,s:o,s:b,s:s,s:s}",
			"stat", stats_stat_name(pc->stat),
			"baseline", json_number(pc->base), "candidate", json_number(pc->cand),
			"change", json_number(pc->change), "change_ci",
			json_number(pc->change_ci[0]), json_number(pc->change_ci[1]),
			"p_value", json_number(pc->p), "p_adjusted", json_number(pc->p_adj),
			"approximate", pc->approximate,
			"verdict", cmp_verdict_name(pc->verdict),
			"method", pc->method ? pc->method : "none");

		if (pc->j.why[0])
			json_object_set_new(po, "why", json_string(pc->j.why));
		json_array_append_new(pcts, po);
	}
	return o;
}

static json_t *names_json(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_text(v[i]));
	return a;
}

int compare_write_json(const struct compare_report *rep, const char *path,
		       struct error *e)
{
	json_t *root = json_object(), *rows = json_array();

	json_object_set_new(root, "schema",
			    json_string("yardstick/compare/v1"));
	json_object_set_new(root, "alpha", json_number(rep->alpha));
	json_object_set_new(root, "noise_threshold", json_number(rep->noise));
	json_object_set_new(root, "correction", json_string(
		judge_correction_name(rep->correction)));
	json_object_set_new(root, "tests", json_integer((json_int_t)rep->tests));
	for (size_t i = 0; i < rep->n; i++)
		json_array_append_new(rows, row_json(&rep->rows[i]));
	json_object_set_new(root, "comparisons", rows);
	json_object_set_new(root, "only_in_baseline",
			    names_json(rep->only_base, rep->n_only_base));
	json_object_set_new(root, "only_in_candidate",
			    names_json(rep->only_cand, rep->n_only_cand));
	json_object_set_new(root, "metrics_only_in_baseline",
			    one_side_json(rep->mbase_only, rep->n_mbase_only));
	json_object_set_new(root, "metrics_only_in_candidate",
			    one_side_json(rep->mcand_only, rep->n_mcand_only));
	return json_write_file(root, path, e);
}

static void md_row(FILE *fp, const struct metric_cmp *c, const char *stat,
		   double base, double cand, const char *ch, double pv,
		   enum cmp_verdict verdict)
{
	char a[48], b[48], p[32];
	bool bold = verdict != CMP_UNCHANGED;

	fmt_p_value(pv, p, sizeof(p));
	fputs("| ", fp);
	fputs_markdown(c->benchmark, fp);
	fputs(" | ", fp);
	fputs_markdown(c->metric, fp);
	fprintf(fp, "%s%s | ", *stat ? " " : "", stat);
	/* values and changes carry the unit, which came from a file */
	fputs_markdown(c->proportion ? fmt_side(c, 0, a, sizeof(a))
		       : fmt_value(base, c->unit, a, sizeof(a)), fp);
	fputs(" | ", fp);
	fputs_markdown(c->proportion ? fmt_side(c, 1, b, sizeof(b))
		       : fmt_value(cand, c->unit, b, sizeof(b)), fp);
	fputs(" | ", fp);
	fputs_markdown(ch, fp);
	fprintf(fp, " | %s | %s%s%s |\n",
		isnan(pv) ? "" : strcmp(p, "p < 0.001") ? p : "p &lt; 0.001",
		bold ? "**" : "", cmp_verdict_name(verdict), bold ? "**" : "");
}

/* "Not measured in the candidate (only in the baseline): x, metric
 * wall\_time". */
static void md_one_side(FILE *fp, const struct metric_one_side *v, size_t n,
			const char *where)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(fp, "\n%s: ", where);
		fputs_markdown(v[i].benchmark, fp);
		fputs(", metric ", fp);
		fputs_markdown(v[i].metric, fp);
		fputc('\n', fp);
	}
}

int compare_write_markdown(const struct compare_report *rep,
			   const char *path, struct error *e)
{
	struct atomic_file af;
	bool any_prop = false, any_dist = false;
	FILE *fp;

	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fputs("| Benchmark | Metric | Baseline | Candidate | "
	      "Change [95% CI] | p | Verdict |\n"
	      "|:---|:---|---:|---:|---:|---:|:---|\n", fp);
	for (size_t i = 0; i < rep->n; i++) {
		const struct metric_cmp *c = &rep->rows[i];
		char ch[96];

		fmt_change(c, ch, sizeof(ch));
		md_row(fp, c, c->proportion ? "odds" : "", c->base_median,
		       c->cand_median, ch, c->p, c->verdict);
		/* percentiles that changed: the table stays short */
		for (int k = 0; k + 1 < row_stats(c); k++) {
			const struct pct_cmp *pc = &c->pct[k];

			if (pc->verdict == CMP_UNCHANGED)
				continue;
			fmt_rel(pc->base, pc->change, pc->change_ci, ch,
				sizeof(ch));
			md_row(fp, c, stats_stat_name(pc->stat), pc->base,
			       pc->cand, ch, pc->p, pc->verdict);
		}
	}
	for (size_t i = 0; i < rep->n_only_base; i++) {
		fputs("\nMissing from the candidate (only in the baseline): ",
		      fp);
		fputs_markdown(rep->only_base[i], fp);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->n_only_cand; i++) {
		fputs("\nMissing from the baseline (only in the candidate): ",
		      fp);
		fputs_markdown(rep->only_cand[i], fp);
		fputc('\n', fp);
	}
	md_one_side(fp, rep->mbase_only, rep->n_mbase_only,
		    "Not measured in the candidate (only in the baseline)");
	md_one_side(fp, rep->mcand_only, rep->n_mcand_only,
		    "Not measured in the baseline (only in the candidate)");
	for (size_t i = 0; i < rep->n; i++) {
		any_prop |= rep->rows[i].proportion;
		any_dist |= !rep->rows[i].proportion;
	}
	fprintf(fp, "\n%sA change counts when the one-sided test against "
		"±%g%% gives p < %g%s (%zu test%s).%s\n", any_dist ?
		"Values are Harrell-Davis estimates of the median, or of the "
		"percentile named. " : "", 100 * rep->noise, rep->alpha,
		rep->correction == JUDGE_HOLM ? " after Holm's correction" : "",
		rep->tests, plural_s(rep->tests), any_prop ? " Odds rows are events of trials (such "
		"as failed requests); their change is the odds ratio's, by the "
		"exact conditional test."
		: "");
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
