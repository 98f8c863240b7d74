/*
 * Change points in a series of measurements (one value per stored result,
 * in time order): E-divisive with means (Matteson & James, 2014, with
 * alpha = 1, searching both ends tau and kappa of each split, so that a
 * change later undone is found too), each candidate accepted only when a
 * permutation test says it is significant, applied recursively to the
 * segments.
 */
#ifndef YS_STATS_CHANGEPOINT_H
#define YS_STATS_CHANGEPOINT_H

#include <stddef.h>

#include "stats/stats.h"

struct change_point {
	size_t index;		/* first point of the new segment */
	double p_value;		/* of its permutation test */
	double before, after;	/* medians of the segments either side */
};

struct cp_opts {
	double alpha;		/* significance, default 0.05 */
	size_t permutations;	/* default 199 */
	size_t min_size;	/* smallest segment, default 3 */
};

/*
 * Find the change points of x[0..n-1]. *out (malloc'd, sorted by index;
 * NULL when none) and *nout receive them. opts may be NULL for the
 * defaults (a zero-filled opts means alpha 0: nothing is significant).
 * NaN and infinite values are skipped; indices still refer to x, and a
 * change point's index is the first finite point of its new segment.
 * Deterministic for a given rng state.
 */
void cp_detect(const double *x, size_t n, const struct cp_opts *opts,
	      struct rng *r, struct change_point **out, size_t *nout);

#endif
