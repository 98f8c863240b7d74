/*
 * The HTML report: one self-contained page (inline CSS, SVG charts drawn
 * here, a few lines of inline script for the clicks) that shows result
 * sets, a comparison against a baseline and a benchmark's history.
 *
 * What to know before changing it: nothing outside the page is ever
 * fetched (a Content-Security-Policy of default-src 'none' says so to the
 * browser too), every string from outside is written through fputs_xml
 * (element text and attribute values alike) and no outside string is ever
 * written inside the <script>: the script reads what it shows from data-*
 * attributes. The charts are drawn server-side so that the page prints and
 * reads without the script. The output is a pure function of the input.
 */
#ifndef YS_REPORT_REPORT_H
#define YS_REPORT_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "result/compare.h"
#include "result/gate.h"
#include "profile/profile.h"
#include "profile/trace.h"
#include "result/result.h"
#include "report/roofline_view.h"
#include "util/error.h"

/* One stored result's values of the history's benchmark and metric. */
struct report_point {
	long long id;
	const char *created, *commit, *branch;	/* may be NULL */
	bool dirty;
	const double *values;	/* the measured values, n of them (n > 0) */
	size_t n;
	size_t max_draws;	/* the result's bootstrap budget (its setting
				 * bootstrap_max_draws); 0: the default */
};

struct report_history {
	const char *benchmark, *metric, *unit;
	const struct report_point *points;	/* oldest first */
	size_t n;
	/* gate thresholds: the ceilings (GATE_LIMIT) on the median of this
	 * metric are drawn as lines; others are ignored */
	const struct gate_threshold *thresholds;
	size_t nthresholds;
};

/* A result set shown, with the reference it was given by. */
struct report_set {
	const char *label;
	const struct result *r;	/* summarized */
};

struct report_input {
	const struct report_set *sets;
	size_t nsets;
	/* --baseline: the comparison of each set with the baseline, or
	 * NULL; cmp[i] belongs to sets[i] */
	const struct compare_report *cmp;
	/* the gate's checks of each set against the baseline (gate[i]
	 * belongs to sets[i]), or NULL: a column of verdicts, and each
	 * threshold on the median drawn in its row of the forest plot */
	const struct gate_report *gate;
	const char *baseline_label;
	const struct report_history *history;	/* or NULL */
	/* a profile: its flame graph and top table, or NULL */
	const struct profile *profile;
	const char *profile_label;
	/* the metrics drawn per benchmark (NULL-terminated; "all": every
	 * one); NULL: the benchmark's headline metric and its rates, from
	 * the vocabulary (result/metrics.h: wall_time, a load's latency,
	 * throughput and error_rate, a bench's time per op and flop/s),
	 * else the first metric. The others are table rows. */
	const char *const *charts;
	/* --trace: a trace read back (trace_read_chrome), its timeline and
	 * zone table, or NULL; trace_lost: the events its tracer lost */
	const struct trace *trace;
	const char *trace_label;
	uint64_t trace_lost;
	/* the sets' benchmarks with work declared under this machine's
	 * ceilings (report/roofline_view.h), or NULL */
	const struct roof_chart *roofline;
};

/*
 * Write the page to path ("-" is stdout) atomically. Returns 0, or -1
 * with a message naming the file.
 */
int report_write_html(const struct report_input *in, const char *path,
		      struct error *e);

#endif
