/*
 * The engine of `yardstick mem`: a plan (struct mem_plan, made by
 * cmd/mem.c from its options) into the heap trace of the program, its
 * replay and its allocation sites (mem_collect.c), the terminal report
 * and the result of kind "mem" (mem_report.c). Nothing here knows the
 * command line.
 */
#ifndef YS_ENGINE_MEM_RUN_H
#define YS_ENGINE_MEM_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "heap/analyze.h"
#include "heap/collect.h"
#include "measure/machine.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "result/result.h"

struct mem_plan {
	struct heap_opts ho;	/* the agent's options; mem_prepare and
				 * mem_collect set the agent, Python and the
				 * interrupt */
	long top;		/* sites shown in each table of the report */
	bool python;		/* Python frames in CPython's stacks */
	bool sites;		/* symbolize the sites (the report or a
				 * profile is wanted) */
	bool lines;		/* the sites' frames with their lines */
	bool all_processes;	/* launchers counted too (heap_launchers) */
	bool own_malloc;	/* mem_prepare: the program defines malloc
				 * itself */
	size_t as_limit;	/* mem_prepare: the address-space limit
				 * (ulimit -v) in bytes, 0: none */
	const char *name;	/* the benchmark's name; NULL: the command */
	char **argv;		/* the program */
};

struct mem_run {
	struct heap_trace trace;
	struct heap_report rep;
	struct profile prof;
	struct result res;	/* built by mem_build_result */
	bool have_res;
	struct git_info git;
	struct git_probe git_probe;
	const struct mem_plan *p;
	double replay_s, symbolize_s;	/* where the time went */
	double symbolize_cpu_s;		/* ... and the CPU it took */
};

/*
 * Before the program runs: its path (*path, malloc'd) resolved, checked
 * to take a preloaded agent, the agent found (p->ho.agent, the caller's
 * to free) and libdw loaded when the sites are wanted. Returns 0, or the
 * exit code with e set: 2 for the program or the agent, 3 for libdw.
 */
int mem_prepare(struct mem_plan *p, char **path, struct error *e);

/*
 * Run the program at path under the heap agent, then replay its trace
 * into m->rep and, with p->sites, its allocation sites into m->prof
 * (m->p is p; m->trace, m->rep and m->prof are the caller's to free
 * whatever the return). Returns 0, or -1 with e set (the program did
 * not run).
 */
int mem_collect(struct mem_run *m, struct mem_plan *p, const char *path,
		struct error *e);

/* The report: totals, peak, leaks, sizes, the top sites. */
void mem_report(const struct mem_run *m, FILE *fp);
/* The result of kind "mem" in m->res, built once (m->have_res). */
void mem_build_result(struct mem_run *m);
/* The result to path, the --json writer of the output set (run: the
 * struct mem_run). */
int mem_write_result(const char *path, void *run, struct error *e);

#endif
