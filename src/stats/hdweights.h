/*
 * The weights the test's statistic gives the order statistics of a group
 * of m: Harrell-Davis for a percentile strictly inside (0, 100) (w_i =
 * I_{i/m}(a, b) - I_{(i-1)/m}(a, b), a = (m+1)q, b = (m+1)(1-q)): it
 * moves with every value, where a type-7 percentile of tied values (runs
 * of equal counts, 0 -> 3 page faults in every run) would stay put under
 * most relabellings and hide the plainest change. Type 7 (the first or
 * last value) for min and max. Weights below 1e-5 of the largest are
 * dropped, so that a scan stops at the last one that counts.
 */
#ifndef YS_STATS_HDWEIGHTS_H
#define YS_STATS_HDWEIGHTS_H

#include <stddef.h>

/* The weights of order statistics first..last of a group of m (w[i], the
 * others 0; malloc'd: free(w)). */
struct hd_weights {
	size_t m, first, last;
	double *w;
};

/* The weights for percentile pct (0..100) of a group of m (>= 1);
 * allocation aborts. */
void hd_weights_init(struct hd_weights *wt, size_t m, double pct);

#endif
