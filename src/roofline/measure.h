/*
 * Measuring the ceilings: which ones this machine has (roof_plan: every
 * ISA cpuid reports, every cache level sysfs describes, then DRAM; one
 * thread and all), and each one's repetitions (roof_run), on a pool of
 * threads pinned one per CPU, each with buffers of its own that it
 * allocated and touched first.
 *
 * A repetition runs the kernel on every thread of the ceiling at once for
 * about target seconds (the count of iterations calibrated first) and
 * divides the work of all threads by the time from the start barrier to
 * the last thread's end. Bytes are the bytes the kernel moves: load 8 per
 * element, copy 16 (read + write), triad 24 (two reads, one write); the
 * write-allocate reads of a store that misses are not counted, as
 * likwid-bench does not count them.
 */
#ifndef YS_ROOFLINE_MEASURE_H
#define YS_ROOFLINE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "roofline/ceilings.h"
#include "roofline/cpu.h"
#include "util/error.h"

#define ROOF_MAX_CPUS 1024

struct roof_machine {
	struct roof_cpu cpu;
	struct roof_caches caches;
	int cpus[ROOF_MAX_CPUS];	/* sched_getaffinity's, ascending */
	int ncpus;
};

/*
 * The ceilings to measure on m with threads threads for the all-cores
 * ones (1: one-thread ceilings only), the working sets from the caches:
 * half of each cache per instance the threads use (a private cache:
 * half of it per thread), DRAM 4 × the last level cache of the whole
 * machine and at least dram_min bytes. *out (n of them, values 0) is the
 * caller's to free.
 */
void roof_plan(const struct roof_machine *m, int threads, uint64_t dram_min,
	       struct roof_ceiling **out, size_t *n);

struct roof_pool;

/* Start threads workers pinned to cpus[i % ncpus]: 0, or -1 with e. */
int roof_pool_start(struct roof_pool **p, const int *cpus, int ncpus,
		    int threads, struct error *e);
void roof_pool_stop(struct roof_pool *p);

/*
 * Measure c reps times, each repetition about target seconds, into
 * values[0..reps) (FLOP/s or bytes/s); its threads must be at most the
 * pool's and its ISA one the CPU has. 0, or -1 with e (memory for the
 * buffers refused).
 */
int roof_run(struct roof_pool *p, const struct roof_ceiling *c, int reps,
	     double target, double *values, struct error *e);

/* The clock of one core while it runs (dependent adds), Hz: the largest
 * of reps repetitions of about target seconds each. */
double roof_clock_hz(struct roof_pool *p, int reps, double target);

/* The ISA of a ceiling's isa name, or ROOF_NISA. */
enum roof_isa roof_isa_of(const char *name);

#endif
