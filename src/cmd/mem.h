/*
 * `yardstick mem`'s parts: options and flow in mem.c, the terminal report
 * and the result (JSON, store) in mem_report.c.
 */
#ifndef YS_CMD_MEM_H
#define YS_CMD_MEM_H

#include <stdbool.h>
#include <stdio.h>

#include "heap/analyze.h"
#include "heap/collect.h"
#include "measure/machine.h"
#include "profile/output.h"
#include "profile/profile.h"
#include "result/result.h"

struct mem_args {
	struct heap_opts ho;
	long top;
	int cost;		/* index into mem.c's costs[] */
	bool python;		/* --python */
	struct profile_outputs out;
	const char *title, *timeline, *json, *name, *store;
	bool no_store, quiet;
	char **argv;
};

struct mem_run {
	struct heap_trace trace;
	struct heap_report rep;
	struct profile prof;
	struct result res;	/* built by mem_result */
	bool have_res;
	struct git_info git;
	struct git_probe git_probe;
	const struct mem_args *args;	/* for the output writers */
};

/* How the program ended, on stderr, when it did not exit with 0. */
void mem_print_status(const struct mem_run *m);
/* The report: totals, peak, leaks, sizes, the top sites. */
void mem_report(const struct mem_args *a, const struct mem_run *m,
		FILE *fp);
/* The result (kind "mem") to path, the --json writer of the output set
 * (run: the struct mem_run); mem_save keeps it in the store and returns
 * the exit code (0 when kept). */
int mem_write_result(const char *path, void *run, struct error *e);
int mem_save(const struct mem_args *a, struct mem_run *m);

#endif
