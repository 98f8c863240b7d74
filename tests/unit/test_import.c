/*
 * Unit tests of the imports of other tools' JSON (import_hyperfine.c,
 * import_gbench.c, through result_read_json) and of the Bencher Metric
 * Format writer (bmf.c).
 *
 * The per-run values are checked bit for bit against the files as
 * jansson reads them on their own: real exports of the installed
 * hyperfine 1.15 and Google Benchmark 1.7.1 (tests/data/hyperfine-
 * sleep.json, hyperfine-params.json, gbench-real.json, gbench-
 * aggregates-only.json), and hand-written files in the same formats
 * whose numbers were chosen so that the expected seconds are known
 * exactly (1500 ns is 1.5e-6 s) and whose aggregates are deliberately
 * wrong, so that reading them would show.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/result.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "testfiles.h"

/* Meson passes the absolute path; by hand, run from the top directory. */
#ifndef TESTDATA_DIR
#define TESTDATA_DIR "tests/data"
#endif

static char tmpdir[] = "/tmp/ys-test-import-XXXXXX";

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* The file as jansson reads it, without our reader. */
static json_t *load(const char *path)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);

	if (!root)
		fail_msg("%s: %s", path, jerr.text);
	return root;
}

static void read_ok(struct result *r, const char *path)
{
	struct error e = { .msg = "" };

	if (result_read_json(r, path, &e))
		fail_msg("%s", e.msg);
}

static const char *setting_str(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return r->settings[i].str;
	return NULL;
}

static const struct setting *setting(const struct result *r,
				     const char *key)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, key))
			return &r->settings[i];
	return NULL;
}

static const char *param(const struct benchmark *b, const char *name)
{
	for (size_t i = 0; i < b->nparams; i++)
		if (!strcmp(b->params[i].name, name))
			return b->params[i].value;
	return NULL;
}

static bool has_warning(const struct benchmark *b, const char *part)
{
	for (size_t i = 0; i < b->nwarnings; i++)
		if (strstr(b->warnings[i], part))
			return true;
	return false;
}

static struct metric *metric(const struct benchmark *b, const char *name)
{
	struct metric *m = benchmark_find_metric(b, name);

	if (!m)
		fail_msg("no metric '%s' in '%s'", name, b->name);
	return m;
}

/* Every value of m is the number at the same index of arr, bit for bit
 * (a JSON null: NaN), after division by div. */
static void expect_values(const struct metric *m, json_t *arr, double div)
{
	json_t *x;
	size_t i;

	assert_int_equal(m->n, json_array_size(arr));
	json_array_foreach(arr, i, x) {
		double want = json_is_null(x) ? NAN :
			      json_number_value(x) / div;

		if (!same_double(m->values[i], want) &&
		    !(isnan(want) && isnan(m->values[i])))
			fail_msg("%s[%zu]: %.17g, wanted %.17g", m->name, i,
				 m->values[i], want);
	}
}

/* Benchmarks, argv, per-run times and exit codes of a hyperfine export
 * against the file itself. */
static void expect_hyperfine(const struct result *r, json_t *root)
{
	json_t *results = json_object_get(root, "results"), *o;
	size_t i;

	assert_int_equal(r->nbenchmarks, json_array_size(results));
	json_array_foreach(results, i, o) {
		const struct benchmark *b = &r->benchmarks[i];
		json_t *codes = json_object_get(o, "exit_codes");

		assert_string_equal(b->name, json_string_value(
			json_object_get(o, "command")));
		expect_values(metric(b, "wall_time"),
			      json_object_get(o, "times"), 1);
		assert_string_equal(metric(b, "wall_time")->unit, "s");
		assert_int_equal(b->nexit, json_array_size(codes));
		for (size_t k = 0; k < b->nexit; k++)
			assert_int_equal(b->exit_codes[k], json_integer_value(
				json_array_get(codes, k)));
	}
}

static void test_hyperfine_real(void **state)
{
	const char *path = TESTDATA_DIR "/hyperfine-sleep.json";
	json_t *root = load(path);
	struct result r;
	const struct benchmark *b;

	read_ok(&r, path);
	expect_hyperfine(&r, root);
	b = &r.benchmarks[0];
	assert_string_equal(b->name, "sleep 0.01");
	assert_int_equal(b->argc, 2);
	assert_string_equal(b->command[0], "sleep");
	assert_string_equal(b->command[1], "0.01");
	assert_null(b->command[2]);
	assert_int_equal(b->nparams, 0);
	/* user/system are only means in the file: not made into runs. */
	assert_int_equal(b->nmetrics, 1);
	assert_null(benchmark_find_metric(b, "user_time"));
	assert_null(benchmark_find_metric(b, "system_time"));
	assert_true(has_warning(b, "user/system time: hyperfine exports only "
				"their means"));
	assert_string_equal(r.benchmarks[1].command[1], "0.02");
	assert_string_equal(setting_str(&r, "imported_from"), "hyperfine");
	assert_string_equal(r.kind, "run");
	assert_null(r.tool_version);
	assert_null(r.created);
	/* Recomputed; for five runs the middle one, as hyperfine has it. */
	assert_true(metric_has_summary(metric(b, "wall_time")));
	assert_true(metric(b, "wall_time")->summary.median ==
		    json_number_value(json_object_get(json_array_get(
			    json_object_get(root, "results"), 0), "median")));
	json_decref(root);
	result_free(&r);
}

