/*
 * Change points by E-divisive with means (Matteson & James, "A
 * nonparametric approach for multiple change point analysis of
 * multivariate data", JASA 2014), with alpha = 1 (distances |x - y|),
 * searching both ends of a split as the paper and its R package ecp do.
 *
 * A candidate split of a segment of m points takes its first k points
 * (kappa in the paper, min_size * 2 <= k <= m) and cuts them at tau = t
 * into X = [0, t) and Y = [t, k); it scores
 *
 *   Q(t, k) = t (k - t) / k * (  2 / (t (k - t)) sum_{i,j} |x_i - y_j|
 *                              - 2 / (t (t - 1)) sum_{i<l} |x_i - x_l|
 *                              - 2 / ((k-t)(k-t-1)) sum_{j<l} |y_j - y_l|)
 *
 * i.e. the paper's Q-hat = (t (k - t) / k) E-hat with each mean over
 * unordered pairs (C(n, 2)^-1); a within term of a side with one point is
 * 0. The segment's statistic is the largest Q over t and k; the change
 * point is that t, and k is then forgotten. Splits leave at least
 * min_size points on each side (min_size 0 counts as 1).
 *
 * Why k is searched: with k fixed at the segment's end (as MongoDB's
 * signal-processing-algorithms and Hunter/Apache Otava do), a stretch
 * that differs from both its sides, such as a regression later reverted,
 * is diluted by the points after it. 7 results at 10 ms, 7 at 20 ms and
 * 7 at 10 ms gave no change point at all; with k searched, Q(7, 14) sees
 * two clean groups and both edges are found (tests/unit/test_changepoint.c).
 *
 * The search is the standard E-divisive one: the candidate is the best
 * split over all current segments; it is tested by permuting every
 * current segment independently, R times, and taking the best statistic
 * over all of them, found by the same search over t and k (a maximum
 * over fewer candidates would make the test too lenient);
 * p = (1 + #{permuted >= observed}) / (R + 1). When p < alpha the
 * candidate becomes a change point and only the two new segments are
 * searched again; otherwise the search stops. Once the count makes
 * p >= alpha certain the test stops early, so the p-value of the final,
 * rejected candidate is never computed in full (it is not reported).
 * MongoDB's code differs in two more details: it takes
 * p = #{permuted >= observed} / (R + 1) and accepts p <= alpha; we follow
 * ecp, whose p cannot be 0.
 *
 * False-positive rate: on a series without change, the first test is an
 * exact permutation test of an exchangeable series, and the search stops
 * when it fails, so the chance of one or more reported change points is
 * the largest k / (R + 1) below alpha: 9/200 = 0.045 for alpha 0.05 and
 * R = 199, whatever the distribution of the noise. Measured over 50-point
 * series with N(10, 1) noise: 0.015 over the 200 seeds of the unit tests
 * and 0.0445 over 2000; with 5% of the points multiplied by 3, 0.040 and
 * 0.0395; over 200 generated flat series of 10 to 100 results, 0.060
 * (12, within the binomial spread of 9 +- 2.9). Once a change is found,
 * each further segment is tested at the same level, so a long history
 * with real changes may gain a spurious extra one (4 extra for 297 real
 * ones in the unit tests' 100 generated layouts).
 *
 * Cost: one segment's search is O(m^2) time and O(m) memory (see
 * best_split), for the observed statistic and for each permutation; a
 * test permutes all current segments, so it costs at most R n^2 / 2
 * candidate splits. 199 permutations, on a 2-core VM shared with a build:
 * n = 2000 without a change 0.18 s (the test stops early), with 4
 * changes 2.1 s, with 19 changes 6.0 s; n = 1000 with 4 changes 0.57 s.
 *
 * Non-finite values (NaN, +-inf: a failed or missing result) are skipped;
 * indices still refer to positions in x, and a change point's index is
 * the first finite point of its new segment.
 */
#include "stats/changepoint.h"
#include "util/strutil.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Relative slack for "a permuted statistic is at least the observed". */
#define Q_TIE 1e-10

struct segment {
	size_t a, b;		/* [a, b) in the compacted series */
	size_t tau;		/* best split, absolute; valid when q > -inf */
	double q;		/* its statistic, -INFINITY when unsplittable */
	double p;		/* p-value of the change point at a (a > 0) */
};

struct cp_ctx {
	size_t n;		/* finite points */
	double *x;		/* the finite points, in order */
	size_t *orig;		/* their indices in the caller's array */
	double *y;		/* by segment: x minus the segment's minimum */
	double *work;		/* a segment's y, permuted */
	double *w;		/* w[t] = W(t, k) while k grows */
	double *pre;		/* pre[k] = W(0, k) */
	double *wx;		/* wx[t] = W(0, t) / (t - 1), 0 for t < 2 */
	double *inv;		/* inv[j] = 1 / j, inv[0] = 0 */
	struct segment *seg;	/* sorted by a; at most n of them */
	size_t nseg;
	size_t min_size;
	struct rng *r;
};

