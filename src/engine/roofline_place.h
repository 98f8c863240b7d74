/*
 * The engine of `yardstick roofline REFS` and `--machine`, and of the
 * report's roofline chart: benchmarks placed under a machine's ceilings,
 * the terminal table, the JSON and the chart (roofline_place.c).
 */
#ifndef YS_ENGINE_ROOFLINE_PLACE_H
#define YS_ENGINE_ROOFLINE_PLACE_H

#include <stdbool.h>
#include <stdio.h>

#include "report/roofline_view.h"
#include "result/result.h"
#include "roofline/place.h"
#include "util/error.h"

/*
 * Benchmarks placed under ceilings, for `roofline` and the report: fill
 * pts (roof_points_add), then roofline_view_place; roofline_view_chart
 * makes the chart of the placed points (chart).
 */
struct roofline_view {
	struct result cres;		/* the ceilings' result */
	char *clabel;			/* "result 12", "'ceil.json'" */
	struct roof_ceilings ceil;
	struct roof_points pts;
	struct roof_placement pl;
	struct roof_chart chart;	/* after roofline_view_chart */
	char *chart_label;
	struct roof_chart_point *cp;
};

void roofline_view_init(struct roofline_view *v);
void roofline_view_free(struct roofline_view *v);
/* Load the ceilings (ceilings: a reference or a file; NULL: this
 * machine's, roofline_machine_ceilings) and place v's points with the
 * defaults dflt. Returns 0, or the exit code with e set. */
int roofline_view_place(struct roofline_view *v, const char *ceilings,
			const char *store, const struct roof_select *dflt,
			struct error *e);
/* v->chart from the placed points: 0, or -1 with e set when the defaults
 * have no ceilings to draw. */
int roofline_view_chart(struct roofline_view *v, struct error *e);

/* The benchmarks of the result set ref (a file or a reference into the
 * store at store) as points of v. Returns 0, or the exit code with e set
 * (the reader's, or 2 for a result whose work cannot be placed). */
int roofline_view_add_ref(struct roofline_view *v, const char *ref,
			  const char *store, struct error *e);

/* The table of the placed view: the ceilings' header, then the ceilings
 * (ceilings) or the points with their verdicts. */
void roofline_view_print(FILE *fp, const struct roofline_view *v,
			 bool ceilings);

/* Writers for util/outputs.h (ctx: the placed struct roofline_view): the
 * JSON (schema yardstick/roofline/v1), the chart as SVG. */
int roofline_view_write_json(const char *path, void *ctx, struct error *e);
int roofline_view_write_svg(const char *path, void *ctx, struct error *e);

#endif
