/*
 * Reading result JSON back into the model. The reader is a table of
 * formats, each detected from the top-level keys: yardstick's own (here),
 * hyperfine's --export-json (import_hyperfine.c) and Google Benchmark's
 * --benchmark_out (import_gbench.c). Its errors name the file and the
 * place: jansson's line:column for syntax, the JSON path for the rest
 * (helpers shared through json_internal.h). Summaries are never trusted:
 * they are recomputed from the per-run values.
 */
#include "result/result.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/json_internal.h"
#include "util/fileio.h"
#include "util/strutil.h"

/* ---- reader ---- */

int jr_bad(struct reader *rd, const char *where, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (!*where)
		return error_set(rd->e, "cannot read %s: %s", rd->name, what);
	return error_set(rd->e, "cannot read %s: %s: %s", rd->name, where,
			 what);
}

int jr_bad_value(struct reader *rd, const char *where, double v)
{
	if (v < 0)
		return jr_bad(rd, where, "%g is negative (no metric can be: "
			      "times, sizes and counts are not)", v);
	if (v > JR_VALUE_MAX)
		return jr_bad(rd, where, "%g is out of range (at most %g)", v,
			      JR_VALUE_MAX);
	return jr_bad(rd, where, "%g is not a number", v);
}

/* A path cut short by its buffer ends in "..." rather than mid-name. */
static void path_fit(char *buf, size_t n, int len)
{
	if (len >= 0 && (size_t)len < n)
		return;
	if (n > 4)
		memcpy(buf + n - 4, "...", 4);
}

void jr_path_key(char *buf, size_t n, const char *where, const char *key)
{
	path_fit(buf, n, snprintf(buf, n, "%s%s%s", where, *where ? "." : "",
				  key));
}

void jr_path_index(char *buf, size_t n, const char *where, size_t i)
{
	path_fit(buf, n, snprintf(buf, n, "%s[%zu]", where, i));
}

static const char *type_name(json_type t)
{
	switch (t) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: case JSON_FALSE: return "true or false";
	default: return "null";
	}
}

/* Check v's type (JSON_REAL: any number, JSON_TRUE: a boolean). */
int jr_check(struct reader *rd, json_t *v, const char *where,
	     json_type type)
{
	bool ok;

	switch (type) {
	case JSON_REAL: ok = json_is_number(v); break;
	case JSON_TRUE: ok = json_is_boolean(v); break;
	default: ok = json_typeof(v) == type;
	}
	if (ok)
		return 0;
	return jr_bad(rd, where, "expected %s", type_name(type));
}

/*
 * obj[key] in *out, checked to be of type. *out is NULL when the key is
 * absent (an error if REQUIRED) or null (an error unless NULLABLE); when
 * it is of another type, -1 with *out the value.
 */
int jr_member(struct reader *rd, json_t *obj, const char *where,
	      const char *key, json_type type, int flags, json_t **out)
{
	json_t *v = json_object_get(obj, key);
	char path[256];

	*out = NULL;
	if (!v) {
		if (flags & REQUIRED)
			return jr_bad(rd, where, "missing key '%s'", key);
		return 0;
	}
	jr_path_key(path, sizeof(path), where, key);
	if (json_is_null(v) && (flags & NULLABLE))
		return 0;
	/* Set before the check: callers test "failed || !v" and then
	 * return v ? -1 : 0, so a wrong type must leave v non-NULL. */
	*out = v;
	return jr_check(rd, v, path, type);
}

/* A string member copied into *out (old value freed); absent: kept. */
static int str_member(struct reader *rd, json_t *obj, const char *where,
		      const char *key, int flags, char **out)
{
	json_t *v;

	if (jr_member(rd, obj, where, key, JSON_STRING, flags, &v))
		return -1;
	if (v || json_is_null(json_object_get(obj, key))) {
		free(*out);
		*out = v ? xstrdup(json_string_value(v)) : NULL;
	}
	return 0;
}

/* A number member; null reads as NaN; absent: kept. */
static int num_member(struct reader *rd, json_t *obj, const char *where,
		      const char *key, int flags, double *out)
{
	json_t *v;

	if (jr_member(rd, obj, where, key, JSON_REAL, flags | NULLABLE, &v))
		return -1;
	if (v)
		*out = json_number_value(v);
	else if (json_object_get(obj, key))
		*out = NAN;
	return 0;
}

