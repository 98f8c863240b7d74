/*
 * Import of Google Benchmark's JSON (--benchmark_out=FILE with
 * --benchmark_out_format=json), recognized by top-level "context" and
 * "benchmarks":
 *
 *   {"context": {"date", "host_name", "num_cpus", "mhz_per_cpu", ...},
 *    "benchmarks": [{"name", "run_name", "run_type": "iteration",
 *                    "repetition_index", "iterations", "real_time",
 *                    "cpu_time", "time_unit": "ns", ...counters...},
 *                   {"run_type": "aggregate", "aggregate_name": "mean"...}]}
 *
 * The entries of one run_name, one per repetition, become the per-run
 * values of one benchmark of that name (two families registered under
 * one name, told apart by family_index, are two benchmarks: "BM_x" and
 * "BM_x #2"). What a value means differs from
 * `run`: Google Benchmark reports each repetition as a time per iteration
 * (the mean over that repetition's iterations), so wall_time is
 * real_time (or the manual time under UseManualTime) and cpu_time is
 * cpu_time, both per iteration, converted from time_unit to seconds by
 * one division (exact to the double: 1500 ns is 1.5e-6 s). Every other
 * number of an entry is a counter and becomes a metric of its own name:
 * unit "count", except the library's own rates and byte counts.
 *
 * Aggregate entries (mean, median, stddev, cv, BigO, RMS) are never read:
 * summaries are recomputed from the repetitions like any other. A run
 * reported only as aggregates cannot be imported and is an error.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "result/json_internal.h"
#include "result/metrics.h"
#include "result/result.h"
#include "util/strutil.h"

bool import_gbench_detect(json_t *root)
{
	return json_object_get(root, "context") &&
	       json_object_get(root, "benchmarks");
}

/* Numbers of an entry that are not counters. */
static const char *const not_counters[] = {
	"family_index", "per_family_instance_index", "repetitions",
	"repetition_index", "threads", "iterations", "real_time", "cpu_time",
	"cpu_coefficient", "real_coefficient", "rms",
};

/* Units of the memory counters the library itself names; the rates
 * (bytes_per_second, items_per_second) and any other name yardstick knows
 * take the vocabulary's unit (result/metrics.h); others are "count". */
static const struct {
	const char *name, *unit;
} counter_units[] = {
	{ "max_bytes_used", "bytes" },
	{ "total_allocated_bytes", "bytes" },
	{ "net_heap_growth", "bytes" },
};

static bool is_counter(const char *key)
{
	for (size_t i = 0; i < sizeof(not_counters) / sizeof(*not_counters);
	     i++)
		if (!strcmp(key, not_counters[i]))
			return false;
	return true;
}

static const char *counter_unit(const char *key)
{
	if (metrics_known(key))
		return metrics_lookup(key, NULL)->unit;
	for (size_t i = 0; i < sizeof(counter_units) / sizeof(*counter_units);
	     i++)
		if (!strcmp(key, counter_units[i].name))
			return counter_units[i].unit;
	return "count";
}

/* Seconds per time_unit; 0 for a unit Google Benchmark does not have. */
static double unit_divisor(const char *unit)
{
	static const struct {
		const char *name;
		double per_second;
	} units[] = { { "ns", 1e9 }, { "us", 1e6 }, { "ms", 1e3 },
		      { "s", 1 } };

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (!strcmp(unit, units[i].name))
			return units[i].per_second;
	return 0;
}

/*
 * Metric name of b gets v as the value of repetition rep: repetitions
 * before it that did not report this metric get NaN, so that every
 * metric's values stay in repetition order. A metric that already has a
 * value for rep was reported twice (a user counter "counter_wall_time"
 * next to one renamed so): an error, at where.key.
 */
static int push_at(struct reader *rd, const char *where, const char *key,
		   struct benchmark *b, const char *name, const char *unit,
		   size_t rep, double v)
{
	struct metric *m = benchmark_metric(b, name, unit);
	char path[300];

	jr_path_key(path, sizeof(path), where, key);
	if (m->n > rep)
		return jr_bad(rd, path, "a second value of '%s' in one "
			      "repetition", name);
	if (!isnan(v) && !jr_value_ok(v))
		return jr_bad_value(rd, path, v);
	while (m->n < rep)
		metric_push(m, NAN);
	metric_push(m, v);
	return 0;
}

