/*
 * Unit tests of src/result: the model, JSON written and read back bit for
 * bit, the JSON keys of the v1 contract, CSV and Markdown compared with
 * text written out by hand, the reader's messages on malformed input, and
 * atomic writes that leave nothing behind when they fail.
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
#include <time.h>
#include <unistd.h>

#include "result/openmetrics.h"
#include "result/result.h"
#include "result/warnings.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "util/term.h"
#include "testfiles.h"

static char tmpdir[] = "/tmp/ys-test-result-XXXXXX";

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/*
 * Two benchmarks whose names and strings carry quotes, commas, pipes,
 * <tags> and non-ASCII text, and whose values are the doubles that break
 * naive printing: 2/3, the smallest denormal, -0, 0.1 + 0.2, 2^53 + 2.
 */
static void build(struct result *r)
{
	char *argv1[] = { "./sort", "--n=10", "a b", NULL };
	char *argv2[] = { "/bin/b", "ü", NULL };
	struct benchmark *b;
	struct metric *m;
	struct comparison c = {
		.baseline = "sort \"a\", x", .candidate = "b|<tag> ünï 🚀",
		.metric = "wall_time", .ratio = 0.66,
		.ratio_ci = { 0.65, 0.67 }, .p_value = 0.0001,
		.verdict = CMP_FASTER,
	};
	struct complexity_fit f = {
		.name = "sort {n}", .parameter = "n", .metric = "wall_time",
		.best = { O_N_LOG_N, 1.5e-9, 0.001, 0.999 },
	};

	result_init(r, "run");
	r->created = xstrdup("2026-11-22T10:00:00Z");
	r->tool_version = xstrdup("0.1.0");
	r->machine.hostname = xstrdup("host");
	r->machine.os = xstrdup("Linux 6.1.0");
	r->machine.cpu = xstrdup("Intel \"Xeon\"");
	r->machine.cores = 2;
	r->machine.memory_bytes = 8ULL << 30;
	r->machine.virtualized = true;
	result_set_num(r, "warmup", 3);
	result_set_num(r, "runs", 20);
	result_set_str(r, "shell", "sh -c");
	result_set_num(r, "seed", 7);
	result_set_num(r, "bootstrap_resamples", 100);

	b = result_add_benchmark(r, "sort \"a\", x", argv1);
	assert_non_null(b);
	benchmark_add_param(b, "n", "10");
	benchmark_add_param(b, "mode", "-fast");
	benchmark_push_exit(b, 0);
	benchmark_push_exit(b, 1);
	m = benchmark_metric(b, "wall_time", "s");
	metric_push(m, 0.0102);
	metric_push(m, 0.1);
	m = benchmark_metric(b, "peak_rss", "bytes");
	metric_push(m, 1048576);
	metric_push(m, 2097152);
	m = benchmark_metric(b, "minor_faults", "count");
	metric_push(m, 100);
	metric_push(m, 101);
	benchmark_add_unsupported(b, "cycles");
	benchmark_add_unsupported(b, "instructions");
	benchmark_add_unsupported(b, "cycles");
	benchmark_add_warning(b, "run %d exited with code %d", 2, 1);
	benchmark_add_warning(b, "<script>alert(1)</script>");

	b = result_add_benchmark(r, "b|<tag> ünï 🚀", argv2);
	benchmark_add_param(b, "n", "20");
	benchmark_add_param(b, "k", "3");
	for (int i = 0; i < 3; i++)
		benchmark_push_exit(b, 0);
	b->timeouts = 1;
	m = benchmark_metric(b, "wall_time", "s");
	metric_push(m, 2.0 / 3);
	metric_push(m, 5e-324);
	metric_push(m, -0.0);
	metric_push(m, 9007199254740994.0);
	m = benchmark_metric(b, "user_time", "s");
	metric_push(m, 0.001);
	metric_push(m, 0.1 + 0.2);
	benchmark_add_unsupported(b, "cycles");

	result_add_comparison(r, &c);
	for (int i = 0; i < O_COUNT; i++)
		f.all[i] = (struct fit){ i, 0.1 * i, 1.0 / (i + 3), 0.5 };
	result_add_fit(r, &f);
}

static void test_model(void **state)
{
	struct result r;
	struct benchmark *b;
	struct metric *m;

	result_init(&r, NULL);
	assert_string_equal(r.kind, "run");
	assert_null(r.created);
	assert_null(r.tool_version);
	result_set_num(&r, "runs", 10);
	result_set_str(&r, "runs", "ten");
	result_set_num(&r, "warmup", 1);
	assert_int_equal(r.nsettings, 2);
	assert_string_equal(r.settings[0].str, "ten");
	assert_null(r.settings[1].str);

	b = result_add_benchmark(&r, "x", NULL);
	assert_int_equal(b->argc, 0);
	assert_null(b->command[0]);
	benchmark_add_param(b, "n", "1");
	benchmark_add_param(b, "n", "2");
	assert_int_equal(b->nparams, 1);
	assert_string_equal(b->params[0].value, "2");
	m = benchmark_metric(b, "wall_time", "s");
	assert_ptr_equal(benchmark_metric(b, "wall_time", "ignored"), m);
	assert_string_equal(benchmark_find_metric(b, "wall_time")->unit, "s");
	assert_null(benchmark_find_metric(b, "cycles"));
	benchmark_add_unsupported(b, "cycles");
	benchmark_add_unsupported(b, "cycles");
	assert_int_equal(b->nunsupported, 1);
	benchmark_add_warning(b, "%s %d", "w", 5);
	assert_string_equal(b->warnings[0], "w 5");
	assert_ptr_equal(result_find_benchmark(&r, "x"), &r.benchmarks[0]);
	assert_null(result_find_benchmark(&r, "y"));
	result_free(&r);
	result_free(&r);	/* zeroed: harmless */
}

static void test_summarize(void **state)
{
	struct result r;
	struct metric *m;
	struct summary first;

	result_init(&r, "run");
	m = benchmark_metric(result_add_benchmark(&r, "x", NULL), "w", "s");
	for (int i = 4; i >= 1; i--)
		metric_push(m, i);
	result_summarize(&r, 1, 50);
	m = &r.benchmarks[0].metrics[0];
	assert_int_equal(m->summary.n, 4);
	assert_true(m->summary.mean == 2.5);
	assert_true(m->summary.median == 2.5);
	assert_true(m->summary.min == 1 && m->summary.max == 4);
	first = m->summary;
	result_summarize(&r, 1, 50);
	assert_true(same_double(first.mean_ci[0], m->summary.mean_ci[0]));
	assert_true(same_double(first.median_ci[1], m->summary.median_ci[1]));
	result_free(&r);
}

/*
 * The setting bootstrap_max_draws (`load` writes 1000000): a metric of n
 * values with n x resamples above it gets the analytic intervals —
 * mean +- t(97.5%, n - 1) sd / sqrt(n), the median's between the order
 * statistics 711 and 788 of 1500 (SciPy: 711 the largest m with
 * binom.cdf(m, 1500, 0.5) <= 0.025; test_analytic_cis) — and one within
 * it the bootstrap, as without the setting; the reader of the file does
 * the same, so the intervals come back identical.
 */
