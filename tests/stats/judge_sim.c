/*
 * judge_sim: a Monte Carlo harness over the one judge (stats/judge.h).
 * It draws samples whose truth is known (nothing changed, or a known
 * change), runs them through judge() and judge_holm() as `gate` does, and
 * counts how often the verdicts are wrong.
 *
 *   judge_sim [--reps R] [--seed S] [--check] [--power]
 *
 * Measures: the family-wise false alarms of an 18-check gate (6 metrics x
 * median/p95/p99, thresholds 0%, alpha 1%, Holm) at n = 10, 30, 100 a side
 * on lognormal, bimodal, Pareto and tied data; tied counts at 1,001 runs a
 * side (median=0%); the boundary cases (equal medians with a 3x spread;
 * 100 baseline runs against 10 and 30); bench --baseline-program's two
 * stages of processes (false alarms at the threshold, power at twice it);
 * with --power, the power of the
 * 18-check gate to see one metric 20% slower, with and without Holm.
 *
 * --check: exit 1 when a rate is above its bound: the most hits a
 * correct rate of alpha reaches but with probability 1e-4 (binomial; R =
 * 500: 0.03). The meson test runs a few replications (bounded to about a
 * minute); bench/judge_sim.sh runs 500.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/judge.h"

static uint64_t rs;

static double unif(void)
{
	rs ^= rs >> 12;
	rs ^= rs << 25;
	rs ^= rs >> 27;
	return ((double)((rs * 2685821657736338717ULL) >> 11) + 0.5) *
	       0x1p-53;
}

static double gauss(void)
{
	return sqrt(-2 * log(unif())) * cos(2 * M_PI * unif());
}

enum dist { LOGNORMAL, BIMODAL, PARETO, TIED, NDIST };

static const char *const dist_names[NDIST] = {
	"lognormal", "bimodal", "pareto", "tied",
};

static double draw(enum dist d)
{
	switch (d) {
	case LOGNORMAL: return exp(0.5 * gauss());
	case BIMODAL: return unif() < 0.7 ? 1 + 0.05 * gauss()
					 : 1.5 + 0.05 * gauss();
	case PARETO: return pow(unif(), -1 / 2.5);
	default: return 60 + floor(unif() * 4);	/* counts */
	}
}

struct opts {
	int reps;
	bool check, power;
	double alpha;
	int failed;
};

/* The chance that a correct rate fails its check: small enough that the
 * check's two dozen rates pass together but about once in 400 runs. */
#define CHECK_TAIL 1e-4

/* The most hits of reps at rate target that a correct rate reaches but
 * with probability CHECK_TAIL: the binomial's upper tail, summed exactly
 * (a normal bound of target + 3 SE, 0.0485 at 60 replications, is passed
 * by 3 hits' 0.05 with probability 0.022 for each rate: one of the two
 * dozen failed as often as not). */
static int hits_bound(int reps, double target)
{
	double tail = 1;

	for (int k = 0; k <= reps; k++) {
		double pk = exp(lgamma(reps + 1.0) - lgamma(k + 1.0) -
				lgamma(reps - k + 1.0) + k * log(target) +
				(reps - k) * log1p(-target));

		tail -= pk;	/* P(X > k) */
		if (tail <= CHECK_TAIL)
			return k;
	}
	return reps;
}

/* Report a rate and, with --check, hold it to its binomial bound. */
static void rate(struct opts *o, const char *what, int hits, int reps,
		 double target)
{
	double r = (double)hits / reps;
	double bound = (double)hits_bound(reps, target) / reps;
	bool bad = r > bound;

	printf("%-58s %6.4f  (%d of %d; bound %.4f)%s\n", what, r, hits,
	       reps, bound, o->check && bad ? "  ABOVE" : "");
	if (o->check && bad)
		o->failed = 1;
}

/* One gate of k checks over m metrics x stats (median, p95, p99), each
 * metric's candidate scaled by scale[metric]: did any check fail? */
