/*
 * The vocabulary of metrics (metrics.h): one table, one lookup, and the
 * fallbacks for names it does not hold. The table is small and read a
 * few times per metric of a result: a linear search costs nothing worth
 * an index.
 */
#include "result/metrics.h"

#include <math.h>
#include <string.h>

#define T DIM_TIME
#define B DIM_BYTES
#define C DIM_COUNT
#define R DIM_RATE
#define Q DIM_RATIO
#define LO DIR_LOWER
#define HI DIR_HIGHER
#define NO DIR_NEITHER

/* name, unit, label, dimension, direction, setting, rate rank, headline
 * rank, deterministic (the statistic is the median for all; trials
 * NULL but for errors). Headline
 * ranks: latency before wall_time, for a benchmark with both is about
 * its requests (Bencher's "latency"); then bench's time per op, mem's
 * peak heap, the rates of roofline and bench, load's throughput. */
#define M(name, unit, label, dim, dir, set, rate, head, det)		\
	{ name, unit, label, dim, dir, set, rate, head, det, STAT_MEDIAN, NULL }

static const struct metric_info table[] = {
	/* run: measure/spawn.c, engine/run_loop.c */
	M(METRIC_WALL_TIME, "s", "wall time", T, LO, false, 0, 2, false),
	M(METRIC_USER_TIME, "s", "user time", T, LO, false, 0, 0, false),
	M(METRIC_SYSTEM_TIME, "s", "system time", T, LO, false, 0, 0, false),
	M(METRIC_PEAK_RSS, "bytes", "peak RSS", B, LO, false, 0, 0, false),
	M("minor_faults", "count", "minor faults", C, LO, false, 0, 0, false),
	M("major_faults", "count", "major faults", C, LO, false, 0, 0, false),
	M("voluntary_switches", "count", "voluntary context switches", C, LO,
	  false, 0, 0, false),
	M("involuntary_switches", "count", "involuntary context switches", C,
	  LO, false, 0, 0, false),
	/* perf counters: measure/counters.c, lib/events.c */
	M(METRIC_TASK_CLOCK, "s", "task clock", T, LO, false, 0, 0, false),
	M("cycles", "count", "cycles", C, LO, false, 0, 0, false),
	M("instructions", "count", "instructions", C, LO, false, 0, 0, false),
	M("branches", "count", "branches", C, LO, false, 0, 0, false),
	M("branch_misses", "count", "branch misses", C, LO, false, 0, 0,
	  false),
	M("cache_references", "count", "cache references", C, LO, false, 0, 0,
	  false),
	M("cache_misses", "count", "cache misses", C, LO, false, 0, 0, false),
	M("flops", "count", "floating-point operations", C, LO, false, 0, 0,
	  false),
	M("dram_bytes", "bytes", "DRAM traffic", B, LO, false, 0, 0, false),
	M("page_faults", "count", "page faults", C, LO, false, 0, 0, false),
	M("context_switches", "count", "context switches", C, LO, false, 0, 0,
	  false),
	M("cpu_migrations", "count", "CPU migrations", C, LO, false, 0, 0,
	  false),
	M("ipc", "ratio", "instructions per cycle", Q, HI, false, 0, 0, false),
	/* run --work, roofline --count: the work a command does, declared */
	M(METRIC_WORK_FLOPS, "flop", "work (flop)", C, NO, false, 0, 0, true),
	M(METRIC_WORK_BYTES, "bytes", "work (bytes)", B, NO, false, 0, 0,
	  true),
	/* bench: lib/report.c; imports: result/import_gbench.c */
	M(METRIC_TIME_PER_OP, "s", "time per operation", T, LO, false, 0, 3,
	  false),
	M(METRIC_ITERATIONS, "count", "iterations", C, NO, true, 0, 0, true),
	M("epochs", "count", "epochs", C, NO, true, 0, 0, true),
	M(METRIC_BYTES_PER_SECOND, "bytes/s", "bytes per second", R, HI,
	  false, 1, 6, false),
	M(METRIC_FLOPS_PER_SECOND, "flop/s", "flop per second", R, HI, false,
	  2, 5, false),
	M(METRIC_ITEMS_PER_SECOND, "items/s", "items per second", R, HI,
	  false, 3, 7, false),
	M("arithmetic_intensity", "flop/byte", "arithmetic intensity", Q, NO,
	  false, 0, 0, true),
	M(METRIC_ALLOCS_PER_OP, "count", "allocations per operation", C, LO,
	  false, 0, 0, true),
	M(METRIC_ALLOC_BYTES_PER_OP, "bytes", "bytes allocated per operation",
	  B, LO, false, 0, 0, true),
	M("frees_per_op", "count", "frees per operation", C, LO, false, 0, 0,
	  true),
	M("cpu_time", "s", "CPU time", T, LO, false, 0, 0, false),
	/* bench of the Python package (python/yardstick, ys_value) */
	M("call_time", "s", "time per call", T, LO, false, 0, 0, false),
	M("first_call_time", "s", "first call", T, LO, false, 0, 0, false),
	/* load: cmd/load_report.c; trace: cmd/trace_report.c */
	M(METRIC_LATENCY, "s", "latency", T, LO, false, 0, 1, false),
	M(METRIC_LATENCY_UNCORRECTED, "s", "latency (uncorrected)", T, LO,
	  false, 0, 0, false),
	/* trace, import: a zone's or an operator's time less that of the
	 * ones inside it (engine/trace_report.c) */
	M(METRIC_SELF_TIME, "s", "self time", T, LO, false, 0, 0, false),
	M(METRIC_THROUGHPUT, "requests/s", "throughput", R, HI, false, 0, 8,
	  false),
	/* load --find-max: engine/load_search_report.c; one value, the
	 * search's own verdict on noise (its steps' intervals and its
	 * tolerance): compared as it is */
	M(METRIC_MAX_THROUGHPUT, "requests/s", "max throughput", R, HI, false,
	  0, 9, true),
	M(METRIC_ERROR_RATE, "errors/s", "error rate", R, LO, false, 0, 0, false),
	/* the run's requests: the trials of its errors, kept as a metric
	 * so that a stored result holds them (the store keeps no counts) */
	M(LOAD_COUNT_REQUESTS, "count", "requests", C, NO, true, 0, 0, true),
	/* a count out of the run's requests: judged as a proportion */
	{ METRIC_ERRORS, "count", "errors", C, LO, false, 0, 0, false,
	  STAT_MEDIAN, LOAD_COUNT_REQUESTS },
	/* mem: cmd/mem_report.c; exact counts of the traced program */
	M(METRIC_PEAK_HEAP, "bytes", "peak heap", B, LO, false, 0, 4, true),
	M("leaked_bytes", "bytes", "leaked bytes", B, LO, false, 0, 0, true),
	M("leaked_blocks", "count", "leaked blocks", C, LO, false, 0, 0, true),
	M(METRIC_PYTHON_END_BYTES, "bytes", "live at the Python end", B, LO,
	  false, 0, 0, true),
	M(METRIC_PYTHON_END_BLOCKS, "count", "blocks live at the Python end",
	  C, LO, false, 0, 0, true),
	M("allocations", "count", "allocations", C, LO, false, 0, 0, true),
	M("temporary_allocations", "count", "temporary allocations", C, LO,
	  false, 0, 0, true),
	M("bytes_allocated", "bytes", "bytes allocated", B, LO, false, 0, 0,
	  true),
};

