/*
 * The terminal report of `run`: per benchmark a table of its metrics with
 * auto-scaled units, then the comparisons in words and the complexity fits.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run_report.h"
#include "result/analyze.h"
#include "result/warnings.h"
#include "result/metrics.h"
#include "util/strutil.h"
#include "util/term.h"

/* A metric name with its underscores as spaces: "wall time". */
static void label_of(const char *name, char *buf, size_t n)
{
	size_t i;

	for (i = 0; name[i] && i + 1 < n; i++)
		buf[i] = name[i] == '_' ? ' ' : name[i];
	buf[i] = '\0';
}

static void print_metric(const struct metric *m, bool color, FILE *fp)
{
	const struct summary *s = &m->summary;
	char label[64], mean[32], sd[32], med[32], p95[32], p99[32], lo[32],
	     hi[32];

	label_of(m->name, label, sizeof(label));
	fmt_value(s->mean, m->unit, mean, sizeof(mean));
	fmt_value(s->stddev, m->unit, sd, sizeof(sd));
	fmt_value(s->median, m->unit, med, sizeof(med));
	fmt_value(s->p95, m->unit, p95, sizeof(p95));
	fmt_value(s->p99, m->unit, p99, sizeof(p99));
	fmt_value(s->min, m->unit, lo, sizeof(lo));
	fmt_value(s->max, m->unit, hi, sizeof(hi));
	/* Metric names (--events) and names of benchmarks come from
	 * outside: term_pad and term_puts escape them. */
	fputs("  ", fp);
	term_pad(fp, label, 21, false);
	fprintf(fp, " %s", term_bold(color));
	term_pad(fp, mean, 11, true);
	fputs(term_reset(color), fp);
	fputs(" ± ", fp);
	term_pad(fp, sd, 10, false);
	term_pad(fp, med, 12, true);
	term_pad(fp, p95, 12, true);
	term_pad(fp, p99, 12, true);
	fputs("   ", fp);
	term_puts(fp, lo);
	fputs(" … ", fp);
	term_puts(fp, hi);
	fputc('\n', fp);
}

static void print_header(bool color, FILE *fp)
{
	fprintf(fp, "  %s%-21s ", term_dim(color), "");
	term_pad(fp, "mean", 11, true);
	fputs("   ", fp);
	term_pad(fp, "± σ", 10, false);
	term_pad(fp, "median", 12, true);
	term_pad(fp, "p95", 12, true);
	term_pad(fp, "p99", 12, true);
	fprintf(fp, "   min … max%s\n", term_reset(color));
}

static void print_ci(const struct metric *m, FILE *fp)
{
	const struct summary *s = &m->summary;
	char a[32], b[32], c[32], d[32];

	fprintf(fp, "  %-21s mean [%s, %s]  median [%s, %s]\n",
		"95% CI",
		fmt_value(s->mean_ci[0], m->unit, a, sizeof(a)),
		fmt_value(s->mean_ci[1], m->unit, b, sizeof(b)),
		fmt_value(s->median_ci[0], m->unit, c, sizeof(c)),
		fmt_value(s->median_ci[1], m->unit, d, sizeof(d)));
}

/* The median of metric name of b, or NAN. */
static double median(const struct benchmark *b, const char *name)
{
	const struct metric *m = benchmark_find_metric(b, name);

	return m && m->summary.n ? m->summary.median : NAN;
}

/*
 * What --work makes of b, from medians (docs/result-format.md): the
 * attained rate median(work_flops) / median(wall_time) in GFLOP/s, the
 * bandwidth from work_bytes in GB/s, the intensity work_flops /
 * work_bytes in FLOP/byte; NAN where a metric is missing or zero.
 */
struct attained {
	double gflops, gbytes, intensity;
};

static struct attained attained_of(const struct benchmark *b)
{
	double t = median(b, METRIC_WALL_TIME), f = median(b, METRIC_WORK_FLOPS),
	       by = median(b, METRIC_WORK_BYTES);
	struct attained a = { NAN, NAN, NAN };

