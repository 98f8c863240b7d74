/*
 * Unit tests of src/stats/hdr.c. Percentiles, mean and stddev are checked
 * against the exact values of the recorded data (sorted, summed) within the
 * bound the header promises: a value v is reported as r with
 * v <= r < v + max(lowest, v * 10^-sigfigs). Bucket edges and sizes are
 * worked out by hand from the layout (unit 2^floor(log2(lowest)), 2^m
 * sub-buckets with 2^m the smallest power of two >= 2 * 10^sigfigs).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/hdr.h"

#define HOUR_NS 3600000000000LL
#define N 100000

struct config {
	int64_t lowest, highest;
	int sigfigs;
};

/* 1 us .. 1 h in ns, as load uses it; the same at full resolution; and
 * with fewer and more digits. */
static const struct config configs[] = {
	{ 1000, HOUR_NS, 3 },
	{ 1, HOUR_NS, 3 },
	{ 1, HOUR_NS, 2 },
	{ 7, 1000000000000LL, 4 },
	{ 1, 10000000000LL, 5 },
};

#define NCONFIGS (sizeof(configs) / sizeof(configs[0]))

static struct hdr *make(const struct config *c)
{
	struct hdr *h = hdr_new(c->lowest, c->highest, c->sigfigs);

	assert_non_null(h);
	return h;
}

/* Strictly above the largest |r - v| the header allows for v. */
static double tolerance(const struct config *c, int64_t v)
{
	return fmax((double)c->lowest, (double)v * pow(10, -c->sigfigs));
}

static void check_reported(const struct config *c, const char *what,
			   int64_t want, int64_t got)
{
	if (got >= want && (double)(got - want) < tolerance(c, want))
		return;
	fail_msg("%s: hdr(%lld, %lld, %d): got %lld for %lld", what,
		 (long long)c->lowest, (long long)c->highest, c->sigfigs,
		 (long long)got, (long long)want);
}

/* ---- a fixed-seed generator (splitmix64), independent of src/stats ---- */

static uint64_t next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1). */
static double unif(uint64_t *s)
{
	return (double)(next(s) >> 11) * 0x1p-53;
}

/* ---- distributions, all within 1 us .. 1 h (ns) ---- */

static void gen_uniform(uint64_t *s, int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = 1000 + (int64_t)(next(s) % 10000000);
}

/* 1 us plus an exponential of mean 200 us. */
static void gen_exponential(uint64_t *s, int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = 1000 + (int64_t)(-200000 * log1p(-unif(s)));
}

/* 70% near 50 us, 30% near 20 ms (triangular humps). */
static void gen_bimodal(uint64_t *s, int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		double t = unif(s) + unif(s) - 1;

		if (unif(s) < 0.7)
			v[i] = 50000 + (int64_t)(t * 20000);
		else
			v[i] = 20000000 + (int64_t)(t * 10000000);
	}
}