/* hyperfine -N --runs 3 -P n 1 2 'sleep 0.0{n}' --export-json */
static void test_hyperfine_parameters(void **state)
{
	const char *path = TESTDATA_DIR "/hyperfine-params.json";
	json_t *root = load(path);
	struct result r;

	read_ok(&r, path);
	expect_hyperfine(&r, root);
	assert_int_equal(r.nbenchmarks, 2);
	assert_string_equal(r.benchmarks[0].name, "sleep 0.01");
	assert_string_equal(r.benchmarks[1].name, "sleep 0.02");
	for (size_t i = 0; i < 2; i++) {
		const struct benchmark *b = &r.benchmarks[i];

		assert_int_equal(b->nparams, 1);
		assert_string_equal(param(b, "n"), i ? "2" : "1");
		assert_int_equal(metric(b, "wall_time")->n, 3);
	}
	json_decref(root);
	result_free(&r);
}

/* The newer format's corners: memory_usage_byte, a null exit code (a
 * signal), a null time, stddev null; aggregates that are all wrong. */
static void test_hyperfine_memory(void **state)
{
	const char *path = TESTDATA_DIR "/hyperfine-memory.json";
	json_t *root = load(path);
	struct result r;
	const struct benchmark *b;
	const struct metric *m;

	read_ok(&r, path);
	b = &r.benchmarks[0];
	assert_string_equal(b->name, "./alloc --size '64 MiB'");
	assert_int_equal(b->argc, 3);
	assert_string_equal(b->command[2], "64 MiB");
	assert_string_equal(param(b, "size"), "64 MiB");
	assert_string_equal(param(b, "mode"), "fast");
	m = metric(b, "peak_rss");
	assert_string_equal(m->unit, "bytes");
	expect_values(m, json_object_get(json_array_get(json_object_get(
		root, "results"), 0), "memory_usage_byte"), 1);
	m = metric(b, "wall_time");
	assert_true(isnan(m->values[2]));
	/* Not the file's 99: the two measured runs. */
	assert_int_equal(m->summary.n, 2);
	assert_true(m->summary.mean == (0.125 + 0.25) / 2);
	assert_true(m->summary.max == 0.25);
	assert_int_equal(b->nexit, 3);
	assert_int_equal(b->exit_codes[0], 0);
	assert_int_equal(b->exit_codes[1], -1);
	assert_int_equal(b->exit_codes[2], 1);
	assert_true(has_warning(b, "1 of 3 runs have no exit code"));
	assert_true(has_warning(b, "RUSAGE_CHILDREN"));
	/* A command that does not split stays one word. */
	b = &r.benchmarks[1];
	assert_int_equal(b->argc, 1);
	assert_string_equal(b->command[0], "echo 'unterminated");
	assert_true(metric(b, "peak_rss")->values[0] == 1048576);
	json_decref(root);
	result_free(&r);
}

static void test_gbench_hand_written(void **state)
{
	struct result r;
	const struct benchmark *b;
	const struct metric *m;
	const struct setting *s;

	read_ok(&r, TESTDATA_DIR "/gbench-repetitions.json");
	assert_int_equal(r.nbenchmarks, 2);
	b = &r.benchmarks[0];
	assert_string_equal(b->name, "BM_sort/1024");
	assert_int_equal(b->argc, 0);
	assert_int_equal(b->nexit, 0);
	assert_int_equal(b->nmetrics, 4);
	m = metric(b, "wall_time");
	assert_string_equal(m->unit, "s");
	assert_int_equal(m->n, 3);
	assert_true(m->values[0] == 1.5e-6);
	assert_true(m->values[1] == 1.6e-6);
	assert_true(m->values[2] == 1.55e-6);
	/* Recomputed from the three repetitions, not the file's 9999 ns. */
	assert_true(m->summary.median == 1.55e-6);
	assert_true(m->summary.max == 1.6e-6);
	m = metric(b, "cpu_time");
	assert_string_equal(m->unit, "s");
	assert_true(m->values[0] == 1.49e-6);
	assert_true(m->values[1] == 1.59e-6);
	assert_true(m->values[2] == 1.54e-6);
	m = metric(b, "bytes_per_second");
	assert_string_equal(m->unit, "bytes/s");
	assert_true(m->values[1] == 2.56e9);
	m = metric(b, "items");
	assert_string_equal(m->unit, "count");
	assert_int_equal(m->n, 3);
	assert_true(m->values[0] == 1024 && m->values[2] == 1024);
	assert_null(benchmark_find_metric(b, "iterations"));

	b = &r.benchmarks[1];
	assert_string_equal(b->name, "BM_hash");
	assert_int_equal(b->nmetrics, 3);	/* "label" is no number */
	m = metric(b, "wall_time");
	assert_true(m->values[0] == 2.5e-6);
	assert_true(m->values[1] == 2.25e-6);
	assert_true(m->values[2] == 2.75e-6);
	assert_true(m->summary.median == 2.5e-6);
	assert_true(metric(b, "cpu_time")->values[0] == 2e-6);
	m = metric(b, "collisions");
	assert_string_equal(m->unit, "count");
	assert_true(m->values[0] == 3 && m->values[1] == 4 &&
		    m->values[2] == 5);

	assert_string_equal(r.machine.hostname, "bench-host");
	assert_int_equal(r.machine.cores, 8);
	assert_string_equal(r.machine.cpu, "3400 MHz");
	assert_string_equal(r.created, "2026-11-22T09:30:00Z");
	assert_null(r.tool_version);
	assert_string_equal(setting_str(&r, "imported_from"),
			    "google-benchmark");
	assert_string_equal(setting_str(&r, "executable"), "./bm_sort");
	assert_string_equal(setting_str(&r, "library_build_type"), "release");
	s = setting(&r, "cpu_scaling_enabled");
	assert_non_null(s);
	assert_null(s->str);
	assert_true(s->num == 0);
	result_free(&r);
}

