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
 * --wide-gates G: besides (or, with --only-wide, instead of) the above,
 * G gates of the gate module itself (gate_evaluate on two results built
 * here, as `yardstick gate` evaluates them after reading its files): 20
 * metrics of the vocabulary, the 5 higher-better ones and 15 lower-better
 * (a --max-increase of 0% for a lower-better metric, a --max-decrease
 * for a higher-better one), x 3 benchmarks = 60 checks at the default
 * alpha (0.01), both sides drawn from one distribution (lognormal,
 * bimodal, Pareto, tied counts; 5 to 30 runs). Holm must hold the share
 * of failing gates at alpha: at most the count a correct rate exceeds
 * with probability 1e-6 (G = 500: 19, 3.8%), so the check fails a
 * correct judge about once in 3.6 million runs and an 8% rate (the false
 * alarms once measured) all but always. The first 50 of the same gates
 * judged without correction must fail more often than their own bound:
 * the measure can tell.
 *
 * --seed 0 draws a seed from /dev/urandom (printed: rerun with it).
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

#include "result/gate.h"
#include "result/metrics.h"
#include "result/result.h"
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
	int reps, wide_gates;
	bool check, power, only_wide;
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
static int hits_bound_tail(int reps, double target, double tail_max)
{
	double tail = 1;

	for (int k = 0; k <= reps; k++) {
		double pk = exp(lgamma(reps + 1.0) - lgamma(k + 1.0) -
				lgamma(reps - k + 1.0) + k * log(target) +
				(reps - k) * log1p(-target));

		tail -= pk;	/* P(X > k) */
		if (tail <= tail_max)
			return k;
	}
	return reps;
}

