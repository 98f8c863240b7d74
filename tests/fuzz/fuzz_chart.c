/*
 * libFuzzer target of the charts' axes (src/report/chart.c): any two
 * doubles (subnormal, 1e308, equal, NaN, inf ... the seeds in
 * corpus/chart hold the edges) as an axis's range, log or linear, must
 * draw a bounded number of ticks at finite places, and quickly (the tick
 * loops once spun forever on subnormal values: libFuzzer's -timeout
 * catches that).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/chart.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)); p++)
		n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	double v[4];
	uint8_t flags;
	struct chart c = { .xunit = "s", .yunit = "bytes" };
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;

	if (size < sizeof v + 1)
		return 0;
	memcpy(v, data, sizeof v);
	flags = data[sizeof v];
	if (!(fp = open_memstream(&buf, &len)))
		return 0;
	axis_init(&c.x, v[0], v[1], flags & 1, CHART_L, CHART_W - CHART_R);
	axis_init(&c.y, v[2], v[3], flags & 2, 100, CHART_T);
	if (!isfinite(c.x.lo) || !isfinite(c.x.hi) || !(c.x.lo < c.x.hi) ||
	    !isfinite(c.y.lo) || !isfinite(c.y.hi) || !(c.y.lo < c.y.hi))
		abort();
	for (int i = 0; i < 4; i++)
		if (!isfinite(axis_map(i < 2 ? &c.x : &c.y, v[i])))
			abort();
	c.fp = fp;
	chart_axes(&c, flags & 4, "x", "y");
	fclose(fp);
	if (count(buf, "class=\"tick\"") > 2 * CHART_MAX_TICKS ||
	    strstr(buf, "nan") || strstr(buf, "inf"))
		abort();
	free(buf);
	return 0;
}
