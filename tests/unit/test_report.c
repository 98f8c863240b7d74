/*
 * Unit tests of the HTML report (src/report/): the page is a pure function
 * of its input, outside text never becomes markup nor reaches the script,
 * the axes map as drawn, and the history marks the change point that
 * stats/changepoint.c finds. tests/cli/report.sh opens pages in Chromium;
 * these run without a browser, under the sanitizers too.
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

#include "report/chart.h"
#include "report/report.h"
#include "util/fileio.h"
#include "util/strutil.h"

static char tmpdir[] = "/tmp/ys-report-XXXXXX";

static const char *const hostile[] = {
	"</script><script>alert(1)</script>",
	"<img src=x onerror=alert(2)>",
	"q\"uo'te&amp;",
	"ctl\x01\x1b[31m\xe2\x80\xa8\xe2\x80\xae end",
	"bad utf-8 \xff\xfe",
};
#define NHOSTILE (sizeof(hostile) / sizeof(hostile[0]))

static void hostile_result(struct result *r)
{
	result_init(r, "run");
	r->git.commit = xstrdup(hostile[0]);
	r->git.branch = xstrdup(hostile[1]);
	r->machine.hostname = xstrdup(hostile[2]);
	for (size_t i = 0; i < NHOSTILE; i++) {
		char *const argv[] = { (char *)hostile[i], NULL };
		struct benchmark *b = result_add_benchmark(r, hostile[i], argv);
		struct metric *m = benchmark_metric(b, "wall_time", "s");
		struct metric *h = benchmark_metric(b, hostile[i], hostile[i]);

		benchmark_add_param(b, hostile[i], hostile[i]);
		benchmark_add_warning(b, "%s", hostile[i]);
		benchmark_add_unsupported(b, hostile[i]);
		for (int k = 1; k <= 30; k++) {
			metric_push(m, k * 1e-3);
			metric_push(h, k);
		}
	}
	result_summarize(r, 1, 200);
}

static char *page_of(const struct report_input *in, const char *name)
{
	char *path = xasprintf("%s/%s", tmpdir, name), *data;
	struct error e;
	size_t len;

	assert_int_equal(report_write_html(in, path, &e), 0);
	assert_int_equal(file_read_all(path, &data, &len, &e), 0);
	assert_int_equal(strlen(data), len);
	free(path);
	return data;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_hostile_text(void **state)
{
	static const char *const all[] = { "all", NULL };
	struct result r, base;
	struct report_set set;
	struct compare_report cmp;
	struct compare_opts o;
	struct report_input in = { &set, 1, .charts = all };
	char *page, *again;
	struct error e;

	(void)state;
	hostile_result(&r);
	hostile_result(&base);
	set = (struct report_set){ hostile[1], &r };
	compare_opts_init(&o);
	assert_int_equal(compare_results(&base, &r, &o, &cmp, &e), 0);
	in.cmp = &cmp;
	in.baseline_label = hostile[0];
	page = page_of(&in, "a.html");
	again = page_of(&in, "b.html");
	/* the same input, the same bytes */
	assert_string_equal(page, again);
	/* one script, opened and closed once; no element from a name */
	assert_int_equal(count(page, "<script"), 1);
	assert_int_equal(count(page, "</script"), 1);
	assert_int_equal(count(page, "<img"), 0);
	assert_int_equal(count(page, "alert(1)</script>"), 0);
	assert_true(count(page, "&lt;/script&gt;&lt;script&gt;alert(1)") > 5);
	assert_true(count(page, "&lt;img src=x onerror=alert(2)&gt;") > 5);
	assert_true(count(page, "q&quot;uo&apos;te&amp;amp;") > 5);
	/* no control character, no bidi override, valid UTF-8 */
	for (const unsigned char *p = (const unsigned char *)page; *p; p++)
		assert_true(*p >= 0x20 || *p == '\n');
	assert_int_equal(count(page, "\xe2\x80\xae"), 0);
	assert_int_equal(count(page, "\xff"), 0);
	/* the script comes after every outside string and holds none */
	assert_int_equal(count(strstr(page, "<script"), "alert"), 0);
	free(page);
	free(again);
	compare_report_free(&cmp);
	result_free(&r);
	result_free(&base);
}