static int gate_fails(enum dist d, size_t n, const double *scale,
		      size_t metrics, bool holm, double alpha,
		      bool *first_failed)
{
	static const enum stat_kind ks[3] = { STAT_MEDIAN, STAT_P95,
					      STAT_P99 };
	size_t k = metrics * 3;
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	struct judgement *j = calloc(k, sizeof(*j));
	double *p = malloc(k * sizeof(*p));
	int any = 0;

	for (size_t m = 0; m < metrics; m++) {
		struct judge_sample sa = { a, n, NULL, 0 }, sb = { b, n, NULL, 0 };

		for (size_t i = 0; i < n; i++) {
			a[i] = draw(d);
			b[i] = draw(d) * scale[m];
		}
		for (int s = 0; s < 3; s++) {
			struct judge_query q = {
				.stat = ks[s], .dir = JUDGE_LOWER_BETTER,
				.noisy = true, .thr = JUDGE_INCREASE,
				.relative = true, .threshold = 0,
				.alpha = alpha, .family = holm ? k : 1,
				.p_only = true,
			};

			judge(&sa, &sb, &q, &j[m * 3 + s]);
			p[m * 3 + s] = j[m * 3 + s].tested ? j[m * 3 + s].p
							   : NAN;
		}
	}
	if (holm)
		judge_holm(p, k, p);
	for (size_t i = 0; i < k; i++)
		if (!isnan(p[i]) && p[i] < alpha)
			any = 1;
	if (first_failed)
		*first_failed = !isnan(p[0]) && p[0] < alpha;
	free(a);
	free(b);
	free(j);
	free(p);
	return any;
}

static void family_false_alarms(struct opts *o)
{
	static const size_t ns[] = { 10, 30, 100 };
	double one[6] = { 1, 1, 1, 1, 1, 1 };

	for (int d = 0; d < NDIST; d++) {
		for (size_t i = 0; i < 3; i++) {
			char what[96];
			int hits = 0;

			for (int r = 0; r < o->reps; r++)
				hits += gate_fails((enum dist)d, ns[i], one,
						   6, true, o->alpha, NULL);
			snprintf(what, sizeof(what), "18-check gate, Holm, "
				 "%s, n = %zu: family-wise", dist_names[d],
				 ns[i]);
			rate(o, what, hits, o->reps, o->alpha);
		}
	}
}

/* One check of median=0% on a and b drawn by the caller. */
static bool fails1(const double *a, size_t na, const double *b, size_t nb,
		   double alpha)
{
	struct judge_sample sa = { a, na, NULL, 0 }, sb = { b, nb, NULL, 0 };
	struct judge_query q = {
		.stat = STAT_MEDIAN, .dir = JUDGE_LOWER_BETTER, .noisy = true,
		.thr = JUDGE_INCREASE, .relative = true, .threshold = 0,
		.alpha = alpha, .family = 1, .p_only = true,
	};
	struct judgement j;

	judge(&sa, &sb, &q, &j);
	return j.tested && j.p < alpha;
}

static void tied_large(struct opts *o)
{
	static const size_t ns[] = { 1001, 1500 };

	for (size_t s = 0; s < 2; s++) {
		size_t n = ns[s];
		double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
		int hits = 0;
		char what[96];

		for (int r = 0; r < o->reps; r++) {
			for (size_t i = 0; i < n; i++) {
				a[i] = draw(TIED);
				b[i] = draw(TIED);
			}
			hits += fails1(a, n, b, n, o->alpha);
		}
		snprintf(what, sizeof(what), "tied counts, %zu a side, "
			 "median=0%%", n);
		rate(o, what, hits, o->reps, o->alpha);
		free(a);
		free(b);
	}
}

/* Equal medians, unequal spread or size: the candidate is a symmetric
 * distribution about the baseline's median. */
static void boundary(struct opts *o)
{
	static const struct { size_t na, nb; double sd; } cs[] = {
		{ 30, 30, 3 }, { 100, 10, 1 }, { 100, 30, 1 },
		{ 100, 10, 3 }, { 100, 30, 3 },
	};

	for (size_t c = 0; c < sizeof(cs) / sizeof(cs[0]); c++) {
		double a[100], b[100];
		int hits = 0;
		char what[96];

		for (int r = 0; r < o->reps; r++) {
			for (size_t i = 0; i < cs[c].na; i++)
				a[i] = 100 + gauss();
			for (size_t i = 0; i < cs[c].nb; i++)
				b[i] = 100 + cs[c].sd * gauss();
			hits += fails1(a, cs[c].na, b, cs[c].nb, o->alpha);
		}
		snprintf(what, sizeof(what), "equal medians, %zu v %zu, "
			 "spread x%g, median=0%%", cs[c].na, cs[c].nb,
			 cs[c].sd);
		rate(o, what, hits, o->reps, o->alpha);
	}
}

static void power(struct opts *o)
{
	double scale[6] = { 1.2, 1, 1, 1, 1, 1 };

	for (int holm = 1; holm >= 0; holm--) {
		int hits = 0;

		for (int r = 0; r < o->reps; r++) {
			bool first;

			gate_fails(LOGNORMAL, 30, scale, 6, holm, o->alpha,
				   &first);
			hits += first;
		}
		printf("power: median of one metric 20%% up, lognormal, "
		       "n = 30, 18 checks, %s: %.3f\n", holm ? "Holm" : "none",
		       (double)hits / o->reps);
	}
}

