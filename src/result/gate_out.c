/*
 * The gate report: a line per check on the terminal, a Markdown table for
 * a pull-request comment or $GITHUB_STEP_SUMMARY, and JUnit XML with one
 * test case per check so that CI systems list them natively.
 */
#include "result/gate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

/* "+4.000 ms [+1.200 ms, +6.800 ms]" or "+12.0% [+8.1%, +15.9%]". */
static void fmt_change(const struct gate_check *c, char *buf, size_t n)
{
	char a[32], b[32], x[32];
	const char *unit = c->unit ? c->unit : "";

	if (!isfinite(c->change)) {
		snprintf(buf, n, "-");
	} else if (c->relative) {
		if (isfinite(c->change_ci[0]))
			snprintf(buf, n, "%+.1f%% [%+.1f%%, %+.1f%%]",
				 100 * c->change, 100 * c->change_ci[0],
				 100 * c->change_ci[1]);
		else
			snprintf(buf, n, "%+.1f%%", 100 * c->change);
	} else {
		fmt_value(c->change, unit, x, sizeof(x));
		if (isfinite(c->change_ci[0]))
			snprintf(buf, n, "%s%s [%s%s, %s%s]",
				 c->change >= 0 ? "+" : "", x,
				 c->change_ci[0] >= 0 ? "+" : "",
				 fmt_value(c->change_ci[0], unit, a, sizeof(a)),
				 c->change_ci[1] >= 0 ? "+" : "",
				 fmt_value(c->change_ci[1], unit, b, sizeof(b)));
		else
			snprintf(buf, n, "%s%s", c->change >= 0 ? "+" : "", x);
	}
}

static void fmt_stat(const struct gate_check *c, double v, char *buf,
		     size_t n)
{
	if (!isfinite(v))
		snprintf(buf, n, "-");
	else
		fmt_value(v, c->unit ? c->unit : "", buf, n);
}

static const char *rule(const struct gate_check *c)
{
	return c->kind == GATE_LIMIT ? "limit"
	       : c->kind == GATE_DECREASE ? "max decrease" : "max increase";
}

void gate_print(const struct gate_report *rep, FILE *fp)
{
	bool color = term_use_color(fp);

	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		bool fail = !strcmp(c->verdict, "fail");
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, c->base, base, sizeof(base));
		fmt_stat(c, c->cand, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fprintf(fp, "%s%-7s%s ",
			fail ? term_red(color) : !strcmp(c->verdict, "pass")
			? term_green(color) : term_yellow(color),
			fail ? "FAIL" : !strcmp(c->verdict, "pass") ? "pass"
			: "missing", term_reset(color));
		/* Names, thresholds, units: from files and the command
		 * line, so escaped for the terminal. */
		term_puts(fp, c->benchmark);
		fprintf(fp, ": %s ", rule(c));
		term_puts(fp, c->threshold);
		fputs(" (", fp);
		term_puts(fp, c->note ? c->note : "");
		fputs(")\n", fp);
		if (strcmp(c->verdict, "missing")) {
			fprintf(fp, "        %s: ", stats_stat_name(c->stat));
			term_puts(fp, base);
			fputs(" → ", fp);
			term_puts(fp, cand);
			fputs(", change ", fp);
			term_puts(fp, ch);
			fprintf(fp, ", %s\n", p);
		}
	}
	fprintf(fp, "%sgate: %zu of %zu checks failed%s%s\n",
		term_bold(color), rep->failed, rep->n,
		rep->missing ? " (some could not be made)" : "",
		term_reset(color));
}

