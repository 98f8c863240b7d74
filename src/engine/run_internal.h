/*
 * Between the files of run's engine (run.c, run_loop.c, run_checks.c,
 * run_finish.c, run_work.c), not for its callers: the rows of metrics a
 * job records and the steps each phase of run.h calls, in the order it
 * calls them. The unit test of the loop (tests/unit/test_runloop.c)
 * drives run_measure_all through it.
 */
#ifndef YS_ENGINE_RUN_INTERNAL_H
#define YS_ENGINE_RUN_INTERNAL_H

#include "engine/run.h"

/* The rusage metrics: the first of every benchmark, in this order. */
enum {
	M_WALL, M_USER, M_SYS, M_RSS, M_MINFLT, M_MAJFLT, M_VCSW, M_IVCSW,
	M_RUSAGE_COUNT
};

/* The name and unit of each rusage metric (run_loop.c). */
extern const struct run_metric_name {
	const char *name, *unit;
} run_rusage_metrics[M_RUSAGE_COUNT];
/* The metric of each --work NAME (run_loop.c), in the order of WORK_*:
 * its name is also the result's setting holding the expression. */
extern const struct run_metric_name run_work_metrics[WORK_COUNT];


/* Evaluate the --work expressions for every job into job.work and set
 * rn->nwork; a division by zero, a result that is not finite or is below
 * 0 names the benchmark (run_work.c). */
int run_work_eval(struct runner *rn);
/* The expressions as the result's settings work_flops, work_bytes. */
void run_work_settings(const struct runner *rn);

/* The warm-ups and the measured runs of every job (run_loop.c), through
 * rn->exec; with sp.interrupt set, Ctrl-C stops them. Returns 0, or -1
 * with rn->failed the exit code (1: a command failed, 2: it could not be
 * started, 130: interrupted) and rn->err the message. */
int run_measure_all(struct runner *rn);
/* --shell: the median cost of `sh -c ''` into rn->shell_cost. */
int run_calibrate_shell(struct runner *rn);
/* The CPU time of a spawn before its exec into rn->exec_cost (measured on
 * /bin/true); 0, or -1 when stopped. */
int run_calibrate_exec(struct runner *rn);
/* Does a job look as if perf counters could not follow it, before
 * rn->exec_cost is known? */
bool run_perf_follow_suspect(const struct runner *rn);

/* After the runs (run_checks.c), in this order: leave out the benchmarks
 * that never ran (after a failure or an interrupt); drop the counters of
 * commands they could not follow; subtract the shell's start-up
 * (--shell); say which runs had a peak RSS below the floor or left
 * processes behind. */
void run_drop_unrun(struct runner *rn);
void run_perf_follow_check(struct runner *rn);
void run_shell_correct(struct runner *rn);
void run_rss_warnings(struct runner *rn);
void run_stray_warnings(struct runner *rn);
/* Name every counter metric of b unsupported, saying why. */
void run_mark_perf_blind(struct runner *rn, struct benchmark *b,
			 const char *why);

#endif
