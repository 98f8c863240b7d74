/*
 * The gate report: a line per check on the terminal, a Markdown table for
 * a pull-request comment or $GITHUB_STEP_SUMMARY, JUnit XML with one
 * test case per check so that CI systems list them natively, and JSON
 * for scripts: all from the one gate_report.
 */
#include "result/gate.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/json_emit.h"
#include "util/strutil.h"
#include "util/term.h"

/* One signed amount: "+4.000 ms", "+12.0%", "+∞" / "-∞" (from 0, or a
 * bound the runs cannot set), "?" for none: never "nan". */
static const char *fmt_amount(const struct gate_check *c, double v,
			      char *buf, size_t n)
{
	char x[32];

	if (isnan(v))
		snprintf(buf, n, "?");
	else if (isinf(v))
		snprintf(buf, n, "%s∞", v > 0 ? "+" : "-");
	else if (c->relative)
		fmt_change_pct(v, buf, n);
	else
		snprintf(buf, n, "%s%s", v >= 0 ? "+" : "",
			 fmt_value(v, c->unit ? c->unit : "", x, sizeof(x)));
	return buf;
}

/* "+4.000 ms [+1.200 ms, +6.800 ms]" or "+12.0% [+8.1%, +15.9%]". */
static void fmt_change(const struct gate_check *c, char *buf, size_t n)
{
	char a[40], b[40], x[40];

	if (c->relative && c->base == 0 && c->cand == 0) {
		snprintf(buf, n, "none (0 → 0)");
		return;
	}
	if (isnan(c->change)) {
		snprintf(buf, n, "-");
		return;
	}
	fmt_amount(c, c->change, x, sizeof(x));
	if (isnan(c->change_ci[0]) && isnan(c->change_ci[1]))
		snprintf(buf, n, "%s", x);
	else
		snprintf(buf, n, "%s [%s, %s]", x,
			 fmt_amount(c, c->change_ci[0], a, sizeof(a)),
			 fmt_amount(c, c->change_ci[1], b, sizeof(b)));
}

/* A side's statistic (side 0 the baseline), or a proportion's events of
 * trials, "60 of 600". */
static void fmt_stat(const struct gate_check *c, int side, char *buf,
		     size_t n)
{
	double v = side ? c->cand : c->base;

	if (c->judged && c->j.proportion && c->j.events[side] >= 0)
		snprintf(buf, n, "%.0f of %.0f", c->j.events[side],
			 c->j.trials[side]);
	else if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		fmt_value(v, c->unit ? c->unit : "", buf, n);
}

/* What was judged: the statistic, or a proportion's odds. */
static const char *stat_label(const struct gate_check *c)
{
	return c->judged && c->j.proportion ? "odds"
	       : stats_stat_name(c->stat);
}

static const char *rule(const struct gate_check *c)
{
	return c->kind == GATE_LIMIT ? "limit"
	       : c->kind == GATE_DECREASE ? "max decrease" : "max increase";
}

static const char *label(const struct gate_check *c)
{
	if (c->verdict == GATE_FAIL)
		return "FAIL";
	return gate_verdict_name(c->verdict);
}

/* " (1 could not be made, 2 inconclusive: allowed)" or "". */
static void fmt_undecided(const struct gate_report *rep, char *buf, size_t n)
{
	char m[96] = "", i[96] = "";

	if (rep->missing)
		snprintf(m, sizeof(m), "%zu could not be made%s", rep->missing,
			 rep->missing_pass ? " (allowed by --missing pass)"
			 : "");
	if (rep->inconclusive)
		snprintf(i, sizeof(i), "%zu inconclusive%s", rep->inconclusive,
			 rep->inconclusive_pass
			 ? " (allowed by --inconclusive pass)" : "");
	if (*m || *i)
		snprintf(buf, n, " (%s%s%s)", m, *m && *i ? ", " : "", i);
	else
		*buf = '\0';
}