static int int_member(struct reader *rd, json_t *obj, const char *where,
		      const char *key, long long min, long long max,
		      long long *out)
{
	json_t *v;
	char path[256];

	if (jr_member(rd, obj, where, key, JSON_INTEGER, 0, &v) || !v)
		return v ? -1 : 0;
	jr_path_key(path, sizeof(path), where, key);
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return jr_bad(rd, path, "%lld is out of range",
			      (long long)json_integer_value(v));
	*out = json_integer_value(v);
	return 0;
}

static int bool_member(struct reader *rd, json_t *obj, const char *where,
		       const char *key, bool *out)
{
	json_t *v;

	if (jr_member(rd, obj, where, key, JSON_TRUE, 0, &v))
		return -1;
	if (v)
		*out = json_is_true(v);
	return 0;
}

/* [lo, hi], each a number or null. */
static int pair_member(struct reader *rd, json_t *obj, const char *where,
		       const char *key, double out[2])
{
	json_t *v;
	char path[256], elem[300];

	if (jr_member(rd, obj, where, key, JSON_ARRAY, NULLABLE, &v) || !v)
		return v ? -1 : 0;
	jr_path_key(path, sizeof(path), where, key);
	if (json_array_size(v) != 2)
		return jr_bad(rd, path, "expected two numbers");
	for (size_t i = 0; i < 2; i++) {
		json_t *x = json_array_get(v, i);

		jr_path_index(elem, sizeof(elem), path, i);
		if (!json_is_null(x) && jr_check(rd, x, elem, JSON_REAL))
			return -1;
		out[i] = json_is_null(x) ? NAN : json_number_value(x);
	}
	return 0;
}

/* An array of strings as a malloc'd vector, NULL-terminated. */
static int strv_member(struct reader *rd, json_t *obj, const char *where,
		       const char *key, char ***out, size_t *n)
{
	json_t *v, *x;
	char path[256], elem[300];
	size_t i;

	if (jr_member(rd, obj, where, key, JSON_ARRAY, 0, &v) || !v)
		return v ? -1 : 0;
	jr_path_key(path, sizeof(path), where, key);
	json_array_foreach(v, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (jr_check(rd, x, elem, JSON_STRING))
			return -1;
	}
	*out = xcalloc(json_array_size(v) + 1, sizeof(**out));
	json_array_foreach(v, i, x)
		(*out)[i] = xstrdup(json_string_value(x));
	*n = json_array_size(v);
	return 0;
}

static int read_machine(struct reader *rd, json_t *root, struct machine *m)
{
	const char *w = "machine";
	long long cores = 0, mem = 0;
	json_t *o;

	if (jr_member(rd, root, "", w, JSON_OBJECT, NULLABLE, &o) || !o)
		return o ? -1 : 0;
	if (str_member(rd, o, w, "hostname", NULLABLE, &m->hostname) ||
	    str_member(rd, o, w, "os", NULLABLE, &m->os) ||
	    str_member(rd, o, w, "cpu", NULLABLE, &m->cpu) ||
	    str_member(rd, o, w, "governor", NULLABLE, &m->governor) ||
	    int_member(rd, o, w, "cores", 0, 0x7fffffff, &cores) ||
	    int_member(rd, o, w, "memory_bytes", 0, 0x7fffffffffffffffLL,
		       &mem) ||
	    bool_member(rd, o, w, "virtualized", &m->virtualized))
		return -1;
	m->cores = (int)cores;
	m->memory_bytes = (unsigned long long)mem;
	return 0;
}

static int read_git(struct reader *rd, json_t *root, struct git_info *g)
{
	json_t *o;

	if (jr_member(rd, root, "", "git", JSON_OBJECT, NULLABLE, &o) || !o)
		return o ? -1 : 0;
	return str_member(rd, o, "git", "commit", NULLABLE, &g->commit) ||
	       str_member(rd, o, "git", "branch", NULLABLE, &g->branch) ||
	       bool_member(rd, o, "git", "dirty", &g->dirty) ? -1 : 0;
}

static int read_settings(struct reader *rd, json_t *root, struct result *r)
{
	const char *key;
	json_t *o, *v;
	char path[256];

	if (jr_member(rd, root, "", "settings", JSON_OBJECT, NULLABLE, &o) ||
	    !o)
		return o ? -1 : 0;
	json_object_foreach(o, key, v) {
		jr_path_key(path, sizeof(path), "settings", key);
		if (json_is_string(v))
			result_set_str(r, key, json_string_value(v));
		else if (json_is_number(v))
			result_set_num(r, key, json_number_value(v));
		else if (json_is_boolean(v))
			result_set_num(r, key, json_is_true(v));
		else if (json_is_null(v))
			result_set_num(r, key, NAN);
		else
			return jr_bad(rd, path,
				      "expected a number or a string");
	}
	return 0;
}

