/*
 * The end of `yardstick run`: once the last run is measured, the
 * statistics of every metric, the comparisons with the reference, the
 * complexity fits of numeric scans, the warnings, the terminal report, the
 * output files and the store — in that order, so that a store that fails
 * loses nothing --json was asked for.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/run.h"
#include "result/analyze.h"
#include "result/metrics.h"
#include "store/store.h"
#include "util/strutil.h"

static void compare_one(struct runner *rn, struct job *base, struct job *j,
			const char *metric)
{
	if (analyze_compare(rn->res, base->bench, j->bench, metric, &rn->rng,
			    (size_t)rn->o->resamples, ANALYZE_ALPHA) == 0)
		return;
	benchmark_add_warning(j->bench, "no comparison of %s with '%s': a "
			      "ratio needs measured values and a median "
			      "above 0 on both sides", metric, base->name);
}

static void compare_all(struct runner *rn, size_t ref)
{
	const struct run_opts *o = rn->o;

	for (size_t i = 0; i < rn->njobs; i++) {
		struct job *j = &rn->jobs[i], *base = NULL;
		size_t k;

		if (j->template == ref)
			continue;
		/* run_plan's order: combination by combination, each
		 * command; searched only if that does not hold */
		k = i - j->template + ref;
		if (k < rn->njobs && rn->jobs[k].template == ref &&
		    rn->jobs[k].combo == j->combo)
			base = &rn->jobs[k];
		for (k = 0; !base && k < rn->njobs; k++)
			if (rn->jobs[k].template == ref &&
			    rn->jobs[k].combo == j->combo)
				base = &rn->jobs[k];
		if (!base)
			continue;
		compare_one(rn, base, j, METRIC_WALL_TIME);
		for (size_t m = 0; m < o->ncompare_metrics; m++)
			if (strcmp(o->compare_metrics[m], METRIC_WALL_TIME))
				compare_one(rn, base, j, o->compare_metrics[m]);
	}
}

/* The name a fit is reported under: the command's name, with the values
 * of the other scans. */
static char *fit_name(const struct runner *rn, const struct job *j,
		      size_t scan)
{
	const struct run_opts *o = rn->o;
	char *name = o->nnames > j->template
		? xstrdup(o->names[j->template])
		: o->argv ? argv_join(o->argv)
			  : xstrdup(o->commands[j->template]);

	for (size_t k = 0; k < o->nscans; k++) {
		char *next;

		if (k == scan)
			continue;
		next = xasprintf("%s [%s=%s]", name, o->scans[k].name,
				 j->param_values[k]);
		free(name);
		name = next;
	}
	return name;
}

/* True when jobs a and b differ at most in the value of scan s. */
static bool same_but(const struct runner *rn, const struct job *a,
		     const struct job *b, size_t s)
{
	if (a->template != b->template)
		return false;
	for (size_t k = 0; k < rn->o->nscans; k++)
		if (k != s && strcmp(a->param_values[k], b->param_values[k]))
			return false;
	return true;
}

static void fit_all(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	size_t *idx = xcalloc(rn->njobs, sizeof(size_t));
	double *xs = xcalloc(rn->njobs, sizeof(double));
	bool *seen = xcalloc(rn->njobs, sizeof(bool));

	for (size_t s = 0; s < o->nscans; s++) {
		if (!o->scans[s].numeric || o->scans[s].n < 3)
			continue;
		memset(seen, 0, rn->njobs * sizeof(bool));
		for (size_t i = 0; i < rn->njobs; i++) {
			size_t k = 0;
			char *name;

			if (seen[i])
				continue;
			for (size_t m = i; m < rn->njobs; m++) {
				if (seen[m] || !same_but(rn, &rn->jobs[i],
							 &rn->jobs[m], s))
					continue;
				seen[m] = true;
				idx[k] = m;
				parse_double(rn->jobs[m].param_values[s],
					     &xs[k]);
				k++;
			}
			name = fit_name(rn, &rn->jobs[i], s);
			analyze_fit(rn->res, name, o->scans[s].name,
				    METRIC_WALL_TIME, idx, xs, k);
			free(name);
		}
	}
	free(idx);
	free(xs);
	free(seen);
}

