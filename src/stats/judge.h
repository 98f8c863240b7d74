/*
 * One judge: has a statistic of a metric changed between a baseline and a
 * candidate sample, and beyond a threshold? Every place that says
 * "slower", "faster", "FAIL" or "pass" (compare, gate, the report's forest
 * plot, bench --baseline) calls judge() with the same data and gets the
 * same estimate, interval and p; views only format a judgement.
 *
 * The estimate is the statistic the test tests (Harrell-Davis for a
 * quantile; see stats/shift.h for the tests) and it lies inside its 95%
 * interval. A family of judgements (one gate invocation, one compare) is
 * corrected by Holm (judge_holm) before judge_decide turns p into words.
 * docs/statistics.md says what this guarantees and what it does not.
 *
 * Processes as the unit: when both samples carry per-value process ids
 * and hold at least 2 processes, each process is reduced to its own
 * statistic (the quantile of its epochs, or their mean) and the test
 * judges the mean of those per-process statistics across processes:
 * epochs of one process share its layout, frequency and caches, and are
 * not independent runs. One process on a side of a noisy metric cannot
 * show a change (inconclusive).
 */
#ifndef YS_STATS_JUDGE_H
#define YS_STATS_JUDGE_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/shift.h"

/* The default level of every verdict: compare's, gate's, and the
 * comparisons a run or bench result holds. */
#define JUDGE_ALPHA 0.01

/* Which way a metric is better. */
enum judge_dir { JUDGE_LOWER_BETTER, JUDGE_HIGHER_BETTER, JUDGE_NEITHER };

/* What is asked: a threshold on an increase or on a decrease, or (none)
 * a change either way beyond a margin, compare's noise level. */
enum judge_thr { JUDGE_NONE, JUDGE_INCREASE, JUDGE_DECREASE };

enum judge_verdict {
	JUDGE_PASS, JUDGE_FAIL, JUDGE_INCONCLUSIVE,	/* with a threshold */
	JUDGE_UNCHANGED, JUDGE_FASTER, JUDGE_SLOWER,	/* without one */
	JUDGE_BETTER, JUDGE_WORSE, JUDGE_HIGHER, JUDGE_LOWER,
};

/* "pass", "fail", "inconclusive", "unchanged", "faster", ... */
const char *judge_verdict_name(enum judge_verdict v);

/* Family-wise correction of a gate or compare: Holm's, or none. */
enum judge_correction { JUDGE_HOLM, JUDGE_NO_CORRECTION };

const char *judge_correction_name(enum judge_correction c);
/* 0 and *c for "holm" or "none", -1 otherwise. */
int judge_correction_parse(const char *s, enum judge_correction *c);

/* One side's values, in any order (NaN: not measured, skipped), and per
 * value the process that measured it (NULL: unknown or all one).
 * trials > 0: the values are counts of events out of that many trials
 * (load's errors of its requests); when both sides have trials, the
 * judge compares the proportions sum(v) / trials (see judge()). NaN: a
 * count of events whose trials are unknown (inconclusive, saying so);
 * 0: not a count of events. */
struct judge_sample {
	const double *v;
	size_t n;
	const unsigned *proc;
	double trials;
};

struct judge_query {
	enum stat_kind stat;
	enum judge_dir dir;
	bool noisy;		/* false: a deterministic measure, whose
				 * values are judged as they are when no
				 * test can decide */
	enum judge_thr thr;
	bool relative;		/* threshold and interval relative: 10% is
				 * 0.10; else in the metric's unit */
	double threshold;	/* >= 0: the threshold, or the margin */
	double alpha;		/* in (0, 1) */
	size_t family;		/* tests in the family, >= 1: the
				 * permutation budget reaches alpha/family */
	bool p_only;		/* no interval (ci NaN): for simulations */
};

