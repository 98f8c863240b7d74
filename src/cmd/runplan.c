/*
 * A plan of run's engine (engine/run.h) carried out for a command: the
 * phases, then what a command does with the result — the report, the
 * warnings and what stopped the runs on the terminal, the output files,
 * the store — and the exit code. `run` (cmd/run.c, its plan made from its
 * options) and `roofline --count` (cmd/roofline_count.c, a plan of its
 * own) both measure through it. The outputs first, so that a store that
 * fails loses nothing --json was asked for.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/commands.h"
#include "engine/run.h"
#include "engine/run_report.h"
#include "measure/spawner.h"
#include "util/keeper.h"
#include "util/stop.h"
#include "util/outputs.h"
#include "util/strutil.h"

/* Every message of the command starts with its prefix (arg: "yardstick
 * run", "yardstick roofline"), as the other commands' do. */
static void print_warning(void *arg, const char *msg)
{
	fprintf(stderr, "%s: warning: %s\n", (const char *)arg, msg);
}

/* The signal policy of every command that runs a program (util/stop.h):
 * Ctrl-C, SIGTERM and SIGHUP stop the runs (no SA_RESTART: wait4
 * returns); what a command leaves running is killed by the spawner, or,
 * without one, by child_sweep. */
static void install_handlers(const char *cmd)
{
	struct error e;

	if (stop_install(&e))
		print_warning((void *)cmd, e.msg);
}

/* Without a spawner above the commands (it is their subreaper, and
 * sweeps them when yardstick is killed), the keeper is: started before
 * anything of the runs, whose counters and descriptors are the worker's
 * (util/keeper.h). */
static void keeper_unless_spawner(const char *cmd)
{
	struct error e;

	if (!spawner_present() && keeper_start(&e))
		print_warning((void *)cmd, e.msg);
}

/* What stopped the runs, the benchmarks left out, and the command's
 * stderr tail. */
static void report_failure(const struct runner *rn, const char *cmd)
{
	const char *t = rn->fail_tail;

	size_t out = rn->planned - rn->njobs, failed = 0;

	/* the left-out (run_drop_unrun: after the kept ones) that ran and
	 * failed before any measured run, and those that never ran */
	for (size_t i = rn->njobs; i < rn->planned; i++)
		failed += rn->jobs[i].failed;
	if (out && failed == out && rn->planned == 1)
		fprintf(stderr, "%s: the benchmark is left out: it failed "
			"before any measured run\n", cmd);
	else if (out && failed == out)
		fprintf(stderr, "%s: %zu of the %zu benchmarks %s left out: %s "
			"before any measured run\n", cmd, out, rn->planned,
			out == 1 ? "is" : "are",
			out == 1 ? "it failed" : "they failed");
	else if (out && failed)
		fprintf(stderr, "%s: %zu of the %zu benchmarks are left out: "
			"%zu failed before any measured run, %zu never ran\n",
			cmd, out, rn->planned, failed, out - failed);
	else if (out)
		fprintf(stderr, "%s: %zu of the %zu benchmarks never ran and "
			"are left out\n", cmd, out, rn->planned);
	fprintf(stderr, "%s: %s\n", cmd, rn->err.msg);
	if (t && *t && rn->failed != 130)
		fprintf(stderr, "%s: the end of its stderr:\n%s%s", cmd, t,
			t[strlen(t) - 1] == '\n' ? "" : "\n");
	if (rn->failed == 1 && rn->hint_ignore)
		fprintf(stderr, "%s: use --ignore-failure to benchmark it "
			"anyway\n", cmd);
}

/* The report, the warnings and the output files of the analyzed result.
 * Returns 0 or an exit code. */
static int run_output(struct runner *rn, const struct run_outputs *o,
		      struct output_set *outs, const char *cmd)
{
	if (!o->quiet && rn->total_runs > 0) {
		/* A result written to stdout keeps stdout to itself. */
		run_report(rn->res, o->details, outputs_report_fp(outs));
		fflush(stdout);
	}
	run_report_warnings(rn->res, !o->quiet, stderr);
	/* The files and the store record the git state: wait for it. */
	git_detect_finish(&rn->git);
	if (git_detect_warning(&rn->git))
		print_warning((void *)cmd, git_detect_warning(&rn->git));
	if (write_output_set(outs, cmd))
		return 2;
	/* A write of the table that failed left only the error flag (its
	 * errno is gone: strerror(0) would say "Success"); said once here,
	 * so main does not say it again. */
	errno = 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: cannot write to stdout: %s\n", cmd,
			errno ? strerror(errno) : "a write of the table "
			"failed (a full disk, or a reader that went away)");
		clearerr(stdout);
		return 2;
	}
	return 0;
}

/* Measured: the hook, the statistics, the outputs, the store, the exit
 * code. */
static int run_conclude(struct runner *rn, const struct run_outputs *o,
			struct output_set *outs, const struct run_hooks *h,
			const char *cmd)
{
	int ret, r = 0;

	if (rn->failed)
		report_failure(rn, cmd);
	if (h && h->measured && rn->total_runs > 0)
		h->measured(rn->res, h->arg);
	run_engine_finish(rn);
	result_mark_partial(rn->res);
	ret = run_output(rn, o, outs, cmd);
	if (!o->no_store && rn->total_runs > 0)
		r = save_result(rn->res, o->store, o->quiet);
	/* rn->failed 130: stopped by a signal, whichever */
	if (rn->failed)
		ret = rn->failed == 130 && stop_signal() ? stop_exit_code()
							 : rn->failed;
	else if (!ret)
		ret = r;
	if (h && h->done && !ret)
		ret = h->done(rn->res, h->arg);
	return ret;
}

int run_plan_execute(const struct run_plan *p, const struct run_outputs *o,
		     const struct run_hooks *h)
{
	struct run_plan plan = *p;
	const char *cmd = o->command ? o->command : "yardstick run";
	struct output_set outs;
	struct result res;
	struct runner rn;
	int ret;

	if (!plan.warn) {
		plan.warn = print_warning;
		plan.warn_arg = (void *)cmd;
	}
	result_init(&res, "run");
	run_engine_init(&rn, &plan, &res);
	/* the outputs, checked before anything runs */
	outputs_init(&outs);
	add_result_outputs(&outs, o->json, o->csv, o->markdown, o->bmf, &res);
	if (plan.show_output)
		outputs_claim_stdout(&outs, "--show-output");
	ret = check_output_set(&outs, cmd);
	if (!ret && !o->no_store)
		ret = save_check(o->store);
	if (!ret) {
		keeper_unless_spawner(cmd);
		/* the table on a stdout that a reader closed (`| head`)
		 * loses its rest, not the runs and the outputs */
		ignore_sigpipe();
		ret = run_engine_prepare(&rn);
		if (!ret) {
			install_handlers(cmd);
			ret = run_engine_measure(&rn);
		}
		if (ret)
			fprintf(stderr, "%s: %s\n", cmd, rn.err.msg);
		else
			ret = run_conclude(&rn, o, &outs, h, cmd);
	}
	run_engine_free(&rn);
	result_free(&res);
	outputs_free(&outs);
	return ret;
}