static void test_summarize_max_draws(void **state)
{
	const double t = 1.9615478106169348; /* t.ppf(0.975, 1499) */
	struct result r, back;
	struct error e;
	char *path = tmp_path("max-draws.json");
	struct metric *big, *small;
	uint64_t x = 88172645463325252ull;
	double *sorted, lo, hi, half, boot[2];
	size_t n = 1500;

	result_init(&r, "run");
	result_set_num(&r, "seed", 3);
	result_set_num(&r, "bootstrap_resamples", 1000);
	result_set_num(&r, "bootstrap_max_draws", 1000000);
	big = benchmark_metric(result_add_benchmark(&r, "x", NULL), "latency",
			       "s");
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* skewed, as latencies are: 100 us + an exponential tail */
		metric_push(big, 1e-4 - 1e-4 * log((double)(x >> 11) / 9007199254740992.0 + 1e-12));
	}
	small = benchmark_metric(&r.benchmarks[0], "small", "s");
	for (size_t i = 0; i < 1000; i++)
		metric_push(small, big->values[i]);
	result_summarize(&r, 3, 1000);
	big = &r.benchmarks[0].metrics[0];
	small = &r.benchmarks[0].metrics[1];
	sorted = stats_sorted_copy(big->values, n);
	half = t * big->summary.stddev / sqrt((double)n);
	/* stats_t975 is within 1e-5 of the exact t */
	assert_true(fabs(big->summary.mean_ci[0] - (big->summary.mean - half))
		    <= 1e-5 * half);
	assert_true(fabs(big->summary.mean_ci[1] - (big->summary.mean + half))
		    <= 1e-5 * half);
	lo = 711;
	hi = 788;
	assert_true(big->summary.median_ci[0] == sorted[(size_t)lo]);
	assert_true(big->summary.median_ci[1] == sorted[(size_t)hi]);
	/* 1000 x 1000 draws: the bootstrap-t, asymmetric around the mean of
	 * a skewed sample */
	boot[0] = small->summary.mean - small->summary.mean_ci[0];
	boot[1] = small->summary.mean_ci[1] - small->summary.mean;
	assert_true(boot[0] > 0 && boot[1] > 0 && boot[0] != boot[1]);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	assert_int_equal(result_read_json(&back, path, &e), 0);
	for (int j = 0; j < 2; j++) {
		const struct summary *a = &r.benchmarks[0].metrics[j].summary;
		const struct summary *b = &back.benchmarks[0].metrics[j].summary;

		for (int k = 0; k < 2; k++) {
			assert_true(same_double(a->mean_ci[k], b->mean_ci[k]));
			assert_true(same_double(a->median_ci[k],
						b->median_ci[k]));
		}
	}
	/* without the setting, the 2e7 default: the big one bootstrapped */
	r.nsettings--;
	free(r.settings[r.nsettings].key);
	result_summarize(&r, 3, 1000);
	assert_false(big->summary.median_ci[0] == sorted[(size_t)lo] &&
		     fabs(big->summary.mean_ci[0] - (big->summary.mean - half))
		     <= 1e-5 * half);
	free(sorted);
	result_free(&r);
	result_free(&back);
	unlink(path);
	free(path);
}

/* A run that did not measure a metric holds NaN: skipped by the summary,
 * written as null, read back in its place. */
static void test_unmeasured_runs(void **state)
{
	struct result r, back;
	struct error e;
	char *path = tmp_path("nan-runs.json");
	struct metric *m;

	result_init(&r, "run");
	m = benchmark_metric(result_add_benchmark(&r, "x", NULL), "cycles",
			     "count");
	metric_push(m, 10);
	metric_push(m, NAN);
	metric_push(m, 30);
	result_summarize(&r, 1, 100);
	assert_int_equal(m->summary.n, 2);
	assert_true(m->summary.mean == 20 && m->summary.median == 20);
	assert_true(metric_has_summary(m));
	assert_int_equal(result_write_json(&r, path, &e), 0);
	assert_int_equal(result_read_json(&back, path, &e), 0);
	m = &back.benchmarks[0].metrics[0];
	assert_int_equal(m->n, 3);
	assert_true(m->values[0] == 10 && isnan(m->values[1]) &&
		    m->values[2] == 30);
	assert_int_equal(m->summary.n, 2);
	result_free(&back);
	result_free(&r);
	free(path);
}

static void same_summary(const struct summary *a, const struct summary *b)
{
	assert_int_equal(a->n, b->n);
	assert_true(same_double(a->mean, b->mean));
	assert_true(same_double(a->stddev, b->stddev));
	assert_true(same_double(a->median, b->median));
	assert_true(same_double(a->p99, b->p99));
	assert_true(same_double(a->mean_ci[0], b->mean_ci[0]));
	assert_true(same_double(a->mean_ci[1], b->mean_ci[1]));
	assert_true(same_double(a->median_ci[0], b->median_ci[0]));
	assert_true(same_double(a->median_ci[1], b->median_ci[1]));
	assert_int_equal(a->outliers_high, b->outliers_high);
}

static void same_benchmark(const struct benchmark *a,
			   const struct benchmark *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->argc, b->argc);
	for (size_t i = 0; i <= a->argc; i++)
		if (a->command[i] || b->command[i])
			assert_string_equal(a->command[i], b->command[i]);
	assert_int_equal(a->nparams, b->nparams);
	for (size_t i = 0; i < a->nparams; i++) {
		assert_string_equal(a->params[i].name, b->params[i].name);
		assert_string_equal(a->params[i].value, b->params[i].value);
	}
	assert_int_equal(a->nexit, b->nexit);
	assert_memory_equal(a->exit_codes, b->exit_codes,
			    a->nexit * sizeof(int));
	assert_int_equal(a->timeouts, b->timeouts);
	assert_int_equal(a->nmetrics, b->nmetrics);
	for (size_t i = 0; i < a->nmetrics; i++) {
		const struct metric *x = &a->metrics[i], *y = &b->metrics[i];

		assert_string_equal(x->name, y->name);
		assert_string_equal(x->unit, y->unit);
		assert_int_equal(x->n, y->n);
		for (size_t j = 0; j < x->n; j++)
			assert_true(same_double(x->values[j], y->values[j]));
		same_summary(&x->summary, &y->summary);
	}
	assert_int_equal(a->nunsupported, b->nunsupported);
	for (size_t i = 0; i < a->nunsupported; i++)
		assert_string_equal(a->unsupported[i], b->unsupported[i]);
	assert_int_equal(a->nwarnings, b->nwarnings);
	for (size_t i = 0; i < a->nwarnings; i++)
		assert_string_equal(a->warnings[i], b->warnings[i]);
}

static void test_json_round_trip(void **state)
{
	struct result r, back;
	struct error e;
	char *path = tmp_path("round.json");

	build(&r);
	/* The settings say seed 7 and 100 resamples: the reader must get
	 * the very same intervals back. */
	result_summarize(&r, 7, 100);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	assert_int_equal(result_read_json(&back, path, &e), 0);

	assert_string_equal(back.kind, "run");
	assert_string_equal(back.created, "2026-11-22T10:00:00Z");
	assert_string_equal(back.tool_version, r.tool_version);
	assert_string_equal(back.machine.cpu, "Intel \"Xeon\"");
	assert_null(back.machine.governor);
	assert_int_equal(back.machine.cores, 2);
	assert_true(back.machine.memory_bytes == 8ULL << 30);
	assert_true(back.machine.virtualized);
	assert_null(back.git.commit);
	assert_null(back.git.branch);
	assert_false(back.git.dirty);
	assert_int_equal(back.nsettings, 5);
	assert_string_equal(back.settings[2].key, "shell");
	assert_string_equal(back.settings[2].str, "sh -c");
	assert_true(back.settings[1].num == 20);

	assert_int_equal(back.nbenchmarks, 2);
	same_benchmark(&r.benchmarks[0], &back.benchmarks[0]);
	same_benchmark(&r.benchmarks[1], &back.benchmarks[1]);
	assert_true(signbit(back.benchmarks[1].metrics[0].values[2]));

	assert_int_equal(back.ncomparisons, 1);
	assert_string_equal(back.comparisons[0].candidate, "b|<tag> ünï 🚀");
	assert_string_equal(cmp_verdict_name(back.comparisons[0].verdict),
			    "faster");
	assert_true(back.comparisons[0].ratio == 0.66);
	assert_true(back.comparisons[0].ratio_ci[1] == 0.67);
	assert_true(back.comparisons[0].p_value == 0.0001);

	assert_int_equal(back.nfits, 1);
	assert_string_equal(back.fits[0].name, "sort {n}");
	assert_int_equal(back.fits[0].best.model, O_N_LOG_N);
	assert_true(back.fits[0].best.coef == 1.5e-9);
	assert_true(back.fits[0].best.r2 == 0.999);
	for (int i = 0; i < O_COUNT; i++) {
		assert_int_equal(back.fits[0].all[i].model, i);
		assert_true(same_double(back.fits[0].all[i].intercept,
					1.0 / (i + 3)));
	}
	result_free(&back);
	result_free(&r);
	free(path);
}

static json_t *load(const char *path)
{
	json_error_t err;
	json_t *root = json_load_file(path, 0, &err);

	if (!root)
		fail_msg("%s: %d:%d: %s", path, err.line, err.column, err.text);
	return root;
}

