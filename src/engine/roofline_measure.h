/*
 * The engine of `yardstick roofline --measure`: this machine's ceilings
 * (src/roofline/measure.h) as a result of kind "roofline" (ceilings.h),
 * from a plan (struct roofline_measure_plan) made by cmd/roofline.c.
 */
#ifndef YS_ENGINE_ROOFLINE_MEASURE_H
#define YS_ENGINE_ROOFLINE_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "result/result.h"
#include "roofline/measure.h"
#include "util/error.h"

struct roofline_measure_plan {
	bool quick;		/* a few seconds, for tests */
	long threads;		/* 0: one per CPU this process may run on */
	/* set (by a signal handler: util/stop.h) to end the measurement
	 * between two ceilings; NULL: never */
	volatile sig_atomic_t *interrupt;
};

struct roofline_pace;

/* A measurement under way: the machine, its plan of ceilings, what was
 * measured, and the warnings to say (notes, also on the result's
 * benchmarks). */
struct roofline_measurement {
	struct roof_machine *m;
	struct roof_ceiling *c;		/* the plan: n ceilings */
	size_t n;
	int threads;
	int reps;			/* repetitions per ceiling */
	const struct roofline_pace *pace;
	char warn[5][256];		/* a cache level capped: why */
	char caches_note[256];		/* the caches are cpuid's: why */
	double clock_hz;		/* measured */
	char **notes;			/* the warnings, in order */
	size_t nnotes;
	volatile sig_atomic_t *interrupt;	/* the plan's */
};

/* The machine detected and its ceilings planned. Returns 0, or -1 with e
 * set, its class the exit code's (error_exit_code): ERROR_ENV when the
 * machine cannot run the kernels, ERROR_INPUT for more threads than
 * CPUs. mm is the caller's to free (whatever the return). */
int roofline_measure_prepare(const struct roofline_measure_plan *p,
			     struct roofline_measurement *mm,
			     struct error *e);
/* Measure every ceiling into res (kind "roofline", benchmark i ceiling
 * i) with their warnings. Returns 0, or -1 with e set (ERROR_ENV), its
 * message "interrupted" when the plan's interrupt was set (the ceilings
 * then incomplete: nothing of res is to be kept). */
int roofline_measure_run(struct roofline_measurement *mm, struct result *res,
			 struct error *e);
/* The machine, the time, the version, the settings; summarized. */
void roofline_measure_result(const struct roofline_measurement *mm,
			     struct result *res);
/* The table: the compute ceilings with their theoretical peaks, the
 * memory ceilings with their working sets. */
void roofline_measure_report(FILE *fp, const struct roofline_measurement *mm);
void roofline_measurement_free(struct roofline_measurement *mm);

#endif
