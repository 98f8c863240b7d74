/*
 * perf_event counters for measured children: open once, read a baseline
 * before each spawn and a reading after each reap, report the difference.
 * counters_begin and counters_end sit on the hot path of the benchmark
 * loop, so they make read() calls and nothing else — all allocation and
 * event name work happens in counters_open.
 *
 * Design notes:
 *
 * 1. Every counter is opened on the calling thread (pid 0, any cpu) with
 *    disabled=1, inherit=1 and enable_on_exec=1. Our own copy stays off
 *    for ever — yardstick never execs — so yardstick's own work is never
 *    counted. A child inherits an off copy and the kernel switches it on
 *    when the child execs; the child's threads and processes inherit it
 *    switched on. Hence a command counts from its exec on, with everything
 *    it starts, and its posix_spawn prelude does not count.
 *
 * 2. When an inherited copy's task exits, its count and its enabled and
 *    running times are added to our event's child totals, before the task
 *    can be reaped. A read() returns our own values plus those totals plus
 *    whatever live children hold. The totals only grow (IOC_RESET clears
 *    our own count, not them), so a run's value is always reading(after
 *    reap) - reading(before spawn), for counts and for both times.
 *
 * 3. Between a counters_end and the next spawn nothing can change the
 *    readings unless another child ran (a prepare or cleanup command, an
 *    orphan left behind); so counters_end's reading becomes the next
 *    baseline and counters_begin reads only after counters_dirty.
 *
 * 4. Software events share one group (PERF_FORMAT_GROUP works with inherit:
 *    the kernel sums the group over children too), read with one read().
 *    A software event is always scheduled, so the group never multiplexes.
 *    Hardware events get a group of one each, so that each multiplexes on
 *    its own, as perf stat's do, and one that fails does not take others
 *    with it. Every read therefore has the same layout:
 *    nr, time_enabled, time_running, value[nr].
 *
 * 5. A metric is either one event or the weighted sum of several (flops).
 *    A metric whose events cannot all be opened is unsupported as a whole;
 *    its name goes to the unsupported list and no descriptor is kept.
 *
 * 6. We also hold one event that is not inherited (the guard: a disabled
 *    dummy event). Without it a child's context would be a clone of ours,
 *    and the scheduler, switching from us straight to the child (as after
 *    vfork), swaps equivalent contexts between the two tasks instead of
 *    switching them: our own events would move to the child, be switched
 *    on by its exec and die with it — and every later run would read 0.
 *    (Seen on 6.18: counting stopped after the second child.) One event
 *    that is not inherited makes the kernel stop marking child contexts as
 *    clones of ours.
 */
#include "measure/counters.h"
#include "measure/counters_internal.h"
#include "measure/perf_event.h"
#include "util/strutil.h"

#include <assert.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define METRIC_NAME_MAX 128
#define MAX_METRICS 64		/* named in --events, opened or not */
/* every metric but flops has one event */
#define MAX_EVENTS (MAX_METRICS + COUNTERS_MAX_METRIC_EVENTS)
#define READ_HEADER PE_READ_HEADER
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct event {
	int fd;
	size_t group;		/* index in counters.groups */
	size_t slot;		/* position of its value in the group read */
	int lanes;		/* weight in a derived metric */
};

struct group {
	int fd;			/* the leader's */
	size_t nr;
	size_t at;		/* where its read goes in counters.buf[] */
};

struct metric {
	char name[METRIC_NAME_MAX];
	const char *unit;
	double scale;		/* 1e-9 for clocks counted in ns */
	size_t first, n;	/* its events: events[first..first + n) */
};