static void test_axes(void **state)
{
	struct axis a;

	(void)state;
	/* a log axis padded by a fifth each way: its middle is the
	 * geometric mean */
	axis_init(&a, 1, 100, true, 0, 100);
	assert_true(fabs(a.lo - 1 / 1.2) < 1e-12);
	assert_true(fabs(a.hi - 120) < 1e-12);
	assert_true(fabs(axis_map(&a, 10) - 50) < 1e-9);
	assert_true(fabs(axis_map(&a, 100) - axis_map(&a, 10) -
			 (axis_map(&a, 10) - axis_map(&a, 1))) < 1e-9);
	/* narrower than a factor of 4: widened around its middle */
	axis_init(&a, 10, 12, true, 0, 100);
	assert_true(fabs(a.hi / a.lo - 4) < 1e-9);
	/* linear, positive and near zero: starts at zero */
	axis_init(&a, 1, 10, false, 100, 0);
	assert_true(a.lo == 0 && a.hi > 10);
	assert_true(fabs(axis_map(&a, 0) - 100) < 1e-12);
	/* a value off the axis is clamped just outside it, never far */
	assert_true(axis_map(&a, 1e30) >= -5.001);
	/* no data: a unit axis, no NaN */
	axis_init(&a, NAN, NAN, true, 0, 100);
	assert_false(isnan(axis_map(&a, 5)));
}

/* Values an axis may be given: each edge, and pairs of them */
static const double edges[] = {
	0, -0.0, 5e-324, 1e-323, 2.2250738585072014e-308, 1e-300, 1e-30, 1,
	2.5, 1e30, 1e300, 1e308, 1.7976931348623157e308, -5e-324, -1,
	-1e308, NAN, INFINITY, -INFINITY,
};
#define NEDGES (sizeof(edges) / sizeof(edges[0]))

/* Issue 25 case 2: the axes of subnormal values (5e-324 ...) drew ticks
 * forever (a step of 0). Every pair of edge values, log and linear: the
 * axes come out with 1 to CHART_MAX_TICKS ticks each, at finite places
 * within the plot. (An endless loop fails by the test's timeout.) */
static void test_axes_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < NEDGES; i++)
		for (size_t j = 0; j < NEDGES; j++)
			for (int lg = 0; lg < 2; lg++) {
				struct chart c = { .xunit = "s",
						   .yunit = "count" };
				char *buf = NULL;
				size_t len = 0, n;
				FILE *fp = open_memstream(&buf, &len);

				assert_non_null(fp);
				axis_init(&c.x, edges[i], edges[j], lg, CHART_L,
					  CHART_W - CHART_R);
				axis_init(&c.y, edges[j], edges[i], lg, 100,
					  CHART_T);
				assert_true(isfinite(c.x.lo) &&
					    isfinite(c.x.hi));
				assert_true(c.x.lo < c.x.hi);
				assert_true(c.y.lo < c.y.hi);
				c.fp = fp;
				chart_axes(&c, true, "x", "y");
				fclose(fp);
				n = count(buf, "class=\"tick\"");
				assert_true(n >= 2 && n <= 2 * CHART_MAX_TICKS);
				assert_null(strstr(buf, "nan"));
				assert_null(strstr(buf, "inf"));
				free(buf);
			}
}

/* The text of each <text class="CLS" ...>TEXT</text> of svg whose tag
 * holds attr (or any: NULL), in order, into out (up to max); returns how
 * many. */
static size_t texts(const char *svg, const char *cls, const char *attr,
		    char out[][64], double *xs, size_t max)
{
	char *key = xasprintf("<text class=\"%s\"", cls);
	size_t n = 0;

	for (const char *p = strstr(svg, key); p && n < max;
	     p = strstr(p + 1, key)) {
		const char *b = strchr(p, '>') + 1, *e = strstr(b, "</text>");
		const char *a = attr ? strstr(p, attr) : p;

		if (!a || a > b)
			continue;
		if (xs)
			xs[n] = strstr(p, " x=\"") && strstr(p, " x=\"") < b ?
				strtod(strstr(p, " x=\"") + 4, NULL) : NAN;
		snprintf(out[n++], 64, "%.*s", (int)(e - b), b);
	}
	free(key);
	return n;
}

/* Issue 29: the axes of bytes ticked at 976.6 KiB and 1.907 MiB, and
 * axis titles were bare metric names. For generated ranges of bytes
 * (1 KiB to 100 GiB, awkward factors) and of seconds (1 ns to 1000 s),
 * linear: every tick is a plain number that is a multiple of a quarter
 * of the title's unit (binary units for bytes: 0.5 MiB, 1 MiB), the
 * title ends with that unit in parentheses, the ticks are in order, and
 * each, read back in seconds or bytes, is the value at its place on the
 * axis (to its tenth of a pixel). */
