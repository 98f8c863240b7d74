/*
 * The end of run's engine: once the last run is measured, the settings of
 * the result, the statistics of every metric, the comparisons with the
 * reference, the complexity fits of numeric scans and the warnings. The
 * report, the output files and the store are the caller's (cmd/run.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/run_internal.h"
#include "result/analyze.h"
#include "result/metrics.h"
#include "stats/judge.h"
#include "util/strutil.h"

/* Add pair (job j's bench against base's) on metric to *v. */
static void push_pair(struct analyze_pair **v, size_t *n, size_t *cap,
		      const struct job *base, const struct job *j,
		      const char *metric)
{
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct analyze_pair){ base->bench, j->bench, metric };
}

/* Each command against the reference, per combination of parameter
 * values: on wall time and the --compare metrics, all one family
 * (analyze_compare). */
static void compare_all(struct runner *rn, size_t ref)
{
	const struct run_plan *p = rn->p;
	struct analyze_pair *pairs = NULL;
	size_t n = 0, cap = 0;
	bool *judged;

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
		push_pair(&pairs, &n, &cap, base, j, METRIC_WALL_TIME);
		for (size_t m = 0; m < p->ncompare_metrics; m++)
			if (strcmp(p->compare_metrics[m], METRIC_WALL_TIME))
				push_pair(&pairs, &n, &cap, base, j,
					  p->compare_metrics[m]);
	}
	judged = xcalloc(n + 1, sizeof(*judged));
	analyze_compare(rn->res, pairs, n, JUDGE_ALPHA, judged);
	for (size_t i = 0; i < n; i++)
		if (!judged[i])
			benchmark_add_warning((struct benchmark *)pairs[i].cand,
				"no comparison of %s with '%s': a ratio needs "
				"measured values and a median above 0 on both "
				"sides", pairs[i].metric, pairs[i].base->name);
	free(judged);
	free(pairs);
}

/* The name a fit is reported under: the command's name, with the values
 * of the other scans. */
static char *fit_name(const struct runner *rn, const struct job *j,
		      size_t scan)
{
	const struct run_plan *p = rn->p;
	char *name = p->nnames > j->template
		? xstrdup(p->names[j->template])
		: p->argv ? argv_join(p->argv)
			  : xstrdup(p->commands[j->template]);

	for (size_t k = 0; k < p->nscans; k++) {
		char *next;

		if (k == scan)
			continue;
		next = xasprintf("%s [%s=%s]", name, p->scans[k].name,
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
	for (size_t k = 0; k < rn->p->nscans; k++)
		if (k != s && strcmp(a->param_values[k], b->param_values[k]))
			return false;
	return true;
}

static void fit_all(struct runner *rn)
{
	const struct run_plan *p = rn->p;
	size_t *idx = xcalloc(rn->njobs, sizeof(size_t));
	double *xs = xcalloc(rn->njobs, sizeof(double));
	bool *seen = xcalloc(rn->njobs, sizeof(bool));

	for (size_t s = 0; s < p->nscans; s++) {
		if (!p->scans[s].numeric || p->scans[s].n < 3)
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
			analyze_fit(rn->res, name, p->scans[s].name,
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
	const struct run_plan *p = rn->p;
	struct result *r = rn->res;

	result_set_num(r, "warmup", (double)p->warmup);
	if (p->runs)
		result_set_num(r, "runs", (double)p->runs);
	else {
		result_set_num(r, "min_runs", (double)p->min_runs);
		result_set_num(r, "max_runs", (double)p->max_runs);
		result_set_num(r, "min_time", p->min_time);
	}
	if (p->timeout > 0)
		result_set_num(r, "timeout", p->timeout);
	result_set_str(r, "order", p->order == ORDER_INTERLEAVED
			   ? "interleaved" : "sequential");
	result_set_str(r, "shell", p->shell ? "/bin/sh" : "none");
	if (p->shell) {
		result_set_num(r, "shell_overhead_wall", rn->shell_cost[0]);
		result_set_num(r, "shell_overhead_user", rn->shell_cost[1]);
		result_set_num(r, "shell_overhead_sys", rn->shell_cost[2]);
	}
	if (p->prepare)
		result_set_str(r, "prepare", p->prepare);
	if (p->cleanup)
		result_set_str(r, "cleanup", p->cleanup);
	if (p->input)
		result_set_str(r, "input", p->input);
	if (p->pin) {
		char cpus[256] = "";
		size_t len = 0;

		for (int c = 0; c < CPU_SETSIZE && len + 8 < sizeof(cpus); c++)
			if (CPU_ISSET(c, p->pin))
				len += (size_t)snprintf(cpus + len,
					sizeof(cpus) - len, "%s%d",
					len ? "," : "", c);
		result_set_str(r, "pin", cpus);
	}
	result_set_str(r, "ignore_failure", p->ignore_failure ? "yes" : "no");
	run_work_settings(rn);
	result_set_num(r, "bootstrap_resamples", (double)p->resamples);
	result_set_num(r, "seed", (double)p->seed);
	result_set_num(r, "alpha", JUDGE_ALPHA);
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

/* The settings, summaries, comparisons, fits and warnings (run.h). */
void run_engine_finish(struct runner *rn)
{
	struct result *r = rn->res;

	record_settings(rn);
	/* Every CI goes into --json; the table shows wall time's only. After
	 * Ctrl-C, wall time's only: the bootstrap of every metric of a large
	 * scan takes long, and a reader recomputes CIs from the values. */
	result_summarize_ci(r, rn->p->seed, (size_t)rn->p->resamples,
			    rn->p->all_cis && rn->failed != 130 ? NULL
								: wall_only);
	rng_seed(&rn->rng, rn->p->seed ^ 0x9e3779b97f4a7c15ULL);
	if (rn->ref >= 0 && !rn->failed)
		compare_all(rn, (size_t)rn->ref);
	if (!rn->failed)
		fit_all(rn);
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		if (rn->failed == 130)
			benchmark_add_warning(&r->benchmarks[i], "interrupted "
				"after %zu run%s: the numbers are those of an "
				"incomplete benchmark", rn->jobs[i].runs,
				plural_s(rn->jobs[i].runs));
		mux_warnings(rn, i);
		analyze_warnings(&r->benchmarks[i]);
	}
	analyze_machine_warnings(r);
}