/*
 * The cost of split (t, k), with Q(t, k) = 2 / k * (W(0, k) - cost): the
 * part of W(0, k) that is not cross, plus both within sums weighted as Q
 * weighs them. Keeping W(0, k) out lets one pass find the least cost
 * before W(0, k) is known.
 */
static inline double split_cost(const struct cp_ctx *c, size_t t, size_t k)
{
	return c->pre[t] + c->w[t] * (1 + (double)t * c->inv[k - t - 1]) +
	       c->wx[t] * (double)(k - t);
}

/*
 * Best split of the m points y[0..m-1]: the largest Q(t, k) over
 * min_size <= t, t + min_size <= k <= m. Returns it and sets *tau
 * (relative), or returns -INFINITY when m < 2 min_size. Ties go to the
 * smallest k, then the smallest t.
 *
 * With W(i, j) the sum of |y_u - y_v| over pairs in [i, j), the cross sum
 * of a split is W(0, k) - W(0, t) - W(t, k), and Q(t, k) is
 *
 *   2 / k * (cross - W(0, t) (k - t) / (t - 1) - W(t, k) t / (k - t - 1)).
 *
 * Growing k by one point adds to each W(t, k) that point's distances to
 * [t, k), a suffix sum, so all of one k's candidates cost O(k) and the
 * whole search O(m^2) time and O(m) memory.
 */
static double best_split(struct cp_ctx *c, const double *y, size_t m,
			 size_t *tau)
{
	double *w = c->w, *pre = c->pre, best = -INFINITY;
	size_t ms = c->min_size, k, t;

	if (m / 2 < ms)		/* m < 2 min_size, without overflow */
		return -INFINITY;
	pre[0] = 0;
	for (k = 1; k <= m; k++) {
		double v = y[k - 1], s = 0, low = INFINITY, d, q;
		size_t tk = 0;

		w[k - 1] = 0;
		/* t = k - 1 (a Y of one point) is a split when ms is 1. */
		if (ms == 1 && k >= 2) {
			low = split_cost(c, k - 1, k);
			tk = k - 1;
		}
		/*
		 * One pass down from t = k - 2 adds point k - 1 to every
		 * W(t, k) and, for the t a split may take, keeps the least
		 * cost (W(0, k) itself is known only when the pass ends);
		 * <= keeps the smallest t of a tie.
		 */
		for (t = k - 1; t-- > 0;) {
			s += fabs(y[t] - v);
			w[t] += s;
			if (t < ms || t + ms > k)
				continue;
			d = split_cost(c, t, k);
			if (d <= low) {
				low = d;
				tk = t;
			}
		}
		pre[k] = pre[k - 1] + s;
		c->wx[k] = pre[k] * c->inv[k - 1];
		if (k < 2 * ms)
			continue;
		q = 2 * (pre[k] - low) * c->inv[k];
		if (q > best) {
			best = q;
			*tau = tk;
		}
	}
	return best;
}

/* Shift segment s's values by its minimum and find its best split. */
static void seg_prepare(struct cp_ctx *c, struct segment *s)
{
	size_t m = s->b - s->a, k, tau = 0;
	double lo = INFINITY;

	for (k = s->a; k < s->b; k++)
		lo = fmin(lo, c->x[k]);
	/*
	 * Distances are the same, but sums of them keep their precision when
	 * the values sit far from 0 (timings in ns), and the statistic, to
	 * the last bit, does not depend on such an offset.
	 */
	for (k = s->a; k < s->b; k++)
		c->y[k] = c->x[k] - lo;
	s->q = best_split(c, c->y + s->a, m, &tau);
	s->tau = s->a + tau;
}