static void test_axis_units(void **state)
{
	static const char *const bunits[] = { "(bytes)", "(KiB)", "(MiB)",
					      "(GiB)", "(TiB)" };
	static const char *const tunits[] = { "(s)", "(ms)", "(µs)",
					      "(ns)" };
	static const double bfactor[] = { 1, 1024, 1048576, 1073741824,
					  1099511627776.0 };
	static const double tfactor[] = { 1, 1e-3, 1e-6, 1e-9 };

	(void)state;
	for (int bytes = 0; bytes < 2; bytes++)
		for (double hi = bytes ? 1000 : 1e-9; hi < (bytes ? 1e11 : 1e3);
		     hi *= 1.37) {
			struct chart c = { .xunit = bytes ? "bytes" : "s",
					   .yunit = "count" };
			char *buf = NULL, tick[CHART_MAX_TICKS * 2][64],
			     title[2][64];
			size_t len = 0, nt, unit_ok = 0;
			double xs[CHART_MAX_TICKS * 2], factor = NAN;
			FILE *fp = open_memstream(&buf, &len);
			double prev = -INFINITY;

			assert_non_null(fp);
			axis_init(&c.x, hi / 3.3, hi, false, CHART_L,
				  CHART_W - CHART_R);
			axis_init(&c.y, 0, 10, false, 100, CHART_T);
			c.fp = fp;
			chart_axes(&c, true, "peak heap", "runs");
			fclose(fp);
			/* the x ticks: centred under their place */
			nt = texts(buf, "tick", "text-anchor=\"middle\"", tick,
				   xs, CHART_MAX_TICKS * 2);
			assert_true(nt >= 2);
			assert_int_equal(texts(buf, "atitle", NULL, title, NULL,
					       2), 2);
			for (size_t u = 0; u < (bytes ? 5u : 4u); u++)
				if (strstr(title[0], bytes ? bunits[u] :
					   tunits[u])) {
					unit_ok++;
					factor = bytes ? bfactor[u] : tfactor[u];
				}
			if (unit_ok != 1)
				fail_msg("title '%s' of [%g, %g]", title[0],
					 hi / 3.3, hi);
			assert_non_null(strstr(title[1], "(count)"));
			for (size_t k = 0; k < nt; k++) {
				char *end;
				double v = strtod(tick[k], &end);

				if (*end)
					fail_msg("tick '%s' is not a plain number",
						 tick[k]);
				if (fabs(v * 4 - round(v * 4)) > 1e-9 * fabs(v * 4) &&
				    bytes)
					fail_msg("tick '%s' of [%g, %g]", tick[k],
						 hi / 3.3, hi);
				assert_true(v > prev);
				prev = v;
				/* the value at the tick's place */
				double at = c.x.lo + (xs[k] - c.x.p0) /
					    (c.x.p1 - c.x.p0) * (c.x.hi - c.x.lo);
				double px = (c.x.hi - c.x.lo) / (c.x.p1 - c.x.p0);

				if (fabs(v * factor - at) > 0.06 * px)
					fail_msg("tick '%s' %s at x=%g: %g there, "
						 "[%g, %g]", tick[k], title[0],
						 xs[k], at, c.x.lo, c.x.hi);
			}
			free(buf);
		}
}

/* The report of a result whose every run lasted 5e-324 s, 1e-323 s,
 * 1.5e-323 s (a valid result): written, with bounded ticks. */
static void test_report_subnormal(void **state)
{
	struct result r;
	static const char *const all[] = { "all", NULL };
	struct report_set set = { "sub", &r };
	struct report_input in = { &set, 1, .charts = all };
	char *const argv[] = { "true", NULL };
	struct benchmark *b;
	struct metric *m;
	char *page;

	(void)state;
	result_init(&r, "run");
	b = result_add_benchmark(&r, "true", argv);
	m = benchmark_metric(b, "wall_time", "s");
	metric_push(m, 5e-324);
	metric_push(m, 1e-323);
	metric_push(m, 1.5e-323);
	result_summarize(&r, 1, 200);
	page = page_of(&in, "sub.html");
	assert_true(count(page, "class=\"tick\"") > 0);
	assert_true(count(page, "class=\"tick\"") < 20 * CHART_MAX_TICKS);
	free(page);
	result_free(&r);
}

