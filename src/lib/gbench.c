/*
 * --gbench-json: the run in Google Benchmark's JSON (--benchmark_out
 * format json), so that its tools/compare.py and github-action-benchmark
 * read it unchanged. Each epoch is a repetition: one "iteration" entry per
 * epoch (real_time: the epoch's time per iteration, ns), then the
 * aggregates mean, median, stddev and cv, as Google Benchmark writes them
 * with --benchmark_repetitions. cpu_time is the task clock per iteration
 * where it was counted, else real_time. Rates and the other per-op
 * metrics are counters of their own names. A failed benchmark is one
 * entry with error_occurred and its error_message.
 */
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/lib_internal.h"
#include "result/metrics.h"
#include "stats/stats.h"
#include "util/json_emit.h"
#include "util/strutil.h"

static void put(json_t *o, const char *k, json_t *v)
{
	if (json_object_set_new(o, k, v))
		json_oom();
}

static json_t *context(const struct lib_run *rn, const struct result *r)
{
	json_t *c = json_must(json_object());
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *date = xstrdup(r->created ? r->created : "");
	size_t len = strlen(date);

	/* "2026-11-24T15:00:00Z" -> "2026-11-24T15:00:00+00:00" */
	if (len && date[len - 1] == 'Z') {
		date[len - 1] = '\0';
		put(c, "date", json_must(json_sprintf("%s+00:00", date)));
	} else {
		put(c, "date", json_text(date));
	}
	free(date);
	put(c, "host_name", json_text(r->machine.hostname ?
				      r->machine.hostname : ""));
	exe[n > 0 ? n : 0] = '\0';
	put(c, "executable", json_text(n > 0 ? exe : rn->o->argv[0]));
	put(c, "num_cpus", json_must(json_integer(r->machine.cores)));
	put(c, "mhz_per_cpu", json_must(json_integer(0)));
	put(c, "cpu_scaling_enabled",
	    json_boolean(r->machine.governor &&
			 strcmp(r->machine.governor, "performance")));
	put(c, "caches", json_must(json_array()));
	put(c, "load_avg", json_must(json_array()));
	put(c, "library_build_type", json_text("release"));
	put(c, "library", json_text("libyardstick"));
	return c;
}

/* Whether metric m is written as a counter, under its own name: every
 * measurement but the time per op (real_time and cpu_time); settings
 * (iterations) have keys of their own. */
static bool is_counter(const struct metric *m)
{
	return strcmp(m->name, METRIC_TIME_PER_OP) &&
	       !metrics_lookup(m->name, m->unit)->setting;
}

static json_t *entry(const struct benchmark *b, size_t family,
		     const char *type, size_t nrep)
{
	json_t *o = json_must(json_object());

	put(o, "name", json_text(b->name));
	put(o, "family_index", json_must(json_integer((json_int_t)family)));
	put(o, "per_family_instance_index", json_must(json_integer(0)));
	put(o, "run_name", json_text(b->name));
	put(o, "run_type", json_text(type));
	put(o, "repetitions", json_must(json_integer((json_int_t)nrep)));
	return o;
}

static void times(json_t *o, double real, double cpu)
{
	put(o, "real_time", json_number(real * 1e9));
	put(o, "cpu_time", json_number(cpu * 1e9));
	put(o, "time_unit", json_text("ns"));
}