	if (t > 0) {
		a.gflops = f / t * 1e-9;
		a.gbytes = by / t * 1e-9;
	}
	if (by > 0)
		a.intensity = f / by;
	return a;
}

/* "attained (--work)  1.23 GFLOP/s  0.5 GB/s  2.5 FLOP/byte". */
static void print_attained(const struct benchmark *b, FILE *fp)
{
	struct attained a = attained_of(b);

	if (isnan(a.gflops) && isnan(a.gbytes))
		return;
	fprintf(fp, "  %-21s", "attained (--work)");
	if (!isnan(a.gflops))
		fprintf(fp, " %.4g GFLOP/s", a.gflops);
	if (!isnan(a.gbytes))
		fprintf(fp, " %.4g GB/s", a.gbytes);
	if (!isnan(a.intensity))
		fprintf(fp, " %.4g FLOP/byte", a.intensity);
	fputs(" (median work / median wall time)\n", fp);
}

static void print_exit_codes(const struct benchmark *b, FILE *fp)
{
	size_t nonzero = 0;

	for (size_t i = 0; i < b->nexit; i++)
		nonzero += b->exit_codes[i] != 0;
	fprintf(fp, "  %zu run%s", b->nexit, plural_s(b->nexit));
	if (nonzero)
		fprintf(fp, ", %zu with a non-zero exit code", nonzero);
	if (b->timeouts)
		fprintf(fp, ", %zu timed out", b->timeouts);
	fputc('\n', fp);
}

static void print_list(const char *title, const char *const *names,
		       size_t n, FILE *fp)
{
	if (!n)
		return;
	fprintf(fp, "  %s: ", title);
	for (size_t i = 0; i < n; i++) {
		char label[64];

		label_of(names[i], label, sizeof(label));
		fputs(i ? ", " : "", fp);
		term_puts(fp, label);
	}
	fputc('\n', fp);
}

static void print_benchmark(const struct benchmark *b, size_t i, bool color,
			    FILE *fp)
{
	const char **zero = xcalloc(b->nmetrics + 1, sizeof(char *));
	size_t nzero = 0;
	const struct metric *wall = benchmark_find_metric(b, METRIC_WALL_TIME);

	fprintf(fp, "%sBenchmark %zu: ", term_bold(color), i + 1);
	term_puts(fp, b->name);
	fprintf(fp, "%s\n", term_reset(color));
	print_exit_codes(b, fp);
	if (!wall || wall->summary.n == 0) {
		fputs("  no successful run to summarize\n", fp);
		goto out_free;
	}
	print_header(color, fp);
	for (size_t k = 0; k < b->nmetrics; k++) {
		const struct metric *m = &b->metrics[k];

		if (m->summary.n == 0)
			continue;
		if (m->summary.max == 0 && m->summary.min == 0 &&
		    strcmp(m->name, METRIC_WALL_TIME)) {
			zero[nzero++] = m->name;
			continue;
		}
		print_metric(m, color, fp);
	}
	print_ci(wall, fp);
	print_attained(b, fp);
	print_list("zero in every run", zero, nzero, fp);
	print_list("not supported on this machine",
		   (const char *const *)b->unsupported, b->nunsupported, fp);
out_free:
	free(zero);
	fputc('\n', fp);
}

