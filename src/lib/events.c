/*
 * Perf counters of the timed regions, through the project's perf-event
 * layer (measure/perf_event.h): each thread that runs a body opens its own
 * counters on itself (pid 0), each event alone (no group: one this PMU
 * cannot schedule never takes the others with it), and reads them around
 * its timed region. Values are scaled for multiplexing.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lib/lib_internal.h"
#include "measure/perf_event.h"

static const struct {
	const char *event, *metric;
	bool seconds;
} defaults[] = {
	{ "task-clock", "task_clock", true },
	{ "cycles", "cycles", false },
	{ "instructions", "instructions", false },
	{ "branches", "branches", false },
	{ "branch-misses", "branch_misses", false },
	{ "cache-references", "cache_references", false },
	{ "cache-misses", "cache_misses", false },
};
#define NDEFAULTS (sizeof(defaults) / sizeof(defaults[0]))

static struct perf_event_attr attrs[NDEFAULTS];
static size_t which[NDEFAULTS];		/* the counted ones, in order */
static size_t ncounted;
static const char *unsupported[NDEFAULTS];
static size_t nunsupported;
static char warning[1100];
static bool probed;

static int open_event(struct perf_event_attr *a)
{
	return perf_event_open_attr(NULL, NULL, a, 0, -1, -1);
}

void lib_events_probe(bool enabled)
{
	struct error e;

	if (probed)
		return;
	probed = true;
	for (size_t i = 0; i < NDEFAULTS; i++) {
		struct perf_event_attr *a = &attrs[i];
		int fd = -1;

		memset(a, 0, sizeof(*a));
		if (enabled && perf_event_resolve(defaults[i].event, a, &e) ==
		    PE_OK) {
			a->size = sizeof(*a);
			a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
					 PERF_FORMAT_TOTAL_TIME_RUNNING;
			a->exclude_hv = 1;
			fd = open_event(a);
			if (fd < 0 && !warning[0] && i == 0) {
				struct pe_context ctx = { defaults[i].event,
							  -1, false, 0 };

				perf_event_open_strerror(-fd, a, &ctx, &e);
				snprintf(warning, sizeof(warning), "%s",
					 e.msg);
			}
		}
		if (fd >= 0) {
			close(fd);
			which[ncounted++] = i;
		} else {
			unsupported[nunsupported++] = defaults[i].metric;
		}
	}
}

size_t lib_events_count(void)
{
	return ncounted;
}

const char *lib_events_metric(size_t i)
{
	return defaults[which[i]].metric;
}

const char *lib_events_unit(size_t i)
{
	return defaults[which[i]].seconds ? "s" : "count";
}

size_t lib_events_unsupported(const char ***names)
{
	*names = unsupported;
	return nunsupported;
}

const char *lib_events_warning(void)
{
	return warning[0] ? warning : NULL;
}

void lib_events_open(struct lib_events *ev)
{
	for (size_t i = 0; i < LIB_MAX_EVENTS; i++)
		ev->fd[i] = -1;
	for (size_t i = 0; i < ncounted; i++) {
		struct perf_event_attr a = attrs[which[i]];

		ev->fd[i] = open_event(&a);
	}
}

void lib_events_close(struct lib_events *ev)
{
	for (size_t i = 0; i < LIB_MAX_EVENTS; i++)
		if (ev->fd[i] >= 0) {
			close(ev->fd[i]);
			ev->fd[i] = -1;
		}
}

/* The events are read one at a time (one read() each), in an order that
 * nests them around the timed region: before it the last first, after it
 * the first first. The first (task-clock) then spans the region and one
 * read() on each side only, as close to the wall clock's span as it can
 * be (it is gbench's cpu_time). */
void lib_events_read(struct lib_events *ev, bool after)
{
	for (size_t k = 0; k < ncounted; k++) {
		size_t i = after ? k : ncounted - 1 - k;
		uint64_t *v = after ? ev->after[i] : ev->before[i];

		if (ev->fd[i] < 0 ||
		    read(ev->fd[i], v, 3 * sizeof(uint64_t)) !=
		    3 * sizeof(uint64_t))
			v[0] = v[1] = v[2] = 0;
	}
}

bool lib_events_delta(const struct lib_events *ev, size_t i, double *out)
{
	const uint64_t *a = ev->after[i], *b = ev->before[i];
	struct pe_scaled s;

	if (ev->fd[i] < 0 || a[1] < b[1] || a[0] < b[0])
		return false;
	s = perf_event_scale(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
	if (!s.counted)
		return false;
	*out = defaults[which[i]].seconds ? s.value * 1e-9 : s.value;
	return true;
}