/* Log-uniform over 1 us .. 1 h. */
static void gen_log_uniform(uint64_t *s, int64_t *v, size_t n)
{
	double lo = log(1000), hi = log((double)HOUR_NS);
	size_t i;

	for (i = 0; i < n; i++) {
		v[i] = (int64_t)exp(lo + unif(s) * (hi - lo));
		if (v[i] < 1000)
			v[i] = 1000;
		if (v[i] > HOUR_NS)
			v[i] = HOUR_NS;
	}
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* ---- the percentile spectrum, collected ---- */

struct line {
	int64_t value;
	double pct;
	int64_t cum;
};

struct spectrum {
	struct line *v;
	size_t n, cap;
	size_t stop_after;	/* return 7 from this call on; 0: never */
};

static int collect(int64_t value, double pct, int64_t cum, void *arg)
{
	struct spectrum *sp = arg;

	if (sp->n == sp->cap) {
		sp->cap = sp->cap ? 2 * sp->cap : 64;
		sp->v = realloc(sp->v, sp->cap * sizeof(*sp->v));
		assert_non_null(sp->v);
	}
	sp->v[sp->n++] = (struct line){ value, pct, cum };
	return sp->stop_after && sp->n >= sp->stop_after ? 7 : 0;
}

/*
 * What every spectrum must satisfy: starts at 0%, values, percentiles and
 * counts never go down, each line but the last is hdr_percentile at its
 * percentile, and the last is (max, 100, count).
 */
static void check_spectrum_shape(const struct hdr *h, const struct spectrum *sp)
{
	size_t i;

	assert_true(sp->n >= 2);
	assert_true(sp->v[0].pct == 0);
	for (i = 1; i < sp->n; i++) {
		assert_true(sp->v[i].value >= sp->v[i - 1].value);
		assert_true(sp->v[i].pct > sp->v[i - 1].pct);
		assert_true(sp->v[i].cum >= sp->v[i - 1].cum);
	}
	for (i = 0; i + 1 < sp->n; i++) {
		assert_true(sp->v[i].pct < 100);
		assert_int_equal(sp->v[i].value,
				 hdr_percentile(h, sp->v[i].pct));
	}
	assert_true(sp->v[sp->n - 1].pct == 100);
	assert_int_equal(sp->v[sp->n - 1].value, hdr_max(h));
	assert_int_equal(sp->v[sp->n - 1].cum, hdr_count(h));
}

/* ---- tests ---- */

static void test_bad_arguments(void **state)
{
	struct hdr *h;

	assert_null(hdr_new(0, 1000, 3));
	assert_null(hdr_new(-1, 1000, 3));
	assert_null(hdr_new(10, 19, 3));
	assert_null(hdr_new(1, 1000, 0));
	assert_null(hdr_new(1, 1000, 6));
	/* 2^52 * 2^11 sub-buckets is just 2^63; 2^53 would not fit. */
	h = hdr_new(1LL << 52, INT64_MAX, 3);
	assert_non_null(h);
	hdr_free(h);
	assert_null(hdr_new(1LL << 53, INT64_MAX, 3));
	h = hdr_new(10, 20, 3);
	assert_non_null(h);
	hdr_free(h);
}

static void test_memsize(void **state)
{
	struct hdr *h;

	/*
	 * Unit 2^9, 2^11 sub-buckets: bucket 0 ends at 2^20 and bucket 22
	 * at 2^42 > 3.6e12, so 23 buckets, stored as 24 halves of 1024
	 * counts of 8 bytes: 196,608 bytes, "about 200 KB".
	 */
	h = make(&configs[0]);
	assert_true(hdr_memsize(h) >= 196608);
	assert_true(hdr_memsize(h) <= 196608 + 256);
	hdr_free(h);
	/* Unit 1: bucket 0 ends at 2^11, 32 buckets, 33 * 1024 counts. */
	h = make(&configs[1]);
	assert_true(hdr_memsize(h) >= 270336);
	assert_true(hdr_memsize(h) <= 270336 + 256);
	hdr_free(h);
}

static void test_empty(void **state)
{
	struct spectrum sp = { 0 };
	struct hdr *h = make(&configs[0]);

	assert_int_equal(hdr_count(h), 0);
	assert_int_equal(hdr_min(h), 0);
	assert_int_equal(hdr_max(h), 0);
	assert_true(hdr_mean(h) == 0);
	assert_true(hdr_stddev(h) == 0);
	assert_int_equal(hdr_percentile(h, 0), 0);
	assert_int_equal(hdr_percentile(h, 50), 0);
	assert_int_equal(hdr_percentile(h, 100), 0);
	assert_int_equal(hdr_foreach_percentile(h, 5, collect, &sp), 0);
	assert_int_equal(sp.n, 0);
	hdr_free(h);
}

/* p = 0 for {v, highest}: v's highest equivalent value, unclamped. */
static int64_t reported_alone(struct hdr *h, int64_t v, int64_t highest)
{
	hdr_reset(h);
	hdr_record(h, v);
	hdr_record(h, highest);
	return hdr_percentile(h, 0);
}

static void test_bucket_edges(void **state)
{
	struct hdr *h = hdr_new(1, 1000000, 3);

	assert_non_null(h);
	/* Width 1 below 2048, 2 up to 4095, 4 from 4096. */
	assert_int_equal(reported_alone(h, 1, 1000000), 1);
	assert_int_equal(reported_alone(h, 2047, 1000000), 2047);
	assert_int_equal(reported_alone(h, 2048, 1000000), 2049);
	assert_int_equal(reported_alone(h, 2049, 1000000), 2049);
	assert_int_equal(reported_alone(h, 2050, 1000000), 2051);
	assert_int_equal(reported_alone(h, 4095, 1000000), 4095);
	assert_int_equal(reported_alone(h, 4096, 1000000), 4099);
	assert_int_equal(reported_alone(h, 999000, 1000000), 999423);
	/* Midpoint of [4096, 4099] is 4098, inside [min, max]. */
	hdr_reset(h);
	hdr_record(h, 4096);
	hdr_record(h, 4099);
	assert_true(hdr_mean(h) == 4098);
	assert_true(hdr_stddev(h) == 0);
	hdr_free(h);

	/* lowest 1000: unit 512 up to 2^20, so 3 digits only from ~0.5 ms. */
	h = make(&configs[0]);
	assert_int_equal(reported_alone(h, 1000, HOUR_NS), 1023);
	assert_int_equal(reported_alone(h, 1024, HOUR_NS), 1535);
	assert_int_equal(reported_alone(h, 1100, HOUR_NS), 1535);
	assert_int_equal(reported_alone(h, 524287, HOUR_NS), 524287);
	assert_int_equal(reported_alone(h, 524288, HOUR_NS), 524799);
	assert_int_equal(reported_alone(h, 1048576, HOUR_NS), 1049599);
	hdr_free(h);
}

/* v alone: exact count, min, max; p and mean at v by the clamp to max. */
static void check_alone(const struct config *c, struct hdr *h, int64_t v)
{
	char what[64];

	hdr_reset(h);
	assert_true(hdr_record(h, v));
	assert_int_equal(hdr_count(h), 1);
	assert_int_equal(hdr_min(h), v);
	assert_int_equal(hdr_max(h), v);
	assert_int_equal(hdr_percentile(h, 0), v);
	assert_int_equal(hdr_percentile(h, 50), v);
	assert_int_equal(hdr_percentile(h, 100), v);
	assert_true(hdr_mean(h) == (double)v);
	assert_true(hdr_stddev(h) == 0);
	/* With highest beside it, v's own bucket shows. */
	snprintf(what, sizeof(what), "alone %lld", (long long)v);
	check_reported(c, what, v, reported_alone(h, v, c->highest));
}

static void test_each_value_alone(void **state)
{
	size_t k;

	for (k = 0; k < NCONFIGS; k++) {
		const struct config *c = &configs[k];
		struct hdr *h = make(c);
		double x;
		int64_t v, p;

		/* Steps of 0.7%: several per bucket at every magnitude. */
		for (x = (double)c->lowest; x <= (double)c->highest;
		     x = x * 1.007 + 1)
			check_alone(c, h, (int64_t)x);
		/* Powers of two and ten and their neighbours. */
		for (p = 1; p <= c->highest / 2; p *= 2)
			for (v = 2 * p - 1; v <= 2 * p + 1; v++)
				if (v >= c->lowest && v <= c->highest)
					check_alone(c, h, v);
		for (p = 1; p <= c->highest / 10; p *= 10)
			for (v = 10 * p - 1; v <= 10 * p + 1; v++)
				if (v >= c->lowest && v <= c->highest)
					check_alone(c, h, v);
		check_alone(c, h, c->highest);
		hdr_free(h);
	}
}

/* Percentiles in parts per million, to compute the exact rank in integers. */
static const int64_t ppm[] = {
	0, 1, 10, 10000, 100000, 250000, 333333, 500000, 750000, 900000,
	990000, 999000, 999900, 999990, 999999, 1000000,
};

static void check_percentiles(const struct config *c, const char *name,
			      const struct hdr *h, const int64_t *sorted,
			      size_t n)
{
	char what[96];
	size_t i;

	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++) {
		/* rank = ceil(p/100 * n), at least 1 */
		int64_t rank = (ppm[i] * (int64_t)n + 999999) / 1000000;
		int64_t got = hdr_percentile(h, (double)ppm[i] / 10000);

		if (rank < 1)
			rank = 1;
		snprintf(what, sizeof(what), "%s p%g", name,
			 (double)ppm[i] / 10000);
		check_reported(c, what, sorted[rank - 1], got);
		assert_true(got <= sorted[n - 1]);
	}
	assert_int_equal(hdr_percentile(h, 100), sorted[n - 1]);
}