static void test_json_keys(void **state)
{
	static const char *const summary_keys[] = {
		"unit", "values", "mean", "stddev", "min", "max", "median",
		"mad", "p90", "p95", "p99", "mean_ci", "median_ci", "outliers",
		"n", "p25", "p75",
	};
	struct result r;
	struct error e;
	char *path = tmp_path("keys.json");
	json_t *root, *b, *m, *c, *x;

	build(&r);
	result_summarize(&r, 7, 0);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	root = load(path);
	assert_string_equal(json_string_value(json_object_get(root, "schema")),
			    "yardstick/result/v1");
	x = json_object_get(root, "tool");
	assert_string_equal(json_string_value(json_object_get(x, "name")),
			    "yardstick");
	assert_true(json_is_string(json_object_get(x, "version")));
	assert_string_equal(json_string_value(json_object_get(root, "kind")),
			    "run");
	x = json_object_get(root, "machine");
	assert_true(json_is_null(json_object_get(x, "governor")));
	assert_true(json_is_integer(json_object_get(x, "cores")));
	assert_true(json_integer_value(json_object_get(x, "memory_bytes")) ==
		    8LL << 30);
	assert_true(json_is_true(json_object_get(x, "virtualized")));
	x = json_object_get(root, "git");
	assert_true(json_is_null(json_object_get(x, "commit")));
	assert_true(json_is_null(json_object_get(x, "branch")));
	assert_true(json_is_false(json_object_get(x, "dirty")));
	x = json_object_get(root, "settings");
	assert_int_equal(json_integer_value(json_object_get(x, "warmup")), 3);
	assert_string_equal(json_string_value(json_object_get(x, "shell")),
			    "sh -c");

	b = json_array_get(json_object_get(root, "benchmarks"), 1);
	assert_string_equal(json_string_value(json_object_get(b, "name")),
			    "b|<tag> ünï 🚀");
	assert_string_equal(json_string_value(json_array_get(
		json_object_get(b, "command"), 1)), "ü");
	assert_string_equal(json_string_value(json_object_get(
		json_object_get(b, "parameters"), "k")), "3");
	assert_int_equal(json_array_size(json_object_get(b, "exit_codes")), 3);
	assert_int_equal(json_integer_value(json_object_get(b, "timeouts")), 1);
	assert_true(json_is_array(json_object_get(b, "unsupported")));
	assert_true(json_is_array(json_object_get(b, "warnings")));
	m = json_object_get(json_object_get(b, "metrics"), "wall_time");
	for (size_t i = 0; i < sizeof(summary_keys) / sizeof(*summary_keys);
	     i++)
		if (!json_object_get(m, summary_keys[i]))
			fail_msg("metric key '%s' missing", summary_keys[i]);
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "s");
	assert_int_equal(json_array_size(json_object_get(m, "mean_ci")), 2);
	x = json_object_get(m, "outliers");
	assert_true(json_is_integer(json_object_get(x, "low")));
	assert_true(json_is_integer(json_object_get(x, "high")));
	/* The summary written is the one computed: 2^53 + 2 is the max. */
	assert_true(json_number_value(json_object_get(m, "max")) ==
		    9007199254740994.0);

	c = json_array_get(json_object_get(root, "comparisons"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "verdict")),
			    "faster");
	assert_true(json_number_value(json_object_get(c, "p_value")) ==
		    0.0001);
	assert_int_equal(json_array_size(json_object_get(c, "ratio_ci")), 2);
	assert_non_null(json_object_get(c, "baseline"));
	assert_non_null(json_object_get(c, "candidate"));
	assert_non_null(json_object_get(c, "metric"));
	assert_non_null(json_object_get(c, "ratio"));

	x = json_array_get(json_object_get(root, "complexity"), 0);
	assert_string_equal(json_string_value(json_object_get(x, "best")),
			    stats_complexity_name(O_N_LOG_N));
	assert_string_equal(json_string_value(json_object_get(x, "parameter")),
			    "n");
	assert_int_equal(json_array_size(json_object_get(x, "fits")),
			 O_COUNT);
	x = json_array_get(json_object_get(x, "fits"), 2);
	assert_string_equal(json_string_value(json_object_get(x, "model")),
			    stats_complexity_name(O_N));
	assert_non_null(json_object_get(x, "r2"));
	json_decref(root);
	result_free(&r);
	free(path);
}

/* Without result_summarize the summary keys are null, not zeros. */
static void test_json_unsummarized_and_nan(void **state)
{
	struct result r;
	struct error e;
	struct metric *m;
	char *path = tmp_path("nan.json");
	struct comparison c = { .baseline = "x", .candidate = "x",
				.metric = "wall_time", .ratio = INFINITY,
				.ratio_ci = { NAN, 1 }, .p_value = NAN,
				.verdict = CMP_UNCHANGED };
	json_t *root, *jm, *jc;

	result_init(&r, "run");
	m = benchmark_metric(result_add_benchmark(&r, "x", NULL), "w", "s");
	metric_push(m, NAN);
	metric_push(m, -INFINITY);
	metric_push(m, 1.5);
	result_set_num(&r, "nan", NAN);
	result_add_comparison(&r, &c);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	root = load(path);
	jm = json_object_get(json_object_get(json_array_get(
		json_object_get(root, "benchmarks"), 0), "metrics"), "w");
	assert_true(json_is_null(json_array_get(json_object_get(jm, "values"),
						0)));
	assert_true(json_is_null(json_array_get(json_object_get(jm, "values"),
						1)));
	assert_true(json_real_value(json_array_get(json_object_get(jm,
		"values"), 2)) == 1.5);
	assert_true(json_is_null(json_object_get(jm, "mean")));
	assert_true(json_is_null(json_object_get(jm, "median_ci")));
	jc = json_array_get(json_object_get(root, "comparisons"), 0);
	assert_true(json_is_null(json_object_get(jc, "ratio")));
	assert_true(json_is_null(json_object_get(jc, "p_value")));
	assert_true(json_is_null(json_array_get(json_object_get(jc, "ratio_ci"),
						0)));
	assert_true(json_is_null(json_object_get(json_object_get(root,
		"settings"), "nan")));
	json_decref(root);
	result_free(&r);
	free(path);
}

