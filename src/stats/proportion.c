/*
 * Exact conditional inference on the odds ratio of two proportions
 * (proportion.h). The conditional distribution is held as the log of its
 * unnormalized weights over the support, so that a tail at any psi is two
 * sums of exponentials shifted by their largest term: tails of 1e-300
 * keep their digits, and 10^6 trials a side cost one pass of lgamma.
 */
#include "stats/proportion.h"

#include <math.h>
#include <stdlib.h>

#include "util/strutil.h"

/* The conditional distribution of x2 given k = x1 + x2: support lo..hi,
 * lw[i] the log weight of x2 = lo + i at psi = 1, x the observed x2. */
struct cond {
	uint64_t lo, hi, x;
	size_t m;
	double *lw;
};

static double lchoose(uint64_t n, uint64_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	       lgamma((double)(n - k) + 1);
}

bool prop_informative(const struct prop_table *t)
{
	uint64_t k = t->x1 + t->x2;

	return t->n1 && t->n2 && t->x1 <= t->n1 && t->x2 <= t->n2 && k > 0 &&
	       k < t->n1 + t->n2;
}

static void cond_init(struct cond *c, const struct prop_table *t)
{
	uint64_t k = t->x1 + t->x2;

	c->lo = k > t->n1 ? k - t->n1 : 0;
	c->hi = k < t->n2 ? k : t->n2;
	c->x = t->x2;
	c->m = (size_t)(c->hi - c->lo + 1);
	c->lw = xmalloc(c->m * sizeof(*c->lw));
	for (size_t i = 0; i < c->m; i++)
		c->lw[i] = lchoose(t->n1, k - (c->lo + i)) +
			   lchoose(t->n2, c->lo + i);
}

/* At log psi lp: P(X >= x), P(X <= x) and E[X]. The weights are taken
 * relative to x2 = lo (psi^i, not psi^(lo + i)): the same distribution,
 * without a factor that overflows. */
static void cond_at(const struct cond *c, double lp, double *ge, double *le,
		    double *mean)
{
	size_t ix = (size_t)(c->x - c->lo);
	double top = -INFINITY, all = 0, sge = 0, sle = 0, sx = 0;

	for (size_t i = 0; i < c->m; i++)
		top = fmax(top, c->lw[i] + (double)i * lp);
	for (size_t i = 0; i < c->m; i++) {
		double w = exp(c->lw[i] + (double)i * lp - top);

		all += w;
		sx += (double)i * w;
		if (i >= ix)
			sge += w;
		if (i <= ix)
			sle += w;
	}
	if (ge)
		*ge = fmin(1, sge / all);
	if (le)
		*le = fmin(1, sle / all);
	if (mean)
		*mean = (double)c->lo + sx / all;
}

enum cond_fn { FN_GE, FN_LE, FN_MEAN };

static double cond_fn(const struct cond *c, enum cond_fn f, double lp)
{
	double ge, le, mean;

	cond_at(c, lp, &ge, &le, &mean);
	/* all increasing in psi: P(X <= x) enters negated */
	return f == FN_GE ? ge : f == FN_LE ? -le : mean;
}

/* The psi at which f (increasing in log psi) reaches target, by
 * bisection on log psi; 0 or +inf when no finite psi within e^+-LP_MAX
 * does. */
#define LP_MAX 1e4

static double cond_solve(const struct cond *c, enum cond_fn f,
			 double target)
{
	double lo = -1, hi = 1;

	while (cond_fn(c, f, lo) > target) {
		hi = lo;
		lo *= 2;
		if (lo < -LP_MAX)
			return 0;
	}
	while (cond_fn(c, f, hi) < target) {
		lo = hi;
		hi *= 2;
		if (hi > LP_MAX)
			return INFINITY;
	}
	for (int it = 0; it < 200 && hi - lo > 1e-13 * fmax(1, fabs(lo));
	     it++) {
		double mid = 0.5 * (lo + hi);

		if (cond_fn(c, f, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return exp(0.5 * (lo + hi));
}

double prop_odds_p(const struct prop_table *t, double psi0, bool upper)
{
	struct cond c;
	double ge, le;

	if (!prop_informative(t))
		return 1;
	cond_init(&c, t);
	if (psi0 <= 0 || isinf(psi0)) {
		/* psi 0 puts all the weight on lo, +inf on hi */
		bool at_lo = psi0 <= 0;

		ge = at_lo ? (c.x == c.lo) : 1;
		le = at_lo ? 1 : (c.x == c.hi);
	} else {
		cond_at(&c, log(psi0), &ge, &le, NULL);
	}
	free(c.lw);
	return upper ? ge : le;
}

void prop_odds(const struct prop_table *t, double level, double *est,
	       double ci[2])
{
	double tail = (1 - level) / 2;
	struct cond c;

	if (!prop_informative(t)) {
		*est = ci[0] = ci[1] = NAN;
		return;
	}
	cond_init(&c, t);
	ci[0] = c.x == c.lo ? 0 : cond_solve(&c, FN_GE, tail);
	ci[1] = c.x == c.hi ? INFINITY : cond_solve(&c, FN_LE, -tail);
	/* equal proportions: the conditional mean at psi 1 is x2 exactly,
	 * which bisection would reach only to its last digits */
	if ((unsigned __int128)t->x2 * t->n1 ==
	    (unsigned __int128)t->x1 * t->n2)
		*est = 1;
	else
		*est = c.x == c.lo ? 0 : c.x == c.hi ? INFINITY
		       : cond_solve(&c, FN_MEAN, (double)c.x);
	free(c.lw);
}
