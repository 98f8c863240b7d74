/*
 * The engine of `yardstick trace`: a plan (struct trace_plan, made by
 * cmd/trace.c from its options) into a timeline (trace_collect.c, with
 * libyardstick's zones from trace_zones.c), its terminal tables and its
 * result of kind "trace" (trace_report.c). Nothing here knows the
 * command line.
 */
#ifndef YS_ENGINE_TRACE_RUN_H
#define YS_ENGINE_TRACE_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "measure/machine.h"
#include "profile/sampler.h"
#include "profile/trace.h"
#include "result/result.h"

struct trace_plan {
	struct sampler_opts so;	/* the frequency, page faults; the rest is
				 * trace_collect's to set */
	long top;		/* slowest zone instances in the report */
	long max_events;	/* events kept (trace_init) */
	long zone_threads;	/* zone buffer: thread slots */
	uint64_t zone_bytes;	/* zone buffer: bytes per thread */
	const char *name;	/* prefix of the benchmarks' names, or NULL */
	bool python;		/* Python frames in CPython's samples */
	bool quiet;		/* no report of the Python frames */
	char **argv;		/* the program; NULL with pid */
	uint32_t pid;		/* else: the running process to attach to
				 * (so.children: its descendants too) */
	double duration;	/* with pid: seconds to trace (0: until a
				 * stop or its exit) */
};

struct trace_run {
	const struct trace_plan *p;
	struct trace tr;
	struct sampler_stats st;
	uint64_t t_end;		/* the program's exit (ns) */
	uint64_t zones_lost;	/* events libyardstick could not record */
	bool zones_attached;	/* the program mapped the zone buffer */
	uint32_t zones_pid;	/* with p->pid: the process whose buffer was
				 * read (attach_zone_buffer), 0: none */
	bool zones_error;	/* the buffer could not be read */
	uint64_t zones_corrupt;	/* threads whose records stopped at a bad
				 * one */
	struct result res;
	bool have_res;
	struct git_info git;
	char *name;		/* with p->pid: the process's name (comm) */
};

/*
 * Run the program of p (r->p, r->tr trace_init'ed, r->git the caller's)
 * under the sampler and build r's timeline: CPU samples symbolized,
 * libyardstick's zones added, the trace finished. p->so gets what the
 * collection needs (the zone buffer's environment, switches, wake-ups,
 * DWARF for CPython). With p->pid, attach to that process instead (and
 * with p->so.children the descendants it has; engine/attach.h) until
 * p->duration, a stop (util/stop.h; the trace is then not partial: it
 * is how an attached trace ends) or its exit, leaving it running; its
 * threads start at the attach, and the zones begun since are read from
 * the buffer it holds when a `yardstick trace` started it with one
 * (r->zones_pid; attach_zone_buffer), else it has none. Returns 0, or the exit code with e set: 3
 * when the environment refused (no libdw, no perf events, no zone
 * buffer, a process not ours), 2 otherwise (no such process, one that
 * exited as yardstick attached).
 */
int trace_collect(struct trace_run *r, struct trace_plan *p,
		  struct error *e);

struct zb_map;
/* The zones of the buffer into r's timeline (trace_zones.c): those begun
 * at from_ns or later (CLOCK_MONOTONIC; 0: all), the marks, counters and
 * async spans too; the threads' names whenever given. */
void trace_add_zones(struct trace_run *r, const struct zb_map *zb,
		     int64_t from_ns);

/* The zone table, the slowest instances and the thread table. */
void trace_report(const struct trace_run *r, FILE *fp);
/* The result of kind "trace" in r->res, built once (r->have_res). */
void trace_build_result(struct trace_run *r);
/*
 * The benchmarks of the zones of t (sorted by start, parents first at
 * the same start) into res: one per zone name, in order of first
 * appearance, named "prefix NAME" (prefix NULL: NAME), with the finished
 * instances' latency and self time (the duration less that of the zones
 * directly inside it on its thread) in s, and a warning for those
 * unfinished at t_end (attached: a trace of a running process, which
 * ended with those open; else the program ended inside them).
 */
void trace_zone_benchmarks(struct result *res, const struct trace *t,
			   uint64_t t_end, const char *prefix,
			   char *const *argv, bool attached);
/*
 * The table of t's zones as torch.profiler's key_averages().table():
 * the top ones by self time, each with its self time and share of all
 * self time, total (inclusive) time and its share, average, count,
 * p50 and p99 of its durations.
 */
void trace_ops_table(const struct trace *t, size_t top, FILE *fp);
/* The result, the --json writer (ctx: the trace_run) */
int trace_write_result(const char *path, void *run, struct error *e);

#endif
