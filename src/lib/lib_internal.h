/*
 * libyardstick's inside (module `lib`): the registry of benchmarks
 * (registry.c), the clock (clock.c), whether allocations are counted
 * (allocs.c; the counting itself is libyardstick_alloc, alloc.c),
 * the perf counters of the timed regions (events.c), the epochs
 * (runner.c), the outputs (report.c, gbench.c) and the command line
 * (cli.c). The public API is include/yardstick.h.
 */
#ifndef YS_LIB_LIB_INTERNAL_H
#define YS_LIB_LIB_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "yardstick.h"
#include "lib/alloc.h"
#include "result/result.h"
#include "util/error.h"
#include "util/paramscan.h"

/* ---- clock.c ---- */

enum lib_clock_kind { LIB_CLOCK_MONOTONIC, LIB_CLOCK_TSC };

struct lib_clock {
	enum lib_clock_kind kind;
	double tick;		/* seconds per tick */
	double resolution;	/* seconds: median step between two readings
				 * that differ */
	bool tsc_invariant;	/* CPUID 0x80000007 EDX bit 8 */
};

extern struct lib_clock lib_clock;

static inline uint64_t lib_now(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (lib_clock.kind == LIB_CLOCK_TSC) {
		uint32_t lo, hi, aux;

		__asm__ __volatile__("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		return (uint64_t)hi << 32 | lo;
	}
#endif
	{
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
}

/* Choose the clock (tsc: only where invariant, calibrated against
 * CLOCK_MONOTONIC) and measure its resolution. -1 with the message when
 * the TSC was asked for and cannot be used. */
int lib_clock_setup(bool tsc, struct error *e);

/* ---- allocs.c: is libyardstick_alloc linked (lib/alloc.h)? ---- */

/* Defined when the program links libyardstick_alloc (weak: NULL when
 * not). */
const struct ys__alloc_counts *ys__alloc_counts_v1(void)
	__attribute__((weak));

enum lib_alloc_state {
	LIB_ALLOC_COUNTED,	/* asked, linked, the program's malloc */
	LIB_ALLOC_OFF,		/* --no-alloc-count */
	LIB_ALLOC_NOT_LINKED,	/* no libyardstick_alloc */
	LIB_ALLOC_NOT_FIRST,	/* linked, but another malloc comes first */
};

/* Whether allocations can be counted (asked: not --no-alloc-count):
 * libyardstick_alloc linked and its malloc the one the program calls
 * (it is not when it was linked into a shared library that comes after
 * another malloc). */
enum lib_alloc_state lib_alloc_probe(bool asked);
/* The setting `allocations` saying it (docs/result-format.md). */
const char *lib_alloc_setting(enum lib_alloc_state st);

/* ---- events.c: perf counters of each thread's timed regions ---- */

#define LIB_MAX_EVENTS 8

struct lib_events {
	int fd[LIB_MAX_EVENTS];		/* -1: not open on this thread */
	uint64_t before[LIB_MAX_EVENTS][3], after[LIB_MAX_EVENTS][3];
};

/* Find which of the default events this machine counts (once). */
void lib_events_probe(bool enabled);
size_t lib_events_count(void);
const char *lib_events_metric(size_t i);
const char *lib_events_unit(size_t i);
/* Default events that are not counted here, and why (NULL: no reason
 * worth a warning). */
size_t lib_events_unsupported(const char ***names);
const char *lib_events_warning(void);
void lib_events_open(struct lib_events *ev);
void lib_events_close(struct lib_events *ev);
void lib_events_read(struct lib_events *ev, bool after);
/* The change of event i between the readings (seconds for task-clock);
 * false when it did not count. */
bool lib_events_delta(const struct lib_events *ev, size_t i, double *out);

/* ---- registry.c ---- */

struct lib_reg {
	char *name;
	ys_fn fn;
	char *spec;
	char *file;
	int line;
	/* parsed spec */
	struct scan *scans;
	size_t nscans;
	char *group;
	void *data;		/* ys_register_data's, for ys_data */
};

struct lib_registry {
	struct lib_reg *regs;
	size_t n, cap;
};

extern struct lib_registry lib_registry;

/* Parse every registration's spec; -1 with a message naming the
 * benchmark, its file and line. */
int lib_registry_parse(struct error *e);

/* ---- runner.c ---- */

/* Values a body gave with ys_value: a metric of its own. */
struct lib_extra {
	char *metric, *unit;
	double *v;
	size_t n, cap;
};

/* One benchmark: a registration with one value per parameter. */
struct lib_inst {
	struct lib_reg *reg;
	char **values;		/* one per scan of reg */
	char *label;		/* "name [n=10]" when it has parameters */
	int threads;
	size_t unit;		/* the interleaving unit it belongs to */
	/* per epoch */
	double *per_op;		/* seconds per iteration, overhead off */
	double *iters;
	double *allocs, *alloc_bytes, *frees;	/* per iteration */
	double *ev[LIB_MAX_EVENTS];		/* per iteration; NaN: not
						 * counted */
	size_t nepochs, cap;
	uint64_t base_iters;
	double items, bytes, flops;	/* declared per iteration */
	char *failed;		/* why it failed; NULL when it did not */
	struct lib_extra *extra;	/* ys_value's metrics */
	size_t nextra;
	int tuning;		/* 1 + the warm-up epoch while tuning; 0 */
};

struct lib_opts {
	const char *filter;
	bool list;
	double min_time;	/* seconds; 0: from the clock's resolution */
	int epochs;
	const char *json, *gbench_json;
	bool tsc;
	bool no_counters;
	bool no_alloc_count;	/* allocations not counted */
	unsigned long long seed;
	char **argv;
	int argc;
};

struct lib_run {
	const struct lib_opts *o;
	struct lib_inst *insts;
	size_t ninsts;
	double overhead;	/* seconds per timed region, subtracted */
	double loop_cost;	/* seconds per iteration of an opaque empty
				 * body: reported, not subtracted */
	double ev_overhead[LIB_MAX_EVENTS];
	double epoch_target;	/* seconds */
	enum lib_alloc_state alloc;	/* LIB_ALLOC_COUNTED: counted */
	double wall;		/* seconds for the whole run */
};

/* Expand the registrations into instances (cartesian products), keep
 * those whose label matches the filter. -1 with a message. */
int lib_plan(struct lib_run *rn, struct error *e);
/* Measure them all (progress on stderr when it is a terminal). */
void lib_measure(struct lib_run *rn);
void lib_run_free(struct lib_run *rn);

/* The instance's values of metric (ys_value), NULL when it has none. */
const struct lib_extra *lib_extra_find(const struct lib_inst *in,
				       const char *metric);

/* ---- report.c, gbench.c ---- */

/* An epoch this fraction of the target or shorter cannot be timed (with
 * the target at 1000 x the clock's resolution: 10 resolutions, a 10%
 * error): the body took no measurable time. */
#define LIB_SHORT_FRACTION 0.01


/* The result v1 of a run (kind "bench"), summarized. */
void lib_result(const struct lib_run *rn, struct result *r);
void lib_print_table(const struct lib_run *rn, const struct result *r,
		     FILE *out);
int lib_write_gbench(const struct lib_run *rn, const struct result *r,
		     const char *path, struct error *e);

#endif
