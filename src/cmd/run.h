/*
 * `yardstick run`: options and the plan of what to measure. The plan is the
 * cartesian product of the commands and the --param scans; each job is one
 * benchmark of the result.
 */
#ifndef YS_CMD_RUN_H
#define YS_CMD_RUN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "measure/counters.h"
#include "measure/machine.h"
#include "measure/spawn.h"
#include "measure/spawner.h"
#include "result/result.h"
#include "util/term.h"
#include "util/outputs.h"
#include "util/expr.h"
#include "util/paramscan.h"
#include "util/error.h"

/* --work NAME=EXPR: what a run of a benchmark does (run_work.c). */
enum { WORK_FLOPS, WORK_BYTES, WORK_COUNT };

struct job {
	char *name;
	char **argv;		/* what is executed */
	char *path;		/* argv[0] resolved */
	size_t template;	/* index of the command it came from */
	size_t combo;		/* index of its parameter combination */
	char **param_values;	/* one per scan */
	struct benchmark *bench;
	double measured;	/* seconds of wall time measured so far */
	size_t runs;		/* measured runs so far */
	size_t strays;		/* processes its runs left running */
	size_t stray_runs;	/* runs that left any */
	/* why perf counters cannot follow it (spawn_exec_privileged, or
	 * seen after the runs), malloc'd; NULL: they can */
	char *perf_blind;
	/* --work: the values of the expressions given, in the order of
	 * WORK_*, the ones not given left out */
	double work[WORK_COUNT];
	bool failed;
};

enum run_order { ORDER_INTERLEAVED, ORDER_SEQUENTIAL };

struct run_opts {
	char **commands;	/* strings to split, or NULL with argv */
	size_t ncommands;
	char **argv;		/* after "--": one command */
	char **names;		/* argv's strings */
	size_t nnames;
	long warmup, runs, min_runs, max_runs;
	double min_time, timeout;
	const char *prepare, *cleanup, *input;	/* argv's */
	bool show_output, ignore_failure, shell, no_counters, quiet, details;
	bool have_pin, min_runs_given, warmup_given;
	cpu_set_t pin;
	int order;		/* enum run_order */
	struct scan *scans;
	size_t nscans;
	const char *reference;
	char **compare_metrics;
	size_t ncompare_metrics;
	char **events;
	size_t nevents;
	const char *json, *csv, *markdown, *bmf, *store;
	bool no_store;
	unsigned long long seed;
	long resamples;
	/* --work NAME=EXPR as given ("flops=2*{n}^3"), and parsed (by
	 * run_work_check): NULL where not given */
	const char *work_arg[WORK_COUNT];
	struct expr *work[WORK_COUNT];
};

/* Parse argv (after the word "run"). Returns 0, 1 when help was printed,
 * or -1 with a message naming the option. */
int run_parse(struct run_opts *o, int argc, char **argv, struct error *e);
void run_opts_free(struct run_opts *o);

/*
 * What another command that times a program with run's machinery
 * (`roofline --count`) adds to it: measured, once the runs are done and
 * before the statistics, the report, the files and the store (to add
 * metrics and settings to the result); done, after the store, when all
 * went well (its return is the exit code).
 */
struct run_hooks {
	void (*measured)(struct result *r, void *arg);
	int (*done)(const struct result *r, void *arg);
	void *arg;
};

/* The runs of o (parsed by run_parse), the report, the files and the
 * store: all of `yardstick run` after its options. h may be NULL.
 * Returns the exit code. */
int run_execute(struct run_opts *o, const struct run_hooks *h);

/* Expand commands x scans into jobs. Checks every program exists. */
int run_plan(const struct run_opts *o, struct job **jobs, size_t *njobs,
	     struct error *e);
void run_jobs_free(struct job *jobs, size_t njobs);

/*
 * How the loop (run_loop.c) starts one run: measure is spawn_measure's
 * contract (spawn.h) — fill *out, 0 when the command ran whatever its
 * exit, -1 with a message when it could not (out->spawn_failed: the exec
 * was refused). run_spawn_executor is spawn_measure itself, and batches
 * through the spawner (when o->via is one: run_loop.c, can_batch); the
 * unit tests script fakes.
 */
