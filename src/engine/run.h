/*
 * The engine of `yardstick run`: the runs of commands, measured, and the
 * result they make. Its input is a struct run_plan (what to run and how),
 * made by the command from its options (cmd/run.c, run_plan_from_opts) or
 * by any other caller; it never sees the command line. It prints nothing:
 * errors come back in rn->err with an exit code, warnings go to the plan's
 * warn callback, and the terminal report is run_report.h's.
 *
 * A caller goes through the phases in order, each once:
 *
 *	run_engine_init(&rn, &plan, &res);
 *	ret = run_engine_prepare(&rn);	   jobs, descriptors, counters
 *	ret = run_engine_measure(&rn);	   the runs, then the checks
 *	run_engine_finish(&rn);		   settings, statistics, warnings
 *	run_engine_free(&rn);		   on every way out
 *
 * The result (res, the caller's) then holds one benchmark per job that
 * ran; rn.failed says what stopped the runs.
 */
#ifndef YS_ENGINE_RUN_H
#define YS_ENGINE_RUN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "measure/counters.h"
#include "measure/machine.h"
#include "measure/spawn.h"
#include "measure/spawner.h"
#include "result/result.h"
#include "stats/stats.h"
#include "util/error.h"
#include "util/expr.h"
#include "util/paramscan.h"
#include "util/term.h"

/* --work NAME=EXPR: what a run of a benchmark does (run_work.c). */
enum { WORK_FLOPS, WORK_BYTES, WORK_COUNT };

enum run_order { ORDER_INTERLEAVED, ORDER_SEQUENTIAL };

/*
 * What to measure and how. Every pointer is borrowed: the plan owns
 * nothing and must outlive the runner.
 */
struct run_plan {
	char *const *commands;	/* strings split with shell rules, or */
	size_t ncommands;
	char *const *argv;	/* one command as words; NULL: commands */
	char *const *names;	/* the commands' names, in order */
	size_t nnames;
	const struct scan *scans;	/* --param, crossed */
	size_t nscans;
	long warmup;		/* unmeasured runs of each job first */
	long runs;		/* exactly so many; 0: adaptive, below */
	long min_runs, max_runs;
	double min_time;	/* adaptive: seconds measured at least */
	double timeout;		/* seconds; 0: none */
	const char *prepare, *cleanup;	/* shell commands; NULL: none */
	const char *input;	/* the commands' stdin; "-" ours; NULL:
				 * /dev/null */
	const cpu_set_t *pin;	/* NULL: any CPU */
	enum run_order order;
	bool show_output;	/* the commands' output let through */
	bool ignore_failure;	/* a failing run does not stop the rest */
	bool shell;		/* through /bin/sh -c, its start-up
				 * subtracted */
	bool no_counters;	/* no perf events at all */
	bool progress;		/* a progress bar on the terminal */
	bool all_cis;		/* a CI for every metric; else wall
				 * time's only */
	bool record_git;	/* the git state goes into the result */
	char *const *events;	/* perf events; NULL: the default set */
	size_t nevents;
	const char *reference;	/* the benchmark compared with; NULL:
				 * the first */
	char *const *compare_metrics;	/* beyond wall_time */
	size_t ncompare_metrics;
	unsigned long long seed;	/* of the bootstrap and the order */
	long resamples;		/* bootstrap resamples */
	/* --work: each expression parsed (run_work_parse) and its text;
	 * NULL where not given */
	const struct expr *work[WORK_COUNT];
	const char *work_text[WORK_COUNT];
	/* a warning to show (no "warning:" in it); NULL: dropped */
	void (*warn)(void *arg, const char *msg);
	void *warn_arg;
};

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
	 * o->via, pulled one by one (spawner_batch_begin, _next and
	 * _stop's contract): the loop calls down, nothing calls it back */
	int (*batch_begin)(void *arg, const struct spawn_opts *o,
			   const struct spawner_batch *b, struct error *e);
	int (*batch_next)(void *arg, const struct spawn_opts *o,
			  struct spawner_batch_run *run, struct error *e);
	int (*batch_stop)(void *arg, const struct spawn_opts *o,
			  struct error *e);
};