/* A metric's "process": one id per value, each 0 to RESULT_MAX_PROCESS,
 * or absent (m->process stays NULL). */
static int read_process(struct reader *rd, json_t *o, const char *where,
			struct metric *m)
{
	char path[300], elem[320];
	json_t *procs, *x;
	size_t i;

	if (jr_member(rd, o, where, "process", JSON_ARRAY, 0, &procs) ||
	    !procs)
		return procs ? -1 : 0;
	jr_path_key(path, sizeof(path), where, "process");
	if (json_array_size(procs) != m->n)
		return jr_bad(rd, path, "expected one process per value");
	m->process = xcalloc(m->cap ? m->cap : 1, sizeof(*m->process));
	json_array_foreach(procs, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (jr_check(rd, x, elem, JSON_INTEGER))
			return -1;
		if (json_integer_value(x) < 0 ||
		    json_integer_value(x) > RESULT_MAX_PROCESS)
			return jr_bad(rd, elem, "expected a process number "
				      "from 0 to " RESULT_MAX_PROCESS_TEXT);
		m->process[i] = (unsigned)json_integer_value(x);
	}
	return 0;
}

static int read_metric(struct reader *rd, json_t *o, const char *where,
		       const char *name, struct benchmark *b)
{
	char *unit = NULL, path[300], elem[320];
	struct metric *m;
	json_t *values, *x;
	size_t i;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    str_member(rd, o, where, "unit", 0, &unit) ||
	    jr_member(rd, o, where, "values", JSON_ARRAY, REQUIRED, &values)) {
		free(unit);
		return -1;
	}
	m = benchmark_metric(b, name, unit ? unit : "");
	free(unit);
	json_array_foreach(values, i, x) {
		if (json_is_null(x)) {	/* a run that did not measure it */
			metric_push(m, NAN);
			continue;
		}
		if (json_is_number(x) && jr_value_ok(json_number_value(x))) {
			metric_push(m, json_number_value(x));
			continue;
		}
		/* The path is formatted only for the error: files of
		 * 100,000 runs are read value by value. */
		jr_path_key(path, sizeof(path), where, "values");
		jr_path_index(elem, sizeof(elem), path, i);
		if (json_is_number(x))
			return jr_bad_value(rd, elem, json_number_value(x));
		return jr_check(rd, x, elem, JSON_REAL);
	}
	return read_process(rd, o, where, m);
}

static int read_exit_codes(struct reader *rd, json_t *o, const char *where,
			   struct benchmark *b)
{
	char path[256], elem[300];
	json_t *codes, *x;
	size_t i;

	if (jr_member(rd, o, where, "exit_codes", JSON_ARRAY, 0, &codes) ||
	    !codes)
		return codes ? -1 : 0;
	jr_path_key(path, sizeof(path), where, "exit_codes");
	json_array_foreach(codes, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (jr_check(rd, x, elem, JSON_INTEGER))
			return -1;
		if (json_integer_value(x) < -0x7fffffffLL - 1 ||
		    json_integer_value(x) > 0x7fffffff)
			return jr_bad(rd, elem, "out of range");
		benchmark_push_exit(b, (int)json_integer_value(x));
	}
	return 0;
}

/* An array of values (as a metric's: >= 0, null for NaN) into s; absent:
 * left empty. */
static int series_member(struct reader *rd, json_t *obj, const char *where,
			 const char *key, int flags, struct series *s)
{
	char path[256], elem[300];
	json_t *v, *x;
	size_t i;

	if (jr_member(rd, obj, where, key, JSON_ARRAY, flags, &v))
		return -1;	/* a REQUIRED one absent too */
	if (!v)
		return 0;
	jr_path_key(path, sizeof(path), where, key);
	json_array_foreach(v, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (json_is_null(x)) {
			series_push(s, NAN);
			continue;
		}
		if (jr_check(rd, x, elem, JSON_REAL))
			return -1;
		if (!jr_value_ok(json_number_value(x)))
			return jr_bad_value(rd, elem, json_number_value(x));
		series_push(s, json_number_value(x));
	}
	return 0;
}

/* mem's "timeline": three arrays of one length, the times in order. */
static int read_timeline(struct reader *rd, json_t *o, const char *where,
			 struct benchmark *b)
{
	struct heap_timeline *tl = &b->timeline;
	char path[256], tpath[280], elem[300];
	json_t *v;