struct counters {
	struct counters_sys sys;
	struct event events[MAX_EVENTS];
	size_t n_events;
	struct group groups[MAX_EVENTS];
	size_t n_groups;
	size_t sw_group;	/* SIZE_MAX until a software event opens */
	struct metric metrics[MAX_METRICS];
	size_t n_metrics;
	char unsupported[MAX_METRICS][METRIC_NAME_MAX];
	size_t n_unsupported;
	/*
	 * Two readings: buf[cur] is filled after the reap, buf[!cur] holds
	 * the baseline; counters_end flips cur, so a reading becomes the
	 * next baseline without a copy.
	 */
	uint64_t buf[2][MAX_EVENTS * (READ_HEADER + 1)];
	int cur;
	int guard_fd;		/* design note 6; -1 when not needed */
	bool user_only;		/* kernel counting was refused */
	bool dirty;		/* baseline must be read again */
	size_t denied;		/* events refused with EACCES/EPERM */
	size_t hw_tried, hw_opened;
};

/* ---- pure helpers ---- */

double counters_flops_from(const double *counts, const int *lanes, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < n; i++)
		sum += counts[i] * lanes[i];
	return sum;
}

void counters_metric_name_of(const char *event, char *buf, size_t len)
{
	size_t i;

	if (!len)
		return;
	for (i = 0; event[i] && i + 1 < len; i++) {
		char ch = event[i];

		if (ch >= 'A' && ch <= 'Z')
			ch = (char)(ch - 'A' + 'a');
		if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9')
		      || ch == '_'))
			ch = '_';
		buf[i] = ch;
	}
	buf[i] = '\0';
}

/* ---- opening ---- */

/* perf_event_open on the process *arg points to (0: ourselves). */
static int sys_perf_open(struct perf_event_attr *attr, int group_fd,
			 void *arg)
{
	pid_t pid = arg ? *(const pid_t *)arg : 0;

	return perf_event_sys_open(attr, pid, -1, group_fd, NULL);
}

/* c->sys.perf_open as a pe_open_fn (pid and cpu are in c->sys.arg). */
static int sys_open_fn(struct perf_event_attr *attr, pid_t pid, int cpu,
		       int group_fd, void *arg)
{
	const struct counters *c = arg;

	(void)pid;
	(void)cpu;
	return c->sys.perf_open(attr, group_fd, c->sys.arg);
}

static bool has_metric(const struct counters *c, const char *name)
{
	size_t i;

	for (i = 0; i < c->n_metrics; i++)
		if (strcmp(c->metrics[i].name, name) == 0)
			return true;
	for (i = 0; i < c->n_unsupported; i++)
		if (strcmp(c->unsupported[i], name) == 0)
			return true;
	return false;
}

static enum counters_result
add_unsupported(struct counters *c, const char *metric,
		struct error *e)
{
	assert(c->n_unsupported < MAX_METRICS);
	snprintf(c->unsupported[c->n_unsupported++], METRIC_NAME_MAX, "%s",
		 metric);
	return COUNTERS_OK;
}

/*
 * Open one event, counting kernel level too unless that was refused
 * before. Returns a descriptor or -errno.
 */
static int open_one(struct counters *c, struct perf_event_attr *attr,
		    int group_fd)
{
	bool kernel = !attr->exclude_kernel;
	int fd;

	if (c->user_only) {
		attr->exclude_kernel = 1;
		attr->exclude_hv = 1;
	}
	fd = perf_event_open_attr(sys_open_fn, c, attr, c->sys.pid, -1,
				  group_fd);
	if (fd >= 0 && kernel && attr->exclude_kernel)
		c->user_only = true;
	return fd;
}

/*
 * An event failed to open with err: unsupported (refused ones counted, to
 * tell "not permitted at all"), or a real error.
 */
static enum counters_result
open_failed(struct counters *c, const char *event,
	    const char *metric, int err,
	    const struct perf_event_attr *attr, struct error *e)
{
	const struct pe_context ctx = { .event = event, .cpu = -1 };
	struct error why;

	switch (perf_event_open_strerror(err, attr, &ctx, &why)) {
	case PE_DENIED:
		c->denied++;
		return add_unsupported(c, metric, e);
	case PE_NO_PERF:
	case PE_UNSUPPORTED:
		return add_unsupported(c, metric, e);
	default:
		*e = why;
		return COUNTERS_FAILED;
	}
}