/*
 * bench --baseline-program's two stages, as processes: 20 a side, then as
 * many as the first judgement's units_needed asks (at most 100), judged
 * once at the end. A process's value is its median: at a floor with a
 * little noise, or (share `slow`) up to 15% above it, as the processes of
 * a loaded machine measured (bench/RESULTS.md). The stages must keep the
 * false alarms at alpha when the change is at the threshold (5%), and
 * find a change of twice it (10%) in at least 90% of the invocations.
 */
static double process_value(double slow)
{
	double v = 1 + 0.003 * gauss();

	return unif() < slow ? v * (1 + 0.15 * unif()) : v;
}

/* bench's rounds of more processes (cmd/bench.c, more_processes) */
#define BENCH_ROUNDS 3

static size_t stages(double slow, double change, double alpha, bool adapt,
		     bool *failed)
{
	static double a[100], b[100];
	static unsigned ids[100];
	struct judge_query q = {
		.stat = STAT_MEDIAN, .dir = JUDGE_LOWER_BETTER, .noisy = true,
		.thr = JUDGE_INCREASE, .relative = true, .threshold = 0.05,
		.alpha = alpha, .family = 1,
	};
	struct judgement j;
	size_t n = 20, need;

	for (size_t i = 0; i < 100; i++)
		ids[i] = (unsigned)i;
	for (size_t i = 0; i < n; i++) {
		a[i] = process_value(slow);
		b[i] = process_value(slow) * (1 + change);
	}
	judge(&(struct judge_sample){ a, n, ids, 0 },
	      &(struct judge_sample){ b, n, ids, 0 }, &q, &j);
	for (int round = 0; adapt && round < BENCH_ROUNDS; round++) {
		need = j.units_needed > 100 ? 100 : j.units_needed;
		if (need <= n)
			break;
		for (size_t i = n; i < need; i++) {
			a[i] = process_value(slow);
			b[i] = process_value(slow) * (1 + change);
		}
		n = need;
		judge(&(struct judge_sample){ a, n, ids, 0 },
		      &(struct judge_sample){ b, n, ids, 0 }, &q, &j);
	}
	judge_decide(&j, &q, j.p_up, NAN);
	*failed = j.verdict == JUDGE_FAIL;
	return n;
}

static void two_stages(struct opts *o)
{
	static const double slows[] = { 0.1, 0.3, 0.5 };

	for (size_t s = 0; s < sizeof(slows) / sizeof(slows[0]); s++) {
		int at = 0, twice = 0, fixed = 0;
		size_t units = 0;
		char what[128];

		for (int r = 0; r < o->reps; r++) {
			bool f;

			stages(slows[s], 0.05, o->alpha, true, &f);
			at += f;
			units += stages(slows[s], 0.10, o->alpha, true, &f);
			twice += f;
			stages(slows[s], 0.10, o->alpha, false, &f);
			fixed += f;
		}
		snprintf(what, sizeof(what), "processes in two stages, %.0f%% "
			 "slow ones, change at the 5%% threshold", 100 *
			 slows[s]);
		rate(o, what, at, o->reps, o->alpha);
		printf("  power at 10%%: %.3f in two stages (%.1f processes a "
		       "side on average), %.3f with 20 alone\n",
		       (double)twice / o->reps, (double)units / o->reps,
		       (double)fixed / o->reps);
		if (o->check && (double)twice / o->reps <
		    0.9 - 3 * sqrt(0.09 / o->reps)) {
			printf("  BELOW 0.9\n");
			o->failed = 1;
		}
	}
}

int main(int argc, char **argv)
{
	struct opts o = { .reps = 500, .alpha = 0.01 };
	unsigned long long seed = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			o.reps = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--check"))
			o.check = true;
		else if (!strcmp(argv[i], "--power"))
			o.power = true;
		else {
			fprintf(stderr, "judge_sim: unknown argument '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (o.reps < 1)
		o.reps = 1;
	rs = seed * 0x9E3779B97F4A7C15ULL | 1;
	printf("judge_sim: %d replications, seed %llu, alpha %g\n", o.reps,
	       seed, o.alpha);
	family_false_alarms(&o);
	tied_large(&o);
	boundary(&o);
	two_stages(&o);
	if (o.power)
		power(&o);
	return o.failed;
}
