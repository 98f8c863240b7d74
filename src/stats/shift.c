/*
 * The change of one statistic between two samples: analytic standard
 * errors, and the permutation test and its interval (see shift.h for the
 * methods). Quantiles are type 7, as in stats_percentile_sorted, so that
 * the numbers match the summaries, and the permutation test computes them
 * the same way, so that the observed labelling's statistic equals the
 * reported one.
 */
#include "stats/shift.h"
#include "util/strutil.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdweights.h"
#include "stats/special.h"
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

/*
 * The Harrell-Davis estimate of the q-quantile of sorted v (the weighted
 * mean the permutation test uses, so that the estimate printed is the one
 * tested) and its Maritz-Jarrett standard error: the weighted standard
 * deviation of the order statistics, sqrt(sum w x^2 - (sum w x)^2). It is
 * 0 only when every value with weight is the same, so a tied sample whose
 * estimate moves also has an error that moves with it.
 */
static double quantile_of(const double *v, size_t n, double q, double *se)
{
	struct hd_weights wt;
	double c1 = 0, c2 = 0, mid = v[n / 2];

	hd_weights_init(&wt, n, 100 * q);
	/* about the middle value: no cancellation in c2 - c1^2 */
	for (size_t i = wt.first; i <= wt.last; i++) {
		c1 += wt.w[i] * (v[i] - mid);
		c2 += wt.w[i] * (v[i] - mid) * (v[i] - mid);
	}
	free(wt.w);
	*se = c2 - c1 * c1 > 0 ? sqrt(c2 - c1 * c1) : 0;
	return mid + c1;
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

/* ---- the permutation test ---- */

#define CI_LEVEL 0.025		/* each side of the 95% interval */
/* The interval's ends are bisected until their bracket is this narrow:
 * relative (a ratio's bracket within a factor 1 + BISECT_PRECISION), or
 * as a share of the first bracket (a difference's); at most BISECT_MAX
 * steps. A bracket from 1e-9 to 1e9 (a sample holding a 0) took 10 fixed
 * steps to a 4.1% grid. */
#define BISECT_PRECISION 1e-4
#define BISECT_MAX 40
/* A ratio's interval is bracketed from the ratio of the means out to
 * this factor either way; past it, unbounded. */
#define BRACKET_REACH 1e12
#define CI_BUDGET 199		/* relabellings per step of the interval */
#define BUDGET_MAX 999999	/* alpha down to 6e-6 */
#define PERM_SEED 0x79617264737469ULL

static const double percents[STAT_COUNT] = {
	-1, 50, 90, 95, 99, 0, 100,
};

/* Two samples pooled in ascending order, each value labelled by its
 * sample: hi is the one the alternative says is larger. wt[] holds the
 * weights for each of the two group sizes (the same if equal). Values are
 * stored less the pool's middle value: the statistic does not change, and
 * sums of squares lose no digits to a large common offset. */
struct pool {
	double *z;
	unsigned char *hi;
	size_t n, nh, nl;
	bool mean;		/* the statistic is the mean */
	bool top;		/* scan from the largest value */
	bool student;		/* divide by the standard error */
	bool skip;		/* relabellings skip zero weights whole */
	struct hd_weights wt[2];
};

static const struct hd_weights *weights_for(const struct pool *p, size_t m)
{
	return p->wt[0].m == m ? &p->wt[0] : &p->wt[1];
}

/* One group met during a scan: its weighted sums so far. */
struct group {
	const double *w;
	size_t m, zero, need, seen;
	double sum, sq;
};

static void group_init(struct group *g, const struct hd_weights *wt, bool top)
{
	g->w = wt->w;
	g->m = wt->m;
	g->seen = 0;
	g->sum = g->sq = 0;
	/* members to meet, counted from the scanned end; the first `zero`
	 * of them have no weight */
	g->need = top ? wt->m - wt->first : wt->last + 1;
	g->zero = top ? wt->m - 1 - wt->last : wt->first;
}

/* Members of g the scan can meet next without any of them weighing: up
 * to its first weight, or all once past its last. */
static size_t group_free(const struct group *g)
{
	if (g->seen >= g->need)
		return SIZE_MAX;
	return g->seen < g->zero ? g->zero - g->seen : 0;
}

/*
 * The relabellings' random numbers: xorshift64*, two 32-bit draws an
 * output, written out in the loops below (the scans are the whole cost
 * of a test, and an unoptimized build calls nothing it need not). A label
 * is hi when a draw u has u * (rh + rl) / 2^32 < rh: uniform over the
 * remaining positions to within (rh + rl) / 2^32.
 */
struct draws {
	uint64_t x, bits;
	int left;
	size_t scanned;		/* labels drawn one at a time */
};

#define DRAW_HI(d, rh, rl, hi)						\
	do {								\
		uint64_t u_;						\
		if (!(d)->left) {					\
			(d)->x ^= (d)->x >> 12;				\
			(d)->x ^= (d)->x << 25;				\
			(d)->x ^= (d)->x >> 27;				\
			(d)->bits = (d)->x * 2685821657736338717ULL;	\
			(d)->left = 2;					\
		}							\
		u_ = (d)->bits >> 32;					\
		(d)->bits <<= 32;					\
		(d)->left--;						\
		(hi) = ((u_ * ((rh) + (rl))) >> 32) < (rh);		\
		if (hi)							\
			(rh)--;						\
		else							\
			(rl)--;						\
	} while (0)

/*
 * The test's statistic from the two groups' estimates and variances:
 * their difference, divided by its standard error when the pool
 * studentizes (Chung and Romano 2013: then a difference of spread or of
 * size between the samples no longer moves the test's size). A difference
 * with no error is infinitely significant; no difference is 0.
 */
static double t_stat(const struct pool *p, double dh, double vh, double dl,
		     double vl)
{
	double d = dh - dl, v = vh + vl;

	if (!p->student)
		return d;
	if (v > 0)
		return d / sqrt(v);
	return d > 0 ? INFINITY : d < 0 ? -INFINITY : 0;
}

/* A uniform double in [0, 1) from the next whole output of d (a half
 * left over is dropped). */
static double draw_unit(struct draws *d)
{
	d->x ^= d->x >> 12;
	d->x ^= d->x << 25;
	d->x ^= d->x >> 27;
	d->left = 0;
	return (double)((d->x * 2685821657736338717ULL) >> 11) * 0x1p-53;
}

/* Relative terms of the hypergeometric distribution below which the
 * sampler stops walking away from the mode: their whole mass is far
 * below a double's resolution. */
#define HYPER_TAIL 1e-20

/*
 * How many of the next len labels are hi, when rh of the rh + rl left
 * are: hypergeometric, sampled by inversion over the terms within
 * HYPER_TAIL of the mode (built by their ratios, so no factorial is
 * evaluated). O(the distribution's spread), about sqrt(len), where
 * drawing the labels one by one is O(len).
 */
static size_t draw_hypergeometric(struct draws *d, size_t rh, size_t rl,
				  size_t len)
{
	size_t n = rh + rl, kmin = len > rl ? len - rl : 0;
	size_t kmax = len < rh ? len : rh, mode, k, lo, hi;
	double f, flo, sum, target;

	assert(len <= n);
	mode = (size_t)(((double)len + 1) * ((double)rh + 1) /
			((double)n + 2));
	mode = mode < kmin ? kmin : mode > kmax ? kmax : mode;
	/* the mass, in units of the mode's term; f(k + 1) / f(k) =
	 * (rh - k) (len - k) / ((k + 1) (rl - len + k + 1)) */
	sum = 1;
	for (k = mode, f = 1; k < kmax && f > HYPER_TAIL; k++) {
		f *= (double)(rh - k) * (double)(len - k) /
		     ((double)(k + 1) * (double)(rl + k + 1 - len));
		sum += f;
	}
	hi = k;
	for (k = mode, f = 1; k > kmin && f > HYPER_TAIL; k--) {
		f *= (double)k * (double)(rl + k - len) /
		     ((double)(rh - k + 1) * (double)(len - k + 1));
		sum += f;
	}
	lo = k;
	flo = f;
	/* invert from the lowest term kept upwards */
	target = draw_unit(d) * sum;
	for (k = lo, f = flo; k < hi; k++) {
		target -= f;
		if (target < 0)
			return k;
		f *= (double)(rh - k) * (double)(len - k) /
		     ((double)(k + 1) * (double)(rl + k + 1 - len));
	}
	return hi;
}

/* Labels below which a run is drawn one by one: a count costs about as
 * much as drawing a few dozen. */
#define SKIP_MIN 32

/* The hi labels of the pool's own labelling among the next len of the
 * scan from s. */
static size_t count_hi(const struct pool *p, size_t s, size_t len)
{
	const unsigned char *h = p->hi + (p->top ? p->n - s - len : s);
	size_t k = 0;

	for (size_t i = 0; i < len; i++)
		k += h[i];
	return k;
}

/*
 * Advance a scan over the labels that no weight reaches, counting them as
 * a whole: returns whether it moved. A relabelling (d not NULL) draws
 * their count, the pool's own labelling counts it. Ties make the
 * permutation test's path (a sample of counts keeps a standard error of
 * 0 at any size), and there a scan that drew every label up to the
 * percentile cost O(n) a relabelling: 10^5 identical runs a side took
 * 6.4 s to compare, 10^6 about 2 minutes, where untied ones take the
 * normal path in a fraction of that.
 */
static bool skip_free(const struct pool *p, struct group g[2],
		      struct draws *d, size_t *rh, size_t *rl, size_t *s)
{
	size_t len = group_free(&g[0]), fh = group_free(&g[1]), k;

	len = fh < len ? fh : len;
	if (len > p->n - *s)
		len = p->n - *s;
	if (len < SKIP_MIN)
		return false;
	assert(*rh + *rl == p->n - *s);
	k = d ? draw_hypergeometric(d, *rh, *rl, len) : count_hi(p, *s, len);
	g[1].seen += k;
	g[0].seen += len - k;
	*rh -= k;
	*rl -= len - k;
	*s += len;
	return true;
}

/* The statistic of a labelling for the weighted percentile: the pool's
 * own (d NULL) or a uniformly random one, drawn lazily from the end
 * nearer the percentile and only as far as its weights reach. The
 * variance of a group is Maritz and Jarrett's: sum w x^2 - (sum w x)^2. */
static double scan_quantile(const struct pool *p, struct draws *d)
{
	struct group g[2];	/* [1] hi, [0] lo */
	size_t rh = p->nh, rl = p->nl;
	double v[2];

	group_init(&g[1], weights_for(p, p->nh), p->top);
	group_init(&g[0], weights_for(p, p->nl), p->top);
	for (size_t s = 0; s < p->n; s++) {
		size_t i, idx;
		struct group *gr;
		bool hi;

		/* after a run skipped, s is the next label, which weighs */
		if (p->skip && skip_free(p, g, d, &rh, &rl, &s) &&
		    s == p->n)
			break;
		i = p->top ? p->n - 1 - s : s;
		if (d) {
			DRAW_HI(d, rh, rl, hi);
			d->scanned++;
		} else {
			hi = p->hi[i];
			if (hi)
				rh--;
			else
				rl--;
		}
		gr = &g[hi];
		idx = p->top ? gr->m - 1 - gr->seen : gr->seen;
		gr->sum += gr->w[idx] * p->z[i];
		gr->sq += gr->w[idx] * p->z[i] * p->z[i];
		gr->seen++;
		if (g[1].seen >= g[1].need && g[0].seen >= g[0].need)
			break;
	}
	for (int k = 0; k < 2; k++)
		v[k] = fmax(g[k].sq - g[k].sum * g[k].sum, 0);
	return t_stat(p, g[1].sum, v[1], g[0].sum, v[0]);
}

static double scan_mean(const struct pool *p, struct draws *d)
{
	double sum[2] = { 0, 0 }, sq[2] = { 0, 0 }, m[2], v[2];
	size_t rh = p->nh, rl = p->nl, n[2] = { p->nl, p->nh };

	for (size_t i = 0; i < p->n; i++) {
		bool hi;

		if (d)
			DRAW_HI(d, rh, rl, hi);
		else
			hi = p->hi[i];
		sum[hi] += p->z[i];
		sq[hi] += p->z[i] * p->z[i];
	}
	for (int k = 0; k < 2; k++) {
		m[k] = sum[k] / n[k];
		/* the squared standard error of the mean, Welch's */
		v[k] = n[k] > 1 ? fmax(sq[k] - sum[k] * m[k], 0) /
				  (n[k] - 1) / n[k] : 0;
	}
	return t_stat(p, m[1], v[1], m[0], v[0]);
}

static double scan(const struct pool *p, struct draws *d)
{
	return p->mean ? scan_mean(p, d) : scan_quantile(p, d);
}

/* Pool s * h - d (h sorted, s > 0) with sorted l into p (buffers of
 * nh + nl). */
static void pool_fill(struct pool *p, const double *h, size_t nh,
		      const double *l, size_t nl, double s, double d)
{
	size_t i = 0, j = 0, o = 0;

	p->nh = nh;
	p->nl = nl;
	p->n = nh + nl;
	while (i < nh || j < nl) {
		double x = i < nh ? s * h[i] - d : INFINITY;

		if (i < nh && (j >= nl || x <= l[j])) {
			p->z[o] = x;
			p->hi[o++] = 1;
			i++;
		} else {
			p->z[o] = l[j++];
			p->hi[o++] = 0;
		}
	}
	for (size_t k = 0, c = p->n / 2; k < p->n; k++)
		if (k != c)
			p->z[k] -= p->z[c];
	p->z[p->n / 2] = 0;
}

/* Relabellings for a test at level: enough that p < level is reachable
 * with room: at p = level, 6 relabellings would reach the observed
 * difference. Few, so that under "no change" a test stops after some 35
 * relabellings on average (the p-value is coarse, the size exact). */
static size_t budget(double level)
{
	double b = ceil(6 / level) - 1;

	return b > BUDGET_MAX ? BUDGET_MAX : (size_t)b;
}

/*
 * The generator's seed: a hash of the pooled values, which do not depend
 * on the labels. One fixed seed for every test would use one fixed set of
 * relabellings, and a p-value from a fixed set is not uniform over data
 * (its false alarms measured 2.5 times alpha); a seed drawn from the
 * values keeps the test reproducible and its relabellings as good as
 * fresh for every sample.
 */
static uint64_t pool_seed(const struct pool *p)
{
	uint64_t h = PERM_SEED ^ p->n;
	double spread = p->n ? p->z[p->n - 1] - p->z[0] : 0;

	/* the values as shares of their spread (z is sorted and 0 at its
	 * middle), to 2^-24: what the values are, not the unit they are
	 * written in (a seed from their bits drew other relabellings for
	 * the same runs in ms and in s, and gate's verdict near its
	 * threshold could change with the unit) */
	if (!(spread > 0) || !isfinite(spread))
		spread = 0;
	for (size_t i = 0; i < p->n; i++) {
		double q = spread ? p->z[i] / spread * 16777216.0 : 0;
		uint64_t bits = (uint64_t)(int64_t)llround(isfinite(q) ? q : 0);

		h = (h ^ bits) * 0x100000001b3ULL;
		h ^= h >> 29;
	}
	return h;
}

/* Labellings up to which the p-value is counted over all of them: at a
 * few runs a side the Monte Carlo estimate's noise would be as large as
 * the p-values that matter (1/252 at 5 a side). */
#define EXACT_MAX 5000

/* The exact p-value over every labelling of a pool of at most 63. */
/* t at least t0, allowing rounding: the observed labelling drawn again
 * must count */
static bool as_extreme(double t, double t0)
{
	return t >= t0 || (isfinite(t0) && t >= t0 - 1e-9 * fabs(t0));
}

static double exact_p(const struct pool *p, double t0)
{
	struct pool q = *p;
	unsigned char lab[64];
	uint64_t v = (UINT64_C(1) << p->nh) - 1, end = UINT64_C(1) << p->n;
	size_t count = 0, total = 0;

	q.hi = lab;
	while (v < end) {
		uint64_t c = v & -v, r = v + c;

		for (size_t i = 0; i < p->n; i++)
			lab[i] = (v >> i) & 1;
		total++;
		count += as_extreme(scan(&q, NULL), t0);
		v = (((r ^ v) >> 2) / c) | r;	/* next with nh bits set */
	}
	return (double)count / (double)total;
}

static double min_p(size_t na, size_t nb);

/* The extreme labellings after which p >= level is certain among b. */
static size_t stop_at(double level, size_t b)
{
	return (size_t)ceil(level * (double)(b + 1));
}

/*
 * One-sided p of the observed labelling over at most b random ones
 * (every one, when they are few: exact_p), stopped at the stop-th
 * labelling as extreme as it: then p = (1 + stop) / (1 + drawn), at least
 * Besag and Clifford's sequential p (stop / drawn) and as valid, P(p <=
 * x) <= x under "no change" for every x. The relabellings drawn and the
 * labels drawn one at a time go to cost when it is not NULL.
 */
static double perm_p(const struct pool *p, size_t stop, size_t b,
		     struct shift_test *cost)
{
	size_t done = 0, count = 0;
	double t0 = scan(p, NULL);
	struct draws d = { .x = pool_seed(p) | 1 };

	if (isnan(t0))
		return NAN;
	if (p->n < 64 && 1 / min_p(p->nh, p->nl) <= EXACT_MAX)
		return exact_p(p, t0);
	while (done < b) {
		double t = scan(p, &d);

		done++;
		if (as_extreme(t, t0) && ++count >= stop)
			break;
	}
	if (cost) {
		cost->relabellings += done;
		cost->scanned += d.scanned;
	}
	return (1.0 + (double)count) / (1.0 + (double)done);
}

/*
 * Whether the test of statistic k divides by its standard error, with m
 * runs on the smaller side: the mean always; a quantile q once its
 * Maritz-Jarrett error rests on at least 3 runs beyond it, m min(q, 1-q)
 * >= 3 (the median from 6 runs a side, p90 from 30, p95 from 60, p99 from
 * 300). Below that the error of a relabelling whose top values happen to
 * agree is near 0 and its quotient swamps the observed one (every 30 ms
 * run above every 10 ms run was no longer significant for p90 at 10 a
 * side); the plain difference is as exact under "no change".
 */
static bool studentized(enum stat_kind k, size_t m)
{
	double q = percents[k] / 100;

	if (k == STAT_MEAN)
		return true;
	if (k == STAT_MIN || k == STAT_MAX)
		return false;
	return (double)m * fmin(q, 1 - q) >= 3;
}

/* Buffers for pooling samples of na and nb values, and the weights of
 * statistic k for both sizes. */
static void pool_alloc(struct pool *p, size_t na, size_t nb,
		       enum stat_kind k)
{
	memset(p, 0, sizeof(*p));
	p->mean = k == STAT_MEAN;
	p->top = percents[k] >= 50;
	p->student = studentized(k, na < nb ? na : nb);
	/* up to SHIFT_PERM_MAX a scan draws at most some thousand labels,
	 * and every p-value there stays the one drawn label by label */
	p->skip = na + nb > SHIFT_PERM_MAX;
	p->z = xmalloc((na + nb) * sizeof(*p->z));
	p->hi = xmalloc(na + nb);
	if (!p->mean) {
		hd_weights_init(&p->wt[0], na, percents[k]);
		hd_weights_init(&p->wt[1], nb, percents[k]);
	}
}

static void pool_free(struct pool *p)
{
	free(p->z);
	free(p->hi);
	free(p->wt[0].w);
	free(p->wt[1].w);
}

/* The smallest p-value any labelling of na + nb values can give,
 * 1 / C(na + nb, na), as a product: exact while C fits a double's 53
 * bits, where lgamma's 1/20 came out as 0.04999999999999998 and made 3
 * runs a side look able to decide at alpha 0.05. */
static double min_p(size_t na, size_t nb)
{
	size_t k = na < nb ? na : nb, n = na + nb;
	double c = 1;

	for (size_t i = 1; i <= k && c < 1e300; i++)
		c = c * (double)(n - k + i) / (double)i;
	return 1 / c;
}

bool stats_shift_decidable(size_t na, size_t nb, double alpha)
{
	/* p < alpha must be reachable with room for rounding: p = alpha
	 * exactly is not a rejection */
	return min_p(na, nb) * (1 + 1e-9) < alpha;
}

/* At most one value in ten repeats another: measured times, not counts. */
static bool untied(const double *v, size_t n)
{
	size_t same = 0;

	for (size_t i = 1; i < n; i++)
		same += v[i] == v[i - 1];
	return same * 10 < n;
}

/*
 * Whether the permutation test judges, rather than the normal
 * approximation: small samples; min and max, which have no standard
 * error; a standard error that is 0 or not finite; a relative change from
 * 0; and tied samples (counts) up to SHIFT_TIED_MAX, where a standard
 * error from a few distinct values is too coarse to trust (1,001 runs a
 * side of tied counts gave 22% false alarms on the normal path).
 */
static bool use_permutation(const double *a, size_t na, const double *b,
			    size_t nb, enum stat_kind k, bool relative)
{
	struct shift sh;

	if (na + nb <= SHIFT_PERM_MAX || k == STAT_MIN || k == STAT_MAX)
		return true;
	if (na + nb <= SHIFT_TIED_MAX && (!untied(a, na) || !untied(b, nb)))
		return true;
	stats_shift(a, na, b, nb, k, &sh);
	return !(sh.base_se > 0) || !(sh.cand_se > 0) ||
	       !isfinite(sh.base_se) || !isfinite(sh.cand_se) ||
	       (relative && sh.base == 0);
}

static void normal_test(const double *a, size_t na, const double *b,
			size_t nb, enum stat_kind k, enum shift_mode mode,
			bool decrease, double thr, struct shift_test *out)
{
	struct shift sh;
	double d, se;

	stats_shift(a, na, b, nb, k, &sh);
	if (mode == SHIFT_ABSOLUTE) {
		d = sh.diff;
		se = sqrt(sh.base_se * sh.base_se + sh.cand_se * sh.cand_se);
	} else {
		d = sh.rel;
		se = (sh.rel_ci[1] - sh.rel_ci[0]) / (2 * Z95);
	}
	if (decrease)
		d = -d;
	/* use_permutation saw to se > 0 */
	out->p = stats_normal_cdf(-(d - thr) / se);
	out->method = "normal";
}

int stats_shift_test(const double *a, size_t na, const double *b, size_t nb,
		     enum stat_kind k, enum shift_mode mode, bool decrease,
		     double thr, double alpha, struct shift_test *out)
{
	return stats_shift_test_family(a, na, b, nb, k, mode, decrease, thr,
				       alpha, 1, out);
}

/*
 * A relative test's samples (sorted, not negative) are tested at a scale
 * of 2^e, exact, that puts their largest value near 1, when theirs is so
 * small or so large that squares and sums leave the doubles (values of
 * 1e-320: every standard error 0, the interval [-100%, +inf] for a clear
 * +20%). The exponent, or 0 when they need none (their results are then
 * bit for bit those of before).
 */
static int rel_exponent(const double *a, size_t na, const double *b,
			size_t nb)
{
	double m = fmax(a[na - 1], b[nb - 1]);

	if (!(m > 0) || !isfinite(m) || (m > 0x1p-400 && m < 0x1p400))
		return 0;
	return -ilogb(m);
}

/* v[0..n) times 2^e, malloc'd. */
static double *scaled(const double *v, size_t n, int e)
{
	double *c = xmalloc(n * sizeof(*c));

	for (size_t i = 0; i < n; i++)
		c[i] = ldexp(v[i], e);
	return c;
}

int stats_shift_test_family(const double *a, size_t na, const double *b,
			    size_t nb, enum stat_kind k, enum shift_mode mode,
			    bool decrease, double thr, double alpha,
			    size_t family, struct shift_test *out)
{
	const double *h = decrease ? a : b, *l = decrease ? b : a;
	size_t nh = decrease ? na : nb, nl = decrease ? nb : na;
	double s = 1, d = 0;
	size_t budget_k, stop;
	struct pool p;
	int e;

	if (!na || !nb || k >= STAT_COUNT)
		return -1;
	if (mode == SHIFT_RELATIVE && (e = rel_exponent(a, na, b, nb))) {
		double *sa = scaled(a, na, e), *sb = scaled(b, nb, e);
		int r = stats_shift_test_family(sa, na, sb, nb, k, mode,
						decrease, thr, alpha, family,
						out);

		free(sa);
		free(sb);
		return r;
	}
	memset(out, 0, sizeof(*out));
	out->decidable = true;
	out->method = "permutation";
	if (!stats_shift_decidable(na, nb, alpha)) {
		size_t m = 1;

		while (!stats_shift_decidable(m, m, alpha))
			m++;
		out->decidable = false;
		out->runs_needed = m;
		out->p = 1;
		return 0;
	}
	if (!use_permutation(a, na, b, nb, k, mode == SHIFT_RELATIVE)) {
		normal_test(a, na, b, nb, k, mode, decrease, thr, out);
		return 0;
	}
	/* the hypothesis "changed by more than thr" as stat(s h - d) >
	 * stat(l): quantiles and the mean move with a shift and a scale */
	if (mode == SHIFT_ABSOLUTE) {
		d = thr;
	} else if (decrease) {
		if (thr >= 1) {		/* cannot fall by 100% or more */
			out->p = 1;
			return 0;
		}
		s = 1 - thr;
	} else {
		s = 1 / (1 + thr);
	}
	pool_alloc(&p, na, nb, k);
	pool_fill(&p, h, nh, l, nl, s, d);
	if (p.n < 64 && 1 / min_p(nh, nl) <= EXACT_MAX)
		out->method = "exact permutation";
	/* the budget for alpha / family: Holm's first step compares the
	 * smallest p with it */
	budget_k = budget(alpha / (double)(family ? family : 1));
	/* stopped where p >= alpha is certain (6 k extreme ones for a
	 * family of k), or for a family of more than 10 at 60, Besag and
	 * Clifford's h: its p is as valid, coarser above 1 / 60 of the
	 * budget. Certainty drew 48,000 extreme ones a test in a family of
	 * 8,000: 2,000 benchmarks of 10 runs took 170 s to compare. */
	stop = stop_at(alpha, budget_k);
	if (stop > 10 * stop_at(alpha, budget(alpha)))
		stop = 10 * stop_at(alpha, budget(alpha));
	out->p = perm_p(&p, stop, budget_k, out);
	pool_free(&p);
	return 0;
}

/* Does the test of stat(h - t) > stat(l) (shift) or stat(h / t) > stat(l)
 * (scale) reject at CI_LEVEL? */
static bool rejects(struct pool *p, const double *h, size_t nh,
		    const double *l, size_t nl, bool scale, double t)
{
	pool_fill(p, h, nh, l, nl, scale ? 1 / t : 1, scale ? 0 : t);
	return perm_p(p, stop_at(CI_LEVEL, CI_BUDGET), CI_BUDGET, NULL) <
	       CI_LEVEL;
}

/*
 * The largest t for which the test of stat(h - t) > stat(l) (or of
 * stat(h / t) > stat(l), t > 0) rejects: -inf (0 for a scale) when none
 * does, +inf when every one does.
 */
static double boundary(struct pool *p, const double *h, size_t nh,
		       const double *l, size_t nl, bool scale)
{
	double lo, hi, width;

	if (!scale) {
		/* below lo every h - t is above every l, above hi below;
		 * a margin past the ends, so that ties split too */
		double eps = 1e-9 * fmax(fmax(fabs(h[0]), fabs(h[nh - 1])),
					 fmax(fabs(l[0]), fabs(l[nl - 1])));

		lo = h[0] - l[nl - 1] - eps;
		hi = h[nh - 1] - l[0] + eps;
		if (!rejects(p, h, nh, l, nl, scale, lo))
			return -INFINITY;
		if (rejects(p, h, nh, l, nl, scale, hi))
			return INFINITY;
	} else {
		/* from the ratio of the means, by factors of 4 each way
		 * until the test turns: the ends of the data (h[0] / l's
		 * largest) put 0 or a run of 1e-300 at 1e-9 or beyond, and
		 * a bracket of 1e18 or more */
		double sh = 0, sl = 0, g;

		if (h[nh - 1] <= 0)
			return 0;
		for (size_t i = 0; i < nh; i++)
			sh += h[i];
		for (size_t i = 0; i < nl; i++)
			sl += l[i];
		/* the test is of stat(h / t) against stat(l): it turns
		 * near mean(h) / mean(l) */
		g = sh > 0 && sl > 0 ? (sh / (double)nh) / (sl / (double)nl) : 1;
		if (!isfinite(g) || !(g > 0))
			g = 1;
		if (rejects(p, h, nh, l, nl, scale, g)) {
			lo = g;
			for (hi = 4 * g; rejects(p, h, nh, l, nl, scale, hi);
			     hi *= 4)
				if (hi > BRACKET_REACH * g)
					return INFINITY;
		} else {
			hi = g;
			for (lo = g / 4; !rejects(p, h, nh, l, nl, scale, lo);
			     lo /= 4)
				if (lo < g / BRACKET_REACH)
					return 0;
		}
	}
	width = BISECT_PRECISION * (hi - lo);
	for (int i = 0; i < BISECT_MAX &&
			(scale ? hi / lo > 1 + BISECT_PRECISION
			       : hi - lo > width); i++) {
		double mid = scale ? sqrt(lo * hi) : lo + (hi - lo) / 2;

		if (rejects(p, h, nh, l, nl, scale, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int stats_shift_ci(const double *a, size_t na, const double *b, size_t nb,
		   enum stat_kind k, enum shift_mode mode, double ci[2])
{
	bool scale = mode == SHIFT_RELATIVE;
	struct shift sh;
	struct pool p;
	double t;
	int e;

	if (!na || !nb || k >= STAT_COUNT)
		return -1;
	if (scale && (e = rel_exponent(a, na, b, nb))) {
		double *sa = scaled(a, na, e), *sb = scaled(b, nb, e);
		int r = stats_shift_ci(sa, na, sb, nb, k, mode, ci);

		free(sa);
		free(sb);
		return r;
	}
	/* Where the test is the normal one, its interval; else the
	 * permutation test's, so that a change the test finds significantly
	 * beyond a threshold has its interval beyond it too. */
	if (!use_permutation(a, na, b, nb, k, scale)) {
		stats_shift(a, na, b, nb, k, &sh);
		ci[0] = scale ? sh.rel_ci[0] : sh.diff_ci[0];
		ci[1] = scale ? sh.rel_ci[1] : sh.diff_ci[1];
		return 0;
	}
	if (min_p(na, nb) >= CI_LEVEL) {
		ci[0] = scale ? -1 : -INFINITY;
		ci[1] = INFINITY;
		return 0;
	}
	pool_alloc(&p, na, nb, k);
	/* lower: the largest change "b grew by more than" rejects */
	t = boundary(&p, b, nb, a, na, scale);
	ci[0] = scale ? t - 1 : t;
	/* upper: stat(a + t') > stat(b), i.e. the change is below -t' */
	t = boundary(&p, a, na, b, nb, scale);
	ci[1] = scale ? (t > 0 ? 1 / t - 1 : INFINITY) : -t;
	pool_free(&p);
	/* The test never rejects the change estimated (the observed
	 * statistic less it is 0), so the set of changes it does not reject
	 * holds the estimate; the bisection's coarse steps must not lose it. */
	stats_shift(a, na, b, nb, k, &sh);
	t = scale ? sh.rel : sh.diff;
	if (isfinite(t)) {
		ci[0] = fmin(ci[0], t);
		ci[1] = fmax(ci[1], t);
	}
	return 0;
}