/*
 * Each midpoint is within half a bucket, (lowest + v 10^-s) / 2, of its
 * value: the mean within the mean of those, and (the stddev being a norm
 * of the centred values) the stddev within their root mean square.
 */
static void check_moments(const struct config *c, const char *name,
			  const struct hdr *h, const int64_t *v, size_t n)
{
	double sum = 0, sq = 0, err2 = 0, mean, sd, e, tol = pow(10, -c->sigfigs);
	size_t i;

	for (i = 0; i < n; i++)
		sum += (double)v[i];
	mean = sum / (double)n;
	for (i = 0; i < n; i++) {
		sq += ((double)v[i] - mean) * ((double)v[i] - mean);
		e = ((double)c->lowest + (double)v[i] * tol) / 2;
		err2 += e * e;
	}
	sd = sqrt(sq / (double)n);
	if (fabs(hdr_mean(h) - mean) >
	    ((double)c->lowest + mean * tol) / 2 + mean * 1e-12)
		fail_msg("%s: mean %.17g, want %.17g", name, hdr_mean(h), mean);
	if (fabs(hdr_stddev(h) - sd) > sqrt(err2 / (double)n) + sd * 1e-9)
		fail_msg("%s: stddev %.17g, want %.17g", name, hdr_stddev(h),
			 sd);
}

