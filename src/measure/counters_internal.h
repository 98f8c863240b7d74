/*
 * The parts of counters.c that tests reach directly: the pure arithmetic
 * (flops weighting, metric names) and counters_open_sys, which lets a test
 * stand in for the perf_event_open system call — to play a machine whose
 * hardware events work, or one that forbids perf events — and for the CPU's
 * floating point event list. Nothing outside counters.c and its unit test
 * includes this header. (Opening, names, scaling: measure/perf_event.h.)
 */
#ifndef YS_MEASURE_COUNTERS_INTERNAL_H
#define YS_MEASURE_COUNTERS_INTERNAL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <sys/types.h>
#include <stdint.h>

#include "measure/counters.h"
#include "measure/perf_event.h"

/* Most events one metric adds up (flops: eight FP_ARITH umasks;
 * dram_bytes: read and write of every memory channel of every socket). */
#define COUNTERS_MAX_METRIC_EVENTS \
	(PE_MAX_DRAM_EVENTS > PE_MAX_FP_EVENTS ? PE_MAX_DRAM_EVENTS \
					       : PE_MAX_FP_EVENTS)

struct counters_sys {
	/*
	 * perf_event_open(attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC):
	 * returns a descriptor, or -1 with errno set; leaves *attr as is.
	 */
	int (*perf_open)(struct perf_event_attr *attr, int group_fd, void *arg);
	void *arg;		/* NULL: a pointer to pid */
	/* The CPU's FP events; NULL: ask libpfm4 (perf_event_fp_discover). */
	const struct pe_fp_event *fp;
	size_t n_fp;
	pid_t pid;		/* the process counted, 0: ourselves (and
				 * what we start, with inherit) */
	/*
	 * dram_bytes: perf_event_open(attr, -1, cpu, -1, ...), system-wide
	 * on one CPU — a descriptor or -1 with errno set; NULL: the system
	 * call. sysfs: where its events are looked for (NULL: /sys).
	 */
	int (*perf_open_cpu)(struct perf_event_attr *attr, int cpu,
			     void *arg);
	const char *sysfs;
};

/* counters_open with the system call and FP event list of sys. */
enum counters_result counters_open_sys(struct counters **out,
				       const char *const *events, size_t n,
				       const struct counters_sys *sys,
				       struct error *e);

/* Sum of counts[i] * lanes[i]. */
double counters_flops_from(const double *counts, const int *lanes, size_t n);

/*
 * The metric name of an event name: lowercased, every character outside
 * [a-z0-9_] replaced by '_', truncated to len - 1 characters.
 */
void counters_metric_name_of(const char *event, char *buf, size_t len);

#endif