#undef M

/* The fallbacks, one per dimension (metrics.h). */
static const struct metric_info fallback[] = {
	[DIM_TIME] = { NULL, NULL, "time", T, LO, false, 0, 0, false,
		       STAT_MEDIAN, NULL },
	[DIM_BYTES] = { NULL, NULL, "bytes", B, LO, false, 0, 0, false,
			STAT_MEDIAN, NULL },
	[DIM_COUNT] = { NULL, NULL, "count", C, NO, false, 0, 0, false,
			STAT_MEDIAN, NULL },
	[DIM_RATE] = { NULL, NULL, "rate", R, HI, false, 0, 0, false,
		       STAT_MEDIAN, NULL },
	[DIM_RATIO] = { NULL, NULL, "ratio", Q, NO, false, 0, 0, false,
			STAT_MEDIAN, NULL },
};

#define NTABLE (sizeof(table) / sizeof(*table))

static const struct metric_info *find(const char *name)
{
	for (size_t i = 0; name && i < NTABLE; i++)
		if (!strcmp(table[i].name, name))
			return &table[i];
	return NULL;
}

enum metric_dim metrics_unit_dim(const char *unit)
{
	size_t n = unit ? strlen(unit) : 0;

	if (!n)
		return DIM_COUNT;
	if (!strcmp(unit, "s"))
		return DIM_TIME;
	if (!strcmp(unit, "bytes"))
		return DIM_BYTES;
	if (n > 2 && !strcmp(unit + n - 2, "/s"))
		return DIM_RATE;
	if (!strcmp(unit, "ratio") || strchr(unit, '/'))
		return DIM_RATIO;
	return DIM_COUNT;
}

