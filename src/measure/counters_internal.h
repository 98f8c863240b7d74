/*
 * The parts of counters.c that tests reach directly: the pure arithmetic
 * (scaling, flops weighting, metric names), event name resolution, the
 * floating point event discovery, and counters_open_sys, which lets a test
 * stand in for the perf_event_open system call — to play a machine whose
 * hardware events work, or one that forbids perf events — and for the CPU's
 * floating point event list. Nothing outside counters.c and its unit test
 * includes this header.
 */
#ifndef YS_MEASURE_COUNTERS_INTERNAL_H
#define YS_MEASURE_COUNTERS_INTERNAL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "measure/counters.h"

/* Most events one metric adds up (flops: eight FP_ARITH umasks). */
#define COUNTERS_MAX_METRIC_EVENTS 8

/* One floating point arithmetic event and how many flops one count is. */
struct counters_fp_event {
	const char *name;	/* any name counters_resolve accepts */
	int lanes;
};

struct counters_sys {
	/*
	 * perf_event_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC):
	 * returns a descriptor, or -1 with errno set; leaves *attr as is.
	 */
	int (*perf_open)(struct perf_event_attr *attr, int group_fd, void *arg);
	void *arg;		/* NULL: a pointer to pid */
	/* The CPU's FP events; NULL: ask libpfm4 (counters_fp_discover). */
	const struct counters_fp_event *fp;
	size_t n_fp;
	pid_t pid;		/* the process counted, 0: ourselves (and
				 * what we start, with inherit) */
};

/* counters_open with the system call and FP event list of sys. */
int counters_open_sys(struct counters **out, const char *const *events,
		      size_t n, const struct counters_sys *sys,
		      struct error *e);

/*
 * Turn the change of one counter over a run into a value: count scaled by
 * enabled / running, multiplexed when running < enabled, not counted when
 * running is 0 (value then 0).
 */
void counters_scale(uint64_t count, uint64_t enabled, uint64_t running,
		    struct counter_value *out);

/* Sum of counts[i] * lanes[i]. */
double counters_flops_from(const double *counts, const int *lanes, size_t n);

/*
 * The metric name of an event name: lowercased, every character outside
 * [a-z0-9_] replaced by '_', truncated to len - 1 characters.
 */
void counters_metric_name_of(const char *event, char *buf, size_t len);

/*
 * Fill *attr (type, config, config1, config2, exclude bits) for an event
 * name known to perf or libpfm4. Returns 0, 1 when libpfm4 knows the event
 * only for a CPU other than this one (so it cannot be counted here), or -2
 * for a name nobody knows (message names it).
 */
int counters_resolve(const char *name, struct perf_event_attr *attr,
		     struct error *e);

/*
 * Find this CPU's floating point arithmetic events through libpfm4. Fills
 * up to max attrs and lanes and returns how many; 0 when the CPU has none
 * that libpfm4 knows.
 */
size_t counters_fp_discover(struct perf_event_attr *attrs, int *lanes,
			    size_t max);

#endif