/* Which correction applied, in words; NULL when no check was tested (only
 * limits, or every check missing or inconclusive): there was nothing to
 * correct, and "over the 0 tested checks" would say otherwise. */
static const char *correction_text(const struct gate_report *rep)
{
	static char buf[160];

	if (!rep->tested)
		return NULL;
	if (rep->correction == JUDGE_HOLM)
		snprintf(buf, sizeof(buf), "Holm's correction over the %zu "
			 "tested check%s: a check fails when its adjusted p < "
			 "%g", rep->tested, plural_s(rep->tested), rep->alpha);
	else
		snprintf(buf, sizeof(buf), "no correction: %zu tested "
			 "check%s, each at p < %g on its own", rep->tested,
			 plural_s(rep->tested), rep->alpha);
	return buf;
}

void gate_print(const struct gate_report *rep, FILE *fp)
{
	bool color = term_use_color(fp);
	char undecided[256];

	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, 0, base, sizeof(base));
		fmt_stat(c, 1, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fprintf(fp, "%s%-7s%s ",
			c->fails ? term_red(color) : c->verdict == GATE_PASS
			? term_green(color) : term_yellow(color), label(c),
			term_reset(color));
		/* Names, thresholds, units: from files and the command
		 * line, so escaped for the terminal. */
		term_puts(fp, c->benchmark);
		fprintf(fp, ": %s ", rule(c));
		term_puts(fp, c->threshold);
		fputs(" (", fp);
		term_puts(fp, c->note ? c->note : "");
		fputs(")\n", fp);
		if (c->verdict != GATE_MISSING) {
			fprintf(fp, "        %s: ", stat_label(c));
			term_puts(fp, base);
			fputs(" → ", fp);
			term_puts(fp, cand);
			fputs(", change ", fp);
			term_puts(fp, ch);
			fprintf(fp, "%s%s", isnan(c->p) ? "" : ", ",
				isnan(c->p) ? "" : p);
			if (!isnan(c->p_adj) && c->p_adj != c->p) {
				fmt_p_value(c->p_adj, p, sizeof(p));
				fprintf(fp, " (adjusted %s)", p);
			}
			fprintf(fp, "%s\n", c->approximate
				? " (approximate interval)" : "");
		}
	}
	for (size_t i = 0; i < rep->nunmatched; i++) {
		fprintf(fp, "%sno check of ", term_dim(color));
		term_puts(fp, rep->unmatched[i]);
		fprintf(fp, ": no benchmark matches its pattern%s\n",
			term_reset(color));
	}
	fmt_undecided(rep, undecided, sizeof(undecided));
	fprintf(fp, "%sgate: %zu of %zu check%s failed%s%s\n",
		term_bold(color), rep->failed, rep->n, plural_s(rep->n),
		undecided,
		term_reset(color));
	if (correction_text(rep))
		fprintf(fp, "%s(%s)%s\n", term_dim(color),
			correction_text(rep), term_reset(color));
}