static bool is_hardware(uint32_t type)
{
	return type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_TRACEPOINT;
}

/* Record fds[0..n) as the events of a new metric. */
static void register_metric(struct counters *c, const char *name,
			    const struct perf_event_attr *attrs,
			    const int *fds, const int *lanes, size_t n,
			    bool join)
{
	struct metric *m = &c->metrics[c->n_metrics++];
	size_t i;

	assert(c->n_metrics <= MAX_METRICS && c->n_events + n <= MAX_EVENTS);
	snprintf(m->name, sizeof(m->name), "%s", name);
	m->first = c->n_events;
	m->n = n;
	m->scale = 1;
	m->unit = "count";
	if (attrs[0].type == PERF_TYPE_SOFTWARE &&
	    (attrs[0].config == PERF_COUNT_SW_TASK_CLOCK ||
	     attrs[0].config == PERF_COUNT_SW_CPU_CLOCK)) {
		m->scale = 1e-9;
		m->unit = "s";
	}
	for (i = 0; i < n; i++) {
		struct event *ev = &c->events[c->n_events++];
		struct group *g;

		ev->fd = fds[i];
		ev->lanes = lanes ? lanes[i] : 1;
		if (join && c->sw_group != SIZE_MAX) {
			ev->group = c->sw_group;
		} else {
			ev->group = c->n_groups++;
			g = &c->groups[ev->group];
			g->fd = fds[i];
			g->nr = 0;
			if (join)
				c->sw_group = ev->group;
		}
		ev->slot = c->groups[ev->group].nr++;
	}
}

/*
 * Open the n events of one metric and record them, or record the metric
 * as unsupported. attrs need only type, config* and exclude bits.
 */
static enum counters_result
add_metric(struct counters *c, const char *event,
	   const char *metric, struct perf_event_attr *attrs,
	   const int *lanes, size_t n, struct error *e)
{
	int fds[COUNTERS_MAX_METRIC_EVENTS];
	bool join = n == 1 && attrs[0].type == PERF_TYPE_SOFTWARE;
	size_t i, k;
	int fd;

	assert(n >= 1 && n <= COUNTERS_MAX_METRIC_EVENTS);
	for (i = 0; i < n; i++) {
		struct perf_event_attr *a = &attrs[i];

		perf_event_attr_counting(a);
		if (is_hardware(a->type))
			c->hw_tried++;
		fd = open_one(c, a, join && c->sw_group != SIZE_MAX ?
			      c->groups[c->sw_group].fd : -1);
		if (fd < 0) {
			for (k = 0; k < i; k++)
				close(fds[k]);
			return open_failed(c, event, metric, -fd, a, e);
		}
		if (is_hardware(a->type))
			c->hw_opened++;
		fds[i] = fd;
	}
	register_metric(c, metric, attrs, fds, lanes, n, join);
	return COUNTERS_OK;
}

static enum counters_result
add_named(struct counters *c, const char *event,
	  const char *metric, struct error *e)
{
	struct perf_event_attr attr;
	enum pe_result ret;

	memset(&attr, 0, sizeof(attr));
	ret = perf_event_resolve(event, &attr, e);
	if (ret == PE_UNKNOWN_EVENT)
		return COUNTERS_UNKNOWN_EVENT;
	if (ret == PE_UNSUPPORTED)
		return add_unsupported(c, metric, e);
	return add_metric(c, event, metric, &attr, NULL, 1, e);
}

/*
 * flops: skipped without asking libpfm4 when generic hardware events were
 * tried and none opened — there is no PMU to count FP events then.
 */