/* A file of the installed Google Benchmark: every repetition's times, in
 * its own unit, against the file. */
static void test_gbench_real(void **state)
{
	const char *path = TESTDATA_DIR "/gbench-real.json";
	json_t *root = load(path), *o;
	struct result r;
	size_t i, reps = 0;

	read_ok(&r, path);
	assert_int_equal(r.nbenchmarks, 3);
	json_array_foreach(json_object_get(root, "benchmarks"), i, o) {
		const char *unit = json_string_value(json_object_get(
			o, "time_unit"));
		double div = !strcmp(unit, "ns") ? 1e9 : 1e6;
		const struct benchmark *b;
		long long rep;

		if (strcmp(json_string_value(json_object_get(o, "run_type")),
			   "iteration"))
			continue;
		reps++;
		b = result_find_benchmark(&r, json_string_value(
			json_object_get(o, "run_name")));
		assert_non_null(b);
		rep = json_integer_value(json_object_get(o,
							 "repetition_index"));
		assert_true(same_double(metric(b, "wall_time")->values[rep],
			json_number_value(json_object_get(o, "real_time")) /
			div));
		assert_true(same_double(metric(b, "cpu_time")->values[rep],
			json_number_value(json_object_get(o, "cpu_time")) /
			div));
		if (json_object_get(o, "items"))
			assert_true(metric(b, "items")->values[rep] ==
				    json_number_value(
					    json_object_get(o, "items")));
	}
	assert_int_equal(reps, 9);
	for (i = 0; i < r.nbenchmarks; i++)
		assert_int_equal(metric(&r.benchmarks[i], "wall_time")->n, 3);
	assert_string_equal(r.machine.hostname, json_string_value(
		json_object_get(json_object_get(root, "context"),
				"host_name")));
	assert_non_null(r.created);
	json_decref(root);
	result_free(&r);
}

static void expect_bad(const char *text, const char *where)
{
	struct result r;
	struct error e = { .msg = "" };
	char *path = tmp_path("bad.json"), *prefix;

	put(path, text);
	assert_int_equal(result_read_json(&r, path, &e), -1);
	prefix = xasprintf("cannot read '%s': ", path);
	if (strncmp(e.msg, prefix, strlen(prefix)) || !strstr(e.msg, where))
		fail_msg("input:\n%s\nmessage: %s\nwanted: %s", text, e.msg,
			 where);
	assert_int_equal(r.nbenchmarks, 0);
	result_free(&r);
	free(prefix);
	free(path);
}

static void test_gbench_aggregates_only(void **state)
{
	struct result r;
	struct error e = { .msg = "" };
	const char *path = TESTDATA_DIR "/gbench-aggregates-only.json";

	assert_int_equal(result_read_json(&r, path, &e), -1);
	assert_non_null(strstr(e.msg, "gbench-aggregates-only.json': "
			       "benchmarks[0]: 'BM_ms' has only aggregates"));
	assert_non_null(strstr(e.msg,
			       "--benchmark_report_aggregates_only=false"));
	assert_non_null(strstr(e.msg, "--benchmark_display_aggregates_only"));
	result_free(&r);
}

/* The context and one entry of a Google Benchmark file. */
#define GB_CTX "\"context\": {\"host_name\": \"h\"}"
#define GB_ENTRY(rep, extra)						\
	"{\"name\": \"BM_x\", \"run_name\": \"BM_x\", "			\
	"\"run_type\": \"iteration\", \"repetition_index\": " #rep ", "	\
	"\"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"ms\"" extra "}"

/* A failed repetition measures nothing; a counter reported late is NaN
 * before, so that every metric stays in repetition order. */
