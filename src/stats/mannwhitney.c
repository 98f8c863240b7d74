/*
 * Two-sided Mann-Whitney U test, computed as SciPy 1.10's
 * mannwhitneyu(method="auto", use_continuity=True) computes it, so that a
 * p-value here can be checked against SciPy's:
 *  - U is U1, the statistic of the first sample: the number of pairs
 *    (a[i], b[j]) with a[i] > b[j], ties counting one half;
 *  - "auto" means exact when min(na, nb) <= 8 and the pooled sample has no
 *    ties, else the normal approximation (SciPy's _mwu_choose_method);
 *  - exact: p = 2 P(U >= max(U1, U2)) under the null, clipped to 1;
 *  - asymptotic: z = (max(U1, U2) - na nb / 2 - 1/2) / sigma, with sigma
 *    corrected for ties, and p = 2 sf(z), clipped to 1.
 */
#include "stats/special.h"
#include "stats/stats.h"
#include "util/strutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* SciPy's threshold for the exact distribution (either sample). */
#define EXACT_MAX 8

struct ranks {
	double u1;		/* U of the first sample */
	double tie_term;	/* sum over groups of equal values of t^3 - t */
	int ties;		/* some value occurs more than once */
};

static int has_nan(const double *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (isnan(v[i]))
			return 1;
	return 0;
}

/*
 * Walk the two sorted samples together one group of equal values at a
 * time: each a in a group beats every b below the group and half of the
 * b's inside it. This is SciPy's U1 = R1 - na (na + 1) / 2 with midranks,
 * exact in doubles (it is a multiple of 1/2).
 */
static void rank_sorted(const double *a, size_t na, const double *b,
			size_t nb, struct ranks *rk)
{
	size_t i = 0, j = 0;

	rk->u1 = 0;
	rk->tie_term = 0;
	rk->ties = 0;
	while (i < na || j < nb) {
		double v, t;
		size_t ca = 0, cb = 0;

		if (j >= nb || (i < na && a[i] < b[j]))
			v = a[i];
		else
			v = b[j];
		while (i < na && a[i] == v) {
			i++;
			ca++;
		}
		while (j < nb && b[j] == v) {
			j++;
			cb++;
		}
		/* j - cb b's lie below the group. */
		rk->u1 += (double)ca * ((double)(j - cb) + 0.5 * (double)cb);
		t = (double)(ca + cb);
		if (ca + cb > 1) {
			rk->ties = 1;
			rk->tie_term += t * t * t - t;
		}
	}
}

/*
 * P(U <= k) for samples of sizes m and n without ties, k <= m n / 2.
 *
 * The number of arrangements of m a's and n b's with U = u is the
 * coefficient of q^u in the Gaussian binomial [m+n choose m](q), and
 *   [i+n choose i] = [i-1+n choose i-1] (1 - q^(n+i)) / (1 - q^i),
 * so counts are built for i = 1..m: multiply by 1 - q^(n+i) (a shifted
 * subtraction), divide by 1 - q^i (a prefix sum with stride i). Only the
 * coefficients up to k are ever read, so only those are kept: O(m k).
 * Counts are exact integers while C(m+n, m) < 2^53, and the lower tail
 * (u < n) involves no subtraction at all, so small p-values keep their
 * relative precision beyond that.
 */
static int exact_cdf(size_t m, size_t n, size_t k, double *p)
{
	double *f, total = 1, sum = 0;
	size_t i, u;

	if (m > n) {
		size_t t = m;

		m = n;
		n = t;
	}
	if (k >= SIZE_MAX / sizeof(*f))
		return -1;
	f = xcalloc(k + 1, sizeof(*f));
	f[0] = 1;
	for (i = 1; i <= m; i++) {
		for (u = k; u >= n + i; u--)
			f[u] -= f[u - n - i];
		for (u = i; u <= k; u++)
			f[u] += f[u - i];
		total = total * (double)(n + i) / (double)i;
	}
	for (u = 0; u <= k; u++)
		sum += f[u];
	free(f);
	*p = sum / total;
	return 0;
}

/* P(U >= u) under the normal approximation: sf(z). */
static double normal_sf(double u, size_t na, size_t nb, double tie_term)
{
	double n = (double)na + (double)nb;
	double nab = (double)na * (double)nb;
	double var = nab / 12 * ((n + 1) - tie_term / (n * (n - 1)));
	double z;

	/* All values equal: no spread at all, and SciPy's z is -inf. */
	if (!(var > 0))
		return 1;
	z = (u - nab / 2 - 0.5) / sqrt(var);
	return stats_normal_cdf(-z);
}

int stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb,
		       struct mann_whitney *out)
{
	double *sa = NULL, *sb = NULL, u, p;
	struct ranks rk;
	int ret = -1;

	if (na == 0 || nb == 0 || has_nan(a, na) || has_nan(b, nb))
		return -1;
	sa = stats_sorted_copy(a, na);
	sb = stats_sorted_copy(b, nb);
	rank_sorted(sa, na, sb, nb, &rk);
	/* Both tails count: test the larger of U1 and U2 = na nb - U1. */
	u = fmax(rk.u1, (double)na * (double)nb - rk.u1);
	out->u = rk.u1;
	out->exact = !rk.ties && (na <= EXACT_MAX || nb <= EXACT_MAX);
	if (out->exact) {
		/* P(U >= u) = P(U <= na nb - u) by symmetry. */
		if (exact_cdf(na, nb, (size_t)((double)na * (double)nb - u),
			      &p) < 0)
			goto out_free;
	} else {
		p = normal_sf(u, na, nb, rk.tie_term);
	}
	out->p = fmin(1.0, 2 * p);
	ret = 0;
out_free:
	free(sa);
	free(sb);
	return ret;
}