void run_report_comparisons(const struct result *r, FILE *fp)
{
	bool color = term_use_color(fp);
	const char *metric = NULL;

	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct comparison *c = &r->comparisons[i];
		char *sentence = comparison_sentence(c);
		const char *col = c->verdict == CMP_FASTER
			? term_green(color)
			: c->verdict == CMP_SLOWER ? term_red(color) : "";

		if (!metric || strcmp(metric, c->metric)) {
			char label[64];

			label_of(c->metric, label, sizeof(label));
			fprintf(fp, "%sComparison of ", term_bold(color));
			term_puts(fp, label);
			fprintf(fp, "%s %s(as compare judges them: ratio of "
				"the Harrell-Davis medians, 95%% CI, p of a "
				"change beyond 2%%; Holm over %zu comparison%s)"
				"%s\n", term_reset(color), term_dim(color),
				r->ncomparisons, plural_s(r->ncomparisons),
				term_reset(color));
			metric = c->metric;
		}
		fprintf(fp, "  %s", col);
		term_puts(fp, sentence);
		fprintf(fp, "%s\n", term_reset(color));
		free(sentence);
	}
	if (r->ncomparisons)
		fputc('\n', fp);
}

void run_report_fits(const struct result *r, FILE *fp)
{
	bool color = term_use_color(fp);
	char label[64];

	if (!r->nfits)
		return;
	/* run fits wall_time, bench time_per_op: one metric a result */
	label_of(r->fits[0].metric, label, sizeof(label));
	fprintf(fp, "%sComplexity%s %s(least squares on median ",
		term_bold(color), term_reset(color), term_dim(color));
	term_puts(fp, label);
	fprintf(fp, ", y = a + b·g(n))%s\n", term_reset(color));
	for (size_t i = 0; i < r->nfits; i++) {
		const struct complexity_fit *f = &r->fits[i];
		char a[32];

		fputs("  ", fp);
		term_puts(fp, f->name);
		fprintf(fp, ": %s%s%s", term_bold(color),
			stats_complexity_name(f->best.model),
			term_reset(color));
		if (f->best.model != O_1) {
			fputs(" in ", fp);
			term_puts(fp, f->parameter);
			fprintf(fp, ", b = %.4g s, a = %s, R² = %.4f",
				f->best.coef,
				fmt_value(f->best.intercept, "s", a, sizeof(a)),
				f->best.r2);
		} else {
			fprintf(fp, ": flat at %s",
				fmt_value(f->best.intercept, "s", a, sizeof(a)));
		}
		fputc('\n', fp);
	}
	fputc('\n', fp);
}

static size_t name_width(const struct result *r)
{
	size_t w = 9;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		char *safe = term_safe(r->benchmarks[i].name);
		size_t len = term_width(safe);

		free(safe);
		if (len > w)
			w = len;
	}
	return w > 40 ? 40 : w;
}

static const char *median_of(const struct benchmark *b, const char *name,
			     char *buf, size_t n)
{
	const struct metric *m = benchmark_find_metric(b, name);

	if (!m || m->summary.n == 0)
		return "-";
	return fmt_value(m->summary.median, m->unit, buf, n);
}

/* With --work flops: the attained GFLOP/s and FLOP/byte, as columns. */
static void print_attained_cells(const struct benchmark *b, bool header,
				 FILE *fp)
{
	struct attained a = attained_of(b);
	char rate[32] = "-", ai[32] = "-";

	if (!isnan(a.gflops))
		snprintf(rate, sizeof(rate), "%.4g", a.gflops);
	if (!isnan(a.intensity))
		snprintf(ai, sizeof(ai), "%.4g", a.intensity);
	term_pad(fp, header ? "GFLOP/s" : rate, 10, true);
	term_pad(fp, header ? "FLOP/byte" : ai, 10, true);
}