static void test_gbench_skipped_and_late_counters(void **state)
{
	char *path = tmp_path("gb.json");
	struct result r;
	const struct benchmark *b;
	const struct metric *m;

	put(path, "{" GB_CTX ", \"benchmarks\": ["
	     GB_ENTRY(0, "")
	     ", " GB_ENTRY(1, ", \"error_occurred\": true, "
			   "\"error_message\": \"no memory\"")
	     ", " GB_ENTRY(2, ", \"late\": 7")
	     ", " GB_ENTRY(3, ", \"skipped\": true")
	     "]}");
	read_ok(&r, path);
	b = &r.benchmarks[0];
	m = metric(b, "wall_time");
	assert_int_equal(m->n, 4);
	assert_true(m->values[0] == 1e-3);
	assert_true(isnan(m->values[1]));
	assert_true(m->values[2] == 1e-3);
	assert_true(isnan(m->values[3]));
	assert_true(isnan(metric(b, "cpu_time")->values[1]));
	m = metric(b, "late");
	assert_int_equal(m->n, 4);
	assert_true(isnan(m->values[0]) && isnan(m->values[1]));
	assert_true(m->values[2] == 7 && isnan(m->values[3]));
	assert_true(has_warning(b, "repetition 2: error: no memory"));
	assert_true(has_warning(b, "repetition 4: skipped"));
	assert_int_equal(metric(b, "wall_time")->summary.n, 2);
	result_free(&r);
	free(path);
}

static void expect_date(const char *date, const char *created)
{
	char *path = tmp_path("date.json"), *text;
	struct result r;

	text = xasprintf("{\"context\": {\"date\": \"%s\"}, \"benchmarks\": "
			 "[]}", date);
	put(path, text);
	read_ok(&r, path);
	if (created) {
		assert_non_null(r.created);
		assert_string_equal(r.created, created);
		assert_null(setting_str(&r, "date"));
	} else {
		assert_null(r.created);
		assert_string_equal(setting_str(&r, "date"), date);
	}
	result_free(&r);
	free(text);
	free(path);
}

static void test_gbench_dates(void **state)
{
	expect_date("2026-11-22T10:30:00+01:00", "2026-11-22T09:30:00Z");
	expect_date("2026-01-01T00:30:00-02:30", "2026-01-01T03:00:00Z");
	expect_date("2026-01-01T00:30:00+02:00", "2025-12-31T22:30:00Z");
	expect_date("2026-01-01T00:30:00Z", "2026-01-01T00:30:00Z");
	/* Older versions: local time of an unknown zone. */
	expect_date("2019-05-03 11:49:04", NULL);
	expect_date("2026-13-01T00:00:00+00:00", NULL);
	expect_date("2026-01-01T00:00:00+01:00 junk", NULL);
}

static void test_hyperfine_malformed(void **state)
{
	expect_bad("{\"results\": {}}", ": results: expected an array");
	expect_bad("{\"results\": [1]}", ": results[0]: expected an object");
	expect_bad("{\"results\": [{\"times\": [1]}]}",
		   ": results[0]: missing key 'command'");
	expect_bad("{\"results\": [{\"command\": 1, \"times\": [1]}]}",
		   ": results[0].command: expected a string");
	expect_bad("{\"results\": [{\"command\": \"a\"}]}",
		   ": results[0]: missing key 'times'");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": 0.5}]}",
		   ": results[0].times: expected an array");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1]}, "
		   "{\"command\": \"b\", \"times\": [1]}, "
		   "{\"command\": \"c\", \"times\": [1, 2, 3, 4, \"5\"]}]}",
		   ": results[2].times[4]: expected a number");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1, 2], "
		   "\"exit_codes\": [0]}]}",
		   ": results[0].exit_codes: 1 exit codes where 'times' has 2");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"exit_codes\": [\"0\"]}]}",
		   ": results[0].exit_codes[0]: expected an integer");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"exit_codes\": [4294967296]}]}",
		   ": results[0].exit_codes[0]: out of range");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"memory_usage_byte\": [true]}]}",
		   ": results[0].memory_usage_byte[0]: expected a number");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"memory_usage_byte\": [1, 2]}]}",
		   ": results[0].memory_usage_byte: 2 values where 'times' "
		   "has 1");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"parameters\": {\"n\": 1}}]}",
		   ": results[0].parameters.n: expected a string");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"parameters\": []}]}",
		   ": results[0].parameters: expected an object");
}