static enum counters_result
add_flops(struct counters *c, struct error *e)
{
	struct perf_event_attr attrs[COUNTERS_MAX_METRIC_EVENTS];
	int lanes[COUNTERS_MAX_METRIC_EVENTS];
	size_t i, n = 0;
	enum pe_result ret;

	if (c->hw_tried && !c->hw_opened)
		return add_unsupported(c, "flops", e);
	if (!c->sys.fp) {
		n = perf_event_fp_discover(attrs, lanes,
					   COUNTERS_MAX_METRIC_EVENTS);
	} else {
		for (i = 0; i < c->sys.n_fp && n < COUNTERS_MAX_METRIC_EVENTS;
		     i++) {
			memset(&attrs[n], 0, sizeof(attrs[n]));
			ret = perf_event_resolve(c->sys.fp[i].name, &attrs[n],
						 e);
			if (ret == PE_UNKNOWN_EVENT)
				return COUNTERS_UNKNOWN_EVENT;
			if (ret == PE_OK)
				lanes[n++] = c->sys.fp[i].lanes;
		}
	}
	if (!n)
		return add_unsupported(c, "flops", e);
	return add_metric(c, "flops", "flops", attrs, lanes, n, e);
}

/* dram_bytes could not be opened with errno err: refused (the sysctl
 * named), unsupported, or a real error. */
static enum counters_result
dram_failed(struct counters *c, const struct pe_dram_event *ev, int err,
	    struct error *e)
{
	char level[32];

	if (err == EACCES || err == EPERM) {
		perf_event_sysctl("perf_event_paranoid", level, sizeof(level));
		error_set(e, "dram_bytes: the memory controllers' events "
			  "('%s') count the whole system, which is not "
			  "permitted: the sysctl kernel.perf_event_paranoid is "
			  "%s and system-wide counting needs 0 or lower "
			  "(sysctl -w kernel.perf_event_paranoid=0), or grant "
			  "the capability CAP_PERFMON", ev->name, level);
		return COUNTERS_DENIED;
	}
	if (err == ENOENT || err == ENODEV || err == EOPNOTSUPP ||
	    err == EINVAL || err == EBUSY || err == E2BIG)
		return add_unsupported(c, "dram_bytes", e);
	error_errno(e, err, "cannot open perf event '%s' on cpu %d", ev->name,
		    ev->cpu);
	return COUNTERS_FAILED;
}

/*
 * dram_bytes: the memory controllers' read and write events (uncore
 * PMUs, perf_dram.c), each opened system-wide on its socket's CPU, summed
 * with their bytes per count as weights. Only when named (--events):
 * they count every process, and need more permission than the others
 * (refused: COUNTERS_DENIED, the sysctl named). Unsupported where there
 * is no such PMU.
 */
static enum counters_result
add_dram(struct counters *c, struct error *e)
{
	static struct pe_dram_event evs[COUNTERS_MAX_METRIC_EVENTS];
	struct perf_event_attr attrs[COUNTERS_MAX_METRIC_EVENTS];
	int fds[COUNTERS_MAX_METRIC_EVENTS], lanes[COUNTERS_MAX_METRIC_EVENTS];
	size_t n = perf_event_dram_discover(c->sys.sysfs, evs,
					    COUNTERS_MAX_METRIC_EVENTS);

	if (!n)
		return add_unsupported(c, "dram_bytes", e);
	for (size_t i = 0; i < n; i++) {
		int fd, err;

		attrs[i] = evs[i].attr;
		perf_event_attr_system_wide(&attrs[i]);
		fd = c->sys.perf_open_cpu
			? c->sys.perf_open_cpu(&attrs[i], evs[i].cpu,
					       c->sys.arg)
			: perf_event_sys_open(&attrs[i], -1, evs[i].cpu, -1,
					      NULL);
		if (fd >= 0) {
			fds[i] = fd;
			lanes[i] = evs[i].bytes;
			continue;
		}
		err = errno;
		for (size_t k = 0; k < i; k++)
			close(fds[k]);
		return dram_failed(c, &evs[i], err, e);
	}
	register_metric(c, "dram_bytes", attrs, fds, lanes, n, false);
	c->metrics[c->n_metrics - 1].unit = "bytes";
	return COUNTERS_OK;
}