int gate_write_markdown(const struct gate_report *rep, const char *path,
			struct error *e)
{
	char undecided[256];
	struct atomic_file af;
	FILE *fp;

	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fprintf(fp, "### yardstick gate: %s\n\n", rep->failed
		? "regression found" : "passed");
	fputs("| | Benchmark | Check | Statistic | Baseline | Candidate | "
	      "Change [95% CI] | p | Adjusted p |\n|:---|:---|:---|:---|---:|"
	      "---:|---:|---:|---:|\n", fp);
	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, 0, base, sizeof(base));
		fmt_stat(c, 1, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fprintf(fp, "| %s | ", c->fails ? "❌"
			: c->verdict == GATE_PASS ? "✅" : "⚠️");
		fputs_markdown(c->benchmark, fp);
		fprintf(fp, " | %s ", rule(c));
		fputs_markdown(c->threshold, fp);
		fprintf(fp, " | %s | ", stat_label(c));
		/* Units come from the result files. */
		fputs_markdown(base, fp);
		fputs(" | ", fp);
		fputs_markdown(cand, fp);
		fputs(" | ", fp);
		fputs_markdown(ch, fp);
		fputs(" | ", fp);
		fputs_markdown(p, fp);
		fputs(" | ", fp);
		fmt_p_value(c->p_adj, p, sizeof(p));
		fputs_markdown(isnan(c->p_adj) ? "" : p, fp);
		fputs(c->approximate ? " (approximate interval) |\n" : " |\n",
		      fp);
	}
	/* why a check could not be made or decided */
	for (size_t i = 0, listed = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];

		if (c->verdict == GATE_PASS || c->verdict == GATE_FAIL)
			continue;
		fputs(listed++ ? "- " : "\n- ", fp);
		fputs_markdown(c->benchmark, fp);
		fprintf(fp, ", %s ", rule(c));
		fputs_markdown(c->threshold, fp);
		fprintf(fp, ": %s: ", gate_verdict_name(c->verdict));
		fputs_markdown(c->note ? c->note : "", fp);
		fputc('\n', fp);
	}
	for (size_t i = 0; i < rep->nunmatched; i++) {
		fputs(i ? "- no check of " : "\n- no check of ", fp);
		fputs_markdown(rep->unmatched[i], fp);
		fputs(": no benchmark matches its pattern\n", fp);
	}
	fmt_undecided(rep, undecided, sizeof(undecided));
	fprintf(fp, "\n%zu of %zu check%s failed%s. A threshold is broken "
		"when the change is significantly beyond it (p < %g, p being "
		"one-sided: that the change is within the threshold).%s%s%s\n",
		rep->failed, rep->n, plural_s(rep->n), undecided, rep->alpha,
		correction_text(rep) ? " " : "",
		correction_text(rep) ? correction_text(rep) : "",
		correction_text(rep) ? "." : "");
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}

/* "p95: 1 s -> 2 s, change " in XML: the values carry units from the
 * result files. */
static void put_xml_change(const struct gate_check *c, const char *base,
			   const char *cand, FILE *fp)
{
	fprintf(fp, "%s: ", stat_label(c));
	fputs_xml(base, fp);
	fputs(" -&gt; ", fp);
	fputs_xml(cand, fp);
	fputs(", change ", fp);
}

/* ", adjusted p = 0.012 (holm)" */
static void put_xml_adjusted(const struct gate_report *rep,
			     const struct gate_check *c, FILE *fp)
{
	char p[32];

	if (isnan(c->p_adj))
		return;
	fmt_p_value(c->p_adj, p, sizeof(p));
	fputs(", adjusted ", fp);
	fputs_xml(p, fp);
	fprintf(fp, " (%s)", judge_correction_name(rep->correction));
}

int gate_write_junit(const struct gate_report *rep, const char *path,
		     struct error *e)
{
	struct atomic_file af;
	size_t skipped = 0;
	FILE *fp;

	for (size_t i = 0; i < rep->n; i++)
		skipped += !rep->checks[i].fails &&
			   rep->checks[i].verdict != GATE_PASS;
	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"yardstick gate\" tests=\"%zu\" "
		"failures=\"%zu\">\n  <testsuite name=\"yardstick gate\" "
		"tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", rep->n,
		rep->failed, rep->n, rep->failed, skipped);
	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, 0, base, sizeof(base));
		fmt_stat(c, 1, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fputs("    <testcase classname=\"", fp);
		fputs_xml(c->benchmark, fp);
		fprintf(fp, "\" name=\"%s ", rule(c));
		fputs_xml(c->threshold, fp);
		fputs("\">\n", fp);
		if (c->fails) {
			fputs("      <failure message=\"", fp);
			fputs_xml(c->note ? c->note : "failed", fp);
			fputs("\">", fp);
			put_xml_change(c, base, cand, fp);
			fputs_xml(ch, fp);
			fputs(", ", fp);
			fputs_xml(p, fp);
			put_xml_adjusted(rep, c, fp);
			fputs("</failure>\n", fp);
		} else if (c->verdict != GATE_PASS) {
			/* missing or inconclusive, and allowed */
			fputs("      <skipped message=\"", fp);
			fputs_xml(c->note ? c->note : "", fp);
			fputs("\"/>\n", fp);
		} else {
			fputs("      <system-out>", fp);
			put_xml_change(c, base, cand, fp);
			fputs_xml(ch, fp);
			fputs(", ", fp);
			fputs_xml(p, fp);
			put_xml_adjusted(rep, c, fp);
			fputs("</system-out>\n", fp);
		}
		fputs("    </testcase>\n", fp);
	}
	fputs("  </testsuite>\n</testsuites>\n", fp);
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}