static void test_gbench_malformed(void **state)
{
	expect_bad("{\"context\": [], \"benchmarks\": []}",
		   ": context: expected an object");
	expect_bad("{" GB_CTX ", \"benchmarks\": {}}",
		   ": benchmarks: expected an array");
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0, "")
		   ", 1]}", ": benchmarks[1]: expected an object");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\"}]}",
		   ": benchmarks[0]: missing key 'run_type'");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"warmup\"}]}",
		   ": benchmarks[0].run_type: unknown run type 'warmup'");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"run_type\": "
		   "\"iteration\"}]}", ": benchmarks[0]: missing key 'name'");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"iteration\", \"real_time\": 1, "
		   "\"cpu_time\": 1, \"time_unit\": \"ps\"}]}",
		   ": benchmarks[0].time_unit: unknown time unit 'ps'");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"iteration\", \"real_time\": \"1\", "
		   "\"cpu_time\": 1, \"time_unit\": \"ns\"}]}",
		   ": benchmarks[0].real_time: expected a number");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"iteration\", \"real_time\": 1, "
		   "\"time_unit\": \"ns\"}]}",
		   ": benchmarks[0]: missing key 'cpu_time'");
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0, "") ", "
		   GB_ENTRY(1, ", \"error_occurred\": 1") "]}",
		   ": benchmarks[1].error_occurred: expected true or false");
	expect_bad("{\"context\": {\"num_cpus\": \"two\"}, \"benchmarks\": []}",
		   ": context.num_cpus: expected an integer");
	expect_bad("{\"context\": {\"num_cpus\": -2}, \"benchmarks\": []}",
		   ": context.num_cpus: -2 is out of range");
	expect_bad("{\"context\": {\"host_name\": 1}, \"benchmarks\": []}",
		   ": context.host_name: expected a string");
	expect_bad("{\"context\": {\"date\": 1}, \"benchmarks\": []}",
		   ": context.date: expected a string");
	/* One benchmark with repetitions, one reported only as
	 * aggregates (ReportAggregatesOnly() in its code). */
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0, "") ", "
		   "{\"name\": \"BM_y_mean\", \"run_name\": \"BM_y\", "
		   "\"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", "
		   "\"real_time\": 1, \"cpu_time\": 1, "
		   "\"time_unit\": \"ns\"}]}",
		   ": benchmarks[1]: 'BM_y' has only aggregates");
	/* Neither format: the message names all three. */
	expect_bad("{\"context\": {}}", ": missing key 'schema' (not a "
		   "yardstick result, nor hyperfine's --export-json, nor "
		   "Google Benchmark's --benchmark_out)");
}

/*
 * A user counter named wall_time is read as counter_wall_time, and the
 * counters after it still are: renaming the loop's key once made
 * json_object_foreach step from a string that is no key (SIGSEGV).
 */
static void test_gbench_counter_named_wall_time(void **state)
{
	char *path = tmp_path("gb-wall.json");
	struct result r;
	const struct benchmark *b;

	put(path, "{" GB_CTX ", \"benchmarks\": ["
	     GB_ENTRY(0, ", \"aa\": 1, \"wall_time\": 5, \"zz\": 2, "
		      "\"zzz\": 3") ", "
	     GB_ENTRY(1, ", \"wall_time\": 6, \"aa\": 1, \"zz\": 4, "
		      "\"zzz\": 3") "]}");
	read_ok(&r, path);
	b = &r.benchmarks[0];
	assert_int_equal(metric(b, "wall_time")->n, 2);
	assert_true(metric(b, "wall_time")->values[0] == 1e-3);
	assert_true(metric(b, "counter_wall_time")->values[0] == 5);
	assert_true(metric(b, "counter_wall_time")->values[1] == 6);
	assert_string_equal(metric(b, "counter_wall_time")->unit, "count");
	assert_true(metric(b, "zz")->values[0] == 2);
	assert_true(metric(b, "zz")->values[1] == 4);
	assert_true(metric(b, "zzz")->values[1] == 3);
	result_free(&r);
	free(path);
	/* Renamed onto a counter of that name: one value twice. */
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0,
		   ", \"counter_wall_time\": 1, \"wall_time\": 5") "]}",
		   ": a second value of 'counter_wall_time' in one "
		   "repetition");
}

/* Two families registered under one name are two benchmarks, not six
 * repetitions of one; names made unique. */
static void test_gbench_same_name_twice(void **state)
{
	char *path = tmp_path("gb-twice.json");
	struct result r;

#define GB_FAM(fam, rep, t)						\
	"{\"name\": \"BM_x\", \"run_name\": \"BM_x\", "			\
	"\"family_index\": " #fam ", \"per_family_instance_index\": 0, "	\
	"\"run_type\": \"iteration\", \"repetition_index\": " #rep ", "	\
	"\"real_time\": " #t ", \"cpu_time\": 1, \"time_unit\": \"s\"}"
	put(path, "{" GB_CTX ", \"benchmarks\": ["
	     GB_FAM(0, 0, 1) ", " GB_FAM(0, 1, 2) ", " GB_FAM(1, 0, 10) ", "
	     GB_FAM(1, 1, 20) ", {\"name\": \"BM_x_mean\", \"run_name\": "
	     "\"BM_x\", \"family_index\": 1, \"per_family_instance_index\": 0, "
	     "\"run_type\": \"aggregate\", \"aggregate_name\": \"mean\", "
	     "\"real_time\": 1, \"cpu_time\": 1, \"time_unit\": \"s\"}]}");
	read_ok(&r, path);
	assert_int_equal(r.nbenchmarks, 2);
	assert_string_equal(r.benchmarks[0].name, "BM_x");
	assert_string_equal(r.benchmarks[1].name, "BM_x #2");
	assert_int_equal(metric(&r.benchmarks[0], "wall_time")->n, 2);
	assert_true(metric(&r.benchmarks[0], "wall_time")->values[1] == 2);
	assert_true(metric(&r.benchmarks[1], "wall_time")->values[0] == 10);
	result_free(&r);
	free(path);
	/* An aggregate of a family that has no repetitions still fails. */
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_FAM(0, 0, 1) ", "
		   "{\"name\": \"BM_x_mean\", \"run_name\": \"BM_x\", "
		   "\"family_index\": 1, \"per_family_instance_index\": 0, "
		   "\"run_type\": \"aggregate\", \"real_time\": 1, "
		   "\"cpu_time\": 1, \"time_unit\": \"s\"}]}",
		   ": benchmarks[1]: 'BM_x' has only aggregates");
