/*
 * The result as CSV for spreadsheets and data frames: one row per run of
 * each benchmark, so that nothing is lost to a summary.
 *
 * Columns: benchmark, one per parameter name (the union over benchmarks in
 * first-seen order), run (1-based), exit_code, one per metric (likewise).
 * A cell a benchmark has no value for is empty, as is a NaN or infinity.
 * Numbers are the shortest text that reads back as the same double.
 * A partial result (the setting partial: the command was stopped) has
 * one more column at the end, partial, with the reason in every row
 * ("stopped by SIGINT"), so that no reader takes it for a whole one.
 * A text cell starting with =, +, -, @, a tab or a CR gets a quote mark
 * in front (OWASP's defence against formula injection), unless the whole
 * cell is a decimal number ("-5" stays a number): util/strutil.c's
 * fputs_csv.
 */
#include "result/result.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/strutil.h"

/* Names in first-seen order, each once. */
struct names {
	const char **v;
	size_t n, cap;
};

static void names_add(struct names *ns, const char *name)
{
	for (size_t i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], name))
			return;
	ns->v = xgrow(ns->v, &ns->cap, ns->n + 1, sizeof(*ns->v));
	ns->v[ns->n++] = name;
}

/* v as the shortest of %.15g, %.16g, %.17g that reads back exactly. */
static void put_number(double v, FILE *fp)
{
	char buf[40];

	if (!isfinite(v))
		return;
	fmt_roundtrip(v, buf, sizeof(buf));
	fputs(buf, fp);
}

/* Rows of a benchmark: its longest series of per-run data. */
static size_t runs_of(const struct benchmark *b)
{
	size_t runs = b->nexit;

	for (size_t i = 0; i < b->nmetrics; i++)
		if (b->metrics[i].n > runs)
			runs = b->metrics[i].n;
	return runs;
}

static void put_row(const struct benchmark *b, size_t run,
		    const struct names *params, const struct names *metrics,
		    const char *partial, FILE *fp)
{
	fputs_csv(b->name, fp);
	for (size_t i = 0; i < params->n; i++) {
		const char *v = benchmark_param(b, params->v[i]);

		fputc(',', fp);
		if (v)
			fputs_csv(v, fp);
	}
	fprintf(fp, ",%zu,", run + 1);
	if (run < b->nexit)
		fprintf(fp, "%d", b->exit_codes[run]);
	for (size_t i = 0; i < metrics->n; i++) {
		const struct metric *m = benchmark_find_metric(b, metrics->v[i]);

		fputc(',', fp);
		if (m && run < m->n)
			put_number(m->values[run], fp);
	}
	if (partial) {
		fputc(',', fp);
		fputs_csv(partial, fp);
	}
	fputc('\n', fp);
}

static void put_csv(const struct result *r, FILE *fp)
{
	struct names params = { 0 }, metrics = { 0 };
	const char *partial = result_partial(r);

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t j = 0; j < b->nparams; j++)
			names_add(&params, b->params[j].name);
		for (size_t j = 0; j < b->nmetrics; j++)
			names_add(&metrics, b->metrics[j].name);
	}
	fputs("benchmark", fp);
	for (size_t i = 0; i < params.n; i++) {
		fputc(',', fp);
		fputs_csv(params.v[i], fp);
	}
	fputs(",run,exit_code", fp);
	for (size_t i = 0; i < metrics.n; i++) {
		fputc(',', fp);
		fputs_csv(metrics.v[i], fp);
	}
	if (partial)
		fputs(",partial", fp);
	fputc('\n', fp);
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		size_t runs = runs_of(b);

		for (size_t run = 0; run < runs; run++)
			put_row(b, run, &params, &metrics, partial, fp);
	}
	free(params.v);
	free(metrics.v);
}

int result_write_csv(const struct result *r, const char *path,
		     struct error *e)
{
	struct atomic_file af;

	if (atomic_open(&af, path, e))
		return -1;
	put_csv(r, af.fp);
	/* Write errors stick to the stream; atomic_commit reports them. */
	return atomic_commit(&af, e);
}

static int write_csv(const char *path, void *res, struct error *e)
{
	return result_write_csv(res, path, e);
}

const struct result_writer result_writer_csv = {
	.flag = "--csv", .format = "csv", .write = write_csv,
};
