/*
 * Unit tests of src/result/metrics (the vocabulary of metrics) and of
 * what asks it: the table is consistent (every unit of its dimension,
 * settings are iterations and epochs, ranks unique), unknown names get
 * their unit's fallback, a made-up metric is judged by compare and gate
 * in its own direction and unit, rates are scaled by the one formatter,
 * and gate thresholds carry a unit of their metric's dimension (every
 * known metric against every unit, generated).
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

#include "result/compare.h"
#include "result/gate.h"
#include "result/metrics.h"
#include "util/term.h"

static void test_table_consistent(void **state)
{
	size_t n, nset = 0;
	const struct metric_info *t = metrics_table(&n);

	(void)state;
	assert_true(n > 30);
	for (size_t i = 0; i < n; i++) {
		const struct metric_info *m = &t[i];

		assert_non_null(m->name);
		assert_non_null(m->unit);
		assert_true(m->label && *m->label);
		/* the unit is one of the dimension's */
		if (metrics_unit_dim(m->unit) != m->dim)
			fail_msg("%s: unit '%s' is not a %s", m->name, m->unit,
				 metrics_dim_name(m->dim));
		assert_true(m->dir == DIR_LOWER || m->dir == DIR_HIGHER ||
			    m->dir == DIR_NEITHER);
		assert_int_equal(m->stat, STAT_MEDIAN);
		/* a rate of work is a rate, and more of it is better */
		if (m->rate_rank) {
			assert_int_equal(m->dim, DIM_RATE);
			assert_int_equal(m->dir, DIR_HIGHER);
		}
		if (m->setting) {
			nset++;
			assert_true(!strcmp(m->name, "iterations") ||
				    !strcmp(m->name, "epochs") ||
				    !strcmp(m->name, LOAD_COUNT_REQUESTS));
			assert_int_equal(m->dir, DIR_NEITHER);
			assert_int_equal(m->headline, 0);
		}
		assert_ptr_equal(metrics_lookup(m->name, "whatever"), m);
		assert_true(metrics_known(m->name));
		for (size_t k = 0; k < i; k++) {
			assert_string_not_equal(t[k].name, m->name);
			assert_true(!m->headline ||
				    t[k].headline != m->headline);
			assert_true(!m->rate_rank ||
				    t[k].rate_rank != m->rate_rank);
		}
	}
	assert_int_equal(nset, 3);
}

/* Every metric the result contract (docs/result-format.md, its tables
 * "| metric | unit | meaning |") names is in the vocabulary, in the same
 * unit: the two cannot drift apart. */
static void test_agrees_with_result_format(void **state)
{
	FILE *fp = fopen(TESTDATA_DIR "/../../docs/result-format.md", "r");
	char line[1024];
	bool in_table = false, header = false;
	size_t rows = 0;

	(void)state;
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		char name[64], unit[64];

		if (!strncmp(line, "<!-- keys: metrics.", 19)) {
			header = true;
			continue;
		}
		if (header) {
			in_table = !strncmp(line, "| metric | unit |", 17);
			header = false;
			continue;
		}
		if (in_table && line[0] != '|')
			in_table = false;
		if (!in_table || !strncmp(line, "|---", 4))
			continue;
		if (sscanf(line, "| `%63[^`]` | %63[^ |] |", name, unit) != 2)
			fail_msg("cannot read the row '%s'", line);
		if (!metrics_known(name))
			fail_msg("result-format.md names '%s', the vocabulary "
				 "does not", name);
		if (strcmp(metrics_lookup(name, NULL)->unit, unit))
			fail_msg("'%s': result-format.md says '%s', the "
				 "vocabulary '%s'", name, unit,
				 metrics_lookup(name, NULL)->unit);
		rows++;
	}
	fclose(fp);
	assert_true(rows > 40);
}

