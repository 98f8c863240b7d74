/*
 * HDR histogram (after Gil Tene's HdrHistogram; our own code). Counts sit
 * in one flat array of log-linear buckets:
 *
 *   - Bucket 0 splits [0, 2^(u + m)) into 2^m sub-buckets of width 2^u,
 *     where u = floor(log2(lowest)) (the unit) and 2^m is the smallest
 *     power of two >= 2 * 10^sigfigs.
 *   - Bucket b >= 1 covers [2^(u + m + b - 1), 2^(u + m + b)) with 2^(m-1)
 *     sub-buckets of width 2^(u + b). Its lower half would repeat bucket
 *     b - 1, so only the upper half is stored.
 *
 * Hence flat index = b * 2^(m-1) + (v >> (u + b)), which grows with v, and
 * bucket b is found from the position of v's top bit with one
 * count-leading-zeros: record is O(1). A sub-bucket's width is at most
 * max(2^u, v / 2^(m-1)) and 2^(m-1) >= 10^sigfigs, so every value is kept
 * to within max(lowest, v * 10^-sigfigs).
 *
 * The one thing to know before changing anything: a value is reported as
 * its sub-bucket's highest equivalent value (mean and stddev use its
 * midpoint), and min, max and the total are kept exactly on the side.
 *
 * Size: hdr_new(1000, 3600000000000, 3) has u = 9, m = 11 and needs 23
 * buckets (2^20 << 22 = 2^42 > 3.6e12), i.e. (23 + 1) * 1024 = 24,576
 * counts: 196,608 bytes plus a 72-byte header = 196,680 bytes (192 KiB).
 * hdr_new(1, 3600000000000, 3), 3 digits all the way down, takes 270,408.
 */
#include "stats/hdr.h"
#include "util/strutil.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct hdr {
	int64_t lowest, highest;
	int sigfigs;
	int unit_mag;		/* u: log2 of bucket 0's sub-bucket width */
	int sub_mag;		/* m: log2 of the sub-buckets in bucket 0 */
	int64_t sub_mask;	/* bits of bucket 0's sub-bucket numbers */
	size_t len;		/* entries in counts */
	int64_t total;
	int64_t min;		/* INT64_MAX while empty */
	int64_t max;
	int64_t counts[];
};

static int64_t half_count(const struct hdr *h)
{
	return (int64_t)1 << (h->sub_mag - 1);
}

static size_t index_of(const struct hdr *h, int64_t v)
{
	uint64_t x = (uint64_t)v | (uint64_t)h->sub_mask;
	int top = 64 - __builtin_clzll(x);	/* >= u + m, thanks to the mask */
	int b = top - h->unit_mag - h->sub_mag;
	int64_t sub = v >> (b + h->unit_mag);
	size_t i = (size_t)b * (size_t)half_count(h) + (size_t)sub;

	assert(b >= 0 && i < h->len);
	return i;
}

/* The bucket and sub-bucket number of flat index i. */
static void bucket_of(const struct hdr *h, size_t i, int *b, int64_t *sub)
{
	int64_t half = half_count(h);

	*b = (int)(i >> (h->sub_mag - 1));
	*sub = (int64_t)i - (int64_t)*b * half;
	if (*b > 0) {
		/* Stored upper half: sub-buckets half .. 2 half - 1. */
		*b -= 1;
		*sub += half;
	}
}

static int64_t lowest_at(const struct hdr *h, size_t i, int64_t *width)
{
	int64_t sub;
	int b;

	bucket_of(h, i, &b, &sub);
	*width = (int64_t)1 << (h->unit_mag + b);
	return sub << (h->unit_mag + b);
}

/* Highest equivalent value of index i, which is never above hdr_max. */
static int64_t reported_at(const struct hdr *h, size_t i)
{
	int64_t width, lo = lowest_at(h, i, &width);
	int64_t hi = lo + (width - 1);	/* <= INT64_MAX even at the top */

	return hi < h->max ? hi : h->max;
}