/* Every metric of b up to rep + 1 values (NaN where none was reported). */
static void pad_all(struct benchmark *b, size_t rep)
{
	for (size_t i = 0; i < b->nmetrics; i++)
		while (b->metrics[i].n < rep + 1)
			metric_push(&b->metrics[i], NAN);
}

/* The run name of an entry: run_name, or name before run_name existed. */
static int run_name(struct reader *rd, json_t *o, const char *where,
		    const char **out)
{
	json_t *v;

	if (jr_member(rd, o, where, "run_name", JSON_STRING, 0, &v))
		return -1;
	if (!v && jr_member(rd, o, where, "name", JSON_STRING, REQUIRED, &v))
		return -1;
	*out = json_string_value(v);
	return 0;
}

/* A repetition that failed (SkipWithError) or was skipped measured
 * nothing: NaN for all its metrics, and a warning with the reason. */
static int skipped(struct reader *rd, json_t *o, const char *where,
		   struct benchmark *b, size_t rep, bool *out)
{
	static const char *const keys[][2] = {
		{ "error_occurred", "error_message" },
		{ "skipped", "skip_message" },
	};
	json_t *flag, *msg;

	*out = false;
	for (size_t i = 0; i < 2 && !*out; i++) {
		if (jr_member(rd, o, where, keys[i][0], JSON_TRUE, 0, &flag) ||
		    jr_member(rd, o, where, keys[i][1], JSON_STRING, 0, &msg))
			return -1;
		if (!flag || !json_is_true(flag))
			continue;
		*out = true;
		if (push_at(rd, where, keys[i][0], b, METRIC_WALL_TIME, "s", rep,
			    NAN))
			return -1;
		pad_all(b, rep);
		benchmark_add_warning(b, "repetition %zu: %s%s%s", rep + 1,
				      i ? "skipped" : "error",
				      msg ? ": " : "",
				      msg ? json_string_value(msg) : "");
	}
	return 0;
}

/* real_time and cpu_time in seconds per iteration. */
static int read_times(struct reader *rd, json_t *o, const char *where,
		      double *real, double *cpu)
{
	json_t *unit, *rt, *ct;
	char path[300];
	double div;

	if (jr_member(rd, o, where, "time_unit", JSON_STRING, REQUIRED,
		      &unit) ||
	    jr_member(rd, o, where, "real_time", JSON_REAL, REQUIRED, &rt) ||
	    jr_member(rd, o, where, "cpu_time", JSON_REAL, REQUIRED, &ct))
		return -1;
	div = unit_divisor(json_string_value(unit));
	if (!div) {
		jr_path_key(path, sizeof(path), where, "time_unit");
		return jr_bad(rd, path, "unknown time unit '%s' (expected ns, "
			      "us, ms or s)", json_string_value(unit));
	}
	if (!jr_value_ok(json_number_value(rt))) {
		jr_path_key(path, sizeof(path), where, "real_time");
		return jr_bad_value(rd, path, json_number_value(rt));
	}
	if (!jr_value_ok(json_number_value(ct))) {
		jr_path_key(path, sizeof(path), where, "cpu_time");
		return jr_bad_value(rd, path, json_number_value(ct));
	}
	*real = json_number_value(rt) / div;
	*cpu = json_number_value(ct) / div;
	return 0;
}

/*
 * The identity of a run in the file: its run name, and where the library
 * has them (1.6 on), the indices of its family and of the instance in the
 * family. Two families registered under one name report the same run
 * name: they are two benchmarks ("BM_x" and "BM_x #2", named once all
 * are read), not repetitions of one.
 */
struct gb_run {
	char *name;
	long long family, instance;	/* -1 if absent */
};

struct gb_runs {
	struct gb_run *v;		/* parallel to r->benchmarks */
	size_t n, cap;
};

static int run_index(struct reader *rd, json_t *o, const char *where,
		     const char *key, long long *out)
{
	json_t *v;

	*out = -1;
	if (jr_member(rd, o, where, key, JSON_INTEGER, 0, &v))
		return -1;
	if (v)
		*out = json_integer_value(v);
	return 0;
}

static int run_identity(struct reader *rd, json_t *o, const char *where,
			struct gb_run *id)
{
	const char *name;

	if (run_name(rd, o, where, &name) ||
	    run_index(rd, o, where, "family_index", &id->family) ||
	    run_index(rd, o, where, "per_family_instance_index",
		      &id->instance))
		return -1;
	id->name = (char *)name;
	return 0;
}