	if (jr_member(rd, o, where, "timeline", JSON_OBJECT, 0, &v) || !v)
		return v ? -1 : 0;
	jr_path_key(path, sizeof(path), where, "timeline");
	if (series_member(rd, v, path, "t", REQUIRED, &tl->t) ||
	    series_member(rd, v, path, "heap", REQUIRED, &tl->heap) ||
	    series_member(rd, v, path, "rss", REQUIRED, &tl->rss))
		return -1;
	if (tl->heap.n != tl->t.n || tl->rss.n != tl->t.n)
		return jr_bad(rd, path, "'t', 'heap' and 'rss' differ in "
			      "length (%zu, %zu, %zu)", tl->t.n, tl->heap.n,
			      tl->rss.n);
	for (size_t i = 0; i < tl->t.n; i++) {
		jr_path_key(tpath, sizeof(tpath), path, "t");
		jr_path_index(elem, sizeof(elem), tpath, i);
		if (isnan(tl->t.v[i]))
			return jr_bad(rd, elem, "expected a number");
		if (i && tl->t.v[i] < tl->t.v[i - 1])
			return jr_bad(rd, elem, "earlier than the time before "
				      "it");
	}
	return 0;
}

static int read_benchmark(struct reader *rd, json_t *o, const char *where,
			  struct result *r)
{
	char *name = NULL, path[256], mpath[300];
	long long timeouts = 0;
	struct benchmark *b;
	json_t *params, *metrics, *v;
	const char *key;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    str_member(rd, o, where, "name", REQUIRED, &name))
		return -1;
	b = result_add_benchmark(r, name, NULL);
	free(name);
	argv_free(b->command);
	b->command = NULL;
	b->argc = 0;
	if (strv_member(rd, o, where, "command", &b->command, &b->argc))
		return -1;
	if (!b->command)
		b->command = xcalloc(1, sizeof(*b->command));

	if (jr_member(rd, o, where, "parameters", JSON_OBJECT, 0, &params))
		return -1;
	jr_path_key(path, sizeof(path), where, "parameters");
	json_object_foreach(params, key, v) {
		jr_path_key(mpath, sizeof(mpath), path, key);
		if (jr_check(rd, v, mpath, JSON_STRING))
			return -1;
		benchmark_add_param(b, key, json_string_value(v));
	}
	if (read_exit_codes(rd, o, where, b) ||
	    int_member(rd, o, where, "timeouts", 0, 0x7fffffffffffffffLL,
		       &timeouts))
		return -1;
	b->timeouts = (size_t)timeouts;

	if (jr_member(rd, o, where, "metrics", JSON_OBJECT, REQUIRED, &metrics))
		return -1;
	jr_path_key(path, sizeof(path), where, "metrics");
	json_object_foreach(metrics, key, v) {
		jr_path_key(mpath, sizeof(mpath), path, key);
		if (read_metric(rd, v, mpath, key, b))
			return -1;
	}
	return strv_member(rd, o, where, "unsupported", &b->unsupported,
			   &b->nunsupported) ||
	       strv_member(rd, o, where, "warnings", &b->warnings,
			   &b->nwarnings) ||
	       series_member(rd, o, where, "warmup_wall_time", 0,
			     &b->warmup_wall_time) ||
	       read_timeline(rd, o, where, b) ||
	       json_read_load_keys(rd, o, where, b) ? -1 : 0;
}

static int read_comparison(struct reader *rd, json_t *o, const char *where,
			   struct result *r)
{
	struct comparison c = { .ratio = NAN, .ratio_ci = { NAN, NAN },
				.p_value = NAN, .p_adjusted = NAN };
	char *verdict = NULL;
	int ret = -1;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    str_member(rd, o, where, "baseline", REQUIRED, &c.baseline) ||
	    str_member(rd, o, where, "candidate", REQUIRED, &c.candidate) ||
	    str_member(rd, o, where, "metric", REQUIRED, &c.metric) ||
	    str_member(rd, o, where, "verdict", REQUIRED, &verdict) ||
	    num_member(rd, o, where, "ratio", 0, &c.ratio) ||
	    pair_member(rd, o, where, "ratio_ci", c.ratio_ci) ||
	    num_member(rd, o, where, "p_value", 0, &c.p_value) ||
	    num_member(rd, o, where, "p_adjusted", 0, &c.p_adjusted))
		goto out_free;
	/* the judge's words (compare_verdict_of) */
	if (cmp_verdict_parse(verdict, &c.verdict)) {
		char path[256];

		jr_path_key(path, sizeof(path), where, "verdict");
		jr_bad(rd, path, "unknown verdict '%s'", verdict);
		goto out_free;
	}
	result_add_comparison(r, &c);
	ret = 0;