const struct metric_info *metrics_lookup(const char *name, const char *unit)
{
	const struct metric_info *m = find(name);

	return m ? m : &fallback[metrics_unit_dim(unit)];
}

bool metrics_known(const char *name)
{
	return find(name) != NULL;
}

const struct metric_info *metrics_table(size_t *n)
{
	*n = NTABLE;
	return table;
}

const char *metrics_dim_name(enum metric_dim d)
{
	static const char *const names[] = {
		[DIM_TIME] = "time", [DIM_BYTES] = "bytes",
		[DIM_COUNT] = "count", [DIM_RATE] = "rate",
		[DIM_RATIO] = "ratio",
	};

	return names[d];
}

void metrics_judge_traits(const char *name, const char *unit,
			  enum judge_dir *dir, bool *noisy)
{
	const struct metric_info *m = metrics_lookup(name, unit);

	*dir = m->dir == DIR_HIGHER ? JUDGE_HIGHER_BETTER
	       : m->dir == DIR_LOWER ? JUDGE_LOWER_BETTER : JUDGE_NEITHER;
	*noisy = !m->deterministic;
}

void metrics_judge_sample(const struct benchmark *b, const struct metric *m,
			  struct judge_sample *s)
{
	const char *trials = metrics_lookup(m->name, m->unit)->trials;
	const struct metric *tm = trials && b ? benchmark_find_metric(b, trials)
					      : NULL;
	double t = NAN;

	/* the result's counts, else its metric of that name (a result
	 * from the store, which keeps metrics, not counts) */
	if (trials && b && b->load.present)
		t = load_detail_count(&b->load, trials);
	else if (tm && tm->n == 1)
		t = tm->values[0];

	/* a count of events whose trials b does not hold: NaN, which the
	 * judge calls inconclusive, saying why */
	*s = (struct judge_sample){ m->values, m->n, m->process,
				    !trials ? 0 : t > 0 ? t : NAN };
}

bool metric_higher_is_better(const char *name)
{
	return metrics_lookup(name, NULL)->dir == DIR_HIGHER;
}

bool param_is_outcome(const char *name)
{
	return !strcmp(name, PARAM_SLO_MET) || !strcmp(name, PARAM_HOLDS) ||
	       !strcmp(name, PARAM_FOUND);
}

bool metric_is_setting(const char *name)
{
	return metrics_lookup(name, NULL)->setting;
}

const char *const *metrics_headlines(void)
{
	static const char *names[NTABLE + 1];

	/* filled once; the same every time (the table is constant) */
	if (!names[0]) {
		size_t k = 0;

		for (int rank = 1; k < NTABLE; rank++) {
			bool any = false;

			for (size_t i = 0; i < NTABLE; i++) {
				if (table[i].headline >= rank)
					any = true;
				if (table[i].headline == rank)
					names[k++] = table[i].name;
			}
			if (!any)
				break;
		}
	}
	return names;
}

/* The measured metric of b with the lowest positive rank that field
 * gives, else NULL. */
static const struct metric *best(const struct benchmark *b,
				 int (*rank)(const struct metric_info *))
{
	const struct metric *out = NULL;
	int r = 0;

	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct metric *m = &b->metrics[i];
		int k = rank(metrics_lookup(m->name, m->unit));

		if (k > 0 && (!out || k < r) && metric_has_summary(m)) {
			out = m;
			r = k;
		}
	}
	return out;
}

static int headline_rank(const struct metric_info *i)
{
	return i->headline;
}

static int rate_rank(const struct metric_info *i)
{
	return i->rate_rank;
}

const struct metric *metrics_headline_of(const struct benchmark *b)
{
	return best(b, headline_rank);
}

const char *metrics_headline_name(const struct result *r)
{
	const char *name = NULL;
	int rank = 0;

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];

		for (size_t k = 0; k < b->nmetrics; k++) {
			int h = metrics_lookup(b->metrics[k].name,
					       b->metrics[k].unit)->headline;

			if (h > 0 && (!name || h < rank)) {
				name = b->metrics[k].name;
				rank = h;
			}
		}
	}
	for (size_t i = 0; !name && i < r->nbenchmarks; i++)
		if (r->benchmarks[i].nmetrics)
			name = r->benchmarks[i].metrics[0].name;
	return name;
}

const struct metric *metrics_rate_of(const struct benchmark *b)
{
	return best(b, rate_rank);
}
