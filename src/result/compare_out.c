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

#include "result/json_emit.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

static void fmt_change(const struct metric_cmp *c, char *buf, size_t n)
{
	if (!isfinite(c->change)) {
		snprintf(buf, n, "-");
		return;
	}
	if (isfinite(c->change_ci[0]))
		snprintf(buf, n, "%+.1f%% [%+.1f%%, %+.1f%%]", 100 * c->change,
			 100 * c->change_ci[0], 100 * c->change_ci[1]);
	else
		snprintf(buf, n, "%+.1f%%", 100 * c->change);
}

static const char *colour_of(const char *verdict, bool on)
{
	if (!strcmp(verdict, "slower") || !strcmp(verdict, "worse"))
		return term_red(on);
	if (!strcmp(verdict, "faster") || !strcmp(verdict, "better"))
		return term_green(on);
	return "";
}

void compare_print(const struct compare_report *rep, FILE *fp)
{
	bool color = term_use_color(fp);
	const char *last = NULL;

	for (size_t i = 0; i < rep->n; i++) {
		const struct metric_cmp *c = &rep->rows[i];
		char a[32], b[32], ch[96], p[32];

		/* Zero on both sides (major faults, migrations): nothing to
		 * read; the JSON still has it. */
		if (c->base_p99 == 0 && c->cand_p99 == 0 &&
		    c->base_median == 0 && c->cand_median == 0)
			continue;
		if (!last || strcmp(last, c->benchmark)) {
			fputs(term_bold(color), fp);
			term_puts(fp, c->benchmark);
			fprintf(fp, "%s\n", term_reset(color));
			last = c->benchmark;
		}
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fputs("  ", fp);
		term_pad(fp, c->metric, 22, false);
		fputs(" median ", fp);
		term_pad(fp, fmt_value(c->base_median, c->unit, a, sizeof(a)),
			 11, true);
		fputs(" → ", fp);
		term_pad(fp, fmt_value(c->cand_median, c->unit, b, sizeof(b)),
			 11, false);
		fprintf(fp, " %-28s %-11s %s%s%s\n", ch, p,
			colour_of(c->verdict, color), c->verdict,
			term_reset(color));
		fprintf(fp, "  %-22s    p95 ", "");
		term_pad(fp, fmt_value(c->base_p95, c->unit, a, sizeof(a)), 11,
			 true);
		fputs(" → ", fp);
		term_pad(fp, fmt_value(c->cand_p95, c->unit, b, sizeof(b)), 11,
			 false);
		fputs("   p99 ", fp);
		term_puts(fp, fmt_value(c->base_p99, c->unit, a, sizeof(a)));
		fputs(" → ", fp);
		term_puts(fp, fmt_value(c->cand_p99, c->unit, b, sizeof(b)));
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->n_only_base; i++) {
		fputs("only in the baseline: ", fp);
		term_puts(fp, rep->only_base[i]);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->n_only_cand; i++) {
		fputs("only in the candidate: ", fp);
		term_puts(fp, rep->only_cand[i]);
		fputc('\n', fp);
	}
	fprintf(fp, "%s(a change counts when p < %g and its 95%% CI lies "
		"beyond ±%g%%)%s\n", term_dim(color), rep->alpha,
		100 * rep->noise, term_reset(color));
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *row_json(const struct metric_cmp *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "benchmark", json_text(c->benchmark));
	json_object_set_new(o, "metric", json_text(c->metric));
	json_object_set_new(o, "unit", json_text(c->unit));
	json_object_set_new(o, "baseline", json_pack("{s:o,s:o,s:o,s:I}",
		"median", num(c->base_median), "p95", num(c->base_p95),
		"p99", num(c->base_p99), "n", (json_int_t)c->base_n));
	json_object_set_new(o, "candidate", json_pack("{s:o,s:o,s:o,s:I}",
		"median", num(c->cand_median), "p95", num(c->cand_p95),
		"p99", num(c->cand_p99), "n", (json_int_t)c->cand_n));
	json_object_set_new(o, "change", num(c->change));
	json_object_set_new(o, "change_ci", json_pack("[o,o]",
		num(c->change_ci[0]), num(c->change_ci[1])));
	json_object_set_new(o, "ci_method", json_string(c->ci_method ?
		c->ci_method : "none"));
	json_object_set_new(o, "p_value", num(c->p));
	json_object_set_new(o, "verdict", json_string(c->verdict));
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
	json_object_set_new(root, "alpha", json_real(rep->alpha));
	json_object_set_new(root, "noise_threshold", json_real(rep->noise));
	for (size_t i = 0; i < rep->n; i++)
		json_array_append_new(rows, row_json(&rep->rows[i]));
	json_object_set_new(root, "comparisons", rows);
	json_object_set_new(root, "only_in_baseline",
			    names_json(rep->only_base, rep->n_only_base));
	json_object_set_new(root, "only_in_candidate",
			    names_json(rep->only_cand, rep->n_only_cand));
	return json_write_file(root, path, e);
}

int compare_write_markdown(const struct compare_report *rep,
			   const char *path, struct error *e)
{
	struct atomic_file af;
	FILE *fp;

	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fputs("| Benchmark | Metric | Baseline median | Candidate median | "
	      "Change [95% CI] | p | Verdict |\n"
	      "|:---|:---|---:|---:|---:|---:|:---|\n", fp);
	for (size_t i = 0; i < rep->n; i++) {
		const struct metric_cmp *c = &rep->rows[i];
		char a[32], b[32], ch[96], p[32];

		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fputs("| ", fp);
		fputs_markdown(c->benchmark, fp);
		fputs(" | ", fp);
		fputs_markdown(c->metric, fp);
		fputs(" | ", fp);
		/* Units come from the result files. */
		fputs_markdown(fmt_value(c->base_median, c->unit, a, sizeof(a)),
			       fp);
		fputs(" | ", fp);
		fputs_markdown(fmt_value(c->cand_median, c->unit, b, sizeof(b)),
			       fp);
		fprintf(fp, " | %s | %s | %s%s%s |\n", ch,
			strcmp(p, "p < 0.001") ? p : "p &lt; 0.001",
			strcmp(c->verdict, "unchanged") ? "**" : "",
			c->verdict, strcmp(c->verdict, "unchanged") ? "**" : "");
	}
	for (size_t i = 0; i < rep->n_only_base; i++) {
		fputs("\nOnly in the baseline: ", fp);
		fputs_markdown(rep->only_base[i], fp);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->n_only_cand; i++) {
		fputs("\nOnly in the candidate: ", fp);
		fputs_markdown(rep->only_cand[i], fp);
		fputc('\n', fp);
	}
	fprintf(fp, "\nA change counts when p < %g and its 95%% CI lies beyond "
		"±%g%%.\n", rep->alpha, 100 * rep->noise);
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
