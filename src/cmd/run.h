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

struct opt_cmd;
extern const struct opt_cmd run_cmd;

#endif
