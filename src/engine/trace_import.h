/*
 * The engine of `yardstick import`: torch.profiler's Chrome trace
 * (profile/torchops.h) into the operator table and a result of kind
 * "trace", one benchmark per operator as `trace` makes one per zone
 * (engine/trace_run.h), so that store, compare and gate take it.
 */
#ifndef YS_ENGINE_TRACE_IMPORT_H
#define YS_ENGINE_TRACE_IMPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/torchops.h"
#include "profile/trace.h"
#include "result/result.h"
#include "util/error.h"

struct trace_import_plan {
	const char *path;	/* the trace */
	const char *name;	/* prefix of the benchmarks' names, or NULL */
	long top;		/* operators in the table */
	long max_events;	/* events kept; those past it are dropped */
};

struct trace_import {
	const struct trace_import_plan *p;
	struct trace tr;
	struct torchops_trace_stats st;
	struct result res;
	bool have_res;
};

/* Read p's trace into im (which the caller frees with trace_import_free
 * whatever this returns). 0, or -1 with e set (a trace that cannot be
 * read or parsed: ERROR_INPUT). */
int trace_import_read(struct trace_import *im,
		      const struct trace_import_plan *p, struct error *e);
void trace_import_free(struct trace_import *im);

/* What was read and the operator table. */
void trace_import_report(const struct trace_import *im, FILE *fp);
/* The result of kind "trace" in im->res, built once. */
void trace_import_build_result(struct trace_import *im);
/* The --json writer (ctx: the trace_import). */
int trace_import_write_result(const char *path, void *ctx, struct error *e);

#endif
