/*
 * The result as Markdown for a pull-request comment: a table of the main
 * metric (wall_time when there is one), a table of the medians of the other
 * metrics worth a reviewer's eye, the comparisons in words, what this
 * machine could not measure, and the warnings; a partial result (the
 * command was stopped) says so first.
 *
 * Everything that came from outside — benchmark names, warnings, metric
 * names of user-chosen events, units — goes through fputs_markdown, so that a
 * name with a pipe or a <tag> cannot break the table or inject markup.
 * The summaries are printed as they are: call result_summarize first.
 */
#include "result/result.h"
#include "result/metrics.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"

#define NONE "—"

/* Counts from getrusage that perf's counters say better, left to the
 * JSON and CSV to keep the second table narrow. */
static const char *const quiet_metrics[] = {
	"minor_faults", "major_faults", "voluntary_switches",
	"involuntary_switches",
};

static bool is_quiet(const char *name)
{
	for (size_t i = 0; i < sizeof(quiet_metrics) / sizeof(*quiet_metrics);
	     i++)
		if (!strcmp(quiet_metrics[i], name))
			return true;
	return false;
}

static bool has_summary(const struct metric *m)
{
	return metric_has_summary(m);
}

/* The metric of the first table: the headline metric of the
 * vocabulary, else the first one seen. */
static const char *main_metric(const struct result *r)
{
	return metrics_headline_name(r);
}

/* The comparison of the metric in which name is the candidate, else one
 * in which it is the baseline (*is_baseline set), else NULL. */
static const struct comparison *relative_of(const struct result *r,
					    const char *name,
					    const char *metric,
					    bool *is_baseline)
{
	const struct comparison *base = NULL;

	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct comparison *c = &r->comparisons[i];

		if (strcmp(c->metric, metric))
			continue;
		if (!strcmp(c->candidate, name)) {
			*is_baseline = false;
			return c;
		}
		if (!base && !strcmp(c->baseline, name))
			base = c;
	}
	*is_baseline = base != NULL;
	return base;
}

static bool has_comparisons(const struct result *r, const char *metric)
{
	for (size_t i = 0; i < r->ncomparisons; i++)
		if (!strcmp(r->comparisons[i].metric, metric))
			return true;
	return false;
}

static void put_value(double v, const char *unit, FILE *fp)
{
	char buf[64];

	/* The unit came from outside too (a result file's "unit"). */
	if (isfinite(v))
		fputs_markdown(fmt_value(v, unit, buf, sizeof(buf)), fp);
	else
		fputs(NONE, fp);
}

static void put_relative(const struct result *r, const char *name,
			 const char *metric, FILE *fp)
{
	bool is_baseline;
	const struct comparison *c = relative_of(r, name, metric,
						 &is_baseline);

	if (!c || (!is_baseline && !isfinite(c->ratio)))
		fputs(" " NONE " |", fp);
	else if (is_baseline)
		fputs(" 1.00 |", fp);
	else if (isfinite(c->ratio_ci[0]) && isfinite(c->ratio_ci[1]))
		fprintf(fp, " %.2f× [%.2f, %.2f] |", c->ratio, c->ratio_ci[0],
			c->ratio_ci[1]);
	else
		fprintf(fp, " %.2f× |", c->ratio);
}

static void put_main_row(const struct result *r, const struct benchmark *b,
			 const char *metric, bool relative, FILE *fp)
{
	const struct metric *m = benchmark_find_metric(b, metric);
	const struct summary *s = m ? &m->summary : NULL;

	fputs("| ", fp);
	fputs_markdown(b->name, fp);
	if (!has_summary(m)) {
		fputs(" | " NONE " | " NONE " | " NONE " | " NONE " | " NONE
		      " |", fp);
	} else {
		fputs(" | ", fp);
		put_value(s->mean, m->unit, fp);
		fputs(" ± ", fp);
		put_value(s->stddev, m->unit, fp);
		fputs(" | ", fp);
		put_value(s->median, m->unit, fp);
		fputs(" | ", fp);
		put_value(s->p95, m->unit, fp);
		fputs(" | ", fp);
		put_value(s->p99, m->unit, fp);
		fputs(" | ", fp);
		put_value(s->min, m->unit, fp);
		fputs(" … ", fp);
		put_value(s->max, m->unit, fp);
		fputs(" |", fp);
	}
	if (relative)
		put_relative(r, b->name, metric, fp);
	fputc('\n', fp);
}

static void put_main_table(const struct result *r, const char *metric,
			   FILE *fp)
{
	bool relative = has_comparisons(r, metric);

	if (strcmp(metric, METRIC_WALL_TIME)) {
		fputs("**", fp);
		fputs_markdown(metric, fp);
		fputs("**\n\n", fp);
	}
	fprintf(fp, "| Benchmark | Mean ± σ | Median | p95 | p99 | "
		"Min … Max |%s\n", relative ? " Relative |" : "");
	fprintf(fp, "|:---|---:|---:|---:|---:|---:|%s\n",
		relative ? "---:|" : "");
	for (size_t i = 0; i < r->nbenchmarks; i++)
		put_main_row(r, &r->benchmarks[i], metric, relative, fp);
}

/* Names of the metrics of the second table, first-seen order. */
static size_t other_metrics(const struct result *r, const char *main,
			    const char ***out)
{
	const char **v = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t j = 0; j < b->nmetrics; j++) {
			const char *name = b->metrics[j].name;
			size_t k;

			if (!strcmp(name, main) || is_quiet(name))
				continue;
			for (k = 0; k < n && strcmp(v[k], name); k++)
				;
			if (k < n)
				continue;
			v = xgrow(v, &cap, n + 1, sizeof(*v));
			v[n++] = name;
		}
	}
	*out = v;
	return n;
}

