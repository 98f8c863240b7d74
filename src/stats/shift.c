/*
 * The change of one statistic between two samples, with analytic standard
 * errors (see shift.h for the method). Quantiles are type 7, as in
 * stats_percentile_sorted, so that the numbers match the summaries.
 */
#include "stats/shift.h"

#include <math.h>
#include <string.h>

#include "stats/stats.h"

static const char *const names[STAT_COUNT] = {
	"mean", "median", "p90", "p95", "p99", "min", "max",
};

static const double quantiles[STAT_COUNT] = {
	NAN, 0.50, 0.90, 0.95, 0.99, 0.0, 1.0,
};

#define Z95 1.959963984540054

const char *stats_stat_name(enum stat_kind k)
{
	return k < STAT_COUNT ? names[k] : "?";
}

int stats_stat_parse(const char *name, enum stat_kind *k)
{
	for (int i = 0; i < STAT_COUNT; i++) {
		if (!strcmp(name, names[i])) {
			*k = (enum stat_kind)i;
			return 0;
		}
	}
	return -1;
}

double stats_normal_cdf(double z)
{
	return 0.5 * erfc(-z / M_SQRT2);
}

static double mean_of(const double *v, size_t n, double *se)
{
	double sum = 0, ss = 0, mean;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	*se = n > 1 ? sqrt(ss / (n - 1) / n) : 0;
	return mean;
}

/* The q-quantile of sorted v and its standard error from the ranks of its
 * distribution-free 95% interval. When that interval does not fit inside
 * the sample (p99 of a few hundred runs), the sample says nothing about
 * the quantile's uncertainty: the error is infinite, so no change of it
 * is ever significant. */
static double quantile_of(const double *v, size_t n, double q, double *se)
{
	double half = Z95 * sqrt(n * q * (1 - q));
	double lo = floor(n * q - half), hi = ceil(n * q + half);

	if (lo < 0 || hi > n - 1)
		*se = INFINITY;
	else
		*se = (v[(size_t)hi] - v[(size_t)lo]) / (2 * Z95);
	return stats_percentile_sorted(v, n, 100 * q);
}

static double stat_of(const double *v, size_t n, enum stat_kind k,
		      double *se)
{
	if (k == STAT_MEAN)
		return mean_of(v, n, se);
	if (k == STAT_MIN || k == STAT_MAX) {
		*se = NAN;
		return k == STAT_MIN ? v[0] : v[n - 1];
	}
	return quantile_of(v, n, quantiles[k], se);
}

int stats_shift(const double *a, size_t na, const double *b, size_t nb,
		enum stat_kind k, struct shift *out)
{
	double se, rse;

	if (!na || !nb || k >= STAT_COUNT)
		return -1;
	memset(out, 0, sizeof(*out));
	out->base = stat_of(a, na, k, &out->base_se);
	out->cand = stat_of(b, nb, k, &out->cand_se);
	out->diff = out->cand - out->base;
	/* One value each (a deterministic measure, such as mem's peak
	 * heap): no spread to test against; the observed change decides. */
	if (na == 1 && nb == 1)
		out->base_se = out->cand_se = NAN;
	se = sqrt(out->base_se * out->base_se + out->cand_se * out->cand_se);
	out->diff_ci[0] = out->diff - Z95 * se;
	out->diff_ci[1] = out->diff + Z95 * se;
	if (isnan(se))
		out->p = NAN;
	else if (se == 0)
		out->p = out->diff == 0 ? 1 : 0;
	else
		out->p = 2 * stats_normal_cdf(-fabs(out->diff) / se);
	if (out->base == 0) {
		/* From nothing to something is an infinite increase. */
		out->rel = out->cand == 0 ? 0 : out->cand > 0 ? INFINITY
						   : -INFINITY;
		out->rel_ci[0] = out->rel_ci[1] = NAN;
		return 0;
	}
	/* Delta method for cand/base: both sides' errors count. */
	out->rel = out->cand / out->base - 1;
	rse = sqrt(pow(out->cand_se / out->base, 2) +
		   pow(out->cand * out->base_se / (out->base * out->base), 2));
	out->rel_ci[0] = out->rel - Z95 * rse;
	out->rel_ci[1] = out->rel + Z95 * rse;
	return 0;
}