out_free:
	free(c.baseline);
	free(c.candidate);
	free(c.metric);
	free(verdict);
	return ret;
}

/* The model named by obj[key] ("O(n log n)"). */
static int model_member(struct reader *rd, json_t *obj, const char *where,
			const char *key, enum complexity *out)
{
	char path[256];
	json_t *v;

	if (jr_member(rd, obj, where, key, JSON_STRING, REQUIRED, &v))
		return -1;
	for (int c = 0; c < O_COUNT; c++) {
		if (!strcmp(stats_complexity_name(c), json_string_value(v))) {
			*out = c;
			return 0;
		}
	}
	jr_path_key(path, sizeof(path), where, key);
	return jr_bad(rd, path, "unknown model '%s'", json_string_value(v));
}

static int read_fit_numbers(struct reader *rd, json_t *o, const char *where,
			    struct fit *f)
{
	return num_member(rd, o, where, "coefficient", 0, &f->coef) ||
	       num_member(rd, o, where, "intercept", 0, &f->intercept) ||
	       num_member(rd, o, where, "r2", 0, &f->r2) ? -1 : 0;
}

static int read_fit(struct reader *rd, json_t *o, const char *where,
		    struct result *r)
{
	struct complexity_fit f;
	char path[256], elem[300];
	json_t *fits, *x;
	size_t i;
	int ret = -1;

	memset(&f, 0, sizeof(f));
	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    str_member(rd, o, where, "name", REQUIRED, &f.name) ||
	    str_member(rd, o, where, "parameter", REQUIRED, &f.parameter) ||
	    str_member(rd, o, where, "metric", REQUIRED, &f.metric) ||
	    model_member(rd, o, where, "best", &f.best.model) ||
	    read_fit_numbers(rd, o, where, &f.best) ||
	    jr_member(rd, o, where, "fits", JSON_ARRAY, 0, &fits))
		goto out_free;
	for (int c = 0; c < O_COUNT; c++)
		f.all[c].model = c;
	jr_path_key(path, sizeof(path), where, "fits");
	json_array_foreach(fits, i, x) {
		enum complexity c = O_1;

		jr_path_index(elem, sizeof(elem), path, i);
		if (jr_check(rd, x, elem, JSON_OBJECT) ||
		    model_member(rd, x, elem, "model", &c) ||
		    read_fit_numbers(rd, x, elem, &f.all[c]))
			goto out_free;
	}
	result_add_fit(r, &f);
	ret = 0;
out_free:
	free(f.name);
	free(f.parameter);
	free(f.metric);
	return ret;
}

/* Each element of root[key] (an array) through fn. */
static int read_list(struct reader *rd, json_t *root, const char *key,
		     int flags, struct result *r,
		     int (*fn)(struct reader *, json_t *, const char *,
			       struct result *))
{
	char path[256];
	json_t *list, *x;
	size_t i;

	if (jr_member(rd, root, "", key, JSON_ARRAY, flags, &list))
		return -1;
	json_array_foreach(list, i, x) {
		jr_path_index(path, sizeof(path), key, i);
		if (fn(rd, x, path, r))
			return -1;
	}
	return 0;
}

/*
 * Summarize with the file's settings "seed" and "bootstrap_resamples"
 * (the names `run` records), so that its intervals come back identical.
 */
int jr_summarize(struct reader *rd, struct result *r)
{
	if (rd->raw)
		return 0;
	unsigned long long seed = RESULT_READ_SEED;
	size_t resamples = RESULT_READ_RESAMPLES;

	for (size_t i = 0; i < r->nsettings; i++) {
		const struct setting *s = &r->settings[i];
		bool is_seed = !strcmp(s->key, "seed");
		/* Resamples beyond a million would only make reading the
		 * file hang (B x n draws per metric). */
		double max = is_seed ? 18446744073709551615.0 :
			     RESULT_READ_MAX_RESAMPLES + 1.0;
		char path[256];

		if (s->str ||
		    (!is_seed && strcmp(s->key, "bootstrap_resamples")))
			continue;
		jr_path_key(path, sizeof(path), "settings", s->key);
		/* max rounds up to 2^64 (or is far beyond any real count):
		 * below it the conversions are exact. */
		if (!(s->num >= 0 && s->num == floor(s->num)))
			return jr_bad(rd, path,
				      "expected a non-negative integer");
		if (!(s->num < max))
			return jr_bad(rd, path, "%g is out of range (at most "
				      "%g)", s->num, max - 1);
		if (is_seed)
			seed = (unsigned long long)s->num;
		else
			resamples = (size_t)s->num;
	}
	result_summarize(r, seed, resamples);
	return 0;
}