/* The benchmark of identity id, NULL if none yet. */
static struct benchmark *find_run(struct gb_runs *runs, struct result *r,
				  const struct gb_run *id)
{
	for (size_t i = 0; i < runs->n; i++)
		if (!strcmp(runs->v[i].name, id->name) &&
		    runs->v[i].family == id->family &&
		    runs->v[i].instance == id->instance)
			return &r->benchmarks[i];
	return NULL;
}

/* One repetition of a run: appended to the benchmark of its identity. */
static int read_iteration(struct reader *rd, json_t *o, const char *where,
			  struct result *r, struct gb_runs *runs)
{
	const char *key;
	struct benchmark *b;
	struct gb_run id;
	double real = NAN, cpu = NAN;
	bool skip;
	json_t *v;
	size_t rep;

	if (run_identity(rd, o, where, &id))
		return -1;
	b = find_run(runs, r, &id);
	if (!b) {
		b = result_add_benchmark(r, id.name, NULL);
		benchmark_metric(b, METRIC_WALL_TIME, "s");
		benchmark_metric(b, "cpu_time", "s");
		runs->v = xgrow(runs->v, &runs->cap, runs->n + 1,
				sizeof(*runs->v));
		runs->v[runs->n] = id;
		runs->v[runs->n++].name = xstrdup(id.name);
	}
	rep = benchmark_find_metric(b, METRIC_WALL_TIME)->n;
	if (skipped(rd, o, where, b, rep, &skip))
		return -1;
	if (skip)
		return 0;
	if (read_times(rd, o, where, &real, &cpu) ||
	    push_at(rd, where, "real_time", b, METRIC_WALL_TIME, "s", rep, real) ||
	    push_at(rd, where, "cpu_time", b, "cpu_time", "s", rep, cpu))
		return -1;
	json_object_foreach(o, key, v) {
		/* A user counter may not pose as our own wall time. (Not
		 * key itself renamed: json_object_foreach steps on from
		 * it.) */
		const char *name = strcmp(key, METRIC_WALL_TIME) ? key :
				   "counter_wall_time";

		if (!json_is_number(v) || !is_counter(key))
			continue;
		if (push_at(rd, where, key, b, name, counter_unit(name), rep,
			    json_number_value(v)))
			return -1;
	}
	pad_all(b, rep);
	return 0;
}

/* The type of an entry: true for a repetition, false for an aggregate. */
static int run_type(struct reader *rd, json_t *o, const char *where,
		    bool *iteration)
{
	char path[300];
	json_t *v;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    jr_member(rd, o, where, "run_type", JSON_STRING, REQUIRED, &v))
		return -1;
	*iteration = !strcmp(json_string_value(v), "iteration");
	if (*iteration || !strcmp(json_string_value(v), "aggregate"))
		return 0;
	jr_path_key(path, sizeof(path), where, "run_type");
	return jr_bad(rd, path, "unknown run type '%s' (expected iteration "
		      "or aggregate)", json_string_value(v));
}

/*
 * An aggregate is ignored, but only if the repetitions it sums up were
 * read: a run reported only as aggregates (--benchmark_report_aggregates_
 * only, or ReportAggregatesOnly() in the code) has nothing to import.
 */
static int check_aggregate(struct reader *rd, json_t *o, const char *where,
			   struct result *r, struct gb_runs *runs)
{
	struct gb_run id;

	if (run_identity(rd, o, where, &id))
		return -1;
	if (find_run(runs, r, &id))
		return 0;
	return jr_bad(rd, where, "'%s' has only aggregates (mean, median, "
		      "...): its per-repetition entries are needed; run with "
		      "--benchmark_report_aggregates_only=false "
		      "(--benchmark_display_aggregates_only=true still keeps "
		      "the terminal short)", id.name);
}

static int read_entries(struct reader *rd, json_t *root, struct result *r)
{
	struct gb_runs runs = { 0 };
	char path[64];
	json_t *list, *x;
	bool iteration;
	size_t i;
	int ret = -1;

	if (jr_member(rd, root, "", "benchmarks", JSON_ARRAY, REQUIRED,
		      &list))
		return -1;
	json_array_foreach(list, i, x) {
		jr_path_index(path, sizeof(path), "benchmarks", i);
		if (run_type(rd, x, path, &iteration) ||
		    (iteration && read_iteration(rd, x, path, r, &runs)))
			goto out_free;
	}
	/* Aggregates come after their repetitions; check them once all
	 * repetitions are in, whatever the order. */
	json_array_foreach(list, i, x) {
		jr_path_index(path, sizeof(path), "benchmarks", i);
		if (run_type(rd, x, path, &iteration) ||
		    (!iteration && check_aggregate(rd, x, path, r, &runs)))
			goto out_free;
	}
	result_unique_names(r);
	ret = 0;
out_free:
	for (size_t k = 0; k < runs.n; k++)
		free(runs.v[k].name);
	free(runs.v);
	return ret;
}

