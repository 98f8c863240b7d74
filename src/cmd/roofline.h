/*
 * `yardstick roofline`, shared between its files: roofline.c (options and
 * dispatch), roofline_measure.c (--measure: the ceilings), roofline_count.c
 * (--count: a program's FLOPs and bytes counted, then timed),
 * roofline_place.c (REFS and --machine: the benchmarks under the stored
 * ceilings, the verdicts, the chart).
 */
#ifndef YS_CMD_ROOFLINE_H
#define YS_CMD_ROOFLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/roofline_view.h"
#include "result/result.h"
#include "roofline/place.h"
#include "util/error.h"

struct roofline_args {
	bool measure;		/* --measure */
	bool machine;		/* --machine */
	bool count;		/* --count */
	bool quick;		/* --measure --quick */
	const char *json;	/* --json FILE */
	char **outs;		/* -o FILE (repeatable): roofline.svg */
	size_t nouts;
	const char *store;	/* --store PATH */
	bool no_store;
	bool quiet;
	long threads;		/* --threads N: 0 all cores */
	long runs;		/* --runs N (--count's timed runs) */
	bool runs_given;
	char **argv;		/* --count: the program after "--" */
	char **refs;		/* REFS: the operands */
	size_t nrefs;
	const char *ceilings;	/* --ceilings REF|FILE */
	long point_threads;	/* --point-threads N (default 1) */
	int precision;		/* --precision: 0 fp64, 1 fp32 */
	int pattern;		/* --pattern: 0 triad, 1 copy, 2 load */
	bool place_given;	/* one of the four above was given */
};

int roofline_measure(const struct roofline_args *a);
int roofline_count(const struct roofline_args *a);
/* --machine (a->machine) or REFS. */
int roofline_place(const struct roofline_args *a);

/* Place the benchmarks of r under this machine's stored ceilings, as
 * REFS does (the table, --json, -o): --count calls it once it has timed
 * the program. Returns the exit code. */
int roofline_place_result(const struct result *r,
			  const struct roofline_args *a);

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


#endif
