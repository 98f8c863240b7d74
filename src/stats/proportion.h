/*
 * Two binomial proportions compared exactly: x1 events of n1 trials (the
 * baseline) against x2 of n2 (the candidate), by conditional inference on
 * the odds ratio psi = [p2 / (1 - p2)] / [p1 / (1 - p1)]. Given the total
 * of events k = x1 + x2, x2 follows Fisher's noncentral hypergeometric
 * distribution, P(x) proportional to C(n1, k - x) C(n2, x) psi^x, which
 * depends on psi alone: its tail is an exact p at any n, with 0 events on
 * a side as well (Fisher's test at psi = 1; randomized, the conditional
 * test is the uniformly most powerful unbiased one, and without
 * randomization it is conservative). The interval inverts the same
 * tails (Cornfield's exact interval, R's fisher.test, SciPy's
 * odds_ratio(kind="conditional")), and the estimate is the conditional
 * maximum-likelihood one, which lies inside it. docs/statistics.md says
 * why this and not a score interval or an unconditional exact test.
 */
#ifndef YS_STATS_PROPORTION_H
#define YS_STATS_PROPORTION_H

#include <stdbool.h>
#include <stdint.h>

struct prop_table {
	uint64_t x1, n1;	/* the baseline: events, trials */
	uint64_t x2, n2;	/* the candidate */
};

/* Whether t says anything of psi: an event somewhere and a non-event
 * somewhere (x1 <= n1, x2 <= n2, both n >= 1). Otherwise every psi fits
 * it equally. */
bool prop_informative(const struct prop_table *t);

/*
 * The one-sided exact conditional p of t against psi0 >= 0: upper, of
 * "psi <= psi0" (P(X >= x2 | psi0)); else of "psi >= psi0" (P(X <= x2 |
 * psi0)). 1 for a table that says nothing (!prop_informative), and for
 * the hypotheses every psi satisfies (psi0 = +inf upper, 0 lower).
 */
double prop_odds_p(const struct prop_table *t, double psi0, bool upper);

/*
 * The conditional maximum-likelihood estimate of psi (0 when x2 is the
 * least the margins allow, +inf when it is the most) and its exact
 * interval at `level` (0.95: each tail 2.5%; lower bound 0 and upper
 * +inf where the table cannot set them). NaN for a table that says
 * nothing.
 */
void prop_odds(const struct prop_table *t, double level, double *est,
	       double ci[2]);

#endif
