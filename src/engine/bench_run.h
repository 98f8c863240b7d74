/*
 * The engine of `yardstick bench`: a plan (struct bench_plan, made by
 * cmd/bench.c from its options) into the processes of a libyardstick
 * program run one after the other (measure/benchproc.h: each one's result
 * read through a pipe and merged; with a baseline program, the two
 * alternated), and the result stamped. Nothing here prints.
 */
#ifndef YS_ENGINE_BENCH_RUN_H
#define YS_ENGINE_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/gate_config.h"
#include "measure/benchproc.h"
#include "measure/machine.h"
#include "result/result.h"
#include "util/error.h"

/* The epochs each process measures when more than one runs and none
 * were asked for. */
#define BENCH_PROCESS_EPOCHS 5
/* The processes of each program at most when the checks ask for more
 * (--max-processes), and the rounds in which they may ask. */
#define BENCH_MAX_PROCESSES 100
#define BENCH_ROUNDS 3

struct bench_plan {
	const char *filter;		/* passed on as --filter */
	double min_time, timeout;	/* --min-time passed on; timeout: a
					 * process is killed after it */
	long epochs, processes;
	long max_processes;		/* with a baseline program and checks:
					 * more processes of each, up to this,
					 * when the checks need them */
	bool min_time_given, epochs_given;
	uint64_t max_result;		/* bytes of a process's result */
	bool show_output;		/* the program's stdout let through */
	const char *baseline_program;	/* OLD, alternated; NULL: none */
	char **argv;			/* PROGRAM [ARGS...] */
	/* the checks of --max-increase (NULL or none: no more processes
	 * than asked), and what to say when more are measured (NULL:
	 * nothing) */
	const struct gate_config *gate;
	void (*say)(const char *msg);
};

/*
 * Run the processes of p (paths[0] the program's, paths[1] OLD's or
 * NULL) into *run (benchproc_free it), stopped by util/stop.h's flag;
 * with OLD and checks, as many as the checks need (within
 * max_processes; docs/statistics.md).
 * Returns benchproc_run's: 0, or -1 with e set and run->fail saying why.
 */
int bench_run(const struct bench_plan *p, char *const paths[2],
	      struct benchproc_run *run, struct error *e);

/* Where and when: this machine and (git non-NULL, taken over) checkout,
 * which the program cannot know; the program's time and version when it
 * gave them; the benchmarks' names made unique. */
void bench_stamp(struct result *res, struct git_info *git);

#endif
