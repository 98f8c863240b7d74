/*
 * The vocabulary of metrics: for every metric yardstick produces, its
 * unit, dimension, direction, label, whether it is a measurement or a
 * setting, its rank among the rates and among the headline metrics,
 * whether it is deterministic, and the statistic it is judged by. Every
 * table, verdict, gate, history, report and exporter asks here; none
 * spells a metric's name or lists metrics of its own.
 *
 * A name the table does not hold (a user's counter, an import's field)
 * is never an error: metrics_lookup gives the fallback of its unit (see
 * below), so a new metric works everywhere before it is added here.
 * Adding a metric: one row in metrics.c's table (the unit test checks the
 * row is consistent), and a METRIC_* name below if code must name it.
 */
#ifndef YS_RESULT_METRICS_H
#define YS_RESULT_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "result/result.h"
#include "stats/judge.h"
#include "stats/shift.h"

/* The names code must spell; everything else is looked up. */
#define METRIC_WALL_TIME "wall_time"
#define METRIC_USER_TIME "user_time"
#define METRIC_SYSTEM_TIME "system_time"
#define METRIC_PEAK_RSS "peak_rss"
#define METRIC_TASK_CLOCK "task_clock"
#define METRIC_TIME_PER_OP "time_per_op"
#define METRIC_ITERATIONS "iterations"
#define METRIC_LATENCY "latency"
#define METRIC_LATENCY_UNCORRECTED "latency_uncorrected"
#define METRIC_SELF_TIME "self_time"
#define METRIC_THROUGHPUT "throughput"
#define METRIC_ERROR_RATE "error_rate"
#define METRIC_ERRORS "errors"
/* load's count of requests (JSON counts.requests): the trials `errors`
 * counts failures of */
#define LOAD_COUNT_REQUESTS "requests"
#define METRIC_MAX_THROUGHPUT "max_throughput"
#define METRIC_PEAK_HEAP "peak_heap"
/* mem, a CPython program: live when its Python code ended */
#define METRIC_PYTHON_END_BYTES "python_end_bytes"
#define METRIC_PYTHON_END_BLOCKS "python_end_blocks"
#define METRIC_WORK_FLOPS "work_flops"
#define METRIC_WORK_BYTES "work_bytes"
#define METRIC_FLOPS_PER_SECOND "flops_per_second"
#define METRIC_BYTES_PER_SECOND "bytes_per_second"
#define METRIC_ITEMS_PER_SECOND "items_per_second"
#define METRIC_ALLOCS_PER_OP "allocs_per_op"
#define METRIC_ALLOC_BYTES_PER_OP "alloc_bytes_per_op"
#define METRIC_CALL_TIME "call_time"
#define METRIC_FIRST_CALL_TIME "first_call_time"

/* What a metric measures; its unit is one of the dimension's:
 * time "s"; bytes "bytes"; count "count", "flop", "flops", or a name
 * of things; rate "X/s"; ratio "ratio" or "X/Y". */
enum metric_dim { DIM_TIME, DIM_BYTES, DIM_COUNT, DIM_RATE, DIM_RATIO };

/* Which way is better: a rise of a DIR_LOWER metric is "slower". */
enum metric_dir { DIR_LOWER, DIR_HIGHER, DIR_NEITHER };

struct metric_info {
	const char *name;	/* NULL for a fallback */
	const char *unit;	/* as results write it; NULL for a fallback */
	const char *label;	/* for people: "wall time" */
	enum metric_dim dim;
	enum metric_dir dir;
	bool setting;		/* chosen, not measured (iterations): never
				 * compared, gated or charted as a change */
	int rate_rank;		/* 1.. the rate a bench table shows first;
				 * 0 not a rate of work */
	int headline;		/* 1.. the metric a view leads with, the
				 * lowest present wins; 0 never */
	bool deterministic;	/* the same for the same work (counts of
				 * work, allocations): any change is real */
	enum stat_kind stat;	/* the statistic a verdict is about */
	/* A count of events out of trials (load's errors of its requests):
	 * the name of the benchmark's count that holds the trials (load's
	 * counts.requests, docs/result-format.md); the judge compares the
	 * proportions. NULL: not a proportion. */
	const char *trials;
};

/*
 * The row of metric name, or, for a name the table does not hold, the
 * fallback of its unit (unit may be NULL: unknown): "s" a time, lower is
 * better; "bytes" bytes, lower is better; "X/s" a rate, higher is better;
 * "ratio" or "X/Y" a ratio, neither; anything else a count, neither.
 * Fallbacks are noisy, judged by the median, never headlines nor rates of
 * work. Never NULL.
 */
const struct metric_info *metrics_lookup(const char *name, const char *unit);

/* Whether name is in the table (not a fallback). */
bool metrics_known(const char *name);

/* The whole table, for tests and docs: *n rows. */
const struct metric_info *metrics_table(size_t *n);

/* "time", "bytes", "count", "rate", "ratio". */
const char *metrics_dim_name(enum metric_dim d);

/* The dimension of a unit as results write it ("s", "bytes", "req/s"). */
enum metric_dim metrics_unit_dim(const char *unit);

/* Whether a larger value of metric name is better (the thin form of
 * metrics_lookup(name, NULL)->dir == DIR_HIGHER). */
bool metric_higher_is_better(const char *name);


/* How the judge (stats/judge.h) takes metric name, measured in unit:
 * its direction, and whether it is noisy (not deterministic). */
void metrics_judge_traits(const char *name, const char *unit,
			  enum judge_dir *dir, bool *noisy);

/* The judge's sample of metric m of benchmark b (its values, their
 * processes, and for a count of events out of trials, metric_info.trials,
 * the trials b holds: NaN when b does not say, as a result from the store
 * or from before load wrote its counts; 0 for any other metric).
 * compare, gate and the result's own comparisons all build their samples
 * here. */
void metrics_judge_sample(const struct benchmark *b, const struct metric *m,
			  struct judge_sample *s);

/* Whether metric name is a setting (iterations, epochs). */
bool metric_is_setting(const char *name);

/* The parameters that say how a benchmark came out, not what it
 * measured (a find-max step's "slo_met", "holds" and "found"): shown and
 * stored, but not part of the identity compare and gate match a
 * benchmark by, so that one rate's steps of two searches meet. */
#define PARAM_SLO_MET "slo_met"
#define PARAM_HOLDS "holds"
#define PARAM_FOUND "found"
bool param_is_outcome(const char *name);

/* The headline metrics in rank order, NULL-terminated: the metrics a
 * history or report tries, one per kind of result. */
const char *const *metrics_headlines(void);

/* The headline metric of b (the best-ranked one it has measured), else
 * NULL. */
const struct metric *metrics_headline_of(const struct benchmark *b);

/* The headline metric of r: the best-ranked any benchmark has, else the
 * first metric of the first benchmark with one, else NULL. */
const char *metrics_headline_name(const struct result *r);

/* b's rate of work (bytes, flops, items per second, in rate_rank order)
 * with a summary, else NULL. */
const struct metric *metrics_rate_of(const struct benchmark *b);

#endif