int gate_write_markdown(const struct gate_report *rep, const char *path,
			struct error *e)
{
	struct atomic_file af;
	FILE *fp;

	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fprintf(fp, "### yardstick gate: %s\n\n", rep->failed
		? "regression found" : "passed");
	fputs("| | Benchmark | Check | Statistic | Baseline | Candidate | "
	      "Change [95% CI] | p |\n|:---|:---|:---|:---|---:|---:|---:|"
	      "---:|\n", fp);
	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, c->base, base, sizeof(base));
		fmt_stat(c, c->cand, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fprintf(fp, "| %s | ", !strcmp(c->verdict, "fail") ? "❌"
			: !strcmp(c->verdict, "pass") ? "✅" : "⚠️");
		fputs_markdown(c->benchmark, fp);
		fprintf(fp, " | %s ", rule(c));
		fputs_markdown(c->threshold, fp);
		fprintf(fp, " | %s | ", stats_stat_name(c->stat));
		/* Units come from the result files. */
		fputs_markdown(base, fp);
		fputs(" | ", fp);
		fputs_markdown(cand, fp);
		fputs(" | ", fp);
		fputs_markdown(ch, fp);
		fputs(" | ", fp);
		fputs_markdown(p, fp);
		fputs(" |\n", fp);
	}
	fprintf(fp, "\n%zu of %zu checks failed. A threshold is broken when "
		"the change exceeds it and is significant (p < %g).\n",
		rep->failed, rep->n, rep->alpha);
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}

/* "p95: 1 s -> 2 s, change " in XML: the values carry units from the
 * result files. */
static void put_xml_change(const struct gate_check *c, const char *base,
			   const char *cand, FILE *fp)
{
	fprintf(fp, "%s: ", stats_stat_name(c->stat));
	fputs_xml(base, fp);
	fputs(" -&gt; ", fp);
	fputs_xml(cand, fp);
	fputs(", change ", fp);
}

int gate_write_junit(const struct gate_report *rep, const char *path,
		     struct error *e)
{
	struct atomic_file af;
	FILE *fp;

	if (atomic_open(&af, path, e))
		return -1;
	fp = af.fp;
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<testsuites name=\"yardstick gate\" tests=\"%zu\" "
		"failures=\"%zu\">\n  <testsuite name=\"yardstick gate\" "
		"tests=\"%zu\" failures=\"%zu\" skipped=\"%zu\">\n", rep->n,
		rep->failed, rep->n, rep->failed, rep->missing);
	for (size_t i = 0; i < rep->n; i++) {
		const struct gate_check *c = &rep->checks[i];
		char base[32], cand[32], ch[128], p[32];

		fmt_stat(c, c->base, base, sizeof(base));
		fmt_stat(c, c->cand, cand, sizeof(cand));
		fmt_change(c, ch, sizeof(ch));
		fmt_p_value(c->p, p, sizeof(p));
		fputs("    <testcase classname=\"", fp);
		fputs_xml(c->benchmark, fp);
		fprintf(fp, "\" name=\"%s ", rule(c));
		fputs_xml(c->threshold, fp);
		fputs("\">\n", fp);
		if (!strcmp(c->verdict, "fail")) {
			fputs("      <failure message=\"", fp);
			fputs_xml(c->note ? c->note : "failed", fp);
			fputs("\">", fp);
			put_xml_change(c, base, cand, fp);
			fputs_xml(ch, fp);
			fputs(", ", fp);
			fputs_xml(p, fp);
			fputs("</failure>\n", fp);
		} else if (!strcmp(c->verdict, "missing")) {
			fputs("      <skipped message=\"", fp);
			fputs_xml(c->note ? c->note : "", fp);
			fputs("\"/>\n", fp);
		} else {
			fputs("      <system-out>", fp);
			put_xml_change(c, base, cand, fp);
			fputs_xml(ch, fp);
			fputs(", ", fp);
			fputs_xml(p, fp);
			fputs("</system-out>\n", fp);
		}
		fputs("    </testcase>\n", fp);
	}
	fputs("  </testsuite>\n</testsuites>\n", fp);
	if (ferror(fp))
		return atomic_fail(&af, e);
	return atomic_commit(&af, e);
}