static void shuffle(struct rng *r, double *v, size_t m)
{
	size_t i;

	for (i = m; i > 1; i--) {
		size_t j = (size_t)rng_below(r, i);
		double t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

/*
 * Best statistic over all segments after shuffling each: the same search
 * over t and k as the observed statistic's, or the test would compare a
 * maximum over more candidates with one over fewer.
 */
static double permuted_max(struct cp_ctx *c)
{
	double best = -INFINITY;
	size_t i, tau;

	for (i = 0; i < c->nseg; i++) {
		const struct segment *s = &c->seg[i];
		size_t m = s->b - s->a;
		double q;

		if (m / 2 < c->min_size)
			continue;
		memcpy(c->work + s->a, c->y + s->a, m * sizeof(*c->work));
		shuffle(c->r, c->work + s->a, m);
		q = best_split(c, c->work + s->a, m, &tau);
		if (q > best)
			best = q;
	}
	return best;
}

/*
 * Permutation p-value of the observed best statistic q, stopping as soon
 * as p >= alpha is certain (then the value returned is only a lower bound
 * that is itself >= alpha).
 */
static double perm_test(struct cp_ctx *c, double q, const struct cp_opts *o)
{
	double denom = (double)o->permutations + 1;
	size_t i, ge = 0;

	for (i = 0; i < o->permutations; i++) {
		if ((1.0 + (double)ge) / denom >= o->alpha)
			break;
		if (permuted_max(c) >= q - Q_TIE * fabs(q))
			ge++;
	}
	return (1.0 + (double)ge) / denom;
}

/* Split segment i at its best tau, with p the test's p-value. */
static void seg_split(struct cp_ctx *c, size_t i, double p)
{
	struct segment *s = &c->seg[i];
	size_t tau = s->tau, b = s->b;

	memmove(s + 2, s + 1, (c->nseg - i - 1) * sizeof(*s));
	c->nseg++;
	s->b = tau;
	s[1].a = tau;
	s[1].b = b;
	s[1].p = p;
	seg_prepare(c, s);
	seg_prepare(c, s + 1);
}

static void detect(struct cp_ctx *c, const struct cp_opts *o)
{
	c->seg[0].a = 0;
	c->seg[0].b = c->n;
	c->seg[0].p = 0;
	c->nseg = 1;
	seg_prepare(c, &c->seg[0]);
	for (;;) {
		size_t i, best = 0;
		double p;

		for (i = 1; i < c->nseg; i++)
			if (c->seg[i].q > c->seg[best].q)
				best = i;
		if (c->seg[best].q == -INFINITY)
			return;
		assert(c->r);
		p = perm_test(c, c->seg[best].q, o);
		if (!(p < o->alpha))
			return;
		seg_split(c, best, p);
	}
}

/* Median of segment s, sorted in c->work (free once detection is over). */
static double seg_median(const struct cp_ctx *c, const struct segment *s)
{
	size_t m = s->b - s->a;

	memcpy(c->work, c->x + s->a, m * sizeof(*c->work));
	stats_sort(c->work, m);
	return stats_median_sorted(c->work, m);
}

static void report(struct cp_ctx *c, struct change_point **out, size_t *nout)
{
	struct change_point *cp;
	size_t i;

	if (c->nseg < 2)
		return;
	cp = xmalloc((c->nseg - 1) * sizeof(*cp));
	for (i = 1; i < c->nseg; i++) {
		cp[i - 1].index = c->orig[c->seg[i].a];
		cp[i - 1].p_value = c->seg[i].p;
		cp[i - 1].before = seg_median(c, &c->seg[i - 1]);
		cp[i - 1].after = seg_median(c, &c->seg[i]);
	}
	*out = cp;
	*nout = c->nseg - 1;
}

static void ctx_free(struct cp_ctx *c)
{
	free(c->x);
	free(c->orig);
	free(c->y);
	free(c->work);
	free(c->w);
	free(c->pre);
	free(c->wx);
	free(c->inv);
	free(c->seg);
}

static void ctx_alloc(struct cp_ctx *c, size_t n)
{
	size_t j;

	c->x = xmalloc(n * sizeof(*c->x));
	c->orig = xmalloc(n * sizeof(*c->orig));
	c->y = xmalloc(n * sizeof(*c->y));
	c->work = xmalloc(n * sizeof(*c->work));
	c->w = xmalloc(n * sizeof(*c->w));
	c->pre = xmalloc((n + 1) * sizeof(*c->pre));
	c->wx = xmalloc((n + 1) * sizeof(*c->wx));
	c->inv = xmalloc((n + 1) * sizeof(*c->inv));
	/* inv[0] = 0: a side of one point has no pairs, its sum is 0. */
	c->inv[0] = 0;
	for (j = 1; j <= n; j++)
		c->inv[j] = 1.0 / (double)j;
	c->seg = xmalloc(n * sizeof(*c->seg));
}

void cp_detect(const double *x, size_t n, const struct cp_opts *opts,
	       struct rng *r, struct change_point **out, size_t *nout)
{
	static const struct cp_opts defaults = { 0.05, 199, 3 };
	const struct cp_opts *o = opts ? opts : &defaults;
	struct cp_ctx c = { 0 };
	size_t i, finite = 0;

	*out = NULL;
	*nout = 0;
	for (i = 0; i < n; i++)
		finite += isfinite(x[i]) != 0;
	c.min_size = o->min_size ? o->min_size : 1;
	if (finite / 2 < c.min_size)
		return;

	ctx_alloc(&c, finite);
	for (i = 0; i < n; i++) {
		if (!isfinite(x[i]))
			continue;
		c.x[c.n] = x[i];
		c.orig[c.n++] = i;
	}
	c.r = r;
	detect(&c, o);
	report(&c, out, nout);
	ctx_free(&c);
}