static void record_settings(struct runner *rn)
{
	const struct run_opts *o = rn->o;
	struct result *r = rn->res;

	result_set_num(r, "warmup", (double)o->warmup);
	if (o->runs)
		result_set_num(r, "runs", (double)o->runs);
	else {
		result_set_num(r, "min_runs", (double)o->min_runs);
		result_set_num(r, "max_runs", (double)o->max_runs);
		result_set_num(r, "min_time", o->min_time);
	}
	if (o->timeout > 0)
		result_set_num(r, "timeout", o->timeout);
	result_set_str(r, "order", o->order == ORDER_INTERLEAVED
			   ? "interleaved" : "sequential");
	result_set_str(r, "shell", o->shell ? "/bin/sh" : "none");
	if (o->shell) {
		result_set_num(r, "shell_overhead_wall", rn->shell_cost[0]);
		result_set_num(r, "shell_overhead_user", rn->shell_cost[1]);
		result_set_num(r, "shell_overhead_sys", rn->shell_cost[2]);
	}
	if (o->prepare)
		result_set_str(r, "prepare", o->prepare);
	if (o->cleanup)
		result_set_str(r, "cleanup", o->cleanup);
	if (o->input)
		result_set_str(r, "input", o->input);
	if (o->have_pin) {
		char cpus[256] = "";
		size_t len = 0;

		for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof(cpus); c++)
			if (CPU_ISSET(c, &o->pin))
				len += (size_t)snprintf(cpus + len,
					sizeof(cpus) - len, "%s%d",
					len ? "," : "", c);
		result_set_str(r, "pin", cpus);
	}
	result_set_str(r, "ignore_failure", o->ignore_failure ? "yes" : "no");
	run_work_settings(rn);
	result_set_num(r, "bootstrap_resamples", (double)o->resamples);
	result_set_num(r, "seed", (double)o->seed);
	result_set_num(r, "alpha", ANALYZE_ALPHA);
}

void run_add_outputs(struct runner *rn)
{
	const struct run_opts *o = rn->o;

	outputs_init(&rn->outs);
	add_result_outputs(&rn->outs, o->json, o->csv, o->markdown, o->bmf,
			   rn->res);
	if (o->show_output)
		outputs_claim_stdout(&rn->outs, "--show-output");
}

void run_report_failure(struct runner *rn)
{
	const char *t = rn->fail_tail;

	fprintf(stderr, "yardstick: %s\n", rn->err.msg);
	if (t && *t && rn->failed != 130)
		fprintf(stderr, "yardstick: the end of its stderr:\n%s%s", t,
			t[strlen(t) - 1] == '\n' ? "" : "\n");
	if (rn->failed == 1 && rn->hint_ignore)
		fputs("yardstick: use --ignore-failure to benchmark it "
		      "anyway\n", stderr);
}

/* Counters that had to share the PMU were counted part of the time and
 * scaled: say which, since their values are estimates. */
static void mux_warnings(struct runner *rn, size_t ji)
{
	size_t nc = rn->ctr ? counters_metric_count(rn->ctr) : 0;

	for (size_t k = 0; k < nc; k++) {
		size_t n = rn->mux[ji * nc + k];

		if (n)
			benchmark_add_warning(&rn->res->benchmarks[ji],
				"%s was multiplexed in %zu of %zu runs (counted "
				"part of the time and scaled up): count fewer "
				"--events at once for exact values",
				counters_metric_name(rn->ctr, k), n,
				rn->jobs[ji].runs);
	}
}

static const char *const wall_only[] = { METRIC_WALL_TIME, NULL };

/* Summaries, comparisons, fits, warnings, the report and the files. */
int run_finish(struct runner *rn, long ref)
{
	struct result *r = rn->res;

	record_settings(rn);
	result_mark_partial(r);
	/* Every CI goes into --json; the table shows wall time's only. After
	 * Ctrl-C, wall time's only: the bootstrap of every metric of a large
	 * scan takes long, and a reader recomputes CIs from the values. */
	result_summarize_ci(r, rn->o->seed, (size_t)rn->o->resamples,
			    rn->o->json && rn->failed != 130 ? NULL
							      : wall_only);
	rng_seed(&rn->rng, rn->o->seed ^ 0x9e3779b97f4a7c15ULL);
	if (ref >= 0 && !rn->failed)
		compare_all(rn, (size_t)ref);
	if (!rn->failed)
		fit_all(rn);
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		if (rn->failed == 130)
			benchmark_add_warning(&r->benchmarks[i], "interrupted "
				"after %zu runs: the numbers are those of an "
				"incomplete benchmark", rn->jobs[i].runs);
		mux_warnings(rn, i);
		analyze_warnings(&r->benchmarks[i]);
	}
	analyze_machine_warnings(r);
	if (!rn->o->quiet && rn->total_runs > 0) {
		/* A result written to stdout keeps stdout to itself. */
		run_report(r, rn->o->details, outputs_report_fp(&rn->outs));
		fflush(stdout);
	}
	run_report_warnings(r, stderr);
	/* The files and the store record the git state: wait for it. */
	git_detect_finish(&rn->git);
	if (git_detect_warning(&rn->git))
		fprintf(stderr, "yardstick: warning: %s\n",
			git_detect_warning(&rn->git));
	if (write_output_set(&rn->outs, "yardstick"))
		return 2;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "yardstick: cannot write to stdout: %s\n",
			strerror(errno));
		return 2;
	}
	return 0;
}

/*
 * Keep the result in the store (after the files: a store that fails loses
 * nothing that --json was asked for). Returns 0 or the exit code.
 */
int run_save(struct runner *rn)
{
	if (rn->o->no_store || rn->total_runs == 0)
		return 0;
	return save_result(rn->res, rn->o->store, rn->o->quiet);
}

