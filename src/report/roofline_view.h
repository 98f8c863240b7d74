/*
 * The roofline chart: log-log, arithmetic intensity (FLOP/B) across,
 * FLOP/s up; each memory level's bandwidth a labelled diagonal up to its
 * ridge point, each compute ceiling a labelled horizontal (the lower
 * instruction sets dashed), each benchmark a labelled point whose
 * <title> (the browser's tooltip on hover) holds its numbers and
 * verdict. Written as a file of its own (`roofline -o roofline.svg`) and
 * into the HTML report (report_input's roofline), from the same code.
 * Every outside string is escaped (fputs_xml); a long name is cut in its
 * label, never in its title.
 */
#ifndef YS_REPORT_ROOFLINE_VIEW_H
#define YS_REPORT_ROOFLINE_VIEW_H

#include <stddef.h>

#include "roofline/model.h"
#include "util/error.h"

struct roof_chart_point {
	const char *name;
	double flops, ai;	/* attained FLOP/s, FLOP/B: both > 0 */
	const char *verdict;	/* roof_verdict_text's, or NULL */
	const char *from;	/* where the numbers came from, or NULL */
};

struct roof_chart {
	const struct roof_model *model;	/* the ceilings drawn */
	const char *ceilings_label;	/* which: "1 thread, fp64, triad" */
	const struct roof_chart_point *pts;
	size_t n;
};

/* The chart as a standalone SVG file at path ("-": stdout), written
 * atomically. Returns 0, or -1 with a message naming the file. */
int roof_chart_write_svg(const struct roof_chart *c, const char *path,
			 struct error *e);

#endif