/* One line per benchmark: for scans, where full tables would not fit. */
static void print_summary(const struct result *r, bool color, FILE *fp)
{
	int w = (int)name_width(r);
	bool work = r->nbenchmarks &&
		    benchmark_find_metric(&r->benchmarks[0], METRIC_WORK_FLOPS);
	/* the CPU column: the task clock where it was counted (the default
	 * counters leave it out on a machine without hardware ones) */
	const char *cpu = METRIC_USER_TIME;

	for (size_t i = 0; i < r->nbenchmarks; i++)
		if (benchmark_find_metric(&r->benchmarks[i], METRIC_TASK_CLOCK))
			cpu = METRIC_TASK_CLOCK;

	fprintf(fp, "%s%-*s %6s ", term_dim(color), w, "benchmark", "runs");
	term_pad(fp, "mean", 11, true);
	fputs("   ", fp);
	term_pad(fp, "± σ", 10, false);
	term_pad(fp, "median", 12, true);
	term_pad(fp, "p99", 12, true);
	term_pad(fp, "peak rss", 12, true);
	term_pad(fp, metrics_lookup(cpu, NULL)->label, 12, true);
	if (work)
		print_attained_cells(&r->benchmarks[0], true, fp);
	fprintf(fp, "%s\n", term_reset(color));
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct metric *m = benchmark_find_metric(b, METRIC_WALL_TIME);
		char mean[32], sd[32], med[32], p99[32], rss[32], tc[32];

		if (!m || m->summary.n == 0) {
			term_cell(fp, b->name, (size_t)w);
			fprintf(fp, " %6zu   no successful run\n", b->nexit);
			continue;
		}
		term_cell(fp, b->name, (size_t)w);
		fprintf(fp, " %6zu ", b->nexit);
		fputs(term_bold(color), fp);
		term_pad(fp, fmt_value(m->summary.mean, m->unit, mean,
				       sizeof(mean)), 11, true);
		fputs(term_reset(color), fp);
		fputs(" ± ", fp);
		term_pad(fp, fmt_value(m->summary.stddev, m->unit, sd,
				       sizeof(sd)), 10, false);
		term_pad(fp, fmt_value(m->summary.median, m->unit, med,
				       sizeof(med)), 12, true);
		term_pad(fp, fmt_value(m->summary.p99, m->unit, p99,
				       sizeof(p99)), 12, true);
		term_pad(fp, median_of(b, METRIC_PEAK_RSS, rss, sizeof(rss)), 12,
			 true);
		term_pad(fp, median_of(b, cpu, tc, sizeof(tc)), 12,
			 true);
		if (work)
			print_attained_cells(b, false, fp);
		fputc('\n', fp);
	}
	fputc('\n', fp);
	if (r->nbenchmarks)
		print_list("not supported on this machine",
			   (const char *const *)r->benchmarks[0].unsupported,
			   r->benchmarks[0].nunsupported, fp);
	fputs("  (--details shows every metric of every benchmark)\n\n", fp);
}

void run_report_warnings(const struct result *r, bool table, FILE *fp)
{
	bool color = term_use_color(fp);
	struct warning_group *g;
	size_t n = warnings_group(r, table ? NULL : analyze_is_few_runs, &g);

	/* one line per warning, naming the benchmarks it was said of */
	for (size_t i = 0; i < n; i++) {
		size_t shown = g[i].nnames > 3 ? 2 : g[i].nnames;

		fprintf(fp, "%swarning:%s ", term_yellow(color),
			term_reset(color));
		if (g[i].nnames > 3 && g[i].nnames == r->nbenchmarks)
			shown = 0;
		for (size_t k = 0; k < shown; k++) {
			fputs(k == 0 ? "'" : k + 1 == g[i].nnames ? " and '" :
			      ", '", fp);
			term_puts(fp, g[i].names[k]);
			fputc('\'', fp);
		}
		if (!shown)
			fprintf(fp, "all %zu benchmarks", g[i].nnames);
		else if (shown < g[i].nnames)
			fprintf(fp, " and %zu more", g[i].nnames - shown);
		fputs(": ", fp);
		term_puts(fp, g[i].text);
		fputc('\n', fp);
	}
	warnings_free(g, n);
}

void run_report(const struct result *r, bool details, FILE *fp)
{
	bool color = term_use_color(fp);

	if (!details && r->nbenchmarks > RUN_REPORT_MAX_DETAILED)
		print_summary(r, color, fp);
	else
		for (size_t i = 0; i < r->nbenchmarks; i++)
			print_benchmark(&r->benchmarks[i], i, color, fp);
	run_report_comparisons(r, fp);
	run_report_fits(r, fp);
}