/*
 * Their metric names are the default metric names: the hardware events,
 * then task-clock, but task-clock only when one of them opened. The first
 * per-task event opened while no other is open anywhere on the machine
 * waits for the kernel to switch its perf scheduler hooks on (a static
 * key and an RCU grace period, kernel/events/core.c, account_event: 5-20
 * ms on this project's 2-CPU guest, for a command of 1 ms; a second after
 * the last such event closes they go off again). A hardware event that
 * this machine cannot count fails before that, at no cost. So where the
 * hardware counts, task-clock rides on the wait its events paid; where it
 * does not (most VMs), the defaults open nothing, and one invocation
 * costs what hyperfine's does (bench/RESULTS.md, session 14): user_time
 * + system_time from wait4 measure the same CPU time, with the spawn's
 * few hundred µs before the exec, and -e task-clock asks for the counter.
 * Of the other software events none (bench/RESULTS.md, "the default
 * counters"): each inherited event costs every run in the kernel (its
 * copy at the fork, its fold at the exit; context-switches is also hit
 * at every switch); page-faults and context-switches count what wait4
 * gives for the same child (minor + major faults, voluntary +
 * involuntary switches); cpu-migrations switches on a further static key
 * of the kernel. -e names them.
 */
static const char *const default_hardware[] = {
	"cycles", "instructions", "branches", "branch-misses",
	"cache-references", "cache-misses", "flops",
};

static enum counters_result add_event(struct counters *c, const char *event,
				      struct error *e)
{
	char metric[METRIC_NAME_MAX];

	counters_metric_name_of(event, metric, sizeof(metric));
	if (has_metric(c, metric))
		return COUNTERS_OK;
	if (c->n_metrics + c->n_unsupported == MAX_METRICS) {
		error_set(e, "too many events (at most %d)", MAX_METRICS);
		return COUNTERS_FAILED;
	}
	if (strcmp(metric, "flops") == 0)
		return add_flops(c, e);
	if (strcmp(metric, "dram_bytes") == 0)
		return add_dram(c, e);
	return add_named(c, event, metric, e);
}

static enum counters_result
add_events(struct counters *c, const char *const *events,
	   size_t n, struct error *e)
{
	enum counters_result ret = COUNTERS_OK;
	size_t i;

	if (events) {
		for (i = 0; i < n && ret == COUNTERS_OK; i++)
			ret = add_event(c, events[i], e);
		return ret;
	}
	for (i = 0; i < ARRAY_SIZE(default_hardware) && ret == COUNTERS_OK;
	     i++)
		ret = add_event(c, default_hardware[i], e);
	if (ret == COUNTERS_OK && c->n_metrics > 0)
		ret = add_event(c, "task-clock", e);
	return ret;
}

/* Lay out the group reads in buf[], once every group's size is known. */
static void place_groups(struct counters *c)
{
	size_t i, at = 0;

	for (i = 0; i < c->n_groups; i++) {
		c->groups[i].at = at;
		at += READ_HEADER + c->groups[i].nr;
	}
	assert(at <= ARRAY_SIZE(c->buf[0]));
}

/* Design note 6: keep our context from being cloned into children. */
static enum counters_result
open_guard(struct counters *c, struct error *e)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.disabled = 1;
	fd = open_one(c, &attr, -1);
	if (fd < 0) {
		/* kernels before 3.10 have no dummy event */
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		fd = open_one(c, &attr, -1);
	}
	if (fd < 0) {
		error_errno(e, -fd, "cannot open perf event 'dummy'");
		return COUNTERS_FAILED;
	}
	c->guard_fd = fd;
	return COUNTERS_OK;
}

/* Every event was refused: the message names the sysctl/capability. */
static enum counters_result
denied_error(struct error *e)
{
	const struct pe_context ctx = { .event = "task-clock", .cpu = -1 };

	perf_event_open_strerror(EACCES, NULL, &ctx, e);
	return COUNTERS_DENIED;
}

enum counters_result
counters_open_sys(struct counters **out, const char *const *events,
		  size_t n, const struct counters_sys *sys,
		  struct error *e)
{
	struct counters *c;
	enum counters_result ret;

