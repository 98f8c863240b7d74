/*
 * The result as JSON, "yardstick/result/v1" (docs/result-format.md): the
 * writer. The key names are a contract with every other tool that reads
 * our files; add keys, never rename one. The reader is json_read.c.
 *
 * Numbers round-trip exactly: an integral double below 2^53 is written as
 * a JSON integer, any other finite double in the fewest significant digits
 * that read back to the same double (json_emit.c), and a NaN or infinity
 * (which JSON cannot hold) as null. Strings that came from outside may be
 * invalid UTF-8, which JSON cannot hold either: those bytes are written as
 * U+FFFD.
 */
#include "result/result.h"
#include "result/json_internal.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_emit.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* ---- writer ---- */

static json_t *jint(long long v)
{
	return json_must(json_integer(v));
}

static void put(json_t *obj, const char *key, json_t *v)
{
	if (json_object_set_new(obj, key, v))
		json_oom();
}

/* A key that came from outside: make it valid UTF-8 first. */
static void put_outside(json_t *obj, const char *key, json_t *v)
{
	char *clean = json_utf8_dup(key);

	put(obj, clean, v);
	free(clean);
}

static void push(json_t *arr, json_t *v)
{
	if (json_array_append_new(arr, v))
		json_oom();
}

static json_t *jpair(const double p[2])
{
	json_t *a = json_must(json_array());

	push(a, json_number(p[0]));
	push(a, json_number(p[1]));
	return a;
}

static json_t *jstrv(char *const *v, size_t n)
{
	json_t *a = json_must(json_array());

	for (size_t i = 0; i < n; i++)
		push(a, json_text(v[i]));
	return a;
}

static json_t *machine_json(const struct machine *m)
{
	json_t *o = json_must(json_object());

	put(o, "hostname", json_text(m->hostname));
	put(o, "os", json_text(m->os));
	put(o, "cpu", json_text(m->cpu));
	put(o, "cores", jint(m->cores));
	put(o, "memory_bytes", m->memory_bytes <= 0x7fffffffffffffffULL ?
	    jint((long long)m->memory_bytes) : json_number((double)m->memory_bytes));
	put(o, "governor", json_text(m->governor));
	put(o, "virtualized", json_must(json_boolean(m->virtualized)));
	return o;
}

static json_t *git_json(const struct git_info *g)
{
	json_t *o = json_must(json_object());

	put(o, "commit", json_text(g->commit));
	put(o, "branch", json_text(g->branch));
	put(o, "dirty", json_must(json_boolean(g->dirty)));
	return o;
}

static json_t *settings_json(const struct result *r)
{
	json_t *o = json_must(json_object());

	for (size_t i = 0; i < r->nsettings; i++) {
		const struct setting *s = &r->settings[i];

		put_outside(o, s->key, s->str ? json_text(s->str) : json_number(s->num));
	}
	return o;
}

/* A summary is written only when it was computed for these values;
 * otherwise its keys are null, never zeros that look measured. */
static json_t *metric_json(const struct metric *m)
{
	const struct summary *s = &m->summary;
	bool have = metric_has_summary(m);
	json_t *o = json_must(json_object());
	json_t *values = json_must(json_array());
	json_t *outliers = json_must(json_object());

	for (size_t i = 0; i < m->n; i++)
		push(values, json_number(m->values[i]));
	put(o, "unit", json_text(m->unit));
	/* n: the runs that measured it, the sample of the statistics. */
	put(o, "n", jint((long long)(have ? s->n : 0)));
	put(o, "values", values);
	if (m->process) {	/* one per value: which process measured it */
		json_t *proc = json_must(json_array());

		for (size_t i = 0; i < m->n; i++)
			push(proc, jint((long long)m->process[i]));
		put(o, "process", proc);
	}
#define SUMMARY(key, expr) put(o, key, have ? (expr) : json_must(json_null()))
	SUMMARY("mean", json_number(s->mean));
	SUMMARY("stddev", json_number(s->stddev));
	SUMMARY("min", json_number(s->min));
	SUMMARY("max", json_number(s->max));
	SUMMARY("median", json_number(s->median));
	SUMMARY("mad", json_number(s->mad));
	SUMMARY("p25", json_number(s->p25));
	SUMMARY("p75", json_number(s->p75));
	SUMMARY("p90", json_number(s->p90));
	SUMMARY("p95", json_number(s->p95));
	SUMMARY("p99", json_number(s->p99));
	SUMMARY("mean_ci", jpair(s->mean_ci));
	SUMMARY("median_ci", jpair(s->median_ci));
#undef SUMMARY
	put(outliers, "low", have ? jint((long long)s->outliers_low) :
	    json_must(json_null()));
	put(outliers, "high", have ? jint((long long)s->outliers_high) :
	    json_must(json_null()));
	put(o, "outliers", outliers);
	for (size_t i = 0; i < m->nextra; i++)
		put_outside(o, m->extra[i].key, json_number(m->extra[i].value));
	return o;
}

static json_t *jseries(const struct series *s)
{
	json_t *a = json_must(json_array());

	for (size_t i = 0; i < s->n; i++)
		push(a, json_number(s->v[i]));
	return a;
}