/* Bytes that are not UTF-8 become U+FFFD rather than invalid JSON. */
static void test_json_invalid_utf8(void **state)
{
	struct result r, back;
	struct error e;
	char *path = tmp_path("utf8.json");
	struct benchmark *b;

	result_init(&r, "run");
	b = result_add_benchmark(&r, "a\xff" "b\xc0\xaf", NULL);
	benchmark_add_param(b, "\xe2\x82", "\xed\xa0\x80");
	metric_push(benchmark_metric(b, "wall_time", "s"), 1);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	assert_int_equal(result_read_json(&back, path, &e), 0);
	/* Never set: written as null, read back as NULL. */
	assert_null(back.created);
	assert_null(back.machine.hostname);
	assert_string_equal(back.benchmarks[0].name,
			    "a\xef\xbf\xbd" "b\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(back.benchmarks[0].params[0].name,
			    "\xef\xbf\xbd\xef\xbf\xbd");
	assert_string_equal(back.benchmarks[0].params[0].value,
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	result_free(&back);
	result_free(&r);
	free(path);
}

static void test_csv(void **state)
{
	static const char want[] =
		"benchmark,n,mode,k,run,exit_code,wall_time,peak_rss,"
		"minor_faults,user_time\n"
		"\"sort \"\"a\"\", x\",10,\"'-fast\",,1,0,0.0102,1048576,100,\n"
		"\"sort \"\"a\"\", x\",10,\"'-fast\",,2,1,0.1,2097152,101,\n"
		"b|<tag> ünï 🚀,20,,3,1,0,0.6666666666666666,,,0.001\n"
		"b|<tag> ünï 🚀,20,,3,2,0,4.94065645841247e-324,,,"
		"0.30000000000000004\n"
		"b|<tag> ünï 🚀,20,,3,3,0,-0,,,\n"
		"b|<tag> ünï 🚀,20,,3,4,,9007199254740994,,,\n";
	struct result r;
	struct error e;
	char *path = tmp_path("out.csv"), *text;

	build(&r);
	assert_int_equal(result_write_csv(&r, path, &e), 0);
	text = slurp(path);
	assert_string_equal(text, want);
	free(text);
	result_free(&r);
	free(path);
}

static void set_summary(struct metric *m, double mean, double sd,
			double median, double p95, double p99, double min,
			double max)
{
	m->summary = (struct summary){
		.n = m->n, .mean = mean, .stddev = sd, .median = median,
		.p95 = p95, .p99 = p99, .min = min, .max = max,
	};
	m->summarized = m->n;
}

static void expect_in(const char *text, const char *want)
{
	/* (never NULL: said for GCC with the sanitizers at -O2) */
	if (!strstr(text, want))
		fail_msg("missing:\n%s\nin:\n%s", want, text ? text : "");
}

static void test_markdown(void **state)
{
	struct result r;
	struct error e;
	char *path = tmp_path("out.md"), *text;
	struct benchmark *b1, *b2;

	build(&r);
	/* Summaries by hand, so that only the formatting is under test. */
	b1 = &r.benchmarks[0];
	b2 = &r.benchmarks[1];
	set_summary(&b1->metrics[0], 0.0102, 0.00012, 0.0101, 0.0105, 0.0106,
		    0.0099, 0.0107);
	set_summary(&b1->metrics[1], 0, 0, 1048576, 0, 0, 0, 0);
	set_summary(&b1->metrics[2], 0, 0, 100, 0, 0, 0, 0);
	set_summary(&b2->metrics[0], 0.0067, 0.0001, 0.0066, 0.007, 0.0071,
		    0.0065, 0.0072);
	set_summary(&b2->metrics[1], 0, 0, 0.0015, 0, 0, 0, 0);
	assert_int_equal(result_write_markdown(&r, path, &e), 0);
	text = slurp(path);
	expect_in(text,
		  "| Benchmark | Mean ± σ | Median | p95 | p99 | Min … Max "
		  "| Relative |\n"
		  "|:---|---:|---:|---:|---:|---:|---:|\n"
		  "| sort \"a\", x | 10.20 ms ± 120.0 µs | 10.10 ms | 10.50 ms "
		  "| 10.60 ms | 9.900 ms … 10.70 ms | 1.00 |\n"
		  "| b\\|&lt;tag&gt; ünï 🚀 | 6.700 ms ± 100.0 µs | 6.600 ms "
		  "| 7.000 ms | 7.100 ms | 6.500 ms … 7.200 ms "
		  "| 0.66× [0.65, 0.67] |\n");
	/* minor_faults is left out of the second table. */
	expect_in(text,
		  "| Benchmark | peak\\_rss | user\\_time |\n"
		  "|:---|---:|---:|\n"
		  "| sort \"a\", x | 1.000 MiB | — |\n"
		  "| b\\|&lt;tag&gt; ünï 🚀 | — | 1.500 ms |\n");
	assert_null(strstr(text, "minor"));
	expect_in(text,
		  "\n- 'b\\|&lt;tag&gt; ünï 🚀' is 1.52× faster than "
		  "'sort \"a\", x' \\[1.49, 1.54\\], p &lt; 0.001\n");
	expect_in(text, "\nNot supported on this machine: cycles, "
		  "instructions\n");
	expect_in(text, "\nWarnings:\n\n"
		  "- sort \"a\", x: run 2 exited with code 1\n"
		  "- sort \"a\", x: &lt;script&gt;alert(1)&lt;/script&gt;\n");
	assert_null(strstr(text, "<script>"));
	free(text);
	result_free(&r);
	free(path);
}

/* No comparisons: no Relative column; no wall_time: the first metric,
 * named; a benchmark without it: dashes. */
static void test_markdown_plain(void **state)
{
	struct result r;
	struct error e;
	char *path = tmp_path("plain.md"), *text;
	struct metric *m;

	result_init(&r, "load");
	m = benchmark_metric(result_add_benchmark(&r, "get /", NULL),
			     "latency", "s");
	metric_push(m, 0.002);
	set_summary(m, 0.002, 0, 0.002, 0.002, 0.002, 0.002, 0.002);
	result_add_benchmark(&r, "empty", NULL);
	assert_int_equal(result_write_markdown(&r, path, &e), 0);
	text = slurp(path);
	assert_string_equal(text,
		"**latency**\n\n"
		"| Benchmark | Mean ± σ | Median | p95 | p99 | Min … Max |\n"
		"|:---|---:|---:|---:|---:|---:|\n"
		"| get / | 2.000 ms ± 0 s | 2.000 ms | 2.000 ms | 2.000 ms "
		"| 2.000 ms … 2.000 ms |\n"
		"| empty | — | — | — | — | — |\n");
	free(text);
	result_free(&r);
	free(path);
}

/* run --markdown of a scan: the complexity fits, as the terminal has
 * them (the fit was left out of the Markdown). */
static void test_markdown_fits(void **state)
{
	struct complexity_fit flat = {
		.name = "noop {k}", .parameter = "k", .metric = "wall_time",
		.best = { O_1, 0, 0.002, 0 },
	};
	struct result r;
	struct error e;
	char *path = tmp_path("fits.md"), *text;

	build(&r);
	result_add_fit(&r, &flat);
	assert_int_equal(result_write_markdown(&r, path, &e), 0);
	text = slurp(path);
	expect_in(text,
		  "\nComplexity (least squares on the median, y = a + b·g(n)):"
		  "\n\n| Benchmark | Parameter | Metric | Best fit | b | a | R² |"
		  "\n|:---|:---|:---|:---|---:|---:|---:|\n"
		  "| sort {n} | n | wall\\_time | O(n log n) | 1.5e-09 s "
		  "| 1.000 ms | 0.9990 |\n"
		  "| noop {k} | k | wall\\_time | O(1) (flat) | — | 2.000 ms "
		  "| — |\n");
	free(text);
	result_free(&r);
	free(path);
}

/* No byte of text a terminal or a Markdown viewer would obey. */
static void expect_no_controls(const char *what, const char *text)
{
	static const char *const bad[] = {
		"\x1b", "\x07", "\r", "\xc2\x9b", "\xe2\x80\xae",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (strstr(text, bad[i]))
			fail_msg("%s holds byte %02x:\n%s", what,
				 (unsigned char)bad[i][0], text);
}

/*
 * tests/data/hostile.json: names, units, metric and parameter names,
 * warnings and hosts holding ESC, BEL, CR, a C1 CSI, a right-to-left
 * override, <img onerror>, pipes and brackets. Each output escapes them:
 * the Markdown (units went raw), CSV, JSON and BMF (valid, and the same
 * strings read back), and the terminal's term_safe.
 */
static void test_hostile_outputs(void **state)
{
	const char *hostile = TESTDATA_DIR "/hostile.json";
	char *md = tmp_path("h.md"), *csv = tmp_path("h.csv"),
	     *json = tmp_path("h.json"), *bmf = tmp_path("h.bmf"), *text;
	struct result r, back;
	struct error e;
	json_error_t je;
	json_t *root;

	assert_int_equal(result_read_json(&r, hostile, &e), 0);
	assert_int_equal(result_write_markdown(&r, md, &e), 0);
	text = slurp(md);
	expect_no_controls("Markdown", text);
	assert_null(strstr(text, "<img"));
	expect_in(text, "| bench x?\\[31m? &lt;img src=x onerror=alert(1)&gt;"
		  "\\|\\`\\*\\_\\[y\\](z)&amp;??");
	/* The unit of m..., through fmt_value. */
	expect_in(text, "| 6.000 &lt;img src=x onerror=alert(1)&gt;");
	free(text);

	/* CSV keeps the bytes (it is data), quoted where they would end a
	 * cell, and reads back as the same cells. */
	assert_int_equal(result_write_csv(&r, csv, &e), 0);
	text = slurp(csv);
	expect_in(text, "\"bench x\x1b[31m\x07\r<img src=x onerror=alert(1)>|"
		  "`*_[y](z)&\xe2\x80\xae\xc2\x9b\"");
	free(text);

	assert_int_equal(result_write_json(&r, json, &e), 0);
	assert_int_equal(result_read_json(&back, json, &e), 0);
	assert_string_equal(back.benchmarks[0].name, r.benchmarks[0].name);
	assert_string_equal(back.benchmarks[0].metrics[1].unit,
			    r.benchmarks[0].metrics[1].unit);
	assert_string_equal(back.git.branch, r.git.branch);
	result_free(&back);

	assert_int_equal(result_write_bmf(&r, bmf, &e), 0);
	root = json_load_file(bmf, 0, &je);
	if (!root)
		fail_msg("BMF is not JSON: %s", je.text);
	assert_non_null(json_object_get(root, r.benchmarks[0].name));
	json_decref(root);
	result_free(&r);

	/* A formula behind a tab or CR is defused like one in front. */
	result_init(&r, "run");
	metric_push(benchmark_metric(result_add_benchmark(&r, "\t=1+1", NULL),
				     "wall_time", "s"), 1);
	metric_push(benchmark_metric(result_add_benchmark(&r, "\r@x", NULL),
				     "wall_time", "s"), 1);
	assert_int_equal(result_write_csv(&r, csv, &e), 0);
	text = slurp(csv);
	expect_in(text, "\n\"'\t=1+1\",1,");
	expect_in(text, "\n\"'\r@x\",1,");
	free(text);
	result_free(&r);

	/* The terminal: every control shown, nothing obeyed. */
	text = term_safe("a\x1b[2J\x07\r\n\t\x7f\xc2\x9b\xe2\x80\xae\xff"
			 "\xc0\xaf\xed\xa0\x80ü🚀");
	assert_string_equal(text, "a\\x1b[2J\\x07\\x0d\\x0a\\x09\\x7f\\x9b"
			    "\\u202e\\xff\\xc0\\xaf\\xed\\xa0\\x80ü🚀");
	free(text);
	free(md);
	free(csv);
	free(json);
	free(bmf);
}

/* The names a producer makes unique: suffixes skip names taken, and
 * equal names with other parameters are told apart by them. */
static void test_unique_names(void **state)
{
	static const char *const want[] = {
		"a", "a #3", "a #2", "a #4", "f [n=1]", "f [n=2]",
		"f [n=2] #2", "g", "g #2",
	};
	struct result r;
	struct benchmark *b;

	result_init(&r, "run");
	result_add_benchmark(&r, "a", NULL);
	result_add_benchmark(&r, "a", NULL);
	result_add_benchmark(&r, "a #2", NULL);
	result_add_benchmark(&r, "a", NULL);
	b = result_add_benchmark(&r, "f", NULL);
	benchmark_add_param(b, "n", "1");
	b = result_add_benchmark(&r, "f", NULL);
	benchmark_add_param(b, "n", "2");
	b = result_add_benchmark(&r, "f", NULL);
	benchmark_add_param(b, "n", "2");
	/* Same parameters: only numbered. */
	b = result_add_benchmark(&r, "g", NULL);
	benchmark_add_param(b, "n", "1");
	b = result_add_benchmark(&r, "g", NULL);
	benchmark_add_param(b, "n", "1");
	assert_int_equal(result_unique_names(&r), 7);
	assert_int_equal(r.nbenchmarks, 9);
	for (size_t i = 0; i < r.nbenchmarks; i++)
		assert_string_equal(r.benchmarks[i].name, want[i]);
	assert_int_equal(result_unique_names(&r), 0);
	result_free(&r);
}

/* Generated sets of names and parameters (names that are, or look like,
 * others with their parameters or numbers added): after
 * result_unique_names the names are unique, and so are the names shown
 * with their parameters (benchmark_display_name, what compare and gate
 * match on); a second call renames nothing. */
static void test_unique_names_generated(void **state)
{
	static const char *const names[] = {
		"a", "a [k=1]", "a [k=2]", "a #2", "a [k=1] #2", "a [k=1, j=x]",
		"b", "a [j=x]",
	};
	static const char *const params[][2] = {
		{ "k", "1" }, { "k", "2" }, { "j", "x" },
	};
	uint64_t x = 7;

	(void)state;
	for (int round = 0; round < 3000; round++) {
		struct result r;
		size_t n;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		n = 2 + x % 6;
		result_init(&r, "bench");
		for (size_t i = 0; i < n; i++) {
			uint64_t h = x >> (3 * i + 5);
			struct benchmark *b = result_add_benchmark(
				&r, names[h % 8], NULL);

			for (size_t p = 0; p < 3; p++)
				if (h >> (3 + p) & 1 && !(p == 1 && h >> 3 & 1))
					benchmark_add_param(b, params[p][0],
							    params[p][1]);
		}
		result_unique_names(&r);
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < i; j++) {
				char *a = benchmark_display_name(&r.benchmarks[i]);
				char *b = benchmark_display_name(&r.benchmarks[j]);

				if (!strcmp(r.benchmarks[i].name,
					    r.benchmarks[j].name) ||
				    !strcmp(a, b))
					fail_msg("round %d: '%s' ('%s') and '%s' "
						 "('%s')", round,
						 r.benchmarks[i].name, a,
						 r.benchmarks[j].name, b);
				free(a);
				free(b);
			}
		assert_int_equal(result_unique_names(&r), 0);
		result_free(&r);
	}
}

/* The case: "a [k=1]" beside "a" with k=1. */
static void test_unique_names_shown(void **state)
{
	struct result r;
	struct benchmark *b;

	(void)state;
	result_init(&r, "bench");
	result_add_benchmark(&r, "a [k=1]", NULL);
	b = result_add_benchmark(&r, "a", NULL);
	benchmark_add_param(b, "k", "1");
	assert_int_equal(result_unique_names(&r), 2);
	assert_string_equal(r.benchmarks[0].name, "a [k=1]");
	assert_string_equal(r.benchmarks[1].name, "a [k=1] #2");
	result_free(&r);
}

static void expect_sentence_adj(const char *metric, const char *verdict,
				double ratio, double lo, double hi, double p,
				double p_adj, const char *want)
{
	struct comparison c = { .baseline = "a", .candidate = "b",
				.metric = (char *)metric, .ratio = ratio,
				.ratio_ci = { lo, hi }, .p_value = p,
				.p_adjusted = p_adj };
	char *s;

	assert_int_equal(cmp_verdict_parse(verdict, &c.verdict), 0);
	s = comparison_sentence(&c);

	assert_string_equal(s, want);
	free(s);
}

static void expect_sentence(const char *metric, const char *verdict,
			    double ratio, double lo, double hi, double p,
			    const char *want)
{
	expect_sentence_adj(metric, verdict, ratio, lo, hi, p, NAN, want);
}

static void test_comparison_sentence(void **state)
{
	expect_sentence("wall_time", "faster", 0.5, 0.4, 0.625, 0.0001,
			"'b' is 2.00× faster than 'a' [1.60, 2.50], p < 0.001");
	expect_sentence("wall_time", "slower", 1.52, 1.49, 1.55, 0.012,
			"'b' is 1.52× slower than 'a' [1.49, 1.55], p = 0.012");
	expect_sentence("wall_time", "unchanged", 1.01, 0.98, 1.03, 0.43,
			"no significant difference between 'a' and 'b', "
			"p = 0.430");
	expect_sentence("peak_rss", "faster", 0.8, 0.5, 1.0, 0.001,
			"'b' has 1.25× lower peak_rss than 'a' [1.00, 2.00], "
			"p = 0.001");
	expect_sentence("peak_rss", "slower", 2, 1.5, 2.5, NAN,
			"'b' has 2.00× higher peak_rss than 'a' [1.50, 2.50]");
	expect_sentence("user_time", "unchanged", 1, 1, 1, 0.9,
			"no significant difference between 'a' and 'b' in "
			"user_time, p = 0.900");
	expect_sentence("wall_time", "slower", NAN, NAN, NAN, 0.01,
			"'b' is slower than 'a', p = 0.010");
	/* Holm's correction: the adjusted p beside, where it differs */
	expect_sentence_adj("wall_time", "slower", 1.52, 1.49, 1.55, 0.002,
			    0.008, "'b' is 1.52× slower than 'a' [1.49, "
			    "1.55], p = 0.002 (Holm: 0.008)");
	expect_sentence_adj("wall_time", "unchanged", 1.2, 0.9, 1.5, 0.0004,
			    0.0016, "no significant difference between 'a' "
			    "and 'b', p < 0.001 (Holm: 0.002)");
	expect_sentence_adj("wall_time", "faster", 0.5, 0.4, 0.625, 0.0001,
			    0.0004, "'b' is 2.00× faster than 'a' [1.60, "
			    "2.50], p < 0.001");
	expect_sentence_adj("wall_time", "slower", 1.52, 1.49, 1.55, 0.012,
			    0.012, "'b' is 1.52× slower than 'a' [1.49, "
			    "1.55], p = 0.012");
	/* no data could decide: said so, with what was measured */
	expect_sentence_adj("wall_time", "inconclusive", 2, 0.5, 4, 0.05,
			    0.1, "'b' against 'a': inconclusive, 2.00× "
			    "[0.50, 4.00], p = 0.050 (Holm: 0.100)");
}

/* Each verdict has one name, which parses back to it; other names, even
 * in another case or with a space, do not. */
static void test_cmp_verdict_names(void **state)
{
	static const char *const names[] = { "unchanged", "faster", "slower",
					     "better", "worse",
					     "inconclusive" };
	enum cmp_verdict v;

	(void)state;
	for (int i = CMP_UNCHANGED; i <= CMP_INCONCLUSIVE; i++) {
		assert_string_equal(cmp_verdict_name(i), names[i]);
		assert_int_equal(cmp_verdict_parse(names[i], &v), 0);
		assert_int_equal(v, i);
	}
	assert_int_equal(cmp_verdict_parse("Faster", &v), -1);
	assert_int_equal(cmp_verdict_parse("faster ", &v), -1);
	assert_int_equal(cmp_verdict_parse("", &v), -1);
	assert_int_equal(cmp_verdict_parse("pass", &v), -1);
}

static const char *const v1 = "\"schema\": \"yardstick/result/v1\"";

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
	assert_null(r.kind);
	result_free(&r);
	free(prefix);
	free(path);
}