/*
 * "2026-11-22T01:02:16+01:00" (local time and its offset, as Google
 * Benchmark writes the date) as UTC, "2026-11-22T00:02:16Z", malloc'd;
 * NULL for any other form (older versions wrote no offset).
 */
static char *utc_date(const char *s)
{
	int y, mo, d, h, mi, sec, oh = 0, om = 0, n = -1;
	struct tm tm;
	char sign = '+', buf[32];
	time_t t;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &sec,
		   &n) != 6 || n < 0)
		return NULL;
	s += n;
	n = -1;
	if (strcmp(s, "Z") &&
	    (sscanf(s, "%c%2d:%2d%n", &sign, &oh, &om, &n) != 3 || n < 0 ||
	     s[n] || (sign != '+' && sign != '-')))
		return NULL;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 ||
	    mi < 0 || mi > 59 || sec < 0 || sec > 60 || oh < 0 || oh > 23 ||
	    om < 0 || om > 59)
		return NULL;
	memset(&tm, 0, sizeof(tm));
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	tm.tm_sec = sec;
	t = timegm(&tm) - (sign == '-' ? -1 : 1) * (oh * 3600 + om * 60);
	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return xstrdup(buf);
}

/* A string member of the context as a setting of the same name. */
static int str_setting(struct reader *rd, json_t *ctx, const char *key,
		       struct result *r)
{
	json_t *v;

	if (jr_member(rd, ctx, "context", key, JSON_STRING, 0, &v))
		return -1;
	if (v)
		result_set_str(r, key, json_string_value(v));
	return 0;
}

static int read_machine(struct reader *rd, json_t *ctx, struct result *r)
{
	json_t *host, *cpus, *mhz, *scaling;
	char path[64];

	if (jr_member(rd, ctx, "context", "host_name", JSON_STRING, 0, &host) ||
	    jr_member(rd, ctx, "context", "num_cpus", JSON_INTEGER, 0, &cpus) ||
	    jr_member(rd, ctx, "context", "mhz_per_cpu", JSON_REAL, 0, &mhz) ||
	    jr_member(rd, ctx, "context", "cpu_scaling_enabled", JSON_TRUE, 0,
		      &scaling))
		return -1;
	if (host)
		r->machine.hostname = xstrdup(json_string_value(host));
	if (cpus) {
		if (json_integer_value(cpus) < 0 ||
		    json_integer_value(cpus) > 0x7fffffff) {
			jr_path_key(path, sizeof(path), "context", "num_cpus");
			return jr_bad(rd, path, "%lld is out of range",
				      (long long)json_integer_value(cpus));
		}
		r->machine.cores = (int)json_integer_value(cpus);
	}
	/* The CPU's model is not in the file, only its clock. */
	if (mhz)
		r->machine.cpu = xasprintf("%.0f MHz", json_number_value(mhz));
	if (scaling)
		result_set_num(r, "cpu_scaling_enabled", json_is_true(scaling));
	return 0;
}

static int read_context(struct reader *rd, json_t *root, struct result *r)
{
	json_t *ctx, *date;

	if (jr_member(rd, root, "", "context", JSON_OBJECT, REQUIRED, &ctx) ||
	    jr_member(rd, ctx, "context", "date", JSON_STRING, 0, &date) ||
	    read_machine(rd, ctx, r) ||
	    str_setting(rd, ctx, "executable", r) ||
	    str_setting(rd, ctx, "library_build_type", r))
		return -1;
	if (date) {
		r->created = utc_date(json_string_value(date));
		if (!r->created)	/* kept as written, zone unknown */
			result_set_str(r, "date", json_string_value(date));
	}
	return 0;
}

int import_gbench_read(struct reader *rd, json_t *root, struct result *r)
{
	result_set_str(r, "imported_from", "google-benchmark");
	if (read_context(rd, root, r) || read_entries(rd, root, r))
		return -1;
	return jr_summarize(rd, r);
}