static int hits_bound(int reps, double target)
{
	return hits_bound_tail(reps, target, CHECK_TAIL);
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

/*
 * Wide gates, through the gate module: the metrics of the vocabulary a
 * gate judges noisily in one direction (not settings, not deterministic,
 * not proportions), the first WIDE_METRICS of them.
 */
#define WIDE_METRICS 20
#define WIDE_BENCHES 3
#define WIDE_TAIL 1e-6

static size_t wide_metrics(const struct metric_info **out)
{
	size_t n, k = 0;
	const struct metric_info *t = metrics_table(&n);

	/* every higher-better one (5), then lower-better ones in order */
	for (int hi = 1; hi >= 0; hi--)
		for (size_t i = 0; i < n && k < WIDE_METRICS; i++)
			if (!t[i].setting && !t[i].deterministic &&
			    !t[i].trials &&
			    t[i].dir == (hi ? DIR_HIGHER : DIR_LOWER))
				out[k++] = &t[i];
	return k;
}

/* A value of a metric's dimension drawn from d (counts as whole ones). */
static double wide_value(const struct metric_info *m, enum dist d)
{
	static const double scale[] = {
		[DIM_TIME] = 0.01, [DIM_BYTES] = 1 << 24,
		[DIM_COUNT] = 1000, [DIM_RATE] = 1e6, [DIM_RATIO] = 1.5,
	};

	if (d == TIED)
		return draw(d);
	return m->dim == DIM_COUNT ? floor(scale[m->dim] * draw(d))
				   : scale[m->dim] * draw(d);
}

/* One side: WIDE_BENCHES benchmarks of every metric, n runs each. */
static void wide_result(struct result *r, const struct metric_info **ms,
			size_t nm, const size_t *n, enum dist d)
{
	result_init(r, "run");
	for (size_t b = 0; b < WIDE_BENCHES; b++) {
		char name[16];
		struct benchmark *bp;

		snprintf(name, sizeof(name), "b%zu", b);
		bp = result_add_benchmark(r, name, NULL);
		for (size_t m = 0; m < nm; m++) {
			struct metric *mp = benchmark_metric(bp, ms[m]->name,
							     ms[m]->unit);

			for (size_t i = 0; i < n[b]; i++)
				metric_push(mp, wide_value(ms[m], d));
		}
	}
}

/* Did one null gate fail (any check failing the gate)? -1: an error. */
static int wide_gate_fails(const struct gate_threshold *t, size_t nt,
			   const struct metric_info **ms, size_t nm,
			   enum dist d, enum judge_correction corr)
{
	struct result a, b;
	struct gate_opts go;
	struct gate_report rep = { 0 };
	struct error e;
	size_t n[WIDE_BENCHES];
	int failed;

	for (size_t i = 0; i < WIDE_BENCHES; i++)
		n[i] = 5 + (size_t)(unif() * 26);	/* 5 to 30 runs */
	wide_result(&a, ms, nm, n, d);
	wide_result(&b, ms, nm, n, d);
	gate_opts_init(&go);
	go.correction = corr;
	if (gate_evaluate(&a, &b, t, nt, &go, &rep, &e)) {
		fprintf(stderr, "judge_sim: gate: %s\n", e.msg);
		failed = -1;
	} else {
		/* the null: inconclusive checks (5 runs a side) are no
		 * alarm; a gate fails by a check that failed its test */
		failed = 0;
		for (size_t i = 0; i < rep.n; i++)
			failed |= rep.checks[i].verdict == GATE_FAIL;
	}
	gate_report_free(&rep);
	result_free(&a);
	result_free(&b);
	return failed;
}

static void wide_gates(struct opts *o)
{
	const struct metric_info *ms[WIDE_METRICS];
	struct gate_threshold t[WIDE_METRICS];
	size_t nm = wide_metrics(ms), none_reps;
	int holm = 0, none = 0, bound, none_bound, hi = 0;
	struct gate_opts go;
	char what[128];

	gate_opts_init(&go);
	for (size_t m = 0; m < nm; m++) {
		char spec[96];
		struct error e;
		bool up = ms[m]->dir == DIR_LOWER;

		hi += !up;
		snprintf(spec, sizeof(spec), "%s=0%%", ms[m]->name);
		if (gate_parse(spec, up ? GATE_INCREASE : GATE_DECREASE, NULL,
			       &t[m], &e)) {
			fprintf(stderr, "judge_sim: %s\n", e.msg);
			o->failed = 1;
			return;
		}
	}
	none_reps = o->wide_gates < 50 ? (size_t)o->wide_gates : 50;
	for (int r = 0; r < o->wide_gates; r++) {
		int f = wide_gate_fails(t, nm, ms, nm, (enum dist)(r % NDIST),
					JUDGE_HOLM);

		if (f < 0)
			o->failed = 1;
		holm += f > 0;
		if ((size_t)r < none_reps)
			none += wide_gate_fails(t, nm, ms, nm,
						(enum dist)(r % NDIST),
						JUDGE_NO_CORRECTION) > 0;
	}
	bound = hits_bound_tail(o->wide_gates, go.alpha, WIDE_TAIL);
	none_bound = hits_bound_tail((int)none_reps, go.alpha, WIDE_TAIL);
	snprintf(what, sizeof(what), "%zu-check gates (%zu metrics, %d higher-"
		 "better, x %d benchmarks), Holm", nm * WIDE_BENCHES, nm, hi,
		 WIDE_BENCHES);
	printf("%-58s %6.4f  (%d of %d; bound %d, alpha %g, P(false "
	       "failure) < %g)%s\n", what, (double)holm / o->wide_gates, holm,
	       o->wide_gates, bound, go.alpha, WIDE_TAIL,
	       holm > bound ? "  ABOVE" : "");
	printf("%-58s %6.4f  (%d of %zu; must be above %d)%s\n",
	       "the same gates without correction", (double)none / none_reps,
	       none, none_reps, none_bound,
	       none <= none_bound ? "  NOT ABOVE" : "");
	if (o->check && (holm > bound || none <= none_bound))
		o->failed = 1;
	for (size_t m = 0; m < nm; m++)
		gate_threshold_free(&t[m]);
}

/* A seed from /dev/urandom, not 0: 0 and *seed, or -1 with a message. */
static int random_seed(unsigned long long *seed)
{
	FILE *f = fopen("/dev/urandom", "rb");
	size_t got = 0;

	if (f) {
		do
			got = fread(seed, sizeof(*seed), 1, f);
		while (got == 1 && !(*seed >>= 1));	/* 63 bits, not 0 */
		fclose(f);
	}
	if (got != 1) {
		fprintf(stderr, "judge_sim: cannot read /dev/urandom\n");
		return -1;
	}
	return 0;
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
		else if (!strcmp(argv[i], "--wide-gates") && i + 1 < argc)
			o.wide_gates = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--only-wide"))
			o.only_wide = true;
		else {
			fprintf(stderr, "judge_sim: unknown argument '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (o.reps < 1)
		o.reps = 1;
	if (!seed && random_seed(&seed))
		return 2;
	rs = seed * 0x9E3779B97F4A7C15ULL | 1;
	printf("judge_sim: %d replications, seed %llu, alpha %g\n", o.reps,
	       seed, o.alpha);
	if (!o.only_wide) {
		family_false_alarms(&o);
		tied_large(&o);
		boundary(&o);
		two_stages(&o);
		if (o.power)
			power(&o);
	}
	if (o.wide_gates > 0)
		wide_gates(&o);
	return o.failed;
}