static void test_read_malformed(void **state)
{
	char *s;

	expect_bad("", "line 1:0: empty file");
	expect_bad("\n  \n", "line 3:0: empty file");
	expect_bad("hello", "line 1:5: invalid token");
	expect_bad("{\n  \"schema\": \"yardstick/result/v1\",\n"
		   "  \"benchmarks\": [\n", "line 4:0: ']' expected");
	expect_bad("{\"a\": 1, \"a\": 2}", "line 1:");
	expect_bad("[1, 2]", ": top level: expected an object");
	expect_bad("42", ": top level: expected an object");
	expect_bad("{\"benchmarks\": []}", ": missing key 'schema'");
	expect_bad("{\"schema\": 1, \"benchmarks\": []}",
		   ": schema: expected a string");
	expect_bad("{\"schema\": \"foo/v9\", \"benchmarks\": []}",
		   ": schema: unsupported schema 'foo/v9'");
	s = xasprintf("{%s}", v1);
	expect_bad(s, ": missing key 'benchmarks'");
	free(s);

#define BAD(body, where) do {						\
		s = xasprintf("{%s, %s}", v1, body);			\
		expect_bad(s, where);					\
		free(s);						\
	} while (0)
	BAD("\"benchmarks\": {}", ": benchmarks: expected an array");
	BAD("\"benchmarks\": [1]", ": benchmarks[0]: expected an object");
	BAD("\"benchmarks\": [{\"metrics\": {}}]",
	    ": benchmarks[0]: missing key 'name'");
	BAD("\"benchmarks\": [{\"name\": 5, \"metrics\": {}}]",
	    ": benchmarks[0].name: expected a string");
	BAD("\"benchmarks\": [{\"name\": \"x\"}]",
	    ": benchmarks[0]: missing key 'metrics'");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": "
	    "{\"wall_time\": {\"unit\": \"s\"}}}]",
	    ": benchmarks[0].metrics.wall_time: missing key 'values'");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": "
	    "{\"wall_time\": {\"values\": [1, 2, 3, \"4\"]}}}]",
	    ": benchmarks[0].metrics.wall_time.values[3]: expected a number");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": "
	    "{\"wall_time\": {\"values\": [true]}}}]",
	    ": benchmarks[0].metrics.wall_time.values[0]: expected a number");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": "
	    "{\"wall_time\": {\"values\": 1}}}]",
	    ": benchmarks[0].metrics.wall_time.values: expected an array");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
	    "\"command\": [\"a\", 1]}]",
	    ": benchmarks[0].command[1]: expected a string");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
	    "\"parameters\": {\"n\": 10}}]",
	    ": benchmarks[0].parameters.n: expected a string");
	BAD("\"benchmarks\": [{\"name\": \"x\", \"metrics\": {}, "
	    "\"exit_codes\": [0, 1.5]}]",
	    ": benchmarks[0].exit_codes[1]: expected an integer");
	BAD("\"benchmarks\": [], \"machine\": {\"governor\": 3}",
	    ": machine.governor: expected a string");
	BAD("\"benchmarks\": [], \"git\": {\"dirty\": \"no\"}",
	    ": git.dirty: expected true or false");
	BAD("\"benchmarks\": [], \"settings\": {\"bootstrap_resamples\": "
	    "-1}", ": settings.bootstrap_resamples: expected a non-negative "
	    "integer");
	/* A billion resamples would make reading the file hang. */
	BAD("\"benchmarks\": [], \"settings\": {\"bootstrap_resamples\": "
	    "1e9}", ": settings.bootstrap_resamples: 1e+09 is out of range "
	    "(at most 1e+06)");
	BAD("\"benchmarks\": [], \"settings\": {\"seed\": 1e20}",
	    ": settings.seed: 1e+20 is out of range");
	BAD("\"benchmarks\": [], \"settings\": {\"seed\": 1.5}",
	    ": settings.seed: expected a non-negative integer");
	BAD("\"benchmarks\": [], \"settings\": {\"x\": [1]}",
	    ": settings.x: expected a number or a string");
	BAD("\"benchmarks\": [], \"comparisons\": [{\"baseline\": \"a\", "
	    "\"candidate\": \"b\", \"metric\": \"w\", \"verdict\": \"pass\"}]",
	    ": comparisons[0].verdict: unknown verdict 'pass'");
	BAD("\"benchmarks\": [], \"comparisons\": [{\"baseline\": \"a\", "
	    "\"candidate\": \"b\", \"metric\": \"w\", \"verdict\": \"Faster\"}]",
	    ": comparisons[0].verdict: unknown verdict 'Faster'");
	BAD("\"benchmarks\": [], \"comparisons\": [{\"baseline\": \"a\"}]",
	    ": comparisons[0]: missing key 'candidate'");
	BAD("\"benchmarks\": [], \"complexity\": [{\"name\": \"a\", "
	    "\"parameter\": \"n\", \"metric\": \"w\", \"best\": \"O(n!)\"}]",
	    ": complexity[0].best: unknown model 'O(n!)'");