	*out = NULL;
	c = xcalloc(1, sizeof(*c));
	c->sys = *sys;
	if (!c->sys.arg)
		c->sys.arg = &c->sys.pid;
	c->sw_group = SIZE_MAX;
	c->dirty = true;
	c->guard_fd = -1;
	ret = add_events(c, events, n, e);
	if (ret == COUNTERS_OK && c->n_metrics == 0 && c->denied > 0)
		ret = denied_error(e);
	if (ret == COUNTERS_OK && c->n_metrics > 0)
		ret = open_guard(c, e);
	if (ret != COUNTERS_OK) {
		counters_close(c);
		return ret;
	}
	place_groups(c);
	*out = c;
	return COUNTERS_OK;
}

enum counters_result
counters_open(struct counters **out, const char *const *events, size_t n,
	      struct error *e)
{
	const struct counters_sys sys = { .perf_open = sys_perf_open,
					  .sysfs = getenv("YARDSTICK_SYSFS") };

	return counters_open_sys(out, events, n, &sys, e);
}

/*
 * A PMU played by software events, for counters_open_emulated: cycles by
 * task-clock (nanoseconds, as if at 1 GHz), every other hardware, cache or
 * raw event by page-faults.
 */
static int emulated_perf_open(struct perf_event_attr *attr, int group_fd,
			      void *arg)
{
	struct perf_event_attr a = *attr;

	if (a.type != PERF_TYPE_SOFTWARE) {
		bool cycles = a.type == PERF_TYPE_HARDWARE &&
			      a.config == PERF_COUNT_HW_CPU_CYCLES;

		a.type = PERF_TYPE_SOFTWARE;
		a.config = cycles ? PERF_COUNT_SW_TASK_CLOCK
				  : PERF_COUNT_SW_PAGE_FAULTS;
	}
	return sys_perf_open(&a, group_fd, arg);
}

static const struct pe_fp_event emulated_fp[] = {
	{ "ref-cycles", 1 }, { "bus-cycles", 4 },
};

enum counters_result
counters_open_emulated(struct counters **out, const char *const *events,
		       size_t n, struct error *e)
{
	return counters_open_on(out, events, n, 0, true, e);
}

enum counters_result
counters_open_on(struct counters **out, const char *const *events,
		 size_t n, pid_t pid, bool emulated, struct error *e)
{
	struct counters_sys sys = { .perf_open = sys_perf_open };

	sys.pid = pid;
	/* where dram_bytes looks for its PMUs: a made-up tree, for tests */
	sys.sysfs = getenv("YARDSTICK_SYSFS");
	if (emulated) {
		sys.perf_open = emulated_perf_open;
		sys.fp = emulated_fp;
		sys.n_fp = sizeof(emulated_fp) / sizeof(emulated_fp[0]);
	}
	return counters_open_sys(out, events, n, &sys, e);
}

void counters_close(struct counters *c)
{
	size_t i;

	if (!c)
		return;
	/* a leader may close before its members: each fd frees its own */
	for (i = 0; i < c->n_events; i++)
		close(c->events[i].fd);
	if (c->guard_fd >= 0)
		close(c->guard_fd);
	free(c);
}

/* ---- the set and its readings ---- */

size_t counters_metric_count(const struct counters *c)
{
	return c->n_metrics;
}

const char *counters_metric_name(const struct counters *c, size_t i)
{
	assert(i < c->n_metrics);
	return c->metrics[i].name;
}

const char *counters_metric_unit(const struct counters *c, size_t i)
{
	assert(i < c->n_metrics);
	return c->metrics[i].unit;
}

size_t counters_unsupported_count(const struct counters *c)
{
	return c->n_unsupported;
}

const char *counters_unsupported_name(const struct counters *c, size_t i)
{
	assert(i < c->n_unsupported);
	return c->unsupported[i];
}

void counters_dirty(struct counters *c)
{
	c->dirty = true;
}