static void check_spectrum_values(const struct config *c, const char *name,
				  const struct hdr *h, const int64_t *sorted,
				  size_t n)
{
	struct spectrum sp = { 0 };
	size_t i;

	assert_int_equal(hdr_foreach_percentile(h, 5, collect, &sp), 0);
	check_spectrum_shape(h, &sp);
	for (i = 0; i < sp.n; i++) {
		double r = ceil(sp.v[i].pct / 100 * (double)n - 1e-9);
		size_t rank = r < 1 ? 1 : (size_t)r;

		check_reported(c, name, sorted[rank - 1], sp.v[i].value);
		/* The cumulative count is at least the rank. */
		assert_true(sp.v[i].cum >= (int64_t)rank);
	}
	free(sp.v);
}

static void check_distribution(const char *name,
			       void (*gen)(uint64_t *, int64_t *, size_t))
{
	int64_t *v = malloc(N * sizeof(*v)), *sorted = malloc(N * sizeof(*v));
	uint64_t seed = 20240601;
	size_t i, k;

	assert_non_null(v);
	assert_non_null(sorted);
	gen(&seed, v, N);
	memcpy(sorted, v, N * sizeof(*v));
	qsort(sorted, N, sizeof(*sorted), cmp_i64);
	for (k = 0; k < NCONFIGS; k++) {
		const struct config *c = &configs[k];
		struct hdr *h;

		if (sorted[N - 1] > c->highest)
			continue;
		h = make(c);
		for (i = 0; i < N; i++)
			assert_true(hdr_record(h, v[i]));
		assert_int_equal(hdr_count(h), N);
		assert_int_equal(hdr_min(h), sorted[0]);
		assert_int_equal(hdr_max(h), sorted[N - 1]);
		check_percentiles(c, name, h, sorted, N);
		check_moments(c, name, h, v, N);
		check_spectrum_values(c, name, h, sorted, N);
		hdr_free(h);
	}
	free(v);
	free(sorted);
}

static void test_uniform(void **state)
{
	check_distribution("uniform", gen_uniform);
}

static void test_exponential(void **state)
{
	check_distribution("exponential", gen_exponential);
}

static void test_bimodal(void **state)
{
	check_distribution("bimodal", gen_bimodal);
}

static void test_log_uniform(void **state)
{
	check_distribution("1us..1h", gen_log_uniform);
}

/* Values 1..n, exact under 2048: the value at p is ceil(p n / 100). */
static void test_percentile_ranks(void **state)
{
	struct hdr *h = hdr_new(1, 1000000, 3);
	int64_t k;

	assert_non_null(h);
	for (k = 1; k <= 100; k++)
		hdr_record(h, k);
	/* 7% of 100 is 7, though 7 * 100 / 100.0 in doubles is not. */
	for (k = 0; k <= 100; k++)
		assert_int_equal(hdr_percentile(h, (double)k), k ? k : 1);
	assert_int_equal(hdr_percentile(h, 6.5), 7);
	assert_int_equal(hdr_percentile(h, 0.01), 1);
	assert_int_equal(hdr_percentile(h, 99.01), 100);
	hdr_reset(h);
	for (k = 1; k <= 1000; k++)
		hdr_record(h, k);
	for (k = 0; k <= 1000; k++)
		assert_int_equal(hdr_percentile(h, (double)k / 10), k ? k : 1);
	for (k = 0; k <= 10000; k++)
		assert_int_equal(hdr_percentile(h, (double)k / 100),
				 k ? (k + 9) / 10 : 1);
	hdr_free(h);
}

/*
 * hdr_count_reported_from against its truth, value by value: each value
 * recorded in a copy of the histogram's layout, with a value far above
 * it so that nothing caps it, says what it is reported as (then capped
 * at the whole histogram's max), and the count is
 * of those at v or more; then the promise to a judge: p's percentile is
 * under v exactly when the count from v is at most n - ceil(p n / 100).
 */