static bool is_yardstick(json_t *root)
{
	return json_object_get(root, "schema") != NULL;
}

static int read_yardstick(struct reader *rd, json_t *root, struct result *r)
{
	const char *schema;
	json_t *v, *tool;

	if (jr_member(rd, root, "", "schema", JSON_STRING, REQUIRED, &v))
		return -1;
	schema = json_string_value(v);
	if (strcmp(schema, RESULT_SCHEMA))
		return jr_bad(rd, "schema", "unsupported schema '%s' "
			      "(expected '%s')", schema, RESULT_SCHEMA);
	if (jr_member(rd, root, "", "tool", JSON_OBJECT, 0, &tool) ||
	    (tool && str_member(rd, tool, "tool", "version", NULLABLE,
				&r->tool_version)) ||
	    str_member(rd, root, "", "created", NULLABLE, &r->created) ||
	    str_member(rd, root, "", "kind", 0, &r->kind) ||
	    read_machine(rd, root, &r->machine) ||
	    read_git(rd, root, &r->git) ||
	    read_settings(rd, root, r) ||
	    read_list(rd, root, "benchmarks", REQUIRED, r, read_benchmark) ||
	    read_list(rd, root, "comparisons", 0, r, read_comparison) ||
	    read_list(rd, root, "complexity", 0, r, read_fit))
		return -1;
	return jr_summarize(rd, r);
}

/*
 * The formats the reader knows, each recognized by its top-level keys and
 * tried in this order: yardstick's "schema" first, so that our own files
 * never pass for another tool's whatever else they hold.
 */
static const struct json_format {
	const char *name;
	bool (*detect)(json_t *root);
	int (*read)(struct reader *rd, json_t *root, struct result *r);
} formats[] = {
	{ "yardstick", is_yardstick, read_yardstick },
	{ "google-benchmark", import_gbench_detect, import_gbench_read },
	{ "hyperfine", import_hyperfine_detect, import_hyperfine_read },
};

static int read_root(struct reader *rd, json_t *root, struct result *r)
{
	if (jr_check(rd, root, "top level", JSON_OBJECT))
		return -1;
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (formats[i].detect(root))
			return formats[i].read(rd, root, r);
	return jr_bad(rd, "", "missing key 'schema' (not a yardstick result, "
		      "nor hyperfine's --export-json, nor Google Benchmark's "
		      "--benchmark_out)");
}

static bool is_blank(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", s[i]) || !s[i])
			return false;
	return true;
}

int result_read_json(struct result *r, const char *path, struct error *e)
{
	return result_read_json_raw(r, path, false, e);
}

/* Parse and read len bytes of data (rd names them). */
static int read_buffer(struct reader *rd, struct result *r, const char *data,
		       size_t len)
{
	json_error_t jerr;
	json_t *root;
	int ret;

	root = json_loadb(data, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
			  &jerr);
	if (!root) {
		error_set(rd->e, "cannot read %s: line %d:%d: %s", rd->name,
			  jerr.line, jerr.column,
			  is_blank(data, len) ? "empty file" : jerr.text);
		result_free(r);
		return -1;
	}
	ret = read_root(rd, root, r);
	json_decref(root);
	if (ret)
		result_free(r);
	return ret;
}

int result_read_json_raw(struct result *r, const char *path, bool raw,
			 struct error *e)
{
	char *name = xasprintf("'%s'", path);
	struct reader rd = { .name = name, .e = e, .raw = raw };
	char *data = NULL;
	size_t len;
	int ret = -1;

	result_init(r, NULL);
	if (file_read_all(path, &data, &len, e))
		result_free(r);
	else
		ret = read_buffer(&rd, r, data, len);
	free(data);
	free(name);
	return ret;
}

int result_read_json_mem(struct result *r, const char *name,
			 const char *data, size_t len, struct error *e)
{
	struct reader rd = { .name = name, .e = e };

	result_init(r, NULL);
	return read_buffer(&rd, r, data, len);
}