/* One read() per group into reading buf[which]. */
static enum counters_result
read_groups(struct counters *c, int which, struct error *e)
{
	size_t i;

	for (i = 0; i < c->n_groups; i++) {
		const struct group *g = &c->groups[i];

		if (perf_event_read_group(g->fd, &c->buf[which][g->at], g->nr,
					  e) != PE_OK)
			return COUNTERS_FAILED;
	}
	return COUNTERS_OK;
}

enum counters_result
counters_begin(struct counters *c, struct error *e)
{
	/* design note 3: unless dirty, the last reading stands */
	if (!c->dirty)
		return COUNTERS_OK;
	if (read_groups(c, !c->cur, e) != COUNTERS_OK)
		return COUNTERS_FAILED;
	c->dirty = false;
	return COUNTERS_OK;
}

/* The change of one event between base and cur. */
static void event_value(const struct counters *c, const struct event *ev,
			struct counter_value *out)
{
	size_t at = c->groups[ev->group].at;
	/* the readings only grow (design note 2) */
	struct pe_scaled v = perf_event_group_delta(&c->buf[c->cur][at],
						    &c->buf[!c->cur][at],
						    ev->slot);

	out->value = v.value;
	out->multiplexed = v.multiplexed;
	out->counted = v.counted;
}

static void metric_value(const struct counters *c, const struct metric *m,
			 struct counter_value *out)
{
	double counts[COUNTERS_MAX_METRIC_EVENTS];
	int lanes[COUNTERS_MAX_METRIC_EVENTS];
	struct counter_value v;
	size_t i;

	if (m->n == 1) {
		event_value(c, &c->events[m->first], out);
		out->value *= m->scale;
		return;
	}
	out->counted = true;
	out->multiplexed = false;
	for (i = 0; i < m->n; i++) {
		event_value(c, &c->events[m->first + i], &v);
		counts[i] = v.value;
		lanes[i] = c->events[m->first + i].lanes;
		out->counted = out->counted && v.counted;
		out->multiplexed = out->multiplexed || v.multiplexed;
	}
	out->value = out->counted ?
		counters_flops_from(counts, lanes, m->n) * m->scale : 0;
}

/* The values of reading buf[cur] against the baseline; it becomes the
 * next baseline. */
static void take_values(struct counters *c, struct counter_value *out)
{
	for (size_t i = 0; i < c->n_metrics; i++)
		metric_value(c, &c->metrics[i], &out[i]);
	c->cur = !c->cur;	/* design note 3: the new baseline */
}

enum counters_result
counters_end(struct counters *c, struct counter_value *out,
	     struct error *e)
{
	assert(!c->dirty);	/* counters_begin took the baseline */
	if (read_groups(c, c->cur, e) != COUNTERS_OK) {
		c->dirty = true;
		return COUNTERS_FAILED;
	}
	take_values(c, out);
	return COUNTERS_OK;
}

size_t counters_groups(const struct counters *c, int *fds, uint32_t *words,
		       size_t max)
{
	if (c->n_groups > max)
		return 0;
	for (size_t i = 0; i < c->n_groups; i++) {
		fds[i] = c->groups[i].fd;
		words[i] = (uint32_t)(READ_HEADER + c->groups[i].nr);
	}
	return c->n_groups;
}

enum counters_result
counters_end_with(struct counters *c, const uint64_t *reading, size_t n,
		  struct counter_value *out, struct error *e)
{
	size_t words = 0;
	bool ok = true;

	assert(!c->dirty);
	/* what perf_event_read_group checks of its own read: the size, and
	 * each group's nr */
	for (size_t i = 0; i < c->n_groups && ok; i++) {
		const struct group *g = &c->groups[i];

		ok = g->at + READ_HEADER + g->nr <= n && reading[g->at] == g->nr;
		words = g->at + READ_HEADER + g->nr;
	}
	if (!ok || words != n) {
		c->dirty = true;
		error_set(e, "cannot read the perf counters: a reading of "
			  "%zu words, not of the set's %zu", n, words);
		return COUNTERS_FAILED;
	}
	memcpy(c->buf[c->cur], reading, n * sizeof(*reading));
	take_values(c, out);
	return COUNTERS_OK;
}