#undef BAD
}

/* A file cut anywhere is a syntax error at the line where it ends. */
static void test_read_truncated(void **state)
{
	struct result r;
	struct error e;
	char *path = tmp_path("whole.json"), *text, *want;
	size_t len, line = 1;

	build(&r);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	result_free(&r);
	text = slurp(path);
	len = strlen(text) / 2;
	text[len] = '\0';
	for (size_t i = 0; i < len; i++)
		line += text[i] == '\n';
	want = xasprintf("line %zu:", line);
	expect_bad(text, want);
	free(want);
	free(text);
	free(path);
}

/* The example of docs/result-format.md, written by hand, reads. */
/* A result in memory (bench's pipe): read as from a file, its messages
 * naming it as the caller says. */
static void test_read_memory(void **state)
{
	static const char good[] = "{\"schema\": \"yardstick/result/v1\", "
		"\"kind\": \"bench\", \"benchmarks\": [{\"name\": \"h\", "
		"\"metrics\": {\"time_per_op\": {\"unit\": \"s\", "
		"\"values\": [3e-9, 1e-9, 2e-9]}}}]}";
	static const char bad[] = "{\"schema\": \"yardstick/result/v1\",\n"
		"\"benchmarks\": [{\"name\": \"h\", \"metrics\": {\"t\": "
		"{\"values\": [-1]}}}]}";
	struct result r;
	struct error e;

	(void)state;
	assert_int_equal(result_read_json_mem(&r, "the result of 'p'", good,
					      sizeof(good) - 1, &e), 0);
	assert_string_equal(r.kind, "bench");
	assert_int_equal(r.nbenchmarks, 1);
	assert_true(fabs(r.benchmarks[0].metrics[0].summary.median - 2e-9) <
		    1e-18);
	result_free(&r);
	assert_int_equal(result_read_json_mem(&r, "the result of 'p'", bad,
					      sizeof(bad) - 1, &e), -1);
	assert_string_equal(e.msg, "cannot read the result of 'p': "
			    "benchmarks[0].metrics.t.values[0]: -1 is negative "
			    "(no metric can be: times, sizes and counts are not)");
	result_free(&r);
	assert_int_equal(result_read_json_mem(&r, "the result of 'p'", "{\"a\"",
					      4, &e), -1);
	assert_non_null(strstr(e.msg, "cannot read the result of 'p': line 1:"));
	result_free(&r);
}

/* The counts of a load result (docs/result-format.md, "counts"): */
enum { C_REQ, C_RESP, C_OK, C_READ, C_STATUS, C_200, C_503, C_SENDS, C_LATE,
       C_PS_OK0, C_PS_OK1, C_PS_ERR0, C_PS_ERR1, C_HIST, C_N };

/* A load result holding the counts c and elapsed seconds, in *out. */
static char *load_doc(const long long *c, double elapsed)
{
	return xasprintf(
		"{\"schema\": \"yardstick/result/v1\", \"kind\": \"load\", "
		"\"benchmarks\": [{\"name\": \"u\", \"metrics\": {}, "
		"\"histograms\": {\"latency\": {\"unit\": \"ns\", \"lowest\": "
		"1000, \"highest\": 3600000000000, \"significant_digits\": 3, "
		"\"count\": %lld, \"min\": 5000, \"max\": 5000, \"buckets\": "
		"[[5000, %lld]]}}, "
		"\"per_second\": {\"start\": 1700000000.5, \"elapsed\": %.17g, "
		"\"ok\": [%lld, %lld], \"errors\": [%lld, %lld]}, "
		"\"counts\": {\"requests\": %lld, \"responses\": %lld, "
		"\"ok\": %lld, \"connect\": 0, \"read\": %lld, \"write\": 0, "
		"\"timeout\": 0, \"status\": %lld, \"status_200\": %lld, "
		"\"status_503\": %lld, \"sends\": %lld, \"late\": %lld}}]}",
		c[C_HIST], c[C_HIST], elapsed, c[C_PS_OK0], c[C_PS_OK1],
		c[C_PS_ERR0], c[C_PS_ERR1], c[C_REQ], c[C_RESP], c[C_OK],
		c[C_READ], c[C_STATUS], c[C_200], c[C_503], c[C_SENDS],
		c[C_LATE]);
}