static void test_count_reported_from(void **state)
{
	static int64_t vals[2000], rep[2000];
	uint64_t x = 0x9e3779b97f4a7c15u;

	(void)state;
	for (size_t c = 0; c < NCONFIGS; c++) {
		struct hdr *h = hdr_new(configs[c].lowest, configs[c].highest,
					configs[c].sigfigs);
		int64_t max = 0;

		for (size_t i = 0; i < 2000; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* spread over 1 .. 10^7 ns, log-uniform */
			vals[i] = (int64_t)exp((double)(x % 16000) / 1000.0);
			hdr_record(h, vals[i]);
			if (vals[i] > max)
				max = vals[i];
		}
		struct hdr *one = hdr_new(configs[c].lowest, configs[c].highest,
					  configs[c].sigfigs);

		for (size_t i = 0; i < 2000; i++) {
			int64_t r;

			hdr_reset(one);
			hdr_record(one, vals[i]);
			hdr_record(one, configs[c].highest);
			r = hdr_percentile(one, 50);
			rep[i] = r < max ? r : max;
		}
		hdr_free(one);
		for (int k = 0; k < 200; k++) {
			int64_t v = vals[(size_t)k * 10] + (k % 3) - 1, n = 0;
			double p = 50 + (double)k / 4.1;

			for (size_t i = 0; i < 2000; i++)
				n += rep[i] >= v;
			assert_int_equal(hdr_count_reported_from(h, v), n);
			assert_int_equal(hdr_percentile(h, p) < v,
					 hdr_count_reported_from(h, v) <=
					 2000 - (int64_t)ceil(p * 2000 / 100));
		}
		assert_int_equal(hdr_count_reported_from(h, 0), 2000);
		assert_int_equal(hdr_count_reported_from(h, max + 1), 0);
		hdr_free(h);
	}
}

static void test_p0_p100(void **state)
{
	struct hdr *h = hdr_new(1000, 1000000, 3);

	assert_non_null(h);
	hdr_record(h, 3000);
	hdr_record(h, 5000);
	hdr_record(h, 7000);
	/* Unit 512: 3000 is in [2560, 3071], 5000 in [4608, 5119]. */
	assert_int_equal(hdr_percentile(h, 0), 3071);
	assert_int_equal(hdr_percentile(h, -5), 3071);
	assert_int_equal(hdr_percentile(h, NAN), 3071);
	assert_int_equal(hdr_percentile(h, 33.3333), 3071);
	assert_int_equal(hdr_percentile(h, 33.34), 5119);
	/* 7000 is in [6656, 7167]: clamped to the max. */
	assert_int_equal(hdr_percentile(h, 66.67), 7000);
	assert_int_equal(hdr_percentile(h, 100), 7000);
	assert_int_equal(hdr_percentile(h, 150), 7000);
	assert_int_equal(hdr_min(h), 3000);
	assert_int_equal(hdr_max(h), 7000);
	hdr_free(h);
}

static void test_out_of_range(void **state)
{
	struct hdr *h = hdr_new(1000, 1000000, 3);

	assert_non_null(h);
	assert_true(hdr_record(h, 999));
	assert_true(hdr_record(h, 0));
	assert_true(hdr_record(h, -5));
	assert_int_equal(hdr_count(h), 3);
	assert_int_equal(hdr_min(h), 1000);
	assert_int_equal(hdr_max(h), 1000);
	assert_true(hdr_record(h, 1000000));
	assert_false(hdr_record(h, 1000001));
	assert_false(hdr_record(h, INT64_MAX));
	assert_int_equal(hdr_count(h), 6);
	assert_int_equal(hdr_max(h), 1000000);
	/* Three at 1000 ([512, 1023]), three at 1000000. */
	assert_int_equal(hdr_percentile(h, 50), 1023);
	assert_int_equal(hdr_percentile(h, 50.01), 1000000);
	assert_int_equal(hdr_percentile(h, 100), 1000000);
	assert_false(hdr_record_n(h, 2000000, 4));
	assert_int_equal(hdr_count(h), 10);
	assert_int_equal(hdr_percentile(h, 40), 1000000);
	hdr_free(h);
}

static void test_record_n(void **state)
{
	static const int64_t vals[] = { 1, 1000, 2047, 2048, 123456789,
					HOUR_NS };
	struct hdr *a = make(&configs[1]), *b = make(&configs[1]);
	size_t i;
	int k;

	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		assert_true(hdr_record_n(a, vals[i], 5));
		for (k = 0; k < 5; k++)
			assert_true(hdr_record(b, vals[i]));
	}
	assert_int_equal(hdr_count(a), 30);
	assert_int_equal(hdr_count(a), hdr_count(b));
	assert_int_equal(hdr_min(a), 1);
	assert_int_equal(hdr_max(a), HOUR_NS);
	assert_true(hdr_mean(a) == hdr_mean(b));
	assert_true(hdr_stddev(a) == hdr_stddev(b));
	for (k = 0; k <= 100; k++)
		assert_int_equal(hdr_percentile(a, k), hdr_percentile(b, k));
	/* A count of zero or less records nothing, not even a min or max. */
	assert_true(hdr_record_n(a, 50000, 0));
	assert_true(hdr_record_n(a, 50000, -3));
	assert_int_equal(hdr_count(a), 30);
	hdr_reset(b);
	assert_true(hdr_record_n(b, 50000, 0));
	assert_true(hdr_record_n(b, HOUR_NS + 1, 0));
	assert_int_equal(hdr_count(b), 0);
	assert_int_equal(hdr_min(b), 0);
	assert_int_equal(hdr_max(b), 0);
	/* Big counts: 10^12 at 5000 put p50 at 5000's bucket [5000, 5003]. */
	hdr_reset(a);
	assert_true(hdr_record_n(a, 5000, 1000000000000LL));
	assert_true(hdr_record(a, 9000));
	assert_int_equal(hdr_count(a), 1000000000001LL);
	assert_int_equal(hdr_percentile(a, 50), 5003);
	assert_int_equal(hdr_percentile(a, 100), 9000);
	hdr_free(a);
	hdr_free(b);
}