/* Names yardstick does not know take their unit's fallback. */
static void test_fallbacks(void **state)
{
	static const struct {
		const char *unit;
		enum metric_dim dim;
		enum metric_dir dir;
	} cases[] = {
		{ "s", DIM_TIME, DIR_LOWER },
		{ "bytes", DIM_BYTES, DIR_LOWER },
		{ "zorps/s", DIM_RATE, DIR_HIGHER },
		{ "bytes/s", DIM_RATE, DIR_HIGHER },
		{ "flop/byte", DIM_RATIO, DIR_NEITHER },
		{ "ratio", DIM_RATIO, DIR_NEITHER },
		{ "count", DIM_COUNT, DIR_NEITHER },
		{ "widgets", DIM_COUNT, DIR_NEITHER },
		{ "", DIM_COUNT, DIR_NEITHER },
		{ NULL, DIM_COUNT, DIR_NEITHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct metric_info *m =
			metrics_lookup("made_up_metric", cases[i].unit);

		assert_non_null(m);
		assert_null(m->name);
		assert_int_equal(m->dim, cases[i].dim);
		assert_int_equal(m->dir, cases[i].dir);
		assert_false(m->setting);
		assert_int_equal(m->headline, 0);
		assert_int_equal(m->rate_rank, 0);
	}
	assert_non_null(metrics_lookup(NULL, NULL));
	assert_false(metrics_known("made_up_metric"));
}

/* The five metrics compare.c once listed by hand and load --find-max's
 * max_throughput, and no other known one, are higher-is-better: the
 * wrapper agrees with the table. */
static void test_direction(void **state)
{
	static const char *const higher[] = {
		"throughput", "ipc", "flops_per_second", "items_per_second",
		"bytes_per_second", "max_throughput",
	};
	size_t n;
	const struct metric_info *t = metrics_table(&n);

	(void)state;
	for (size_t i = 0; i < sizeof(higher) / sizeof(*higher); i++)
		assert_true(metric_higher_is_better(higher[i]));
	for (size_t i = 0; i < n; i++) {
		bool listed = false;

		for (size_t k = 0; k < sizeof(higher) / sizeof(*higher); k++)
			listed |= !strcmp(higher[k], t[i].name);
		assert_int_equal(metric_higher_is_better(t[i].name), listed);
	}
	assert_false(metric_higher_is_better("wall_time"));
	assert_true(metric_is_setting("iterations"));
	assert_false(metric_is_setting("time_per_op"));
}

static struct metric *put(struct benchmark *b, const char *name,
			  const char *unit, double v0, double step, size_t n)
{
	struct metric *m = benchmark_metric(b, name, unit);

	for (size_t i = 0; i < n; i++)
		metric_push(m, v0 + step * (double)i);
	return m;
}

/* Headlines in rank order; a benchmark's headline and rate by rank. */
static void test_headline_and_rate(void **state)
{
	const char *const *h = metrics_headlines();
	struct result r;
	struct benchmark *b;

	(void)state;
	assert_string_equal(h[0], "latency");
	assert_string_equal(h[1], "wall_time");
	assert_string_equal(h[2], "time_per_op");
	assert_string_equal(h[3], "peak_heap");
	for (size_t i = 0; h[i]; i++)
		assert_int_equal(metrics_lookup(h[i], NULL)->headline,
				 (int)i + 1);
	result_init(&r, "bench");
	b = result_add_benchmark(&r, "k", NULL);
	put(b, "made_up", "s", 1, 0, 3);
	put(b, "items_per_second", "items/s", 5, 0, 3);
	put(b, "flops_per_second", "flop/s", 5, 0, 3);
	put(b, "iterations", "count", 100, 0, 3);
	put(b, "time_per_op", "s", 2, 0, 3);
	result_summarize(&r, 1, 0);
	assert_string_equal(metrics_headline_of(b)->name, "time_per_op");
	assert_string_equal(metrics_rate_of(b)->name, "flops_per_second");
	assert_string_equal(metrics_headline_name(&r), "time_per_op");
	result_free(&r);
	/* no headline metric: the first one */
	result_init(&r, "run");
	b = result_add_benchmark(&r, "k", NULL);
	put(b, "made_up", "s", 1, 0, 3);
	result_summarize(&r, 1, 0);
	assert_null(metrics_headline_of(b));
	assert_null(metrics_rate_of(b));
	assert_string_equal(metrics_headline_name(&r), "made_up");
	result_free(&r);
}

/* Rates are scaled as the bench table scales them: one formatter. */
static void test_rate_format(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(fmt_value(2044346595, "flop/s", buf,
				      sizeof(buf)), "2.044 G flop/s");
	assert_string_equal(fmt_value(21.19 * 1073741824.0, "bytes/s", buf,
				      sizeof(buf)), "21.19 GiB/s");
	assert_string_equal(fmt_value(1.2e6, "items/s", buf, sizeof(buf)),
			    "1.200 M items/s");
	assert_string_equal(fmt_value(500, "requests/s", buf, sizeof(buf)),
			    "500 requests/s");
	assert_string_equal(fmt_value(512, "bytes/s", buf, sizeof(buf)),
			    "512 B/s");
	/* "/s" alone is a unit of its own, printed as is */
	assert_string_equal(fmt_value(3, "/s", buf, sizeof(buf)), "3.000 /s");
}

/* Two results of one benchmark whose made-up metrics rise by 50%. */
static void made_up_pair(struct result *base, struct result *cand)
{
	struct result *rs[2] = { base, cand };

	for (int k = 0; k < 2; k++) {
		struct benchmark *b;
		double f = k ? 1.5 : 1;

		result_init(rs[k], "bench");
		b = result_add_benchmark(rs[k], "k", NULL);
		put(b, "zorps_per_second", "zorps/s", 2e9 * f, 1e6, 20);
		put(b, "frob_time", "s", 0.010 * f, 1e-5, 20);
		put(b, "iterations", "count", 1000 * f, 1, 20);
		result_summarize(rs[k], 1, 200);
	}
}

static const struct metric_cmp *row(const struct compare_report *rep,
				    const char *metric)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->rows[i].metric, metric))
			return &rep->rows[i];
	return NULL;
}

