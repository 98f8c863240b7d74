/*
 * The result in Bencher Metric Format (https://bencher.dev/docs/reference/
 * bencher-metric-format), for `bencher run --adapter json`:
 *
 *   {"<benchmark>": {"<measure>": {"value": x, "lower_value": lo,
 *                                  "upper_value": hi}}}
 *
 * One measure per metric: its median, and its median's confidence
 * interval as lower/upper when both ends are finite. Bencher's built-in
 * "latency" measure is in nanoseconds, so it gets the benchmark's
 * headline metric (result/metrics.h: a load's or trace's latency, else
 * wall_time, else a bench's time_per_op) when that is a time, scaled from
 * seconds; every other metric is a measure of its own name in its own
 * unit (seconds, bytes, counts; Bencher creates the measure on first
 * sight), except settings (iterations). Only summaries are written: a
 * metric without one (never summarized, or nothing measured) is left
 * out, and so is a benchmark left with no measure.
 */
#include "result/result.h"
#include "result/metrics.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_emit.h"
#include "util/fileio.h"
#include "util/strutil.h"


/* The metric that becomes Bencher's "latency": the benchmark's headline
 * metric (result/metrics.h) when it is a time in seconds; NULL if it has
 * none with a summary. */
static const struct metric *latency_source(const struct benchmark *b)
{
	const struct metric *m = metrics_headline_of(b);

	if (m && !strcmp(m->unit, "s") &&
	    metrics_lookup(m->name, m->unit)->dim == DIM_TIME)
		return m;
	return NULL;
}

/* v * scale to 15 significant digits, below a double's precision: the
 * product of a decimal and 1e9 is rarely a double's exact decimal (a
 * median of 0.004005734 s was 4005734.0000000005 ns). */
static double scaled(double v, double scale)
{
	char buf[32];

	if (scale == 1 || !isfinite(v * scale))
		return v * scale;
	snprintf(buf, sizeof(buf), "%.15g", v * scale);
	return strtod(buf, NULL);
}

/* {"value", "lower_value", "upper_value"} of m scaled; NULL when the
 * scaled median is not finite (JSON cannot hold it). */
static json_t *measure(const struct metric *m, double scale)
{
	const struct summary *s = &m->summary;
	double lo = scaled(s->median_ci[0], scale);
	double hi = scaled(s->median_ci[1], scale);
	json_t *o;

	if (!isfinite(s->median * scale))
		return NULL;
	o = json_must(json_object());
	if (json_object_set_new(o, "value",
				json_must(json_real(scaled(s->median, scale)))))
		json_oom();
	if (isfinite(lo) && isfinite(hi) &&
	    (json_object_set_new(o, "lower_value", json_must(json_real(lo))) ||
	     json_object_set_new(o, "upper_value", json_must(json_real(hi)))))
		json_oom();
	return o;
}

static void put_measure(json_t *o, const char *key, json_t *v)
{
	if (v && json_object_set_new(o, key, v))
		json_oom();
}

/* The measures of b, NULL if it has none. */
static json_t *benchmark_measures(const struct benchmark *b)
{
	const struct metric *lat = latency_source(b);
	json_t *o = json_must(json_object());

	if (lat)
		put_measure(o, "latency", measure(lat, 1e9));
	for (size_t i = 0; i < b->nmetrics; i++) {
		const struct metric *m = &b->metrics[i];
		char *key;

		/* a setting (iterations) is no measure of performance */
		if (m == lat || !metric_has_summary(m) ||
		    metrics_lookup(m->name, m->unit)->setting)
			continue;
		key = json_utf8_dup(m->name);
		/* Metric names are unique in a benchmark: only a "latency"
		 * that is not in seconds can collide, with Bencher's latency
		 * taken by wall_time. It is named with its unit. */
		if (json_object_get(o, key)) {
			char *unit = json_utf8_dup(m->unit), *both;

			both = xasprintf("%s (%s)", key, unit);
			free(unit);
			free(key);
			key = both;
		}
		put_measure(o, key, measure(m, 1));
		free(key);
	}
	if (!json_object_size(o)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static int bmf_json(const struct result *r, json_t **out, struct error *e)
{
	json_t *root = json_must(json_object());

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		json_t *measures = benchmark_measures(b);
		char *name;

		if (!measures)
			continue;
		name = json_utf8_dup(b->name);
		if (json_object_get(root, name)) {
			error_set(e, "benchmark name '%s' appears twice: "
				  "Bencher tells benchmarks apart by name",
				  name);
			free(name);
			json_decref(measures);
			json_decref(root);
			return -1;
		}
		if (json_object_set_new(root, name, measures))
			json_oom();
		free(name);
	}
	*out = root;
	return 0;
}

int result_write_bmf(const struct result *r, const char *path,
		     struct error *e)
{
	json_t *root;

	if (bmf_json(r, &root, e))
		return -1;
	return json_write_file(root, path, e);
}

static int write_bmf(const char *path, void *res, struct error *e)
{
	return result_write_bmf(res, path, e);
}

const struct result_writer result_writer_bmf = {
	.flag = "--bmf", .format = "bmf", .write = write_bmf,
};
