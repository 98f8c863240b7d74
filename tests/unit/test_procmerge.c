/*
 * One program's results from several processes merged into one
 * (result/procmerge.c), and the per-value process ids through the JSON
 * writer and reader (json.c, json_read.c). The truth is built here: each
 * generated part's values are known, so the merged metric must be their
 * concatenation in process order, each value with its part's id.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "result/procmerge.h"
#include "result/result.h"
#include "stats/stats.h"
#include "util/strutil.h"

/* A part as one process of a libyardstick program writes it: benchmarks
 * "a" and "b [n=2]", time_per_op of nepochs values (base + process +
 * epoch/100: every value tells where it came from), a group comparison
 * of b against a, a warning with a number in it. */
static void build_part(struct result *r, unsigned proc, size_t nepochs,
		       bool with_b)
{
	struct benchmark *b;

	result_init(r, "bench");
	result_set_num(r, "seed", 7);
	result_set_num(r, "bootstrap_resamples", 200);
	result_set_num(r, "epochs", (double)nepochs);
	b = result_add_benchmark(r, "a", NULL);
	for (size_t k = 0; k < nepochs; k++)
		metric_push(benchmark_metric(b, "time_per_op", "s"),
			    1e-6 * (1 + proc + k / 100.0));
	metric_push(benchmark_metric(b, "allocs_per_op", "count"), 3);
	benchmark_add_warning(b, "unstable: varies by %u.%u%%", 5 + proc,
			      proc);
	benchmark_add_unsupported(b, "cycles");
	if (with_b) {
		b = result_add_benchmark(r, "b", NULL);
		benchmark_add_param(b, "n", "2");
		for (size_t k = 0; k < nepochs; k++)
			metric_push(benchmark_metric(b, "time_per_op", "s"),
				    2e-6 * (1 + proc + k / 100.0));
	}
	result_summarize(r, 7, 200);
	if (with_b) {
		struct comparison c = { .baseline = "a", .candidate = "b",
					.metric = "time_per_op", .ratio = 2 };

		result_add_comparison(r, &c);
	}
}

/* Merge parts 0..n-1 (of nepochs[i] epochs each) into *r. */
static void merge_parts(struct result *r, const size_t *nepochs, size_t n)
{
	struct error e;

	result_init(r, NULL);
	for (size_t i = 0; i < n; i++) {
		struct result part;

		build_part(&part, (unsigned)i, nepochs[i], true);
		assert_int_equal(result_merge_process(r, &part, (unsigned)i,
						      &e), 0);
		assert_int_equal(part.nbenchmarks, 0);	/* moved or freed */
	}
	result_merge_finish(r, (unsigned)n);
}

/* Every value of metric name of benchmark bench in r is where the parts
 * put it, with its part's process id. */
static void assert_merged(const struct result *r, const char *bench,
			  double scale, const size_t *nepochs, size_t n)
{
	const struct metric *m =
		benchmark_find_metric(result_find_benchmark(r, bench),
				      "time_per_op");
	size_t v = 0;

	assert_non_null(m);
	assert_non_null(m->process);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nepochs[i]; k++, v++) {
			assert_true(v < m->n);
			assert_int_equal(m->process[v], i);
			assert_true(m->values[v] ==
				    scale * (1 + i + k / 100.0));
		}
	assert_int_equal(m->n, v);
	assert_int_equal(metric_processes(m), n);
	assert_int_equal(m->summary.n, v);	/* summarized again */
}

/* Generated cases: 2 to 12 processes of 1 to 9 epochs each. */
static void test_merge_generated(void **state)
{
	struct rng rng;

	(void)state;
	rng_seed(&rng, 24);
	for (int t = 0; t < 200; t++) {
		size_t n = 2 + rng_below(&rng, 11), nepochs[12];
		const struct benchmark *a;
		struct result r;

		for (size_t i = 0; i < n; i++)
			nepochs[i] = 1 + rng_below(&rng, 9);
		merge_parts(&r, nepochs, n);
		assert_int_equal(r.nbenchmarks, 2);
		assert_merged(&r, "a", 1e-6, nepochs, n);
		assert_merged(&r, "b", 2e-6, nepochs, n);
		a = result_find_benchmark(&r, "a");
		/* one value a process: n of them, all process ids */
		assert_int_equal(benchmark_find_metric(a, "allocs_per_op")->n,
				 n);
		/* "varies by 5.0%", "6.1%", ... said once; cycles once */
		assert_int_equal(a->nwarnings, 1);
		assert_int_equal(a->nunsupported, 1);
		/* the setting, and the comparison made again on every
		 * value: b is exactly 2x a in every process */
		assert_string_equal(r.settings[r.nsettings - 1].key,
				    "processes");
		assert_true(r.settings[r.nsettings - 1].num == n);
		assert_int_equal(r.ncomparisons, 1);
		assert_string_equal(r.comparisons[0].candidate, "b");
		assert_true(fabs(r.comparisons[0].ratio - 2) < 1e-9);
		result_free(&r);
	}
}

/* One process: the model's "all in one", no process ids. */
static void test_merge_one(void **state)
{
	static const size_t one[] = { 4 };
	struct result r;

	(void)state;
	merge_parts(&r, one, 1);
	assert_null(r.benchmarks[0].metrics[0].process);
	assert_int_equal(r.benchmarks[0].metrics[0].n, 4);
	assert_true(r.settings[r.nsettings - 1].num == 1);
	result_free(&r);
}

