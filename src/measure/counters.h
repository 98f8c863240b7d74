/*
 * perf_event counters for measured children.
 *
 * The counters are opened once, on the calling process, disabled, with
 * inherit and enable_on_exec set: every child spawned afterwards inherits
 * them, and its copies start counting when it execs — so a measured command
 * is counted from its exec on, together with every thread and process it
 * starts, while yardstick itself is never counted. A child's counts fold
 * into ours when it exits, i.e. before wait4 can reap it. The kernel does
 * not clear folded child counts on PERF_EVENT_IOC_RESET, so a run's value
 * is the difference between a reading taken before the spawn and one taken
 * after the reap (counters_begin / counters_end).
 *
 * Children inherit the counters of the thread that spawns them, so open the
 * set on the thread that will spawn the measured commands.
 *
 * Multiplexed counters are scaled by time_enabled / time_running and
 * flagged. An event the machine cannot count is reported unsupported (its
 * name in the unsupported list), never as 0.
 */
#ifndef YS_MEASURE_COUNTERS_H
#define YS_MEASURE_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/error.h"

struct counters;

/* What counters_open and the readings come to. */
enum counters_result {
	COUNTERS_OK = 0,
	COUNTERS_FAILED = -1,		/* a system error (message names the
					 * event) */
	COUNTERS_UNKNOWN_EVENT = -2,	/* a name neither perf nor libpfm4
					 * knows (message names it) */
	COUNTERS_DENIED = -3,		/* perf events not permitted at all
					 * (message names the sysctl or the
					 * capability that would allow them) */
};

/*
 * One counter's value for one run. A counter that opened but never got a
 * hardware counter during the run (time_running 0, e.g. every counter taken
 * by other events) has counted == false and value 0: show it as perf's
 * "<not counted>", never as 0. A derived metric (flops) is counted only when
 * every event it adds up was, and multiplexed when any of them was.
 */
struct counter_value {
	double value;		/* scaled count, or seconds for *-clock */
	bool multiplexed;	/* time_running < time_enabled */
	bool counted;		/* false: no value for this run */
};

/*
 * Open the default set (events == NULL): task-clock,
 * cycles, instructions, branches,
 * branch-misses, cache-references, cache-misses, and the CPU's floating
 * point arithmetic events feeding the derived metric "flops" — or the n
 * events named in events[] (perf's names such as "cycles",
 * "L1-dcache-load-misses", "r01c2", or libpfm4's such as
 * "INST_RETIRED:ANY_P"; "flops" asks for the derived metric). An event's
 * metric name is its name lowercased with every character outside
 * [a-z0-9_] made '_' ("L1-dcache-load-misses" -> "l1_dcache_load_misses");
 * a name whose metric name repeats an earlier one is skipped. Events the
 * machine cannot count are not an error — an event libpfm4 knows only for
 * other CPUs included: they end up in the unsupported list, and the
 * metrics list holds only what opened. Kernel-level counting is asked for
 * and dropped (user space only) if refused. Returns COUNTERS_OK,
 * COUNTERS_FAILED on a system error (message names the event),
 * COUNTERS_UNKNOWN_EVENT for an event name that neither perf nor libpfm4
 * knows (message names it), or COUNTERS_DENIED when perf events are not
 * permitted at all (message names the sysctl kernel.perf_event_paranoid /
 * CAP_PERFMON that would allow them; perf_event.h's strerror).
 */
enum counters_result counters_open(struct counters **out,
				   const char *const *events, size_t n,
				   struct error *e);
/* (dram_bytes looks for its PMUs under $YARDSTICK_SYSFS instead of /sys
 * when that is set: tests give it a made-up tree.) */
void counters_close(struct counters *c);

/*
 * counters_open on a pretend PMU whose hardware events are played by
 * software ones: cycles by task-clock in nanoseconds, every other hardware
 * event and the floating point events (weights 1 and 4: flops = 5 x
 * page-faults) by page-faults. It lets the hardware code paths of `run`
 * (IPC, flops, the hardware metrics in every output) be tested end to end
 * on machines that have no PMU, such as this project's KVM guests. The
 * values are not those of any real machine. `run` uses it only when the
 * environment variable YARDSTICK_EMULATE_PMU is 1.
 */
enum counters_result counters_open_emulated(struct counters **out,
					    const char *const *events,
					    size_t n, struct error *e);

/* counters_open (or, emulated, counters_open_emulated) counting process
 * pid and, inherited, what it starts, instead of ourselves. */
enum counters_result counters_open_on(struct counters **out,
				      const char *const *events, size_t n,
				      pid_t pid, bool emulated,
				      struct error *e);

/* The metrics this set reports, in a fixed order (e.g. "task_clock",
 * "cycles", "flops"), their units ("s" or "count"). */
size_t counters_metric_count(const struct counters *c);
const char *counters_metric_name(const struct counters *c, size_t i);
const char *counters_metric_unit(const struct counters *c, size_t i);

/* Names (metric names) of what could not be counted on this machine. */
size_t counters_unsupported_count(const struct counters *c);
const char *counters_unsupported_name(const struct counters *c, size_t i);

/*
 * Mark that a child not to be measured was spawned (prepare, cleanup, ...),
 * so that the next counters_begin must take a fresh reading.
 */
void counters_dirty(struct counters *c);
/*
 * Take the baseline reading before spawning a measured child — a no-op
 * unless counters_dirty was called (or the set is new): the last
 * counters_end reading serves. Returns COUNTERS_OK or COUNTERS_FAILED.
 */
enum counters_result counters_begin(struct counters *c, struct error *e);
/*
 * After reaping it: fill out[0..counters_metric_count-1] with this run's
 * values; a child that never exec'd leaves every value not counted.
 * Returns COUNTERS_OK or COUNTERS_FAILED (the next counters_begin then
 * reads afresh).
 */
enum counters_result counters_end(struct counters *c,
				  struct counter_value *out, struct error *e);

/*
 * The set's groups, as another process that holds them reads them (the
 * spawner: spawner.h): fds[i] is the leader of group i, words[i] the
 * uint64_t words of its read. Returns the number of groups, or 0 when
 * they are more than max.
 */
size_t counters_groups(const struct counters *c, int *fds, uint32_t *words,
		       size_t max);
/*
 * counters_end with the reading taken by that other process after the
 * reap: every group's read, in order, n words in all.
 */
enum counters_result counters_end_with(struct counters *c,
				       const uint64_t *reading, size_t n,
				       struct counter_value *out,
				       struct error *e);

#endif