static double midpoint_at(const struct hdr *h, size_t i)
{
	int64_t width, lo = lowest_at(h, i, &width);

	return (double)(lo + width / 2);
}

/* Indices of the first and last non-empty sub-buckets; total must be > 0. */
static void span(const struct hdr *h, size_t *first, size_t *last)
{
	assert(h->total > 0);
	*first = index_of(h, h->min);
	*last = index_of(h, h->max);
}

/* 1 + how many doublings of bucket 0's range it takes to reach highest. */
static int bucket_count(int unit_mag, int sub_mag, int64_t highest)
{
	uint64_t limit = 1ULL << (unit_mag + sub_mag);
	int n = 1;

	while (limit <= (uint64_t)highest) {
		limit <<= 1;
		n++;
	}
	return n;
}

struct hdr *hdr_new(int64_t lowest, int64_t highest, int sigfigs)
{
	int64_t want;
	int u, m, i;
	size_t len;
	struct hdr *h;

	if (lowest < 1 || highest / 2 < lowest || sigfigs < 1 || sigfigs > 5)
		return NULL;
	u = 63 - __builtin_clzll((uint64_t)lowest);
	for (want = 2, i = 0; i < sigfigs; i++)
		want *= 10;
	for (m = 1; ((int64_t)1 << m) < want; m++)
		;
	/* The sub-bucket mask must fit in an int64. */
	if (u + m > 63)
		return NULL;
	len = (size_t)(bucket_count(u, m, highest) + 1) << (m - 1);
	h = xcalloc(1, sizeof(*h) + len * sizeof(h->counts[0]));
	h->lowest = lowest;
	h->highest = highest;
	h->sigfigs = sigfigs;
	h->unit_mag = u;
	h->sub_mag = m;
	h->sub_mask = (int64_t)((((uint64_t)1 << m) - 1) << u);
	h->len = len;
	h->min = INT64_MAX;
	return h;
}

void hdr_free(struct hdr *h)
{
	free(h);
}

/*
 * Only the sub-buckets from min's to max's can be non-zero, and clearing
 * just those keeps a reset of a sparse histogram from touching all of it
 * (at 5 digits it holds millions of counts).
 */
void hdr_reset(struct hdr *h)
{
	size_t first, last;

	if (h->total) {
		span(h, &first, &last);
		memset(h->counts + first, 0,
		       (last - first + 1) * sizeof(h->counts[0]));
	}
	h->total = 0;
	h->min = INT64_MAX;
	h->max = 0;
}

bool hdr_record_n(struct hdr *h, int64_t v, int64_t count)
{
	bool in_range = v <= h->highest;

	if (count <= 0)
		return true;
	if (v < h->lowest)
		v = h->lowest;
	else if (!in_range)
		v = h->highest;
	/* Relaxed stores (plain moves on x86-64): hdr_add_live may read
	 * them from another thread meanwhile. The caller is the one writer,
	 * so no read-modify-write needs to be atomic. */
	size_t i = index_of(h, v);

	__atomic_store_n(&h->counts[i], h->counts[i] + count,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&h->total, h->total + count, __ATOMIC_RELAXED);
	if (v < h->min)
		__atomic_store_n(&h->min, v, __ATOMIC_RELAXED);
	if (v > h->max)
		__atomic_store_n(&h->max, v, __ATOMIC_RELAXED);
	return in_range;
}

bool hdr_record(struct hdr *h, int64_t v)
{
	return hdr_record_n(h, v, 1);
}