/* A benchmark only a later process ran is added; a metric in another
 * unit is refused, naming the process. */
static void test_merge_unlike(void **state)
{
	struct result r, part;
	struct error e;

	(void)state;
	result_init(&r, NULL);
	build_part(&part, 0, 3, false);
	assert_int_equal(result_merge_process(&r, &part, 0, &e), 0);
	build_part(&part, 1, 3, true);
	assert_int_equal(result_merge_process(&r, &part, 1, &e), 0);
	assert_int_equal(r.nbenchmarks, 2);
	assert_string_equal(r.benchmarks[1].params[0].value, "2");
	assert_int_equal(r.benchmarks[1].metrics[0].process[0], 1);
	build_part(&part, 2, 3, true);
	free(part.benchmarks[0].metrics[0].unit);
	part.benchmarks[0].metrics[0].unit = xstrdup("ns");
	assert_int_equal(result_merge_process(&r, &part, 2, &e), -1);
	assert_string_equal(e.msg, "process 2: benchmark 'a': metric "
			    "'time_per_op' in 'ns', not 's' as before");
	result_free(&r);
}

/* metric_push after metric_push_process keeps the arrays parallel (the
 * new value process 0's), through growth. */
static void test_push_parallel(void **state)
{
	struct metric m = { 0 };

	(void)state;
	metric_push(&m, 1);
	metric_push_process(&m, 2, 5);
	for (int i = 0; i < 100; i++)
		metric_push(&m, 3 + i);
	metric_push_process(&m, 9, 7);
	assert_int_equal(m.n, 103);
	assert_int_equal(m.process[0], 0);
	assert_int_equal(m.process[1], 5);
	assert_int_equal(m.process[50], 0);
	assert_int_equal(m.process[102], 7);
	assert_int_equal(metric_processes(&m), 3);
	free(m.values);
	free(m.process);
}

/* Written as "process", read back equal; a result without them has no
 * "process" key and reads back without. */
static void test_json_round_trip(void **state)
{
	static const size_t ne[] = { 2, 3, 1, 4 };
	char path[] = "/tmp/ys-test-procmerge-XXXXXX";
	char *file;
	struct result r, back;
	struct error e;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	file = xasprintf("%s", path);
	merge_parts(&r, ne, 4);
	assert_int_equal(result_write_json(&r, file, &e), 0);
	assert_int_equal(result_read_json(&back, file, &e), 0);
	for (size_t i = 0; i < r.nbenchmarks; i++)
		for (size_t k = 0; k < r.benchmarks[i].nmetrics; k++) {
			const struct metric *a = &r.benchmarks[i].metrics[k];
			const struct metric *b = &back.benchmarks[i].metrics[k];

			assert_int_equal(a->n, b->n);
			assert_non_null(b->process);
			assert_memory_equal(a->process, b->process,
					    a->n * sizeof(unsigned));
		}
	result_free(&back);
	result_free(&r);
	merge_parts(&r, ne, 1);
	assert_int_equal(result_write_json(&r, file, &e), 0);
	assert_int_equal(result_read_json(&back, file, &e), 0);
	assert_null(back.benchmarks[0].metrics[0].process);
	result_free(&back);
	result_free(&r);
	close(fd);
	unlink(file);
	free(file);
}

/* A "process" that does not fit its values: refused, the place named. */
static void test_json_bad_process(void **state)
{
	static const struct {
		const char *process, *msg;
	} cases[] = {
		{ "[0, 1]", "benchmarks[0].metrics.t.process: expected one "
		  "process per value" },
		{ "[0, 1, 2, 3]", "benchmarks[0].metrics.t.process: expected "
		  "one process per value" },
		{ "[0, -1, 2]", "benchmarks[0].metrics.t.process[1]: expected "
		  "a process number from 0 to 1000000" },
		{ "[0, 1, 1000001]", "benchmarks[0].metrics.t.process[2]: "
		  "expected a process number from 0 to 1000000" },
		{ "[0, 1.5, 2]", "benchmarks[0].metrics.t.process[1]: "
		  "expected an integer" },
		{ "{}", "benchmarks[0].metrics.t.process: expected an array" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *doc = xasprintf(
			"{\"schema\": \"yardstick/result/v1\", \"kind\": "
			"\"bench\", \"benchmarks\": [{\"name\": \"x\", "
			"\"metrics\": {\"t\": {\"unit\": \"s\", \"values\": "
			"[1, 2, 3], \"process\": %s}}}]}", cases[i].process);
		struct result r;
		struct error e;

		assert_int_equal(result_read_json_mem(&r, "'p'", doc,
						      strlen(doc), &e), -1);
		if (!strstr(e.msg, cases[i].msg))
			fail_msg("%s: got '%s'", cases[i].process, e.msg);
		result_free(&r);
		free(doc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_generated),
		cmocka_unit_test(test_merge_one),
		cmocka_unit_test(test_merge_unlike),
		cmocka_unit_test(test_push_parallel),
		cmocka_unit_test(test_json_round_trip),
		cmocka_unit_test(test_json_bad_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
