/*
 * Import of hyperfine's --export-json, recognized by its top-level
 * "results" array:
 *
 *   {"results": [{"command": "sleep 0.1", "times": [...],
 *                 "exit_codes": [0, null, ...], "parameters": {"n": "1"},
 *                 "memory_usage_byte": [...], "mean": ..., "user": ...}]}
 *
 * Each entry becomes one benchmark named by "command" (made unique by
 * result_unique_names: a command given twice is "cmd" and "cmd #2"). That is the
 * command line, or the --command-name when one was given: hyperfine
 * exports no separate name, so the name is then split into the argv as
 * well. The command line is split by shell rules (hyperfine runs it
 * through a shell unless -N was given: the argv is then only what the
 * shell would have started first).
 *
 * Only per-run arrays are read: "times" (wall_time), "memory_usage_byte"
 * (peak_rss) and "exit_codes". hyperfine's mean, stddev, median, min and
 * max are ignored and recomputed like any summary; its "user" and
 * "system" are means with no per-run values, so they are left out with a
 * warning rather than made up.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "result/json_internal.h"
#include "result/metrics.h"
#include "result/result.h"
#include "util/strutil.h"

bool import_hyperfine_detect(json_t *root)
{
	return json_object_get(root, "results") != NULL;
}

/* argv of a command line split as a shell would; a line that does not
 * split (an unterminated quote) stays one word. Free with argv_free. */
static char **command_argv(const char *command)
{
	struct error e;
	char **argv;

	if (!split_words(command, &argv, NULL, &e))
		return argv;
	argv = xcalloc(2, sizeof(*argv));
	argv[0] = xstrdup(command);
	return argv;
}

/*
 * o[key], an array with one number per run (null: a run that measured
 * nothing), appended to metric name of b. *runs is the number of runs:
 * SIZE_MAX sets it from this array, else the array must have as many.
 * An absent key is an error only if flags has REQUIRED.
 */
static int read_runs(struct reader *rd, json_t *o, const char *where,
		     const char *key, int flags, struct benchmark *b,
		     const char *name, const char *unit, size_t *runs)
{
	char path[256], elem[300];
	struct metric *m;
	json_t *arr, *x;
	size_t i;

	if (jr_member(rd, o, where, key, JSON_ARRAY, flags, &arr))
		return -1;
	if (!arr)
		return 0;
	jr_path_key(path, sizeof(path), where, key);
	if (*runs == SIZE_MAX)
		*runs = json_array_size(arr);
	else if (json_array_size(arr) != *runs)
		return jr_bad(rd, path, "%zu values where 'times' has %zu",
			      json_array_size(arr), *runs);
	json_array_foreach(arr, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (!json_is_null(x) && jr_check(rd, x, elem, JSON_REAL))
			return -1;
		if (json_is_number(x) && !jr_value_ok(json_number_value(x)))
			return jr_bad_value(rd, elem, json_number_value(x));
	}
	m = benchmark_metric(b, name, unit);
	json_array_foreach(arr, i, x)
		metric_push(m, json_is_null(x) ? NAN : json_number_value(x));
	return 0;
}

/* Exit codes, null for a run killed by a signal (hyperfine does not say
 * which): that run gets -1, a failure whose cause is unknown. */
static int read_exit_codes(struct reader *rd, json_t *o, const char *where,
			   struct benchmark *b, size_t runs)
{
	char path[256], elem[300];
	size_t i, unknown = 0;
	json_t *arr, *x;

	if (jr_member(rd, o, where, "exit_codes", JSON_ARRAY, 0, &arr) ||
	    !arr)
		return arr ? -1 : 0;
	jr_path_key(path, sizeof(path), where, "exit_codes");
	if (json_array_size(arr) != runs)
		return jr_bad(rd, path, "%zu exit codes where 'times' has "
			      "%zu", json_array_size(arr), runs);
	json_array_foreach(arr, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (json_is_null(x)) {
			unknown++;
			continue;
		}
		if (jr_check(rd, x, elem, JSON_INTEGER))
			return -1;
		if (json_integer_value(x) < -0x7fffffffLL - 1 ||
		    json_integer_value(x) > 0x7fffffff)
			return jr_bad(rd, elem, "out of range");
	}
	json_array_foreach(arr, i, x)
		benchmark_push_exit(b, json_is_null(x) ? -1 :
				    (int)json_integer_value(x));
	if (unknown)
		benchmark_add_warning(b, "%zu of %zu runs have no exit code "
				      "(killed by a signal hyperfine does not "
				      "name): recorded as -1", unknown, runs);
	return 0;
}

static int read_parameters(struct reader *rd, json_t *o, const char *where,
			   struct benchmark *b)
{
	char path[256], ppath[300];
	const char *key;
	json_t *params, *v;

	if (jr_member(rd, o, where, "parameters", JSON_OBJECT, NULLABLE,
		      &params) || !params)
		return params ? -1 : 0;
	jr_path_key(path, sizeof(path), where, "parameters");
	json_object_foreach(params, key, v) {
		jr_path_key(ppath, sizeof(ppath), path, key);
		if (jr_check(rd, v, ppath, JSON_STRING))
			return -1;
		benchmark_add_param(b, key, json_string_value(v));
	}
	return 0;
}

static int read_entry(struct reader *rd, json_t *o, const char *where,
		      struct result *r)
{
	size_t runs = SIZE_MAX;
	struct benchmark *b;
	json_t *command;
	char **argv;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    jr_member(rd, o, where, "command", JSON_STRING, REQUIRED,
		      &command))
		return -1;
	argv = command_argv(json_string_value(command));
	b = result_add_benchmark(r, json_string_value(command), argv);
	argv_free(argv);
	if (read_parameters(rd, o, where, b) ||
	    read_runs(rd, o, where, "times", REQUIRED, b, METRIC_WALL_TIME, "s",
		      &runs) ||
	    read_runs(rd, o, where, "memory_usage_byte", 0, b, METRIC_PEAK_RSS,
		      "bytes", &runs) ||
	    read_exit_codes(rd, o, where, b, runs))
		return -1;
	if (json_object_get(o, "user") || json_object_get(o, "system"))
		benchmark_add_warning(b, "user/system time: hyperfine exports "
				      "only their means");
	if (json_object_get(o, "memory_usage_byte"))
		benchmark_add_warning(b, "peak_rss: hyperfine reads it with "
				      "getrusage(RUSAGE_CHILDREN), so a run's "
				      "value is the largest of every process "
				      "hyperfine started until then");
	return 0;
}

int import_hyperfine_read(struct reader *rd, json_t *root, struct result *r)
{
	char path[64];
	json_t *list, *x;
	size_t i;

	if (jr_member(rd, root, "", "results", JSON_ARRAY, REQUIRED, &list))
		return -1;
	json_array_foreach(list, i, x) {
		jr_path_index(path, sizeof(path), "results", i);
		if (read_entry(rd, x, path, r))
			return -1;
	}
	/* Two equal commands (or --command-name twice) are two
	 * benchmarks: "cmd" and "cmd #2". */
	result_unique_names(r);
	result_set_str(r, "imported_from", "hyperfine");
	return jr_summarize(rd, r);
}