static void test_reset(void **state)
{
	struct spectrum sp = { 0 };
	struct hdr *h = make(&configs[0]);
	size_t size = hdr_memsize(h);

	hdr_record(h, 5000);
	hdr_record(h, 9000000);
	hdr_reset(h);
	assert_int_equal(hdr_count(h), 0);
	assert_int_equal(hdr_min(h), 0);
	assert_int_equal(hdr_max(h), 0);
	assert_true(hdr_mean(h) == 0);
	assert_true(hdr_stddev(h) == 0);
	assert_int_equal(hdr_percentile(h, 99), 0);
	assert_int_equal(hdr_foreach_percentile(h, 5, collect, &sp), 0);
	assert_int_equal(sp.n, 0);
	assert_int_equal(hdr_memsize(h), size);
	/* Nothing left behind, even between a new, wider min and max:
	 * p50 of {1000, 10^12} is 1000's bucket [512, 1023]. */
	hdr_record(h, 1000);
	hdr_record(h, 1000000000000LL);
	assert_int_equal(hdr_min(h), 1000);
	assert_int_equal(hdr_max(h), 1000000000000LL);
	assert_int_equal(hdr_count(h), 2);
	assert_int_equal(hdr_percentile(h, 50), 1023);
	assert_int_equal(hdr_percentile(h, 50.1), 1000000000000LL);
	hdr_free(h);
}

static void collect_all(const struct hdr *h, struct spectrum *sp)
{
	memset(sp, 0, sizeof(*sp));
	assert_int_equal(hdr_foreach_percentile(h, 5, collect, sp), 0);
}

static void test_merge(void **state)
{
	const struct config *c = &configs[0];
	struct hdr *a = make(c), *b = make(c), *all = make(c);
	struct spectrum sa, sall;
	int64_t *v = malloc(2 * N * sizeof(*v));
	uint64_t seed = 99;
	size_t i;
	int k;

	assert_non_null(v);
	gen_bimodal(&seed, v, N);
	gen_log_uniform(&seed, v + N, N);
	for (i = 0; i < 2 * N; i++) {
		hdr_record(i < N ? a : b, v[i]);
		hdr_record(all, v[i]);
	}
	assert_int_equal(hdr_merge(a, b), 0);
	assert_int_equal(hdr_count(a), hdr_count(all));
	assert_int_equal(hdr_min(a), hdr_min(all));
	assert_int_equal(hdr_max(a), hdr_max(all));
	assert_true(hdr_mean(a) == hdr_mean(all));
	assert_true(hdr_stddev(a) == hdr_stddev(all));
	for (k = 0; k <= 2000; k++)
		assert_int_equal(hdr_percentile(a, k / 20.0),
				 hdr_percentile(all, k / 20.0));
	collect_all(a, &sa);
	collect_all(all, &sall);
	assert_int_equal(sa.n, sall.n);
	assert_memory_equal(sa.v, sall.v, sa.n * sizeof(*sa.v));
	free(sa.v);
	free(sall.v);

	/* Merging an empty one changes nothing; into an empty one copies. */
	hdr_reset(b);
	assert_int_equal(hdr_merge(a, b), 0);
	assert_int_equal(hdr_count(a), 2 * N);
	assert_int_equal(hdr_merge(b, a), 0);
	assert_int_equal(hdr_min(b), hdr_min(all));
	assert_int_equal(hdr_max(b), hdr_max(all));
	assert_int_equal(hdr_percentile(b, 99.9), hdr_percentile(all, 99.9));
	free(v);
	hdr_free(a);
	hdr_free(b);
	hdr_free(all);
}

static void test_merge_mismatch(void **state)
{
	static const struct config other[] = {
		{ 999, HOUR_NS, 3 },	/* same unit, 512, still different */
		{ 1000, HOUR_NS - 1, 3 },
		{ 1000, HOUR_NS, 2 },
	};
	struct hdr *dst = make(&configs[0]);
	size_t i;

	hdr_record(dst, 5000);
	hdr_record(dst, 6000);
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		struct hdr *src = make(&other[i]);

		hdr_record(src, 1000);
		hdr_record(src, 900000);
		assert_int_equal(hdr_merge(dst, src), -1);
		assert_int_equal(hdr_count(dst), 2);
		assert_int_equal(hdr_min(dst), 5000);
		assert_int_equal(hdr_max(dst), 6000);
		assert_int_equal(hdr_percentile(dst, 0), 5119);
		hdr_free(src);
	}
	hdr_free(dst);
}