/* One check in JSON: the numbers unrounded (NaN as null), the words of
 * the terminal's line. */
static json_t *check_json(const struct gate_check *c)
{
	json_t *o = json_object();

	json_object_set_new(o, "benchmark", json_text(c->benchmark));
	json_object_set_new(o, "metric", json_text(c->metric));
	json_object_set_new(o, "unit", c->unit ? json_text(c->unit)
					       : json_null());
	json_object_set_new(o, "rule", json_string(rule(c)));
	json_object_set_new(o, "threshold", json_text(c->threshold));
	json_object_set_new(o, "statistic", json_string(stat_label(c)));
	json_object_set_new(o, "relative", json_boolean(c->relative));
	json_object_set_new(o, "limit", json_number(c->limit));
	json_object_set_new(o, "baseline", json_number(c->base));
	json_object_set_new(o, "candidate", json_number(c->cand));
	json_object_set_new(o, "change", json_number(c->change));
	json_object_set_new(o, "change_ci", json_pack("[o,o]",
		json_number(c->change_ci[0]), json_number(c->change_ci[1])));
	json_object_set_new(o, "ci_method", json_string(c->method ?
		c->method : "none"));
	json_object_set_new(o, "approximate", json_boolean(c->approximate));
	json_object_set_new(o, "p_value", json_number(c->p));
	json_object_set_new(o, "p_adjusted", json_number(c->p_adj));
	json_object_set_new(o, "verdict",
			    json_string(gate_verdict_name(c->verdict)));
	json_object_set_new(o, "fails", json_boolean(c->fails));
	json_object_set_new(o, "note", c->note ? json_text(c->note)
					       : json_null());
	return o;
}

int gate_write_json(const struct gate_report *rep, const char *path,
		    struct error *e)
{
	json_t *root = json_object(), *checks = json_array();
	json_t *unmatched = json_array();

	json_object_set_new(root, "schema", json_string("yardstick/gate/v1"));
	json_object_set_new(root, "passed", json_boolean(!rep->failed));
	json_object_set_new(root, "checks_total",
			    json_integer((json_int_t)rep->n));
	json_object_set_new(root, "failed",
			    json_integer((json_int_t)rep->failed));
	json_object_set_new(root, "missing",
			    json_integer((json_int_t)rep->missing));
	json_object_set_new(root, "inconclusive",
			    json_integer((json_int_t)rep->inconclusive));
	json_object_set_new(root, "missing_pass",
			    json_boolean(rep->missing_pass));
	json_object_set_new(root, "inconclusive_pass",
			    json_boolean(rep->inconclusive_pass));
	json_object_set_new(root, "alpha", json_number(rep->alpha));
	json_object_set_new(root, "correction", json_string(
		judge_correction_name(rep->correction)));
	json_object_set_new(root, "tests",
			    json_integer((json_int_t)rep->tested));
	for (size_t i = 0; i < rep->n; i++)
		json_array_append_new(checks, check_json(&rep->checks[i]));
	json_object_set_new(root, "checks", checks);
	for (size_t i = 0; i < rep->nunmatched; i++)
		json_array_append_new(unmatched, json_text(rep->unmatched[i]));
	json_object_set_new(root, "unmatched", unmatched);
	return json_write_file(root, path, e);
}
