/*
 * `yardstick run`: benchmark whole commands. The options (run_opts.c)
 * become a plan for run's engine (engine/run.h), which measures and
 * analyzes; run_plan_execute (runplan.c) calls its phases, prints the
 * report, the warnings and what went wrong, writes the outputs and the
 * store, and chooses the exit code.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "cmd/run.h"

static void run_plan_from_opts(const struct run_opts *o, struct run_plan *p)
{
	*p = (struct run_plan){
		.commands = o->commands, .ncommands = o->ncommands,
		.argv = o->argv, .names = o->names, .nnames = o->nnames,
		.scans = o->scans, .nscans = o->nscans,
		.warmup = o->warmup, .runs = o->runs,
		.min_runs = o->min_runs, .max_runs = o->max_runs,
		.min_time = o->min_time, .timeout = o->timeout,
		.prepare = o->prepare, .cleanup = o->cleanup,
		.input = o->input, .pin = o->have_pin ? &o->pin : NULL,
		.order = (enum run_order)o->order,
		.show_output = o->show_output,
		.ignore_failure = o->ignore_failure, .shell = o->shell,
		.no_counters = o->no_counters, .progress = !o->quiet,
		.all_cis = o->json != NULL,
		.record_git = o->json || o->csv || o->markdown || o->bmf ||
			      !o->no_store,
		.events = o->events, .nevents = o->nevents,
		.reference = o->reference,
		.compare_metrics = o->compare_metrics,
		.ncompare_metrics = o->ncompare_metrics,
		.seed = o->seed, .resamples = o->resamples,
	};
	for (size_t w = 0; w < WORK_COUNT; w++) {
		p->work[w] = o->work[w];
		p->work_text[w] = o->work_arg[w]
				  ? strchr(o->work_arg[w], '=') + 1 : NULL;
	}
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct run_plan plan;
	struct error e;
	int r;

	r = run_parse(&o, argc, argv, &e);
	if (r) {
		if (r < 0)
			fprintf(stderr, "yardstick run: %s\n", e.msg);
		run_opts_free(&o);
		return r < 0 ? 2 : 0;
	}
	run_plan_from_opts(&o, &plan);
	r = run_plan_execute(&plan, &(struct run_outputs){
		.json = o.json, .csv = o.csv, .markdown = o.markdown,
		.bmf = o.bmf, .store = o.store, .no_store = o.no_store,
		.quiet = o.quiet, .details = o.details }, NULL);
	run_opts_free(&o);
	return r;
}