/* The levels HdrHistogram prints with ticks t: in halving j (from
 * 100 - 100/2^j), t steps of 100 / (t 2^(j+1)). */
static double level(int ticks, int j, int i)
{
	return 100 - 100 / ldexp(1, j) + i * 100 / ldexp(ticks, j + 1);
}

static void test_spectrum_levels(void **state)
{
	struct hdr *h = hdr_new(1, 1000000, 3);
	struct spectrum sp;
	size_t n;
	int64_t k;

	assert_non_null(h);
	for (k = 1; k <= 1000; k++)
		hdr_record(h, k);
	/*
	 * 1..1000, exact: the value at level L is ceil(10 L), which is its
	 * cumulative count too. It first reaches 1000 at halving 10
	 * (99.90234375); before that, 10 halvings of 5 lines each: 50 lines,
	 * then that one, then the max at 100.
	 */
	collect_all(h, &sp);
	check_spectrum_shape(h, &sp);
	assert_int_equal(sp.n, 52);
	for (n = 0; n + 1 < sp.n; n++) {
		double want = level(5, (int)n / 5, (int)n % 5);

		if (sp.v[n].pct != want)
			fail_msg("line %zu: %.17g%%, want %.17g%%", n,
				 sp.v[n].pct, want);
		assert_int_equal(sp.v[n].value,
				 n ? (int64_t)ceil(10 * want) : 1);
		assert_int_equal(sp.v[n].cum, sp.v[n].value);
	}
	assert_true(sp.v[11].pct == 77.5);
	free(sp.v);

	/* One tick per halving: 0, 50, 75, ... */
	memset(&sp, 0, sizeof(sp));
	assert_int_equal(hdr_foreach_percentile(h, 1, collect, &sp), 0);
	check_spectrum_shape(h, &sp);
	assert_true(sp.v[1].pct == 50 && sp.v[2].pct == 75);
	free(sp.v);

	/* Stopping early returns the callback's value. */
	memset(&sp, 0, sizeof(sp));
	sp.stop_after = 3;
	assert_int_equal(hdr_foreach_percentile(h, 5, collect, &sp), 7);
	assert_int_equal(sp.n, 3);
	free(sp.v);

	/* One value: its line at 0% and the max at 100%. */
	hdr_reset(h);
	hdr_record(h, 4096);
	collect_all(h, &sp);
	check_spectrum_shape(h, &sp);
	assert_int_equal(sp.n, 2);
	assert_int_equal(sp.v[0].value, 4096);
	free(sp.v);
	hdr_free(h);
}

/* The top of the int64 range: no overflow (run under UBSan). */
static void test_extremes(void **state)
{
	const struct config c = { 1, INT64_MAX, 2 };
	struct hdr *h = make(&c);

	assert_true(hdr_record(h, INT64_MAX));
	assert_true(hdr_record(h, INT64_MAX - 1));
	assert_true(hdr_record(h, 1LL << 62));
	assert_int_equal(hdr_max(h), INT64_MAX);
	assert_int_equal(hdr_percentile(h, 100), INT64_MAX);
	check_reported(&c, "2^62", 1LL << 62, hdr_percentile(h, 0));
	assert_int_equal(hdr_percentile(h, 50), INT64_MAX);
	assert_true(hdr_mean(h) > 0x1p62 && hdr_mean(h) <= 0x1p63);
	hdr_free(h);

	h = hdr_new(1LL << 52, INT64_MAX, 3);
	assert_non_null(h);
	assert_true(hdr_record(h, INT64_MAX));
	assert_true(hdr_record(h, 1));
	assert_int_equal(hdr_min(h), 1LL << 52);
	assert_int_equal(hdr_percentile(h, 0), (1LL << 53) - 1);
	assert_int_equal(hdr_percentile(h, 100), INT64_MAX);
	hdr_free(h);
}

struct rebuilt {
	struct hdr *h;
};

static int rebuild(int64_t value, int64_t count, void *arg)
{
	hdr_record_n(((struct rebuilt *)arg)->h, value, count);
	return 0;
}

/* hdr_foreach_bucket and hdr_set_range rebuild a histogram exactly:
 * every percentile, the count, min, max, mean; a min or max outside its
 * bucket is refused. Values below lowest (in bucket 0's first
 * sub-bucket, which starts below it) included. */