/* Read the load result of c: 0, or -1 with the message in e. */
static int read_load_doc(const long long *c, double elapsed, struct error *e)
{
	char *doc = load_doc(c, elapsed);
	struct result r;
	int rc = result_read_json_mem(&r, "'s.json'", doc, strlen(doc), e);

	result_free(&r);
	free(doc);
	return rc;
}

/* Consistent counts: ok, read errors and 503s of requests, split over
 * two seconds. */
static void load_counts(long long *c, long long ok, long long rd,
			long long s503, long long first_ok, long long first_err)
{
	c[C_OK] = c[C_200] = ok;
	c[C_READ] = rd;
	c[C_STATUS] = c[C_503] = s503;
	c[C_REQ] = c[C_SENDS] = ok + rd + s503;
	c[C_RESP] = c[C_HIST] = ok + s503;
	c[C_LATE] = c[C_REQ] / 2;
	c[C_PS_OK0] = first_ok;
	c[C_PS_OK1] = ok - first_ok;
	c[C_PS_ERR0] = first_err;
	c[C_PS_ERR1] = rd + s503 - first_err;
}

/* Issue 25 case 8: a load result's counts that contradict each other
 * (ok 10^12 of 67 requests) were read and merged. Each relation,
 * broken alone, is refused naming the key and the offending value. */
static void test_read_load_counts(void **state)
{
	static const struct { int key; long long v; double elapsed;
			      const char *msg; } cases[] = {
		{ C_OK, 1000000000000LL, 1.5, "benchmarks[0].counts.ok: "
		  "'1000000000000' is more than the 10 requests" },
		{ C_READ, 3, 1.5, "benchmarks[0].counts.requests: '10', but "
		  "ok and the error kinds (connect, read, write, timeout, "
		  "status) add up to 11" },
		{ C_RESP, 9, 1.5, "benchmarks[0].counts.responses: '9', but "
		  "ok and status add up to 8" },
		{ C_503, 3, 1.5, "benchmarks[0].counts.status: '2', but the "
		  "status_NNN from 400 add up to 3" },
		{ C_200, 5, 1.5, "benchmarks[0].counts: the status_NNN below "
		  "400 add up to '5', not ok (6)" },
		{ C_LATE, 11, 1.5, "benchmarks[0].counts.late: '11' is more "
		  "than the 10 sends" },
		{ C_PS_OK0, 5, 1.5, "benchmarks[0].per_second.ok: adds up to "
		  "'7', not counts.ok (6)" },
		{ C_PS_ERR1, 0, 1.5, "benchmarks[0].per_second.errors: adds up "
		  "to '3', not the failed requests (counts.requests - "
		  "counts.ok: 4)" },
		{ C_HIST, 9, 1.5, "benchmarks[0].histograms.latency: count "
		  "'9', but counts.responses + counts.held_slow is 8" },
		{ C_REQ, 10, 0, "benchmarks[0].per_second.elapsed: '0' for 10 "
		  "requests: expected positive seconds" },
		{ C_READ, -1, 1.5, "benchmarks[0].counts.read: '-1' is not a "
		  "count (an integer from 0 to 2^53)" },
		{ C_OK, (1LL << 53) + 1, 1.5, "benchmarks[0].counts.ok: "
		  "'9007199254740993' is not a count (an integer from 0 to "
		  "2^53)" },
	};
	long long c[C_N];
	struct error e;
	char want[600];

	(void)state;
	load_counts(c, 6, 2, 2, 4, 3);
	assert_int_equal(read_load_doc(c, 1.5, &e), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		load_counts(c, 6, 2, 2, 4, 3);
		c[cases[i].key] = cases[i].v;
		assert_int_equal(read_load_doc(c, cases[i].elapsed, &e), -1);
		snprintf(want, sizeof(want), "cannot read 's.json': %s",
			 cases[i].msg);
		assert_string_equal(e.msg, want);
	}
}

/* The class: generated consistent counts read; any one of those bound
 * to the others, one more or one less, is refused. */
static void test_read_load_counts_generated(void **state)
{
	static const int bound[] = { C_REQ, C_RESP, C_OK, C_READ, C_STATUS,
				     C_200, C_503, C_PS_OK0, C_PS_OK1,
				     C_PS_ERR0, C_PS_ERR1, C_HIST };
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	long long c[C_N];
	struct error e;

	(void)state;
	for (int round = 0; round < 300; round++) {
		long long v[5];

		for (int k = 0; k < 5; k++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			v[k] = (long long)(x % (round < 150 ? 50 : 1000000));
		}
		v[0]++;		/* a histogram holds at least one */
		load_counts(c, v[0], v[1], v[2], v[3] % (v[0] + 1),
			    v[4] % (v[1] + v[2] + 1));
		if (read_load_doc(c, 2.0, &e))
			fail_msg("round %d: %s", round, e.msg);
		for (size_t b = 0; b < sizeof(bound) / sizeof(*bound); b++)
			for (int d = -1; d <= 1; d += 2) {
				long long keep = c[bound[b]];

				if (keep + d < 0 ||
				    (bound[b] == C_HIST && keep + d < 1))
					continue;
				c[bound[b]] = keep + d;
				if (!read_load_doc(c, 2.0, &e))
					fail_msg("round %d: count %d %+d "
						 "read", round, bound[b], d);
				c[bound[b]] = keep;
			}
	}
}

static void test_read_design_example(void **state)
{
	static const char example[] =
		"{\"schema\": \"yardstick/result/v1\",\n"
		" \"tool\": {\"name\": \"yardstick\", \"version\": \"0.1.0\"},\n"
		" \"created\": \"2026-11-22T10:00:00Z\", \"kind\": \"run\",\n"
		" \"machine\": {\"hostname\": \"…\", \"os\": \"Linux 6.1.0\", "
		"\"cpu\": \"…\", \"cores\": 2, \"memory_bytes\": 0, "
		"\"governor\": null, \"virtualized\": true},\n"
		" \"git\": {\"commit\": \"…\", \"branch\": \"main\", "
		"\"dirty\": false},\n"
		" \"settings\": {\"warmup\": 3, \"runs\": 20},\n"
		" \"benchmarks\": [{\"name\": \"sort 1e6\", "
		"\"command\": [\"./sort\", \"1000000\"], "
		"\"parameters\": {\"n\": \"1000000\"}, \"exit_codes\": [0, 0],\n"
		"  \"metrics\": {\"wall_time\": {\"unit\": \"s\", "
		"\"values\": [0.0101, 0.0102], \"mean\": 0, \"stddev\": 0, "
		"\"min\": 0, \"max\": 0, \"median\": 0, \"mad\": 0, "
		"\"p90\": 0, \"p95\": 0, \"p99\": 0, \"mean_ci\": [0, 0], "
		"\"median_ci\": [0, 0], \"outliers\": {\"low\": 0, \"high\": 0}},\n"
		"   \"peak_rss\": {\"unit\": \"bytes\", \"values\": []}},\n"
		"  \"unsupported\": [\"cycles\", \"instructions\"], "
		"\"warnings\": []}],\n"
		" \"comparisons\": [{\"baseline\": \"…\", \"candidate\": \"…\", "
		"\"metric\": \"wall_time\", \"ratio\": 1.52, "
		"\"ratio_ci\": [1.49, 1.55], \"p_value\": 0.0001, "
		"\"verdict\": \"faster\"}]}\n";
	struct result r;
	struct error e;
	char *path = tmp_path("design.json");
	struct benchmark *b;

	put(path, example);
	assert_int_equal(result_read_json(&r, path, &e), 0);
	assert_string_equal(r.git.branch, "main");
	assert_string_equal(r.tool_version, "0.1.0");
	assert_null(r.machine.governor);
	assert_int_equal(r.nbenchmarks, 1);
	b = &r.benchmarks[0];
	assert_string_equal(b->command[1], "1000000");
	assert_int_equal(b->nmetrics, 2);
	assert_true(b->metrics[0].values[1] == 0.0102);
	/* Recomputed, not the zeros of the file. */
	assert_true(b->metrics[0].summary.max == 0.0102);
	assert_true(b->metrics[0].summary.mean == (0.0101 + 0.0102) / 2);
	assert_int_equal(b->metrics[1].n, 0);
	assert_string_equal(b->unsupported[1], "instructions");
	assert_true(r.comparisons[0].ratio_ci[0] == 1.49);
	result_free(&r);
	free(path);
}

static void test_read_missing_file(void **state)
{
	struct result r;
	struct error e;
	char *path = tmp_path("absent.json"), *want;

	assert_int_equal(result_read_json(&r, path, &e), -1);
	want = xasprintf("cannot open '%s'", path);
	expect_in(e.msg, want);
	result_free(&r);
	free(want);
	free(path);
}