struct run_executor {
	int (*measure)(void *arg, const struct spawn_opts *o,
		       struct run_sample *out, struct error *e);
	void *arg;
	/* NULL, or runs of one command in a batch through the spawner
	 * o->via (spawner_measure_batch's contract) */
	int (*batch)(void *arg, const struct spawn_opts *o,
		     const struct spawner_batch *b, struct error *e);
};

extern const struct run_executor run_spawn_executor;

/* The state of one `run`, shared by run.c (setting up), run_loop.c
 * (measuring) and run_finish.c (statistics, outputs, the store). */
struct runner {
	struct run_opts *o;
	struct output_set outs;		/* --json, --csv, --markdown, --bmf */
	const struct run_executor *exec;
	struct git_probe git;		/* git status, running meanwhile */
	struct job *jobs;
	size_t njobs;
	struct result *res;
	struct counters *ctr;
	struct counter_value *cvals;
	struct metric ***metrics;	/* [job][rusage + counters + ipc] */
	size_t nmetrics;
	long cycles_idx, instr_idx;	/* counter indices, -1 if absent */
	bool ipc;			/* ipc follows the counters */
	size_t nwork;			/* --work metrics, the last ones */
	size_t *mux;			/* [job][counter]: multiplexed runs */
	bool emulated;			/* YARDSTICK_EMULATE_PMU */
	bool perf_refused;		/* perf events not permitted */
	double expected;		/* runs expected in all, for the
					 * progress bar */
	int null_fd, input_fd;
	int err_pipe[2];		/* the commands' stderr, for its tail */
	struct drainer *drainer;	/* keeps its last 4 KiB */
	char *fail_tail;		/* stderr tail of what failed */
	bool hint_ignore;		/* a measured command failed */
	struct spawn_opts sp;
	double shell_cost[3];		/* wall, user, sys of `sh -c ''` */
	struct progress progress;
	size_t total_runs;
	struct rng rng;
	struct error err;
	int failed;			/* exit code to return, 0 if none */
};

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

/* --work (run_work.c). The callback of the option: NAME=EXPR, NAME
 * flops or bytes, each once. */
int run_work_option(struct run_opts *o, const char *arg, struct error *e);
/* The --param names, for a message: "n, m", or "none"; free() it. */
char *run_param_names(const struct run_opts *o);

/* After the options: parse every expression and check each parameter
 * it names is a --param of the command (message: "--work
 * flops='2*{n}^^3': column 7: ..."). */
int run_work_check(struct run_opts *o, struct error *e);
/* Evaluate them for every job into job.work and set rn->nwork; a
 * division by zero, a result that is not finite or is below 0 names the
 * benchmark. */
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

/* The result outputs asked for, and --show-output's claim on stdout,
 * into rn->outs (run_finish.c). */
void run_add_outputs(struct runner *rn);
/* After the last run: summaries, comparisons, fits, warnings, the report
 * and the output files (run_finish.c). Returns 0 or an exit code. */
int run_finish(struct runner *rn, long ref);
/* Keep the result in the store; 0 or an exit code. */
int run_save(struct runner *rn);
/* The message of what stopped the runs, and the command's stderr tail. */
void run_report_failure(struct runner *rn);

/* Beyond this many benchmarks the report is one line each, unless
 * --details is given. */
#define RUN_REPORT_MAX_DETAILED 4

/* Terminal report of a summarized, analyzed result. */
void run_report(const struct result *r, bool details, FILE *fp);
/* The comparisons of r in words, under a heading per metric (bench's
 * group ratios too). */
void run_report_comparisons(const struct result *r, FILE *fp);
/* The complexity fits of r, one a line under a heading (bench's too). */
void run_report_fits(const struct result *r, FILE *fp);
/* Every benchmark's warnings, one a line ("warning: 'name': text"). */
void run_report_warnings(const struct result *r, FILE *fp);

struct opt_cmd;
extern const struct opt_cmd run_cmd;

#endif