#undef GB_FAM
}

/* The same command twice in hyperfine's file: "a" and "a #2". */
static void test_hyperfine_same_command_twice(void **state)
{
	char *path = tmp_path("hf-twice.json");
	struct result r;

	put(path, "{\"results\": [{\"command\": \"a\", \"times\": [1]}, "
	     "{\"command\": \"a #2\", \"times\": [2]}, "
	     "{\"command\": \"a\", \"times\": [3]}, "
	     "{\"command\": \"f\", \"times\": [4], \"parameters\": "
	     "{\"n\": \"1\"}}, "
	     "{\"command\": \"f\", \"times\": [5], \"parameters\": "
	     "{\"n\": \"2\"}}]}");
	read_ok(&r, path);
	assert_int_equal(r.nbenchmarks, 5);
	assert_string_equal(r.benchmarks[0].name, "a");
	assert_string_equal(r.benchmarks[1].name, "a #2");
	assert_string_equal(r.benchmarks[2].name, "a #3");
	assert_true(metric(&r.benchmarks[2], "wall_time")->values[0] == 3);
	assert_string_equal(r.benchmarks[3].name, "f [n=1]");
	assert_string_equal(r.benchmarks[4].name, "f [n=2]");
	result_free(&r);
	free(path);
}

/*
 * Values no metric can have are refused in every format, at their place:
 * negative ones (a time, a size or a count), beyond 1e30.
 */
static void test_impossible_values(void **state)
{
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1, -2]}]}",
		   ": results[0].times[1]: -2 is negative");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"memory_usage_byte\": [-4096]}]}",
		   ": results[0].memory_usage_byte[0]: -4096 is negative");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1e300]}]}",
		   ": results[0].times[0]: 1e+300 is out of range");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"iteration\", \"real_time\": -1500, "
		   "\"cpu_time\": 1, \"time_unit\": \"ns\"}]}",
		   ": benchmarks[0].real_time: -1500 is negative");
	expect_bad("{" GB_CTX ", \"benchmarks\": [{\"name\": \"x\", "
		   "\"run_type\": \"iteration\", \"real_time\": 1, "
		   "\"cpu_time\": -0.5, \"time_unit\": \"ns\"}]}",
		   ": benchmarks[0].cpu_time: -0.5 is negative");
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0,
		   ", \"items\": -3") "]}", ": benchmarks[0].items: -3 is "
		   "negative");
	expect_bad("{" GB_CTX ", \"benchmarks\": [" GB_ENTRY(0,
		   ", \"items\": 1e31") "]}", ": benchmarks[0].items: 1e+31 "
		   "is out of range");
	expect_bad("{\"schema\": \"yardstick/result/v1\", \"benchmarks\": "
		   "[{\"name\": \"x\", \"metrics\": {\"wall_time\": {\"unit\": "
		   "\"s\", \"values\": [1, null, -2]}}}]}",
		   ": benchmarks[0].metrics.wall_time.values[2]: -2 is "
		   "negative");
	expect_bad("{\"schema\": \"yardstick/result/v1\", \"benchmarks\": "
		   "[{\"name\": \"x\", \"metrics\": {\"peak_rss\": {\"unit\": "
		   "\"bytes\", \"values\": [1e308]}}}]}",
		   ": benchmarks[0].metrics.peak_rss.values[0]: 1e+308 is out "
		   "of range");
	/* -0 is 0; null is a run that measured nothing; both read. */
	{
		char *path = tmp_path("zero.json");
		struct result r;

		put(path, "{\"schema\": \"yardstick/result/v1\", "
		     "\"benchmarks\": [{\"name\": \"x\", \"metrics\": "
		     "{\"minor_faults\": {\"unit\": \"count\", \"values\": "
		     "[-0.0, 0, null, 1e30]}}}]}");
		read_ok(&r, path);
		assert_int_equal(metric(&r.benchmarks[0], "minor_faults")->n,
				 4);
		result_free(&r);
		free(path);
	}
}

/*
 * An optional key of the wrong type is an error, not a key to skip, in
 * every format: the helpers that json_internal.h shares once let such a
 * file read "successfully" with the message filled in.
 */