static void put_other_table(const struct result *r, const char *main,
			    FILE *fp)
{
	const char **names;
	size_t n = other_metrics(r, main, &names);

	if (!n)
		return;
	fputs("\nOther metrics (median):\n\n| Benchmark |", fp);
	for (size_t i = 0; i < n; i++) {
		fputc(' ', fp);
		fputs_markdown(names[i], fp);
		fputs(" |", fp);
	}
	fputs("\n|:---|", fp);
	for (size_t i = 0; i < n; i++)
		fputs("---:|", fp);
	fputc('\n', fp);
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		fputs("| ", fp);
		fputs_markdown(b->name, fp);
		fputs(" |", fp);
		for (size_t j = 0; j < n; j++) {
			const struct metric *m = benchmark_find_metric(b,
								       names[j]);

			fputc(' ', fp);
			if (has_summary(m))
				put_value(m->summary.median, m->unit, fp);
			else
				fputs(NONE, fp);
			fputs(" |", fp);
		}
		fputc('\n', fp);
	}
	free(names);
}

/* The complexity fits of the scans, as the terminal shows them: the
 * best model, its slope b (per unit of g(n)), intercept a and R². */
static void put_fits(const struct result *r, FILE *fp)
{
	char b[64];

	if (!r->nfits)
		return;
	fputs("\nComplexity (least squares on the median, "
	      "y = a + b·g(n)):\n\n"
	      "| Benchmark | Parameter | Metric | Best fit | b | a | R² |\n"
	      "|:---|:---|:---|:---|---:|---:|---:|\n", fp);
	for (size_t i = 0; i < r->nfits; i++) {
		const struct complexity_fit *f = &r->fits[i];
		bool flat = f->best.model == O_1;

		snprintf(b, sizeof(b), "%.4g s", f->best.coef);
		fputs("| ", fp);
		fputs_markdown(f->name, fp);
		fputs(" | ", fp);
		fputs_markdown(f->parameter, fp);
		fputs(" | ", fp);
		fputs_markdown(f->metric, fp);
		fputs(" | ", fp);
		fputs_markdown(stats_complexity_name(f->best.model), fp);
		if (flat)
			fputs(" (flat)", fp);
		fprintf(fp, " | %s | ", flat || !isfinite(f->best.coef) ? NONE
			: b);
		put_value(f->best.intercept, "s", fp);
		if (flat || !isfinite(f->best.r2))
			fputs(" | " NONE " |\n", fp);
		else
			fprintf(fp, " | %.4f |\n", f->best.r2);
	}
}

static void put_comparisons(const struct result *r, FILE *fp)
{
	if (!r->ncomparisons)
		return;
	fputc('\n', fp);
	for (size_t i = 0; i < r->ncomparisons; i++) {
		char *s = comparison_sentence(&r->comparisons[i]);

		/* Escaped whole: it renders as the very same sentence. */
		fputs("- ", fp);
		fputs_markdown(s, fp);
		fputc('\n', fp);
		free(s);
	}
}

static void put_unsupported(const struct result *r, FILE *fp)
{
	const char **seen = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t j = 0; j < b->nunsupported; j++) {
			size_t k;

			for (k = 0; k < n && strcmp(seen[k], b->unsupported[j]);
			     k++)
				;
			if (k < n)
				continue;
			seen = xgrow(seen, &cap, n + 1, sizeof(*seen));
			seen[n++] = b->unsupported[j];
		}
	}
	if (n) {
		fputs("\nNot supported on this machine: ", fp);
		for (size_t i = 0; i < n; i++) {
			if (i)
				fputs(", ", fp);
			fputs_markdown(seen[i], fp);
		}
		fputc('\n', fp);
	}
	free(seen);
}

static void put_warnings(const struct result *r, FILE *fp)
{
	bool any = false;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t j = 0; j < b->nwarnings; j++) {
			if (!any)
				fputs("\nWarnings:\n\n", fp);
			any = true;
			fputs("- ", fp);
			fputs_markdown(b->name, fp);
			fputs(": ", fp);
			fputs_markdown(b->warnings[j], fp);
			fputc('\n', fp);
		}
	}
}

int result_write_markdown(const struct result *r, const char *path,
			  struct error *e)
{
	struct atomic_file af;
	const char *metric = main_metric(r);

	if (atomic_open(&af, path, e))
		return -1;
	if (result_partial(r)) {
		fputs("**Partial result** (", af.fp);
		fputs_markdown(result_partial(r), af.fp);
		fputs("): the values cover the program up to then.\n\n",
		      af.fp);
	}
	if (metric) {
		put_main_table(r, metric, af.fp);
		put_other_table(r, metric, af.fp);
		put_fits(r, af.fp);
	} else {
		fputs("No measurements.\n", af.fp);
	}
	put_comparisons(r, af.fp);
	put_unsupported(r, af.fp);
	put_warnings(r, af.fp);
	/* Write errors stick to the stream; atomic_commit reports them. */
	return atomic_commit(&af, e);
}

static int write_markdown(const char *path, void *res, struct error *e)
{
	return result_write_markdown(res, path, e);
}

const struct result_writer result_writer_markdown = {
	.flag = "--markdown", .format = "markdown", .write = write_markdown,
};
