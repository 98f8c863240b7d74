/*
 * `yardstick trace`, shared between its files: trace.c (options, the
 * collection, the outputs), trace_report.c (the terminal tables and the
 * result of kind "trace"), trace_zones.c (libyardstick's zones into the
 * timeline).
 */
#ifndef YS_CMD_TRACE_H
#define YS_CMD_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/machine.h"
#include "profile/sampler.h"
#include "profile/trace.h"
#include "result/result.h"

struct trace_args {
	struct sampler_opts so;
	char **outs;
	size_t nouts;
	int format;		/* 0 by the file's name, 1 chrome, 2 perfetto */
	long top;
	long max_events;
	uint64_t max_size;
	long zone_threads;	/* zone buffer: thread slots */
	uint64_t zone_bytes;	/* zone buffer: bytes per thread */
	const char *json;
	const char *name;
	const char *store;
	bool no_store;
	bool quiet;
	bool python;		/* Python frames in CPython's samples */
	char **argv;
};

struct trace_run {
	const struct trace_args *a;
	struct trace tr;
	struct sampler_stats st;
	uint64_t t_end;		/* the program's exit (ns) */
	uint64_t zones_lost;	/* events libyardstick could not record */
	bool zones_attached;	/* the program mapped the zone buffer */
	bool zones_error;	/* the buffer could not be read */
	uint64_t zones_corrupt;	/* threads whose records stopped at a bad
				 * one */
	struct result res;
	bool have_res;
	struct git_info git;
};

struct zb_map;
/* The zones of the buffer into r's timeline (trace_zones.c). */
void trace_add_zones(struct trace_run *r, const struct zb_map *zb);

/* The zone table, the slowest instances and the thread table. */
void trace_report(const struct trace_run *r, FILE *fp);
/* The result (kind "trace"), the --json writer (ctx: the trace_run) */
int trace_write_result(const char *path, void *run, struct error *e);
/* Keep it in the store; returns the exit code (0 when kept). */
int trace_save(struct trace_run *r);

#endif