static void test_write_fails_cleanly(void **state)
{
	int (*writers[])(const struct result *, const char *,
			 struct error *) = {
		result_write_json, result_write_csv, result_write_markdown,
	};
	char *path = tmp_path("no/such/dir/out"), *parent = tmp_path("no");
	int before = count_entries(tmpdir);
	struct result r;

	build(&r);
	for (size_t i = 0; i < 3; i++) {
		struct error e = { .msg = "" };

		assert_int_equal(writers[i](&r, path, &e), -1);
		expect_in(e.msg, "cannot create '");
		expect_in(e.msg, path);
		assert_int_equal(access(parent, F_OK), -1);
	}
	assert_int_equal(count_entries(tmpdir), before);
	result_free(&r);
	free(parent);
	free(path);
}

/* Writing replaces a file whole and leaves no temporary file beside it. */
static void test_write_replaces(void **state)
{
	char dir[] = "/tmp/ys-test-replace-XXXXXX";
	struct result r;
	struct error e;
	char *path, *text;

	assert_non_null(mkdtemp(dir));
	path = xasprintf("%s/r.csv", dir);
	put(path, "old contents that are longer than the new ones, surely "
	     "longer than a header and nine rows of numbers? no: make it "
	     "long enough anyway, by repeating it. old contents old contents "
	     "old contents old contents old contents old contents old ......"
	     "old contents old contents old contents old contents old ......"
	     "old contents old contents old contents old contents old ......"
	     "old contents old contents old contents old contents old ......"
	     "old contents old contents old contents old contents old ......"
	     "old contents old contents old contents old contents old ......");
	build(&r);
	assert_int_equal(result_write_csv(&r, path, &e), 0);
	text = slurp(path);
	assert_int_equal(strncmp(text, "benchmark,n,", 12), 0);
	assert_null(strstr(text, "old"));
	assert_int_equal(count_entries(dir), 1);
	unlink(path);
	rmdir(dir);
	free(text);
	free(path);
	result_free(&r);
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

/* Warnings that differ only in their numbers are one line naming every
 * benchmark, each number as its range; others stay apart, in order. */
static void test_warnings_group(void **state)
{
	struct result r;
	struct warning_group *g;
	size_t n;

	(void)state;
	result_init(&r, "run");
	benchmark_add_warning(result_add_benchmark(&r, "a", NULL),
			      "cv 12.1%%, over 10%%; p99 needs 100 runs");
	benchmark_add_warning(result_add_benchmark(&r, "b", NULL),
			      "cv 69.3%%, over 10%%; p99 needs 100 runs");
	benchmark_add_warning(&r.benchmarks[1], "exit code 3");
	benchmark_add_warning(result_add_benchmark(&r, "c", NULL),
			      "cv 7%%, over 10%%; p99 needs 100 runs");
	n = warnings_group(&r, NULL, &g);
	assert_int_equal(n, 2);
	assert_string_equal(g[0].text, "cv 7-69.3%, over 10%; p99 needs 100 runs");
	assert_int_equal(g[0].nnames, 3);
	assert_string_equal(g[0].names[0], "a");
	assert_string_equal(g[0].names[2], "c");
	assert_string_equal(g[1].text, "exit code 3");
	assert_int_equal(g[1].nnames, 1);
	assert_string_equal(g[1].names[0], "b");
	warnings_free(g, n);
	result_free(&r);
}

/* Issue 25 case 15: metrics "x-y" and "x.y" sanitize to one family; the
 * second's series were reported as "given by an earlier result". They
 * are a collision, named with both names and the family. */
static void test_om_collision(void **state)
{
	struct result r;
	struct benchmark *b;
	struct om_doc *d = om_new();

	(void)state;
	result_init(&r, "run");
	b = result_add_benchmark(&r, "bench", NULL);
	metric_push(benchmark_metric(b, "x-y", "s"), 1);
	metric_push(benchmark_metric(b, "x.y", "s"), 2);
	result_summarize(&r, 1, 200);
	assert_int_equal(om_add_result(d, &r), 0);
	assert_int_equal(om_ncollisions(d), 1);
	assert_non_null(strstr(om_collision(d, 0), "'yardstick_x_y_seconds'"));
	assert_non_null(strstr(om_collision(d, 0), "metric x-y (s)"));
	assert_non_null(strstr(om_collision(d, 0), "metric x.y (s)"));
	assert_null(om_collision(d, 1));
	/* the same result again: repeats, not collisions */
	assert_true(om_add_result(d, &r) > 0);
	assert_int_equal(om_ncollisions(d), 1);
	om_free(d);
	result_free(&r);
}

/* A document of 100,000 series in one family and 20,000 families (a
 * result of as many benchmarks, or metrics): each series and family
 * found again, repeats counted, in well under the 5 s bound on a busy
 * machine. Searched linearly, the series alone were 5 * 10^9 string
 * comparisons (export of 8000 benchmarks took 36 s, 20,000 metrics over
 * a minute). */
static void test_om_many(void **state)
{
	struct om_doc *d = om_new();
	struct strbuf out = { 0 };
	struct timespec t0, t1;
	char name[32], value[32];
	size_t lines = 0;

	(void)state;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < 100000; i++) {
			struct om_label l = { "benchmark", value };

			snprintf(value, sizeof(value), "bench-%d", i);
			assert_int_equal(om_add(d, "one", OM_GAUGE, NULL, "h",
						&l, 1, i), pass);
		}
		for (int i = 0; i < 20000; i++) {
			snprintf(name, sizeof(name), "family_%d", i);
			assert_int_equal(om_add(d, name, OM_GAUGE, NULL, "h",
						NULL, 0, i), pass);
		}
	}
	om_write(d, OM_PROMETHEUS, NULL, 0, &out);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (const char *p = out.s; (p = strchr(p, '\n')); p++)
		lines++;
	/* each family's HELP and TYPE, and its series */
	assert_int_equal(lines, 2 * 20001 + 100000 + 20000);
	assert_non_null(strstr(out.s, "\none{benchmark=\"bench-99999\"} 99999\n"));
	assert_true((t1.tv_sec - t0.tv_sec) +
		    (t1.tv_nsec - t0.tv_nsec) / 1e9 < 5.0);
	free(out.s);
	om_free(d);
}

/* Issue 25 case 7: every writer writes valid JSON whatever the numbers:
 * a load result whose start and elapsed are NaN and infinite (jansson
 * refuses to make such reals: the writer aborted) and a metric holding
 * NaN, +inf and -inf write a file a strict parser reads, with null in
 * their places. */
static void test_write_nonfinite(void **state)
{
	struct result r;
	struct benchmark *b;
	struct metric *m;
	struct error e;
	char path[] = "/tmp/ys-nonfinite-XXXXXX";
	json_error_t je;
	json_t *root;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	result_init(&r, "load");
	b = result_add_benchmark(&r, "x", NULL);
	m = benchmark_metric(b, "latency", "s");
	metric_push(m, NAN);
	metric_push(m, INFINITY);
	metric_push(m, -INFINITY);
	metric_push(m, 0.001);
	b->load.present = true;
	b->load.start = NAN;
	b->load.elapsed = INFINITY;
	result_summarize(&r, 1, 100);
	assert_int_equal(result_write_json(&r, path, &e), 0);
	root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
	assert_non_null(root);
	json_decref(root);
	unlink(path);
	result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_om_collision),
		cmocka_unit_test(test_om_many),
		cmocka_unit_test(test_model),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_summarize_max_draws),
		cmocka_unit_test(test_unmeasured_runs),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_keys),
		cmocka_unit_test(test_json_unsummarized_and_nan),
		cmocka_unit_test(test_json_invalid_utf8),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_markdown_plain),
		cmocka_unit_test(test_markdown_fits),
		cmocka_unit_test(test_hostile_outputs),
		cmocka_unit_test(test_unique_names),
		cmocka_unit_test(test_unique_names_generated),
		cmocka_unit_test(test_unique_names_shown),
		cmocka_unit_test(test_comparison_sentence),
		cmocka_unit_test(test_cmp_verdict_names),
		cmocka_unit_test(test_read_malformed),
		cmocka_unit_test(test_read_truncated),
		cmocka_unit_test(test_read_design_example),
		cmocka_unit_test(test_read_load_counts),
		cmocka_unit_test(test_read_load_counts_generated),
		cmocka_unit_test(test_read_memory),
		cmocka_unit_test(test_read_missing_file),
		cmocka_unit_test(test_write_fails_cleanly),
		cmocka_unit_test(test_write_replaces),
		cmocka_unit_test(test_warnings_group),
		cmocka_unit_test(test_write_nonfinite),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