/* A made-up rate rising is better, a made-up time rising is slower; the
 * setting is not compared; the rate is printed scaled. */
static void test_made_up_compare(void **state)
{
	struct result base, cand;
	struct compare_opts o;
	struct compare_report rep;
	struct error e;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	made_up_pair(&base, &cand);
	compare_opts_init(&o);
	assert_int_equal(compare_results(&base, &cand, &o, &rep, &e), 0);
	assert_int_equal(row(&rep, "zorps_per_second")->verdict, CMP_BETTER);
	assert_int_equal(row(&rep, "frob_time")->verdict, CMP_SLOWER);
	assert_null(row(&rep, "iterations"));
	fp = open_memstream(&text, &len);
	compare_print(&rep, fp);
	fclose(fp);
	assert_non_null(strstr(text, "G zorps/s"));
	assert_null(strstr(text, "iterations"));
	free(text);
	compare_report_free(&rep);
	result_free(&base);
	result_free(&cand);
}

/* The gate holds a made-up metric to a threshold in its own unit, and
 * refuses a bare number or another dimension once it sees the unit. */
static void test_made_up_gate(void **state)
{
	static const struct {
		const char *spec;
		enum gate_kind kind;
		int ret;		/* of gate_evaluate */
		bool fails;
		const char *msg;	/* in the error, when ret */
	} cases[] = {
		{ "frob_time=1ms", GATE_INCREASE, 0, true, NULL },
		{ "frob_time=50ms", GATE_INCREASE, 0, false, NULL },
		{ "frob_time=15", GATE_INCREASE, -1, false,
		  "'frob_time=15': frob_time is measured in s: a time needs "
		  "a unit: 15ms, 15s or 5%" },
		{ "frob_time=2MiB", GATE_INCREASE, -1, false,
		  "is measured in s, the threshold is a bytes" },
		{ "zorps_per_second=10%", GATE_DECREASE, 0, false, NULL },
		{ "zorps_per_second=1G/s", GATE_LIMIT, 0, true, NULL },
		{ "zorps_per_second=5G/s", GATE_LIMIT, 0, false, NULL },
		{ "zorps_per_second=1000", GATE_LIMIT, -1, false,
		  "a rate needs a unit: 1000/s" },
		{ "zorps_per_second=1ms", GATE_LIMIT, -1, false,
		  "the threshold is a time" },
	};
	struct result base, cand;

	(void)state;
	made_up_pair(&base, &cand);
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct gate_threshold t;
		struct gate_report rep;
		struct gate_opts o;
		struct error e;
		int ret;

		assert_int_equal(gate_parse(cases[i].spec, cases[i].kind, NULL,
					    &t, &e), 0);
		gate_opts_init(&o);
		ret = gate_evaluate(&base, &cand, &t, 1, &o, &rep, &e);
		if (ret != cases[i].ret)
			fail_msg("%s: %d (%s)", cases[i].spec, ret,
				 ret ? e.msg : "");
		if (ret && !strstr(e.msg, cases[i].msg))
			fail_msg("%s: '%s'", cases[i].spec, e.msg);
		if (!ret && (rep.failed > 0) != cases[i].fails)
			fail_msg("%s: failed %zu", cases[i].spec, rep.failed);
		gate_report_free(&rep);
		gate_threshold_free(&t);
	}
	result_free(&base);
	result_free(&cand);
}