static void test_history_change_point(void **state)
{
	struct report_point pts[12];
	double v[12][5];
	struct gate_threshold t[3];
	struct report_history h = { "sort", "wall_time", "s", pts, 12, t, 3 };
	struct report_input in = { .history = &h };
	struct error e;
	char *page;
	const char *cp;

	(void)state;
	/* a ceiling of the median is drawn; of p99, or of another
	 * benchmark, not */
	assert_int_equal(gate_parse("wall_time=25ms", GATE_LIMIT, NULL, &t[0],
				    &e), 0);
	assert_int_equal(gate_parse("wall_time.p99=25ms", GATE_LIMIT, NULL,
				    &t[1], &e), 0);
	assert_int_equal(gate_parse("wall_time=1ms", GATE_LIMIT, "other*",
				    &t[2], &e), 0);
	for (int i = 0; i < 12; i++) {
		for (int k = 0; k < 5; k++)
			v[i][k] = (i < 6 ? 0.010 : 0.020) * (1 + (k - 2) * 0.01);
		pts[i] = (struct report_point){ 100 + i, "2026-11-22T10:00:00Z",
			hostile[i % NHOSTILE], "main", false, v[i], 5, 0 };
	}
	page = page_of(&in, "h.html");
	assert_int_equal(count(page, "class=\"hpt\""), 12);
	assert_int_equal(count(page, "<g class=\"cp\""), 1);
	cp = strstr(page, "<g class=\"cp\"");
	assert_non_null(cp);
	assert_true(!strncmp(cp, "<g class=\"cp\" data-id=\"106\"", 26));
	assert_non_null(strstr(cp, "data-before=\"0.01\" data-after=\"0.02\""));
	assert_int_equal(count(page, "<img"), 0);
	assert_int_equal(count(page, "<g class=\"limit\""), 1);
	assert_non_null(strstr(page, "<g class=\"limit\" data-threshold=\""
				     "wall_time=25ms\" data-v=\"0.025\""));
	for (int i = 0; i < 3; i++)
		gate_threshold_free(&t[i]);
	free(page);
}

/*
 * A history's band is each result's median CI as the result has it: a
 * point of 1500 values from a result with bootstrap_max_draws 1000000
 * (`load`'s) gets the analytic interval, the values of ranks 711 and 788
 * (SciPy's binomial; test_analytic_cis), as the result's own summary;
 * the same values with no setting, the bootstrap's (before, every point
 * was bootstrapped: another interval than the result's).
 */
static void test_history_max_draws(void **state)
{
	struct report_point pts[2];
	struct report_history h = { "x", "latency", "s", pts, 2, NULL, 0 };
	struct report_input in = { .history = &h };
	double *v = xmalloc(1500 * sizeof(*v));
	char want[160], *page;
	const char *p0, *p1;
	uint64_t x = 88172645463325252ull;

	(void)state;
	/* 0 .. 1499 shuffled: a rank is its value */
	for (size_t i = 0; i < 1500; i++)
		v[i] = (double)i;
	for (size_t i = 1500; i > 1; i--) {
		size_t j;
		double t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = (size_t)(x % i);
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
	pts[0] = (struct report_point){ 1, "2026-11-22T10:00:00Z", NULL,
					"main", false, v, 1500, 1000000 };
	pts[1] = (struct report_point){ 2, "2026-11-22T10:00:01Z", NULL,
					"main", false, v, 1500, 0 };
	page = page_of(&in, "hmd.html");
	p0 = strstr(page, "data-id=\"1\"");
	p1 = strstr(page, "data-id=\"2\"");
	assert_non_null(p0);
	assert_non_null(p1);
	snprintf(want, sizeof(want), "data-median-ci-lo=\"711\" "
		 "data-median-ci-hi=\"788\"");
	if (!strstr(p0, want) || strstr(p0, want) > p1)
		fail_msg("point 1: no '%s' in %.400s", want, p0);
	/* the bootstrap's, not the analytic ends */
	assert_null(strstr(p1, want));
	assert_non_null(strstr(p1, "data-median-ci-lo=\""));
	free(page);
	free(v);
}

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int ret = system(cmd);

	(void)state;
	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_axes),
		cmocka_unit_test(test_axes_edges),
		cmocka_unit_test(test_axis_units),
		cmocka_unit_test(test_report_subnormal),
		cmocka_unit_test(test_history_change_point),
		cmocka_unit_test(test_history_max_draws),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