struct judgement {
	double base, cand;	/* the statistic of each side */
	double diff, rel;	/* cand - base, cand / base - 1 */
	double change, ci[2];	/* relative or absolute, as asked; 95% */
	double p;		/* one-sided p of the verdict's test: of the
				 * threshold's, or without one of the
				 * direction of the change; NaN: no test */
	double p_up, p_down;	/* the tests of an increase and a decrease
				 * beyond the threshold (NaN: not made) */
	double p_adj;		/* p after the family's correction */
	enum judge_verdict verdict;	/* set by judge_decide */
	bool tested;		/* p_up and/or p_down enter the family */
	bool approximate;	/* the interval is not known to cover 95% */
	const char *method;	/* "exact permutation", "permutation",
				 * "normal", "exact conditional",
				 * "values", "none" */
	const char *approx_why;	/* why approximate, or NULL */
	char why[192];		/* why inconclusive, or "" */
	double relative_floor;	/* the lowest change: -1 relative, -inf */
	size_t na, nb;		/* units judged: runs, processes, or a
				 * proportion's trials */
	bool by_process;
	/* A proportion (both samples with trials): base and cand are the
	 * proportions events / trials, diff and rel theirs; change and ci
	 * are those of the odds ratio psi (psi - 1), whatever q->stat. */
	bool proportion;
	double events[2], trials[2];	/* baseline, candidate */
	/* The units a side (runs, or processes) with which the test would
	 * find, with probability JUDGE_POWER at alpha / family, a change
	 * JUDGE_MARGIN beyond the threshold (a relative threshold t: a
	 * change of max(2t, t + 2%); an absolute one: 2t, or 2% of the
	 * baseline for t = 0), from the standard errors of both sides'
	 * statistics, which shrink as 1 / sqrt(units). 0 when the query
	 * made no test (or its errors are unknown). At least max(na, nb)
	 * when the test was made. */
	size_t units_needed;
};

/* The power units_needed plans for. */
#define JUDGE_POWER 0.9

/*
 * Judge q on samples a (baseline) and b (candidate). Fills j up to the
 * raw p values; j->verdict is final only for an inconclusive judgement
 * or one made on the values, otherwise judge_decide sets it. Returns 0,
 * or -1 when a side has no value (nothing judged).
 *
 * When both samples carry trials, the proportions are compared by the
 * exact conditional test of their odds ratio psi (stats/proportion.h;
 * method "exact conditional"), whatever q->stat: a relative threshold t
 * is "psi <= 1 + t" (an increase) or "psi >= 1 - t" (a decrease); an
 * absolute threshold must be 0 (the same test; any other is
 * inconclusive: a count of events out of different trials is no amount
 * to compare). From a proportion of 0 any rise is beyond every relative
 * threshold (psi = +inf), and it fails when significant. Trials too few
 * for any table to reach alpha (1 / C(n1 + n2, n1) >= alpha) are
 * inconclusive; no event on either side, or all trials events on both,
 * says nothing of psi and is judged on the values (unchanged).
 */
int judge(const struct judge_sample *a, const struct judge_sample *b,
	  const struct judge_query *q, struct judgement *j);

/*
 * The verdict of j at corrected p values (adj_up, adj_down: those of
 * p_up and p_down, from judge_holm or equal to them without correction;
 * NaN where not made). Sets j->verdict and j->p_adj.
 */
void judge_decide(struct judgement *j, const struct judge_query *q,
		  double adj_up, double adj_down);

/*
 * A family of k tests (Holm's correction) whose every test is too small
 * to reject anything: the first rejection needs a p below alpha / k, and
 * a test's smallest p is that of every value of one side beyond every
 * value of the other (stats_shift_decidable). When no tested judgement
 * of js[0..n) can reach it, none is ever rejected whatever the data:
 * each is made inconclusive, saying how many runs a side would do (a 400x
 * slowdown measured 5 runs a side was "unchanged" in a compare of 64
 * tests, and a gate of as many checks passed it); its estimate, interval
 * and p stay. Before judge_decide; nothing with k < 2, or when one of
 * them can.
 */
void judge_family(struct judgement *const *js, size_t n, double alpha,
		  size_t k);

/*
 * Holm's step-down adjustment of p[0..k-1] into adj[0..k-1] (may be p):
 * sorted ascending, adj_(i) = max over j <= i of min(1, (k - j + 1)
 * p_(j)); rejecting adj < alpha holds the family-wise error at alpha.
 * NaN entries are not tests: they stay NaN and do not count in k.
 */
void judge_holm(const double *p, size_t k, double *adj);

#endif