extern const struct run_executor run_spawn_executor;

/* The state of one `run`, shared by the engine's files: run.c (setting
 * up), run_loop.c (measuring), run_checks.c (after the runs) and
 * run_finish.c (statistics). A caller reads failed, err, fail_tail,
 * hint_ignore, total_runs, njobs and planned. */
struct runner {
	const struct run_plan *p;
	const struct run_executor *exec;
	struct git_probe git;		/* git status, running meanwhile */
	struct job *jobs;
	size_t njobs;
	size_t planned;			/* jobs made; njobs those that ran
					 * once run_drop_unrun left out
					 * the others */
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
	double exec_cost;		/* CPU seconds of a spawn before its
					 * exec (run_calibrate_exec) */
	struct progress progress;
	size_t total_runs;
	long ref;			/* template index of the reference */
	struct rng rng;
	struct error err;
	int failed;			/* exit code to return, 0 if none */
};

/* The defaults of a plan, those of `yardstick run`'s options: one warm-up
 * run, adaptive runs (10 to 1000, 3 s measured at least), seed 1, 1000
 * bootstrap resamples, the default counters; one command to fill in
 * (argv), nothing else asked for. */
void run_plan_init(struct run_plan *p);

/* A runner of plan p into res (result_init'ed by the caller), through
 * run_spawn_executor. Nothing is opened yet. */
void run_engine_init(struct runner *rn, const struct run_plan *p,
		     struct result *res);
/*
 * The jobs (commands x scans, every program resolved), the descriptors,
 * the spawner, the counters, the benchmarks of the result, the --work
 * values, the --compare-metric names and the reference checked; the
 * machine and the git state (asked for, answered meanwhile). Returns 0,
 * or the exit code (2 bad input or a resource refused, 3 --events not
 * permitted) with rn->err set. Perf events refused without --events are
 * a warning: the rusage metrics stand.
 */
int run_engine_prepare(struct runner *rn);
/*
 * The runs (--shell: the shell's start-up timed first), then the checks
 * of run_checks.c. Returns 0, or the exit code when the shell could not
 * be timed (rn->err). A run that failed or an interrupt is rn->failed (1
 * a command failed, 2 it could not be started, 130 interrupted) with
 * rn->err, and the benchmarks that never ran are left out (rn->njobs <
 * rn->planned).
 */
int run_engine_measure(struct runner *rn);
/* The settings, summaries, comparisons with the reference, complexity
 * fits and warnings of the result. */
void run_engine_finish(struct runner *rn);
/* Everything the runner holds; the result stays the caller's. */
void run_engine_free(struct runner *rn);

/* Expand the plan's commands x scans into jobs, every program resolved.
 * Returns 0, or -1 with e set (*jobs then holds *njobs jobs to free). */
int run_jobs_make(const struct run_plan *p, struct job **jobs, size_t *njobs,
		  struct error *e);
void run_jobs_free(struct job *jobs, size_t njobs);

/* --work (run_work.c): the kind a NAME of --work NAME=EXPR names (flops,
 * bytes: WORK_*), -1 for none; name has len bytes. */
int run_work_kind(const char *name, size_t len);
/* The NAME of kind w ("flops"). */
const char *run_work_name(size_t w);
/* Parse the EXPR of --work of kind w and check that each parameter it
 * names is one of scans ("--work flops='2*{n}^^3': column 7: ...").
 * Returns 0 with *out (expr_free it), or -1 with e set. */
int run_work_parse(size_t w, const char *text, const struct scan *scans,
		   size_t nscans, struct expr **out, struct error *e);
/* The --param names, for a message: "n, m", or "none"; free() it. */
char *run_param_names(const struct scan *scans, size_t nscans);

#endif
