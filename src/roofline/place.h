/*
 * Points placed under a machine's ceilings: for each point, the ceilings
 * of its thread count and precision (its own, else the defaults) and of
 * the chosen memory pattern (model.h), and its verdict; or why it could
 * not be placed (no work declared, no ceilings of its thread count).
 * What `roofline` prints, writes as JSON and draws, and what the report
 * draws.
 */
#ifndef YS_ROOFLINE_PLACE_H
#define YS_ROOFLINE_PLACE_H

#include <stdbool.h>
#include <stddef.h>

#include "roofline/model.h"
#include "roofline/points.h"

struct roof_placed {
	const struct roof_point *pt;
	struct roof_select sel;		/* the point's ceilings */
	struct roof_model m;		/* valid when placed */
	struct roof_verdict v;		/* valid when placed */
	char verdict[192];		/* roof_verdict_text's, when placed */
	char *why;			/* NULL: placed; else why not */
};

struct roof_placement {
	struct roof_select dflt;	/* the defaults; its pattern for all */
	struct roof_model dm;		/* the defaults' ceilings (the chart's),
					 * valid when has_dm */
	bool has_dm;
	char dm_error[1024];		/* why not, when !has_dm */
	struct roof_placed *p;
	size_t n, nplaced;
};

/* Place every point of pts under c (both must outlive out). */
void roof_place_points(const struct roof_ceilings *c,
		       const struct roof_points *pts,
		       const struct roof_select *dflt,
		       struct roof_placement *out);
void roof_placement_free(struct roof_placement *pl);

#endif