int hdr_merge(struct hdr *dst, const struct hdr *src)
{
	size_t i, first, last;

	if (dst->lowest != src->lowest || dst->highest != src->highest ||
	    dst->sigfigs != src->sigfigs)
		return -1;
	if (!src->total)
		return 0;
	/* every count is at most its total: totals that add up without
	 * overflow mean buckets that do */
	if (src->total < 0 || dst->total > INT64_MAX - src->total)
		return -2;
	span(src, &first, &last);
	for (i = first; i <= last; i++)
		dst->counts[i] += src->counts[i];
	dst->total += src->total;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

static bool same_shape(const struct hdr *a, const struct hdr *b)
{
	return a->lowest == b->lowest && a->highest == b->highest &&
	       a->sigfigs == b->sigfigs;
}

/* total, min and max of h from its counts: min and max to the bucket
 * (its lowest and highest equivalent values). */
static void recount(struct hdr *h)
{
	size_t first = h->len, last = 0;
	int64_t width;

	h->total = 0;
	for (size_t i = 0; i < h->len; i++) {
		if (!h->counts[i])
			continue;
		if (first == h->len)
			first = i;
		last = i;
		h->total += h->counts[i];
	}
	if (!h->total) {
		h->min = INT64_MAX;
		h->max = 0;
		return;
	}
	h->min = lowest_at(h, first, &width);
	h->max = lowest_at(h, last, &width) + (width - 1);
	if (h->min < h->lowest)
		h->min = h->lowest;
	if (h->max > h->highest)
		h->max = h->highest;
}

int hdr_add_live(struct hdr *dst, const struct hdr *src)
{
	int64_t lo, hi, width;
	bool any = false;

	if (!same_shape(dst, src))
		return -1;
	for (size_t i = 0; i < src->len; i++) {
		int64_t c = __atomic_load_n(&src->counts[i], __ATOMIC_RELAXED);

		if (!c)
			continue;
		dst->counts[i] += c;
		dst->total += c;
		lo = lowest_at(src, i, &width);
		hi = lo + (width - 1);
		if (!any && lo < dst->min)
			dst->min = lo < dst->lowest ? dst->lowest : lo;
		if (hi > dst->max)
			dst->max = hi > dst->highest ? dst->highest : hi;
		any = true;
	}
	return 0;
}

int hdr_subtract(struct hdr *dst, const struct hdr *src)
{
	if (!same_shape(dst, src))
		return -1;
	for (size_t i = 0; i < dst->len; i++)
		dst->counts[i] = dst->counts[i] > src->counts[i] ?
				 dst->counts[i] - src->counts[i] : 0;
	recount(dst);
	return 0;
}

void hdr_params(const struct hdr *h, int64_t *lowest, int64_t *highest,
		int *sigfigs)
{
	*lowest = h->lowest;
	*highest = h->highest;
	*sigfigs = h->sigfigs;
}

int hdr_foreach_bucket(const struct hdr *h,
		       int (*fn)(int64_t value, int64_t count, void *arg),
		       void *arg)
{
	size_t first, last;
	int64_t width;
	int ret;

	if (!h->total)
		return 0;
	span(h, &first, &last);
	for (size_t i = first; i <= last; i++) {
		if (!h->counts[i])
			continue;
		int64_t v = lowest_at(h, i, &width);

		/* bucket of lowest may start below it */
		ret = fn(v < h->lowest ? h->lowest : v, h->counts[i], arg);
		if (ret)
			return ret;
	}
	return 0;
}

int hdr_set_range(struct hdr *h, int64_t min, int64_t max)
{
	size_t first, last;

	if (!h->total || min < h->lowest || max > h->highest || min > max)
		return -1;
	span(h, &first, &last);
	if (index_of(h, min) != first || index_of(h, max) != last)
		return -1;
	h->min = min;
	h->max = max;
	return 0;
}

int64_t hdr_count(const struct hdr *h)
{
	return h->total;
}

int64_t hdr_min(const struct hdr *h)
{
	return h->total ? h->min : 0;
}

int64_t hdr_max(const struct hdr *h)
{
	return h->max;
}

/* Keep m within [min, max]: the true mean is, and a midpoint need not be. */
static double clamp_to_range(const struct hdr *h, double m)
{
	if (m < (double)h->min)
		return (double)h->min;
	if (m > (double)h->max)
		return (double)h->max;
	return m;
}

double hdr_mean(const struct hdr *h)
{
	size_t i, first, last;
	double sum = 0;

	if (!h->total)
		return 0;
	span(h, &first, &last);
	for (i = first; i <= last; i++)
		if (h->counts[i])
			sum += (double)h->counts[i] * midpoint_at(h, i);
	return clamp_to_range(h, sum / (double)h->total);
}

double hdr_stddev(const struct hdr *h)
{
	size_t i, first, last;
	double mean, d, sum = 0;

	if (!h->total)
		return 0;
	/* Deviations from the unclamped mean, so the sum is a true variance. */
	span(h, &first, &last);
	for (i = first; i <= last; i++)
		sum += (double)h->counts[i] * midpoint_at(h, i);
	mean = sum / (double)h->total;
	sum = 0;
	for (i = first; i <= last; i++) {
		if (!h->counts[i])
			continue;
		d = midpoint_at(h, i) - mean;
		sum += (double)h->counts[i] * d * d;
	}
	return sqrt(sum / (double)h->total);
}

/*
 * How many values must be <= the value at percentile p: ceil(p% of the
 * total), between 1 and the total.
 */
static int64_t count_at(const struct hdr *h, double p)
{
	double x, c;

	if (!(p > 0))		/* also NaN */
		return 1;
	if (p >= 100)
		return h->total;
	x = p * (double)h->total / 100;
	c = ceil(x);
	/*
	 * p is usually a decimal such as 99.9 that binary cannot hold; its
	 * rounding, the product's and the quotient's may lift an exact
	 * integer by a few ulps, and 7.000000000000001 must not become 8.
	 */
	if (x - (c - 1) <= 4 * DBL_EPSILON * x)
		c -= 1;
	if (c < 1)
		return 1;
	return c < (double)h->total ? (int64_t)c : h->total;
}

int64_t hdr_percentile(const struct hdr *h, double p)
{
	int64_t want, cum = 0;
	size_t i, last;

	if (!h->total)
		return 0;
	want = count_at(h, p);
	span(h, &i, &last);
	for (;; i++) {
		assert(i <= last);
		cum += h->counts[i];
		if (cum >= want)
			return reported_at(h, i);
	}
}

int64_t hdr_count_reported_from(const struct hdr *h, int64_t v)
{
	int64_t n = 0;
	size_t first, last;

	if (!h->total)
		return 0;
	span(h, &first, &last);
	for (size_t i = last + 1; i-- > first;) {
		if (!h->counts[i])
			continue;
		if (reported_at(h, i) < v)
			break;
		n += h->counts[i];
	}
	return n;
}

size_t hdr_memsize(const struct hdr *h)
{
	return sizeof(*h) + h->len * sizeof(h->counts[0]);
}

/*
 * The percentile after level: ticks steps take the level half of the way
 * from where the current halving began to 100%, as HdrHistogram's
 * PercentileIterator does. The step is below 100 - level, so the level
 * stays below 100 (up to rounding, which count_at absorbs).
 */
static double next_level(double level, int ticks)
{
	int halvings = (int)floor(log2(100 / (100 - level)));

	return level + 100 / ldexp(ticks, halvings + 1);
}

int hdr_foreach_percentile(const struct hdr *h, int ticks_per_half,
			   int (*fn)(int64_t value, double percentile,
				     int64_t cumulative, void *arg),
			   void *arg)
{
	double level = 0;
	size_t i, last;
	int64_t cum;
	int ret;

	if (!h->total)
		return 0;
	if (ticks_per_half < 1)
		ticks_per_half = 1;
	span(h, &i, &last);
	cum = h->counts[i];
	for (;;) {
		int64_t want = count_at(h, level);

		while (cum < want) {
			assert(i < last);
			cum += h->counts[++i];
		}
		ret = fn(reported_at(h, i), level, cum, arg);
		if (ret)
			return ret;
		if (cum == h->total)
			break;
		level = next_level(level, ticks_per_half);
	}
	return fn(h->max, 100, h->total, arg);
}