static void test_buckets_roundtrip(void **state)
{
	struct hdr *h = hdr_new(1000, 3600000000000LL, 3);
	struct rebuilt r = { hdr_new(1000, 3600000000000LL, 3) };
	uint64_t x = 88172645463325252ULL;

	hdr_record(h, 5);
	for (int i = 0; i < 20000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		hdr_record(h, (int64_t)(x % 50000000) + 1000);
	}
	hdr_record(h, 3600000000000LL);
	assert_int_equal(hdr_foreach_bucket(h, rebuild, &r), 0);
	assert_int_equal(hdr_count(r.h), hdr_count(h));
	assert_int_equal(hdr_set_range(r.h, hdr_min(h), hdr_max(h)), 0);
	assert_int_equal(hdr_min(r.h), hdr_min(h));
	assert_int_equal(hdr_max(r.h), hdr_max(h));
	for (double p = 0; p <= 100; p += 0.25)
		assert_int_equal(hdr_percentile(r.h, p), hdr_percentile(h, p));
	assert_true(hdr_mean(r.h) == hdr_mean(h));
	assert_int_equal(hdr_set_range(r.h, hdr_min(h) + 600, hdr_max(h)), -1);
	assert_int_equal(hdr_set_range(r.h, hdr_min(h), hdr_max(h) / 2), -1);
	assert_int_equal(hdr_min(r.h), hdr_min(h));
	hdr_free(h);
	hdr_free(r.h);
}

/* hdr_add_live reads what hdr_merge would add (min and max to their
 * buckets), and hdr_subtract leaves what was recorded after a snapshot. */
static void test_live_and_subtract(void **state)
{
	struct hdr *h = hdr_new(1000, 3600000000LL, 3);
	struct hdr *snap = hdr_new(1000, 3600000000LL, 3);
	struct hdr *later = hdr_new(1000, 3600000000LL, 3);
	struct hdr *other = hdr_new(1, 3600000000LL, 3);

	for (int i = 1; i <= 1000; i++)
		hdr_record(h, i * 1000);
	assert_int_equal(hdr_add_live(snap, h), 0);
	assert_int_equal(hdr_count(snap), 1000);
	assert_int_equal(hdr_percentile(snap, 50), hdr_percentile(h, 50));
	assert_true(hdr_min(snap) <= hdr_min(h) && hdr_max(snap) >= hdr_max(h));
	for (int i = 0; i < 100; i++) {
		hdr_record(h, 2000000);
		hdr_record(later, 2000000);
	}
	assert_int_equal(hdr_subtract(h, snap), 0);
	assert_int_equal(hdr_count(h), 100);
	/* all in 2,000,000's bucket; the max is that bucket's highest
	 * value now, no more */
	assert_true(hdr_percentile(h, 1) >= 2000000 &&
		    hdr_percentile(h, 1) < 2000000 + 2048);
	assert_int_equal(hdr_percentile(h, 100), hdr_percentile(h, 1));
	assert_int_equal(hdr_add_live(other, h), -1);
	assert_int_equal(hdr_subtract(other, h), -1);
	hdr_free(h);
	hdr_free(snap);
	hdr_free(later);
	hdr_free(other);
}

/* Issue 25 case 3: histograms of 2^62 in one bucket merged overflowed
 * int64 (UBSan, then an assertion in merge).
 * hdr_merge refuses (-2) and changes nothing. */
static void test_merge_overflow(void **state)
{
	struct hdr *a = hdr_new(1, 1000000, 3), *b = hdr_new(1, 1000000, 3);
	const int64_t big = (int64_t)1 << 62;

	(void)state;
	hdr_record_n(a, 500, big);
	hdr_record_n(b, 500, big - 1);
	assert_int_equal(hdr_merge(a, b), 0);	/* 2^63 - 1: fits */
	assert_int_equal(hdr_count(a), INT64_MAX);
	assert_int_equal(hdr_merge(a, b), -2);	/* one more does not */
	assert_int_equal(hdr_count(a), INT64_MAX);
	assert_int_equal(hdr_count(b), big - 1);
	hdr_free(a);
	hdr_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_overflow),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_memsize),
		cmocka_unit_test(test_count_reported_from),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_each_value_alone),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_exponential),
		cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_log_uniform),
		cmocka_unit_test(test_percentile_ranks),
		cmocka_unit_test(test_p0_p100),
		cmocka_unit_test(test_out_of_range),
		cmocka_unit_test(test_record_n),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_mismatch),
		cmocka_unit_test(test_spectrum_levels),
		cmocka_unit_test(test_extremes),
		cmocka_unit_test(test_buckets_roundtrip),
		cmocka_unit_test(test_live_and_subtract),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
