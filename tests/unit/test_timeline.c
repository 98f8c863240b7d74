/*
 * Unit tests of the heap timeline chart (src/heap/timeline.c) on reports
 * built by hand: every SVG written is parsed by python3's XML parser when
 * there is one and searched for "nan" and "inf"; coordinates, ticks and
 * the peak label are compared with values worked out by hand from the
 * layout below (which must match the one in timeline.c).
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

#include "heap/timeline.h"
#include "util/fileio.h"
#include "util/strutil.h"
#include "teststrings.h"

/* The plot: x from 80 to 970 px, y from 340 (0 bytes) up to 50 px. */
#define ML 80
#define MT 50
#define PW 890
#define PH 290
#define MIB (1024.0 * 1024)

static char tmpdir[] = "/tmp/ys-timeline-XXXXXX";

/* --- helpers ------------------------------------------------------------ */

/* Write r to path and read it back; no "nan" or "inf" in any case. */
static char *write_read(const struct heap_report *r, const char *title,
			const char *path)
{
	struct error e;
	char *svg;
	size_t len;

	if (heap_write_timeline(r, title, path, &e))
		fail_msg("%s", e.msg);
	assert_int_equal(file_read_all(path, &svg, &len, &e), 0);
	assert_int_equal(strlen(svg), len);
	if (strcasestr(svg, "nan") || strcasestr(svg, "inf"))
		fail_msg("'%s' has a non-number:\n%s", path, svg);
	return svg;
}

/* write_read, and the file is well-formed XML. */
static char *render(const struct heap_report *r, const char *title)
{
	char *path = xasprintf("%s/t.svg", tmpdir);
	char *svg = write_read(r, title, path);

	/* python3 is a test dependency (scripts/deps.sh test) */
	char *cmd = xasprintf("python3 -c 'import xml.dom.minidom, "
			      "sys; xml.dom.minidom.parse(sys.argv[1])'"
			      " '%s'", path);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(path);
	return svg;
}

/* The value of attribute name in the first element starting with tag. */
static char *attr(const char *svg, const char *tag, const char *name)
{
	const char *el = strstr(svg, tag), *v, *end;
	char *key = xasprintf(" %s=\"", name);

	assert_non_null(el);
	v = strstr(el, key);
	assert_non_null(v);
	assert_true(v < strchr(el, '>'));
	v += strlen(key);
	end = strchr(v, '"');
	free(key);
	return xstrndup(v, (size_t)(end - v));
}

/* --- the tests ---------------------------------------------------------- */

/* Heap 0, 1, 3, 1 MiB at 0, 0.25, 0.5, 1 s; RSS 2 MiB, none, 4, 4 MiB. */
static void four_points(struct heap_report *r, struct heap_point *p)
{
	static const double t[] = { 0, 0.25, 0.5, 1 };
	static const double heap[] = { 0, 1, 3, 1 }, rss[] = { 2, NAN, 4, 4 };

	memset(r, 0, sizeof(*r));
	for (int i = 0; i < 4; i++)
		p[i] = (struct heap_point){ t[i], heap[i] * MIB, rss[i] * MIB };
	r->timeline = p;
	r->ntimeline = 4;
	r->peak = 3 * MIB;
	r->peak_t = 0.5;
}

static void test_chart(void **state)
{
	struct heap_point p[4];
	struct heap_report r;
	char *svg, *s, want[64];

	four_points(&r, p);
	svg = render(&r, "heap");
	/* y spans 0..4 MiB (the RSS' maximum), x 0..1 s: 1 MiB is 72.5 px,
	 * 0.25 s 222.5 px. */
	s = attr(svg, "<polygon", "points");
	assert_string_equal(s, " 80.0,340.0 80.0,340.0 302.5,267.5 "
			    "525.0,122.5 970.0,267.5 970.0,340.0");
	free(s);
	/* The peak's point, from the layout: 3 of 4 MiB up the plot. */
	snprintf(want, sizeof(want), " %.1f,%.1f ", ML + PW * 0.5,
		 MT + PH - PH * 3 / 4.0);
	assert_string_equal(want, " 525.0,122.5 ");
	assert_non_null(strstr(svg, want));
	/* RSS broken at the missing sample; the lone first one a dot. */
	assert_int_equal(count(svg, "<polyline"), 2);
	assert_non_null(strstr(svg, "points=\" 80.0,195.0 80.0,195.0\""));
	assert_non_null(strstr(svg, "points=\" 525.0,50.0 970.0,50.0\""));
	/* The peak. */
	assert_non_null(strstr(svg, "<circle class=\"peak\" cx=\"525.0\" "
			       "cy=\"122.5\""));
	assert_non_null(strstr(svg, ">peak 3.000 MiB at 500.0 ms</text>"));
	/* Ticks: 0.5 MiB and 0.2 s apart. */
	assert_int_equal(count(svg, "class=\"yt\""), 9);
	assert_non_null(strstr(svg, "y=\"126.5\">3.0 MiB</text>"));
	assert_non_null(strstr(svg, ">4.0 MiB</text>"));
	assert_int_equal(count(svg, "class=\"xt\""), 6);
	assert_non_null(strstr(svg, "<text class=\"xt\" x=\"258.0\" y=\"358\">"
			       "0.2 s</text>"));
	assert_non_null(strstr(svg, ">1.0 s</text>"));
	/* The legend. */
	assert_non_null(strstr(svg, ">heap (bytes live)</text>"));
	assert_non_null(strstr(svg, ">RSS</text>"));
	free(svg);

	r.estimated = true;
	svg = render(&r, "heap");
	assert_non_null(strstr(svg, ">heap (bytes live) (estimated)</text>"));
	free(svg);
}