/* Every known metric against every unit: accepted exactly when the
 * unit's dimension is the metric's (a bare number for counts and
 * ratios, a % for all). */
static void test_threshold_units_generated(void **state)
{
	static const struct {
		const char *suffix;
		int dim;		/* enum metric_dim; -1 any (%) */
	} units[] = {
		{ "", DIM_COUNT }, { "%", -1 }, { "ns", DIM_TIME },
		{ "us", DIM_TIME }, { "\xc2\xb5s", DIM_TIME },
		{ "ms", DIM_TIME }, { "s", DIM_TIME }, { "B", DIM_BYTES },
		{ "KiB", DIM_BYTES }, { "MiB", DIM_BYTES },
		{ "GiB", DIM_BYTES }, { "kB", DIM_BYTES }, { "MB", DIM_BYTES },
		{ "GB", DIM_BYTES }, { "k/s", DIM_RATE }, { "M/s", DIM_RATE },
		{ "/s", DIM_RATE }, { "MiB/s", DIM_RATE },
	};
	size_t n;
	const struct metric_info *t = metrics_table(&n);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < sizeof(units) / sizeof(*units); k++) {
			char spec[96];
			struct gate_threshold th;
			struct error e;
			int d = units[k].dim;
			bool want = d < 0 || (enum metric_dim)d == t[i].dim ||
				    (d == DIM_COUNT && t[i].dim == DIM_RATIO);
			int ret;

			/* a byte rate fits bytes_per_second only */
			if (!strcmp(units[k].suffix, "MiB/s"))
				want = !strcmp(t[i].unit, "bytes/s");
			snprintf(spec, sizeof(spec), "%s=15%s", t[i].name,
				 units[k].suffix);
			ret = gate_parse(spec, GATE_INCREASE, NULL, &th, &e);
			if ((ret == 0) != want)
				fail_msg("%s: %s", spec, ret ? e.msg
							     : "accepted");
			if (ret)
				assert_non_null(strstr(e.msg, spec));
			else
				gate_threshold_free(&th);
		}
	}
}

/* A bare 0 is 0 in every unit: accepted on any metric. */
static void test_bare_zero(void **state)
{
	static const char *const specs[] = {
		"leaked_bytes=0", "wall_time.p99=0", "throughput=0",
		"made_up=0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(specs) / sizeof(*specs); i++) {
		struct gate_threshold t;
		struct error e;

		assert_int_equal(gate_parse(specs[i], GATE_INCREASE, NULL, &t,
					    &e), 0);
		assert_true(gate_unit_fits(&t, "s"));
		assert_true(gate_unit_fits(&t, "bytes"));
		gate_threshold_free(&t);
	}
}