static void test_optional_key_of_wrong_type(void **state)
{
	static const char *const cases[][2] = {
		{ "\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
		  "\"exit_codes\": 5}]", ": benchmarks[0].exit_codes: expected "
		  "an array" },
		{ "\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
		  "\"command\": 5}]", ": benchmarks[0].command: expected an "
		  "array" },
		{ "\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
		  "\"timeouts\": \"a\"}]", ": benchmarks[0].timeouts: expected "
		  "an integer" },
		{ "\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
		  "\"warnings\": {}}]", ": benchmarks[0].warnings: expected an "
		  "array" },
		{ "\"benchmarks\": [], \"machine\": 5",
		  ": machine: expected an object" },
		{ "\"benchmarks\": [], \"git\": []",
		  ": git: expected an object" },
		{ "\"benchmarks\": [], \"settings\": 1",
		  ": settings: expected an object" },
		{ "\"benchmarks\": [], \"comparisons\": [{\"baseline\": "
		  "\"a\", \"candidate\": \"b\", \"metric\": \"w\", "
		  "\"verdict\": \"faster\", \"ratio_ci\": 1}]",
		  ": comparisons[0].ratio_ci: expected an array" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *text = xasprintf("{\"schema\": \"yardstick/result/v1\", "
				       "%s}", cases[i][0]);

		expect_bad(text, cases[i][1]);
		free(text);
	}
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"exit_codes\": 0}]}",
		   ": results[0].exit_codes: expected an array");
	expect_bad("{\"results\": [{\"command\": \"a\", \"times\": [1], "
		   "\"memory_usage_byte\": 0}]}",
		   ": results[0].memory_usage_byte: expected an array");
}

/* yardstick's own "schema" wins over the keys of the other formats. */
static void test_own_format_first(void **state)
{
	char *path = tmp_path("own.json");
	struct result r;

	put(path, "{\"schema\": \"yardstick/result/v1\", \"context\": {}, "
	     "\"results\": [1], \"benchmarks\": [{\"name\": \"a\", "
	     "\"metrics\": {\"wall_time\": {\"unit\": \"s\", "
	     "\"values\": [1]}}}]}");
	read_ok(&r, path);
	assert_int_equal(r.nbenchmarks, 1);
	assert_null(setting_str(&r, "imported_from"));
	result_free(&r);
	free(path);
}

/* An import written as yardstick JSON reads back the same. */
static void test_import_round_trip(void **state)
{
	char *path = tmp_path("converted.json");
	struct result a, b;
	struct error e;

	read_ok(&a, TESTDATA_DIR "/hyperfine-memory.json");
	assert_int_equal(result_write_json(&a, path, &e), 0);
	read_ok(&b, path);
	assert_int_equal(b.nbenchmarks, a.nbenchmarks);
	for (size_t i = 0; i < a.nbenchmarks; i++) {
		const struct benchmark *x = &a.benchmarks[i];
		const struct benchmark *y = &b.benchmarks[i];

		assert_string_equal(x->name, y->name);
		assert_int_equal(x->nmetrics, y->nmetrics);
		assert_int_equal(x->nwarnings, y->nwarnings);
		for (size_t k = 0; k < x->nmetrics; k++) {
			assert_int_equal(x->metrics[k].n, y->metrics[k].n);
			for (size_t j = 0; j < x->metrics[k].n; j++)
				assert_true(same_double(x->metrics[k].values[j],
						y->metrics[k].values[j]) ||
					    (isnan(x->metrics[k].values[j]) &&
					     isnan(y->metrics[k].values[j])));
		}
	}
	assert_string_equal(setting_str(&b, "imported_from"), "hyperfine");
	result_free(&a);
	result_free(&b);
	free(path);
}

/* A summary by hand: only the writer is under test. */
static void set_median(struct metric *m, double median, double lo,
		       double hi)
{
	m->summary = (struct summary){ .n = m->n, .median = median,
				       .median_ci = { lo, hi } };
	m->summarized = m->n;
}

static struct metric *with_values(struct benchmark *b, const char *name,
				  const char *unit, double v0, double v1,
				  double v2)
{
	struct metric *m = benchmark_metric(b, name, unit);

	metric_push(m, v0);
	metric_push(m, v1);
	metric_push(m, v2);
	return m;
}

