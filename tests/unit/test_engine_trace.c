/*
 * Unit tests of trace's engine (src/engine/trace_run.h) driven by a plan
 * and a timeline alone, with no command line and no program: the result
 * of kind "trace" has one benchmark per zone name, in order of first
 * appearance, prefixed by the plan's name, its latency the durations of
 * the finished instances (known here, in ns, so the values are exact),
 * and a warning for the unfinished ones with their lower bound.
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

#include "engine/roofline_measure.h"
#include "engine/trace_import.h"
#include "engine/trace_run.h"
#include "result/metrics.h"

#define MS 1000000ull

static void zone(struct trace *t, const char *name, uint64_t start,
		 uint64_t end, uint16_t depth, bool unfinished)
{
	struct trace_event *e = trace_add(t, TRACE_ZONE);

	assert_non_null(e);
	e->pid = e->tid = e->end_tid = 7;
	e->start = start;
	e->end = end;
	e->depth = depth;
	e->name = trace_intern(t, name);
	e->flags = unfinished ? TRACE_ZONE_UNFINISHED : 0;
}


static void test_result_from_timeline(void **state)
{
	struct trace_plan p = { .top = 10, .max_events = 100, .name = "p" };
	struct trace_run r;
	const struct benchmark *b;
	const struct metric *m;

	p.so.freq = 99;
	memset(&r, 0, sizeof(r));
	r.p = &p;
	trace_init(&r.tr, (size_t)p.max_events);
	/* work 1 ms; work 2 ms with io 1 ms inside; tail never ends */
	zone(&r.tr, "work", 0, 1 * MS, 0, false);
	zone(&r.tr, "work", 2 * MS, 4 * MS, 0, false);
	zone(&r.tr, "io", 2 * MS + MS / 2, 3 * MS + MS / 2, 1, false);
	zone(&r.tr, "tail", 5 * MS, 5 * MS, 0, true);
	r.t_end = 8 * MS;
	trace_build_result(&r);
	assert_true(r.have_res);
	assert_string_equal(r.res.kind, "trace");
	assert_int_equal(r.res.nbenchmarks, 3);
	assert_string_equal(r.res.benchmarks[0].name, "p work");
	assert_string_equal(r.res.benchmarks[1].name, "p io");
	assert_string_equal(r.res.benchmarks[2].name, "p tail");

	b = result_find_benchmark(&r.res, "p work");
	m = benchmark_find_metric(b, METRIC_LATENCY);
	assert_non_null(m);
	assert_int_equal(m->n, 2);
	assert_true(fabs(m->values[0] - 0.001) < 1e-12);
	assert_true(fabs(m->values[1] - 0.002) < 1e-12);
	b = result_find_benchmark(&r.res, "p io");
	m = benchmark_find_metric(b, METRIC_LATENCY);
	assert_int_equal(m->n, 1);
	assert_true(fabs(m->values[0] - 0.001) < 1e-12);
	/* the unfinished one: no value, a warning with its 3 ms bound */
	b = result_find_benchmark(&r.res, "p tail");
	assert_null(benchmark_find_metric(b, METRIC_LATENCY));
	assert_int_equal(b->nwarnings, 1);
	assert_non_null(strstr(b->warnings[0], "unfinished: 1 instance"));
	assert_non_null(strstr(b->warnings[0], "at least 0.003 s"));
	/* built once */
	trace_build_result(&r);
	assert_int_equal(r.res.nbenchmarks, 3);
	result_free(&r.res);
	trace_free(&r.tr);
}

/*
 * Engines return -1 and say the failure's class; the command takes its
 * exit code from it (error_exit_code), never from a code of the
 * engine's own: import's unreadable or malformed trace is bad input (2);
 * roofline's machine without a cache topology in sysfs takes cpuid's and
 * says so, more threads than CPUs is bad input (2).
 */
static void test_engine_error_classes(void **state)
{
	char dir[] = "/tmp/ys-engine-XXXXXX", path[64];
	struct trace_import_plan ip = { .max_events = 10, .top = 5 };
	struct roofline_measure_plan rp = { .quick = true };
	struct roofline_measurement mm;
	struct trace_import im;
	struct error e;
	FILE *fp;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/absent.json", dir);
	ip.path = path;
	assert_int_equal(trace_import_read(&im, &ip, &e), -1);
	assert_int_equal(error_exit_code(&e), 2);
	trace_import_free(&im);
	snprintf(path, sizeof(path), "%s/bad.json", dir);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"traceEvents\": [", fp);
	assert_int_equal(fclose(fp), 0);
	assert_int_equal(trace_import_read(&im, &ip, &e), -1);
	assert_int_equal(error_exit_code(&e), 2);
	trace_import_free(&im);

	/* an empty sysfs: no cache topology there, cpuid's then, said */
	setenv("YARDSTICK_SYSFS", dir, 1);
	assert_int_equal(roofline_measure_prepare(&rp, &mm, &e), 0);
	assert_non_null(strstr(mm.caches_note, "the cache sizes are cpuid's: "
			       "cannot read the caches in '/tmp/ys-engine-"));
	roofline_measurement_free(&mm);
	unsetenv("YARDSTICK_SYSFS");
	rp.threads = 100000;
	assert_int_equal(roofline_measure_prepare(&rp, &mm, &e), -1);
	assert_int_equal(error_exit_code(&e), 2);
	assert_non_null(strstr(e.msg, "--threads 100000"));
	roofline_measurement_free(&mm);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_from_timeline),
		cmocka_unit_test(test_engine_error_classes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