static void aggregates(json_t *list, const struct benchmark *b,
		       size_t family, int threads, const struct metric *t,
		       const struct metric *cpu)
{
	static const char *const names[] = { "mean", "median", "stddev",
					     "cv" };

	for (size_t a = 0; a < 4; a++) {
		json_t *o = entry(b, family, "aggregate", t->n);
		char *name = xasprintf("%s_%s", b->name, names[a]);
		const struct summary *s = &t->summary, *c = &cpu->summary;
		double rv[4] = { s->mean, s->median, s->stddev,
				 s->mean > 0 ? s->stddev / s->mean : 0 };
		double cv[4] = { c->mean, c->median, c->stddev,
				 c->mean > 0 ? c->stddev / c->mean : 0 };

		put(o, "name", json_text(name));
		free(name);
		put(o, "threads", json_must(json_integer(threads)));
		put(o, "aggregate_name", json_text(names[a]));
		put(o, "aggregate_unit", json_text(a == 3 ? "percentage"
							  : "time"));
		put(o, "iterations", json_must(json_integer((json_int_t)t->n)));
		if (a == 3) {
			put(o, "real_time", json_number(rv[a]));
			put(o, "cpu_time", json_number(cv[a]));
			put(o, "time_unit", json_text("ns"));
		} else {
			times(o, rv[a], cv[a]);
		}
		for (size_t k = 0; k < b->nmetrics; k++) {
			const struct metric *m = &b->metrics[k];
			double v[4];

			if (!is_counter(m) || !metric_has_summary(m))
				continue;
			v[0] = m->summary.mean;
			v[1] = m->summary.median;
			v[2] = m->summary.stddev;
			v[3] = m->summary.mean > 0
				       ? m->summary.stddev / m->summary.mean : 0;
			put(o, m->name, json_number(v[a]));
		}
		if (json_array_append_new(list, o))
			json_oom();
	}
}

/*
 * cpu_time per epoch: the task clock (tc), but for one thread never more
 * than the real time: a thread cannot run longer than the time that
 * passed, and where the task clock says so it is the clocks' error (they
 * are read at different points, a read() apart, each read costing a
 * varying time). With threads, the threads' mean, unchanged. Its values
 * and summary are the caller's to free (values).
 */
static struct metric cpu_times(const struct metric *t,
			       const struct metric *tc, int threads)
{
	struct metric cpu = { 0 };

	cpu.n = t->n;
	cpu.values = xcalloc(t->n + 1, sizeof(double));
	for (size_t k = 0; k < t->n; k++)
		cpu.values[k] = threads == 1 && tc->values[k] > t->values[k]
					? t->values[k] : tc->values[k];
	stats_summarize(cpu.values, cpu.n, NULL, 0, &cpu.summary);
	return cpu;
}

int lib_write_gbench(const struct lib_run *rn, const struct result *r,
		     const char *path, struct error *e)
{
	json_t *root = json_must(json_object());
	json_t *list = json_must(json_array());

	put(root, "context", context(rn, r));
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct metric *t = benchmark_find_metric(b, METRIC_TIME_PER_OP);
		const struct metric *it = benchmark_find_metric(b, METRIC_ITERATIONS);
		const struct metric *tc = benchmark_find_metric(b, "task_clock");
		int threads = rn->insts[i].threads;
		struct metric cpu;

		if (rn->insts[i].failed) {
			/* as Google Benchmark reports a SkipWithError */
			json_t *o = entry(b, i, "iteration", 1);

			put(o, "repetition_index", json_must(json_integer(0)));
			put(o, "threads", json_must(json_integer(threads)));
			put(o, "iterations", json_must(json_integer(0)));
			times(o, 0, 0);
			put(o, "error_occurred", json_true());
			put(o, "error_message", json_text(rn->insts[i].failed));
			if (json_array_append_new(list, o))
				json_oom();
			continue;
		}
		if (!t || !it || !metric_has_summary(t))
			continue;
		if (!tc || !metric_has_summary(tc) || tc->n != t->n)
			tc = t;
		cpu = cpu_times(t, tc, threads);
		for (size_t k = 0; k < t->n; k++) {
			json_t *o = entry(b, i, "iteration", t->n);

			put(o, "repetition_index",
			    json_must(json_integer((json_int_t)k)));
			put(o, "threads", json_must(json_integer(threads)));
			put(o, "iterations", json_must(json_integer(
				(json_int_t)it->values[k])));
			times(o, t->values[k], cpu.values[k]);
			for (size_t c = 0; c < b->nmetrics; c++) {
				const struct metric *m = &b->metrics[c];

				if (is_counter(m) && k < m->n)
					put(o, m->name, json_number(m->values[k]));
			}
			if (json_array_append_new(list, o))
				json_oom();
		}
		aggregates(list, b, i, threads, t, &cpu);
		free(cpu.values);
	}
	put(root, "benchmarks", list);
	return json_write_file(root, path, e);
}
