/*
 * The engine of `yardstick record`: a plan (struct record_plan, made by
 * cmd/record.c from its options) into a CPU profile of the program
 * (record_collect.c). Nothing here knows the command line, and nothing
 * here prints: the command reports, writes and says how it went.
 */
#ifndef YS_ENGINE_RECORD_RUN_H
#define YS_ENGINE_RECORD_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "profile/advice.h"
#include "profile/profile.h"
#include "profile/sampler.h"
#include "util/error.h"

struct record_plan {
	struct sampler_opts so;	/* frequency, event, stacks, off-CPU; the
				 * rest is the engine's to set */
	bool call_graph_given;	/* the stacks' kind was chosen: a CPython
				 * program keeps it */
	bool stack_size_given;	/* so.stack_size chosen: kept for CPython */
	bool python;		/* Python frames in CPython's samples */
	bool lines;		/* symbolize with source lines */
	char **argv;		/* the program; NULL with pid */
	uint32_t pid;		/* else: the running process to attach to */
	double duration;	/* with pid: seconds to sample (0: until a
				 * stop or its exit) */
};

struct pystacks;
struct symtab;

/* What a run collected. */
struct record_run {
	struct profile prof;
	struct sampler_stats st;
	struct pystacks *py;	/* the Python frames' report; NULL without */
	struct symtab *sym;	/* py's symbols */
	uint64_t oncpu;		/* samples on the CPU */
	uint64_t idle_samples;	/* off-CPU: samples' worth off the CPU */
	uint64_t gil_samples;	/* ... of them waiting for CPython's GIL */
	uint64_t interval;	/* ns a sample stands for */
	char *name;		/* with plan.pid: the process's name (comm) */
	/* a known slow library's share of the samples (profile/advice.h),
	 * the largest first; their paths belong to sym */
	struct advice advice[4];
	size_t nadvice;
};

/*
 * Before the run: the program found and allowed (perf events stop at the
 * exec of a set-ID program), DWARF stacks for CPython unless the plan
 * chose, libdw loaded. With p->pid: the process exists and may be
 * sampled (kill(pid, 0)), its CPython found in its maps. Returns 0, or
 * the exit code with e set: 2 for a program or process not found, 3 for
 * one perf cannot follow (a process not ours) or no libdw.
 */
int record_prepare(struct record_plan *p, struct error *e);

/*
 * Run the program of p under the sampler into r's profile (r zeroed by
 * the caller; record_run_free it whatever the return), or with p->pid
 * sample the running process until p->duration, a stop (util/stop.h's
 * flag; the profile is then not marked partial: it is how an attached
 * recording ends) or its exit, leaving it running. Returns 0, or the
 * exit code with e set: 3 when perf events were refused, 2 otherwise.
 */
int record_collect(struct record_run *r, struct record_plan *p,
		   struct error *e);
void record_run_free(struct record_run *r);

#endif