static json_t *timeline_json(const struct heap_timeline *tl)
{
	json_t *o = json_must(json_object());

	put(o, "t", jseries(&tl->t));
	put(o, "heap", jseries(&tl->heap));
	put(o, "rss", jseries(&tl->rss));
	return o;
}

static json_t *benchmark_json(const struct benchmark *b)
{
	json_t *o = json_must(json_object());
	json_t *params = json_must(json_object());
	json_t *codes = json_must(json_array());
	json_t *metrics = json_must(json_object());

	put(o, "name", json_text(b->name));
	put(o, "command", jstrv(b->command, b->argc));
	for (size_t i = 0; i < b->nparams; i++)
		put_outside(params, b->params[i].name, json_text(b->params[i].value));
	put(o, "parameters", params);
	for (size_t i = 0; i < b->nexit; i++)
		push(codes, jint(b->exit_codes[i]));
	put(o, "exit_codes", codes);
	put(o, "timeouts", jint((long long)b->timeouts));
	for (size_t i = 0; i < b->nmetrics; i++)
		put_outside(metrics, b->metrics[i].name,
			    metric_json(&b->metrics[i]));
	put(o, "metrics", metrics);
	put(o, "unsupported", jstrv(b->unsupported, b->nunsupported));
	put(o, "warnings", jstrv(b->warnings, b->nwarnings));
	if (b->warmup_wall_time.n)
		put(o, "warmup_wall_time", jseries(&b->warmup_wall_time));
	if (b->timeline.t.n)
		put(o, "timeline", timeline_json(&b->timeline));
	json_put_load_keys(o, b);
	return o;
}

static json_t *comparison_json(const struct comparison *c)
{
	json_t *o = json_must(json_object());

	put(o, "baseline", json_text(c->baseline));
	put(o, "candidate", json_text(c->candidate));
	put(o, "metric", json_text(c->metric));
	put(o, "ratio", json_number(c->ratio));
	put(o, "ratio_ci", jpair(c->ratio_ci));
	put(o, "p_value", json_number(c->p_value));
	put(o, "p_adjusted", json_number(c->p_adjusted));
	put(o, "verdict", json_text(cmp_verdict_name(c->verdict)));
	return o;
}

/* Coefficient, intercept and r2 of f into o. */
static void put_fit(json_t *o, const struct fit *f)
{
	put(o, "coefficient", json_number(f->coef));
	put(o, "intercept", json_number(f->intercept));
	put(o, "r2", json_number(f->r2));
}

static json_t *complexity_json(const struct complexity_fit *f)
{
	json_t *o = json_must(json_object());
	json_t *all = json_must(json_array());

	put(o, "name", json_text(f->name));
	put(o, "parameter", json_text(f->parameter));
	put(o, "metric", json_text(f->metric));
	put(o, "best", json_text(stats_complexity_name(f->best.model)));
	put_fit(o, &f->best);
	for (int i = 0; i < O_COUNT; i++) {
		json_t *one = json_must(json_object());

		put(one, "model", json_text(stats_complexity_name(i)));
		put_fit(one, &f->all[i]);
		push(all, one);
	}
	put(o, "fits", all);
	return o;
}

static json_t *result_json(const struct result *r)
{
	json_t *o = json_must(json_object());
	json_t *tool = json_must(json_object());
	json_t *list;

	put(o, "schema", json_text(RESULT_SCHEMA));
	put(tool, "name", json_text("yardstick"));
	put(tool, "version", json_text(r->tool_version));
	put(o, "tool", tool);
	put(o, "created", json_text(r->created));
	put(o, "kind", json_text(r->kind));
	put(o, "machine", machine_json(&r->machine));
	put(o, "git", git_json(&r->git));
	put(o, "settings", settings_json(r));
	/* written one by one: next_benchmark */
	put(o, "benchmarks", json_null());
	list = json_must(json_array());
	for (size_t i = 0; i < r->ncomparisons; i++)
		push(list, comparison_json(&r->comparisons[i]));
	put(o, "comparisons", list);
	if (r->nfits) {
		list = json_must(json_array());
		for (size_t i = 0; i < r->nfits; i++)
			push(list, complexity_json(&r->fits[i]));
		put(o, "complexity", list);
	}
	return o;
}

/* The benchmarks are made into JSON one at a time while written: a scan
 * of 100,000 benchmarks would otherwise hold gigabytes of tree. */
static json_t *next_benchmark(void *arg, size_t i)
{
	const struct result *r = arg;

	return i < r->nbenchmarks ? benchmark_json(&r->benchmarks[i]) : NULL;
}

int result_write_json(const struct result *r, const char *path,
		      struct error *e)
{
	return json_write_file_streamed(result_json(r), "benchmarks",
					next_benchmark, (void *)r, path, e);
}

static int write_json(const char *path, void *res, struct error *e)
{
	return result_write_json(res, path, e);
}

const struct result_writer result_writer_json = {
	.flag = "--json", .format = "json", .write = write_json,
};