/* The cases the issue names, with their messages. */
static void test_threshold_messages(void **state)
{
	static const struct {
		const char *spec, *msg;
	} cases[] = {
		{ "wall_time.p99=15", "'wall_time.p99=15': a time needs a "
		  "unit: 15ms, 15s or 5%" },
		{ "wall_time=2MiB", "'wall_time=2MiB': wall_time is a time "
		  "(s), 'MiB' is not: a time needs a unit: 2ms, 2s or 5%" },
		{ "peak_rss=100", "'peak_rss=100': a size needs a unit: "
		  "100MiB, 100MB or 5%" },
		{ "throughput.min=1000", "'throughput.min=1000': a rate needs "
		  "a unit: 1000/s, 1000k/s, 1000MiB/s or 5%" },
		{ "throughput=1ms", "'throughput=1ms': throughput is a rate "
		  "(requests/s), 'ms' is not" },
		/* the longest number the hint quotes (20 characters), three
		 * times: the hint's buffer was 96 bytes, the message 101 */
		{ "throughput=12345678901234567890", "'throughput="
		  "12345678901234567890': a rate needs a unit: "
		  "12345678901234567890/s, 12345678901234567890k/s, "
		  "12345678901234567890MiB/s or 5%" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct gate_threshold t;
		struct error e;

		assert_int_equal(gate_parse(cases[i].spec, GATE_INCREASE,
					    NULL, &t, &e), -1);
		if (strncmp(e.msg, cases[i].msg, strlen(cases[i].msg)))
			fail_msg("'%s' not '%s'", e.msg, cases[i].msg);
	}
}

/* The case: a +30 ms regression of the p99 against 15ms FAILs
 * (a bare 15 was 15 s and passed it). 40 runs a side, p99 from ~100 ms
 * to ~130 ms. */
static void test_thirty_ms_regression_fails(void **state)
{
	struct result r[2];
	struct gate_threshold t;
	struct gate_report rep;
	struct gate_opts o;
	struct error e;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct benchmark *b;

		result_init(&r[k], "run");
		b = result_add_benchmark(&r[k], "sort", NULL);
		put(b, "wall_time", "s", 0.090 + 0.030 * k, 0.0003, 40);
		result_summarize(&r[k], 1, 0);
	}
	assert_int_equal(gate_parse("wall_time.p99=15", GATE_INCREASE, NULL,
				    &t, &e), -1);
	assert_int_equal(gate_parse("wall_time.p99=15ms", GATE_INCREASE,
				    NULL, &t, &e), 0);
	assert_float_equal(t.value, 0.015, 1e-15);
	gate_opts_init(&o);
	assert_int_equal(gate_evaluate(&r[0], &r[1], &t, 1, &o, &rep, &e), 0);
	assert_int_equal(rep.n, 1);
	assert_int_equal(rep.checks[0].verdict, GATE_FAIL);
	assert_int_equal(rep.failed, 1);
	gate_report_free(&rep);
	gate_threshold_free(&t);
	for (int k = 0; k < 2; k++)
		result_free(&r[k]);
}

/* errors is a count out of the benchmark's requests in the vocabulary,
 * and the judge's sample says so: the trials from load's counts, none
 * for another metric or without the counts (a result from the store). */
static void test_errors_are_a_proportion(void **state)
{
	struct result r;
	struct benchmark *b;
	struct metric *m, *lat;
	struct judge_sample s;

	(void)state;
	assert_string_equal(metrics_lookup(METRIC_ERRORS, NULL)->trials,
			    LOAD_COUNT_REQUESTS);
	assert_null(metrics_lookup(METRIC_ERROR_RATE, NULL)->trials);
	assert_null(metrics_lookup("zorps", "count")->trials);
	result_init(&r, "load");
	b = result_add_benchmark(&r, "GET /", NULL);
	m = benchmark_metric(b, METRIC_ERRORS, "count");
	metric_push(m, 60);
	lat = benchmark_metric(b, METRIC_LATENCY, "s");
	metric_push(lat, 0.01);
	metrics_judge_sample(b, m, &s);
	assert_true(isnan(s.trials));	/* no counts: unknown trials */
	/* a stored result: the requests metric load writes beside it */
	metric_push(benchmark_metric(b, LOAD_COUNT_REQUESTS, "count"), 500);
	metrics_judge_sample(b, m, &s);
	assert_true(s.trials == 500 && s.n == 1 && s.v[0] == 60);
	assert_true(metrics_lookup(LOAD_COUNT_REQUESTS, "count")->setting);
	b->load.present = true;
	load_detail_set_count(&b->load, LOAD_COUNT_REQUESTS, 600);
	metrics_judge_sample(b, m, &s);
	assert_true(s.trials == 600 && s.n == 1 && s.v[0] == 60);
	metrics_judge_sample(b, lat, &s);
	assert_true(s.trials == 0);
	result_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_consistent),
		cmocka_unit_test(test_agrees_with_result_format),
		cmocka_unit_test(test_fallbacks),
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_headline_and_rate),
		cmocka_unit_test(test_rate_format),
		cmocka_unit_test(test_made_up_compare),
		cmocka_unit_test(test_made_up_gate),
		cmocka_unit_test(test_threshold_units_generated),
		cmocka_unit_test(test_bare_zero),
		cmocka_unit_test(test_threshold_messages),
		cmocka_unit_test(test_thirty_ms_regression_fails),
		cmocka_unit_test(test_errors_are_a_proportion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