static void test_bmf(void **state)
{
	char *path = tmp_path("out.bmf.json"), *text;
	struct result r;
	struct error e;
	struct benchmark *b;

	result_init(&r, "run");
	b = result_add_benchmark(&r, "sort \"a\"", NULL);
	set_median(with_values(b, "wall_time", "s", 0.001, 0.002, 0.003),
		   0.002, 0.001, 0.003);
	set_median(with_values(b, "peak_rss", "bytes", 1024, 2048, 4096),
		   2048, NAN, NAN);
	/* Never summarized: left out. */
	with_values(b, "user_time", "s", 1, 2, 3);
	set_median(with_values(b, "cpu_time", "s", 1e-6, 1.5e-6, 2e-6),
		   1.5e-6, 1e-6, INFINITY);
	b = result_add_benchmark(&r, "get /", NULL);
	set_median(with_values(b, "wall_time", "s", 2, 2, 2), 2, 2, 2);
	set_median(with_values(b, "latency", "s", 4e-4, 5e-4, 6e-4), 5e-4,
		   4e-4, 6e-4);
	set_median(with_values(b, "throughput", "count", 900, 1000, 1100),
		   1000, 900, 1100);
	result_add_benchmark(&r, "nothing measured", NULL);
	/* a median of whole nanoseconds is whole in ns: 0.004005734 * 1e9
	 * is the double 4005734.0000000005 */
	b = result_add_benchmark(&r, "ns", NULL);
	set_median(with_values(b, "wall_time", "s", 0.004005734, 0.004005734,
			       0.004521520), 0.004005734, 0.003133529,
		   0.00452152);
	b = result_add_benchmark(&r, "bad \xff utf-8", NULL);
	set_median(with_values(b, "wall_time", "s", 1e-3, 1e-3, 1e-3), 1e-3,
		   1e-3, 1e-3);

	assert_int_equal(result_write_bmf(&r, path, &e), 0);
	text = slurp(path);
	assert_string_equal(text,
		"{\n"
		"  \"sort \\\"a\\\"\": {\n"
		"    \"latency\": {\n"
		"      \"value\": 2000000.0,\n"
		"      \"lower_value\": 1000000.0,\n"
		"      \"upper_value\": 3000000.0\n"
		"    },\n"
		"    \"peak_rss\": {\n"
		"      \"value\": 2048.0\n"
		"    },\n"
		"    \"cpu_time\": {\n"
		"      \"value\": 1.5e-06\n"
		"    }\n"
		"  },\n"
		"  \"get /\": {\n"
		"    \"latency\": {\n"
		"      \"value\": 500000.0,\n"
		"      \"lower_value\": 400000.0,\n"
		"      \"upper_value\": 600000.0\n"
		"    },\n"
		"    \"wall_time\": {\n"
		"      \"value\": 2.0,\n"
		"      \"lower_value\": 2.0,\n"
		"      \"upper_value\": 2.0\n"
		"    },\n"
		"    \"throughput\": {\n"
		"      \"value\": 1000.0,\n"
		"      \"lower_value\": 900.0,\n"
		"      \"upper_value\": 1100.0\n"
		"    }\n"
		"  },\n"
		"  \"ns\": {\n"
		"    \"latency\": {\n"
		"      \"value\": 4005734.0,\n"
		"      \"lower_value\": 3133529.0,\n"
		"      \"upper_value\": 4521520.0\n"
		"    }\n"
		"  },\n"
		"  \"bad \xef\xbf\xbd utf-8\": {\n"
		"    \"latency\": {\n"
		"      \"value\": 1000000.0,\n"
		"      \"lower_value\": 1000000.0,\n"
		"      \"upper_value\": 1000000.0\n"
		"    }\n"
		"  }\n"
		"}\n");
	free(text);

	/* Bencher tells benchmarks apart by name: two of one name fail,
	 * and leave the old file in place. */
	b = result_add_benchmark(&r, "get /", NULL);
	set_median(with_values(b, "wall_time", "s", 1, 1, 1), 1, 1, 1);
	assert_int_equal(result_write_bmf(&r, path, &e), -1);
	assert_string_equal(e.msg, "benchmark name 'get /' appears twice: "
			    "Bencher tells benchmarks apart by name");
	text = slurp(path);
	assert_non_null(strstr(text, "\"sort \\\"a\\\"\""));
	free(text);
	result_free(&r);

	/* Nothing summarized: an empty object. */
	result_init(&r, "run");
	assert_int_equal(result_write_bmf(&r, path, &e), 0);
	text = slurp(path);
	assert_string_equal(text, "{}\n");
	free(text);
	result_free(&r);
	free(path);
}

/* The BMF of an imported, summarized file: what `bencher run` gets. */
static void test_bmf_of_import(void **state)
{
	char *path = tmp_path("gb.bmf.json");
	struct result r;
	struct error e;
	json_t *root, *lat;

	read_ok(&r, TESTDATA_DIR "/gbench-repetitions.json");
	assert_int_equal(result_write_bmf(&r, path, &e), 0);
	root = load(path);
	lat = json_object_get(json_object_get(root, "BM_sort/1024"),
			      "latency");
	assert_non_null(lat);
	/* The median of 1500, 1600 and 1550 ns. */
	assert_true(json_real_value(json_object_get(lat, "value")) ==
		    1.55e-6 * 1e9);
	assert_non_null(json_object_get(json_object_get(root, "BM_hash"),
					"collisions"));
	json_decref(root);
	result_free(&r);
	free(path);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] != '.') {
			char *p = tmp_path(de->d_name);

			unlink(p);
			free(p);
		}
	}
	closedir(d);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hyperfine_real),
		cmocka_unit_test(test_hyperfine_parameters),
		cmocka_unit_test(test_hyperfine_memory),
		cmocka_unit_test(test_gbench_hand_written),
		cmocka_unit_test(test_gbench_real),
		cmocka_unit_test(test_gbench_aggregates_only),
		cmocka_unit_test(test_gbench_skipped_and_late_counters),
		cmocka_unit_test(test_gbench_dates),
		cmocka_unit_test(test_hyperfine_malformed),
		cmocka_unit_test(test_gbench_malformed),
		cmocka_unit_test(test_gbench_counter_named_wall_time),
		cmocka_unit_test(test_gbench_same_name_twice),
		cmocka_unit_test(test_hyperfine_same_command_twice),
		cmocka_unit_test(test_impossible_values),
		cmocka_unit_test(test_optional_key_of_wrong_type),
		cmocka_unit_test(test_own_format_first),
		cmocka_unit_test(test_import_round_trip),
		cmocka_unit_test(test_bmf),
		cmocka_unit_test(test_bmf_of_import),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