static void test_title_escaped(void **state)
{
	struct heap_point p[4];
	struct heap_report r;
	char *svg;

	four_points(&r, p);
	svg = render(&r, "./a.out <in >out && echo \"x\" 'y'");
	assert_non_null(strstr(svg, "<text id=\"title\" x=\"500\" y=\"26\">"
			       "./a.out &lt;in &gt;out &amp;&amp; echo "
			       "&quot;x&quot; &apos;y&apos;</text>"));
	free(svg);
	/* Not UTF-8 (a stray byte, an overlong NUL, a surrogate) or a
	 * control character: replaced, the rest kept. */
	svg = render(&r, "\xff\xc0\x80 \xed\xa0\x80 \x01 caf\xc3\xa9");
	assert_non_null(strstr(svg, ">??? ??? ? caf\xc3\xa9</text>"));
	free(svg);
}

static void test_degenerate(void **state)
{
	struct heap_point p[3] = { { 0, 0, 0 }, { 1, 0, 0 }, { 2, 0, 0 } };
	struct heap_report r;
	char *svg;

	/* Nothing at all. */
	memset(&r, 0, sizeof(r));
	svg = render(&r, NULL);
	assert_non_null(strstr(svg, ">no samples</text>"));
	assert_null(strstr(svg, "<polygon"));
	assert_null(strstr(svg, "<circle"));
	assert_null(strstr(svg, ">RSS</text>"));
	free(svg);

	/* All zeros: a flat area, no peak to mark. */
	r.timeline = p;
	r.ntimeline = 3;
	svg = render(&r, "zeros");
	assert_non_null(strstr(svg, "<polygon"));
	assert_null(strstr(svg, "<circle"));
	assert_int_equal(count(svg, "<polyline"), 1);
	free(svg);

	/* One point at t = 0: the default second of time axis. */
	p[0] = (struct heap_point){ 0, 100, NAN };
	r.ntimeline = 1;
	r.peak = 100;
	svg = render(&r, "one");
	assert_non_null(strstr(svg, ">peak 100 B at 0 s</text>"));
	assert_non_null(strstr(svg, ">1.0 s</text>"));
	assert_null(strstr(svg, "<polyline"));
	free(svg);

	/* Microseconds and bytes. */
	p[0] = (struct heap_point){ 0, 10, NAN };
	p[1] = (struct heap_point){ 2e-6, 20, NAN };
	p[2] = (struct heap_point){ 5e-6, 5, NAN };
	r.ntimeline = 3;
	r.peak = 20;
	r.peak_t = 2e-6;
	svg = render(&r, "us");
	assert_non_null(strstr(svg, ">5 \xc2\xb5s</text>"));
	assert_non_null(strstr(svg, ">20 B</text>"));
	assert_non_null(strstr(svg, ">peak 20 B at 2.000 \xc2\xb5s</text>"));
	free(svg);

	/* Garbage: nothing non-finite reaches the file. */
	p[0] = (struct heap_point){ NAN, INFINITY, -INFINITY };
	p[1] = (struct heap_point){ INFINITY, NAN, INFINITY };
	p[2] = (struct heap_point){ -1, -5, NAN };
	r.peak = NAN;
	r.peak_t = INFINITY;
	free(render(&r, "garbage"));
	r.peak = INFINITY;
	free(render(&r, "garbage"));
}

/* 5 to 10 ticks on each axis, whatever the range. */
static void test_tick_counts(void **state)
{
	struct heap_point p[2] = { { 0, 0, NAN } };
	struct heap_report r = { .timeline = p, .ntimeline = 2 };
	char *path = xasprintf("%s/ticks.svg", tmpdir);

	for (double m = 0.7; m < 1e13; m *= 1.37) {
		char *svg;

		p[1] = (struct heap_point){ m * 1e-6, m, NAN };
		svg = write_read(&r, "ticks", path);
		if (count(svg, "class=\"yt\"") < 5 ||
		    count(svg, "class=\"yt\"") > 10 ||
		    count(svg, "class=\"xt\"") < 5 ||
		    count(svg, "class=\"xt\"") > 10)
			fail_msg("bad ticks for %g:\n%s", m, svg);
		free(svg);
	}
	free(path);
}

static void test_deterministic(void **state)
{
	struct heap_point p[4];
	struct heap_report r;
	char *a, *b;

	four_points(&r, p);
	a = render(&r, "same");
	b = render(&r, "same");
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_unwritable(void **state)
{
	char *path = xasprintf("%s/no/such/dir/x.svg", tmpdir);
	struct heap_report r;
	struct error e;

	memset(&r, 0, sizeof(r));
	assert_int_equal(heap_write_timeline(&r, "x", path, &e), -1);
	assert_non_null(strstr(e.msg, path));
	free(path);
}

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	int ret = system(cmd);

	free(cmd);
	return ret;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chart),
		cmocka_unit_test(test_title_escaped),
		cmocka_unit_test(test_degenerate),
		cmocka_unit_test(test_tick_counts),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_unwritable),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
