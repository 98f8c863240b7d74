/*
 * `yardstick run`: its options, and the plan made from them for run's
 * engine (engine/run.h), which measures; this command parses, calls the
 * engine, prints and writes the outputs.
 */
#ifndef YS_CMD_RUN_H
#define YS_CMD_RUN_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include "engine/run.h"
#include "result/result.h"
#include "util/error.h"
#include "util/expr.h"
#include "util/paramscan.h"

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
	 * run_parse): NULL where not given */
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

struct opt_cmd;
extern const struct opt_cmd run_cmd;

#endif
