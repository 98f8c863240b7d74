/*
 * The points of a roofline: each benchmark of a result with the FLOP
 * rate it attained and its arithmetic intensity, from the work it
 * declared or had counted, or why it cannot be placed.
 *
 *  - kind "run" (and results without work of their own: imports): the
 *    FLOPs per run from `work_flops` (declared with --work, or counted by
 *    --count), else the PMU's `flops`; the bytes per run from
 *    `work_bytes`, else the PMU's `dram_bytes`. Attained = median(FLOPs)
 *    / median(wall_time); intensity = median(FLOPs) / median(bytes). The
 *    result's settings `work_flops` and `work_bytes` say where a declared
 *    count came from (the expression, "counted: ysflops").
 *  - kind "bench" (libyardstick): median(flops_per_second) and
 *    median(arithmetic_intensity), declared per iteration.
 * A benchmark's parameters "threads" and "precision" (fp64, fp32) choose
 * its ceilings (model.h); without them the caller's defaults apply.
 */
#ifndef YS_ROOFLINE_POINTS_H
#define YS_ROOFLINE_POINTS_H

#include <stddef.h>

#include "result/result.h"
#include "util/error.h"

struct roof_point {
	char *name;		/* benchmark_display_name */
	double flops;		/* attained FLOP/s; NaN when unplaced */
	double ai;		/* FLOP per byte; NaN when unplaced */
	int threads;		/* the parameter "threads"; 0: not given */
	char precision[8];	/* "fp64", "fp32"; "": not given */
	char *flops_from;	/* where the FLOPs came from: "work_flops
				 * (2*{n}^3)", "flops (PMU)", "declared
				 * (ys_set_flops)" */
	char *bytes_from;	/* the same for the bytes */
	char *unplaced;		/* NULL, or why it cannot be placed: "no
				 * work declared: use --work or --count" */
};

struct roof_points {
	struct roof_point *p;
	size_t n;
};

/*
 * Append the points of every benchmark of r to *pts (zeroed by the
 * caller before the first call). Returns 0, or -1 with e set for a
 * result that holds ceilings (kind "roofline"): those are given with
 * --ceilings, not placed.
 */
int roof_points_add(struct roof_points *pts, const struct result *r,
		    struct error *e);
void roof_points_free(struct roof_points *pts);

#endif
