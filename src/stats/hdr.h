/*
 * An HDR histogram: log-linear buckets that keep every recorded value to a
 * fixed number of significant decimal digits over a fixed range, in O(1)
 * per record and constant memory, mergeable across threads. `load` records
 * one latency per request in each client thread's histogram and merges
 * them at the end; percentiles come from the merged counts.
 *
 * Values are int64 in the caller's unit (load uses nanoseconds). A value v
 * is reported as its bucket's highest equivalent value r (as HdrHistogram
 * does), with v <= r < v + max(lowest, v * 10^-sigfigs): lowest is the
 * resolution, so the sigfigs digits hold only from about lowest * 10^sigfigs
 * up. hdr_new(1000, 3600000000000, 3) — 1 us to 1 h — takes 196,680 bytes
 * and keeps 3 digits from about 0.5 ms up but only 512 ns below (1100 ns
 * is reported as 1535); hdr_new(1, 3600000000000, 3) keeps 3 digits
 * throughout in 270,408 bytes.
 */
#ifndef YS_STATS_HDR_H
#define YS_STATS_HDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hdr;

/* A histogram of [lowest, highest] (1 <= lowest, 2 * lowest <= highest)
 * with sigfigs significant digits (1..5), or NULL on bad arguments. lowest * 2 * 10^sigfigs must stay below about 2^63 (for 3
 * digits, lowest < 2^53). */
struct hdr *hdr_new(int64_t lowest, int64_t highest, int sigfigs);
void hdr_free(struct hdr *h);
void hdr_reset(struct hdr *h);

/* Record v (count times; count <= 0 records nothing). A value below
 * lowest, negative ones included, counts as lowest (and so is what
 * hdr_min reports); one above highest is counted as highest and returns
 * false (the caller may count it as saturated). */
bool hdr_record(struct hdr *h, int64_t v);
bool hdr_record_n(struct hdr *h, int64_t v, int64_t count);

/* Add src's counts to dst. Both must have been made with the same
 * arguments; returns -1 (and changes nothing) when they were not, -2
 * (and changes nothing) when the counts would overflow int64. */
int hdr_merge(struct hdr *dst, const struct hdr *src);

/*
 * Add src's counts to dst while src's one writer may be recording into
 * it (hdr_record stores with relaxed atomics): each count is read once,
 * so the sum is a moment of each bucket, not of all at once. dst's total
 * follows from the counts read, its min and max widen to the buckets'
 * lowest and highest equivalent values. -1 for different parameters.
 */
int hdr_add_live(struct hdr *dst, const struct hdr *src);
/* Take src's counts from dst's (not below 0); dst's min and max become
 * its first and last buckets' bounds. -1 for different parameters. */
int hdr_subtract(struct hdr *dst, const struct hdr *src);

/* The arguments h was made with. */
void hdr_params(const struct hdr *h, int64_t *lowest, int64_t *highest,
		int *sigfigs);
/*
 * Call fn for each non-empty bucket in ascending order with its lowest
 * equivalent value (hdr_record_n of that value and count fills the same
 * bucket) and its count. Stops when fn returns non-zero, and returns
 * that; 0 otherwise. With hdr_min and hdr_max this is h, losslessly.
 */
int hdr_foreach_bucket(const struct hdr *h,
		       int (*fn)(int64_t value, int64_t count, void *arg),
		       void *arg);
/* Set the exact min and max of a histogram rebuilt by hdr_record_n from
 * hdr_foreach_bucket: -1 (nothing changed) when min is not in its first
 * non-empty bucket or max not in its last. */
int hdr_set_range(struct hdr *h, int64_t min, int64_t max);

int64_t hdr_count(const struct hdr *h);
/* Exact min and max of what was recorded (0 when empty). */
int64_t hdr_min(const struct hdr *h);
int64_t hdr_max(const struct hdr *h);
/* Mean and standard deviation (population) over bucket midpoints; the
 * mean is clamped to [hdr_min, hdr_max]. 0 when empty. */
double hdr_mean(const struct hdr *h);
double hdr_stddev(const struct hdr *h);

/*
 * The value at percentile p (0..100): the smallest recorded value v such
 * that at least p% of the values are <= v, reported as the highest value
 * equivalent to v's bucket (never above hdr_max). 0 when empty. p = 0
 * gives hdr_min's bucket, p = 100 gives hdr_max; p outside 0..100 is
 * clamped.
 */
int64_t hdr_percentile(const struct hdr *h, double p);

/* How many recorded values are reported as v or more: those of the
 * buckets whose value as hdr_percentile reports it (the bucket's highest
 * equivalent, never above hdr_max) is at least v. So hdr_percentile(h,
 * p) < v exactly when at most (100 - p)% of the count is. */
int64_t hdr_count_reported_from(const struct hdr *h, int64_t v);

/* Bytes of memory the histogram holds. */
size_t hdr_memsize(const struct hdr *h);

/*
 * The percentile spectrum as HdrHistogram's "percentile distribution"
 * prints it: steps that halve the distance to 100% ticks_per_half times
 * per halving (5 is customary; less than 1 counts as 1), ending with the
 * max at 100. Calls fn for each step with the value, the percentile
 * (0..100) and the cumulative count; each value but the last is
 * hdr_percentile(h, percentile). Stops early when fn returns non-zero
 * (and returns that); returns 0 otherwise, without calls when empty.
 */
int hdr_foreach_percentile(const struct hdr *h, int ticks_per_half,
			   int (*fn)(int64_t value, double percentile,
				     int64_t cumulative, void *arg),
			   void *arg);

#endif
