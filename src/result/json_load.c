/*
 * The JSON of `load`'s lossless keys of a benchmark (docs/result-format.md):
 * "histograms" (every request's HDR histogram of a metric, sparse) and
 * "per_second" and "counts" (what merging segments needs). Written by
 * json.c's writer, read by json_read.c's reader, here so that both sides
 * of the format sit together. A file is outside input: every number is
 * checked, and a histogram must rebuild to exactly what it says (its
 * count, min and max) or it is refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "result/json_internal.h"
#include "util/json_emit.h"
#include "util/strutil.h"

/* ---- writer ---- */

static void jput(json_t *o, const char *key, json_t *v)
{
	if (json_object_set_new(o, key, json_must(v)))
		json_oom();
}

static void jappend(json_t *a, json_t *v)
{
	if (json_array_append_new(a, json_must(v)))
		json_oom();
}

static int put_bucket(int64_t value, int64_t count, void *arg)
{
	json_t *pair = json_must(json_array());

	jappend(pair, json_integer(value));
	jappend(pair, json_integer(count));
	jappend(arg, pair);
	return 0;
}

static json_t *hist_json(const struct hdr *h)
{
	json_t *o = json_must(json_object()), *b = json_must(json_array());
	int64_t lo, hi;
	int sig;

	hdr_params(h, &lo, &hi, &sig);
	jput(o, "unit", json_string("ns"));
	jput(o, "lowest", json_integer(lo));
	jput(o, "highest", json_integer(hi));
	jput(o, "significant_digits", json_integer(sig));
	jput(o, "count", json_integer(hdr_count(h)));
	jput(o, "min", json_integer(hdr_min(h)));
	jput(o, "max", json_integer(hdr_max(h)));
	hdr_foreach_bucket(h, put_bucket, b);
	jput(o, "buckets", b);
	return o;
}

static json_t *count_series(const struct series *s)
{
	json_t *a = json_must(json_array());

	for (size_t i = 0; i < s->n; i++)
		jappend(a, json_integer((json_int_t)s->v[i]));
	return a;
}

void json_put_load_keys(json_t *o, const struct benchmark *b)
{
	const struct load_detail *d = &b->load;

	if (b->nhists) {
		json_t *h = json_must(json_object());

		for (size_t i = 0; i < b->nhists; i++)
			jput(h, b->hists[i].metric, hist_json(b->hists[i].h));
		jput(o, "histograms", h);
	}
	if (d->present) {
		json_t *ps = json_must(json_object());
		json_t *c = json_must(json_object());

		/* JSON has no NaN or infinity: such a time is null */
		jput(ps, "start", json_number(d->start));
		jput(ps, "elapsed", json_number(d->elapsed));
		jput(ps, "ok", count_series(&d->ok));
		jput(ps, "errors", count_series(&d->errors));
		jput(o, "per_second", ps);
		for (size_t i = 0; i < d->ncounts; i++)
			jput(c, d->counts[i].key,
			     json_integer((json_int_t)d->counts[i].value));
		jput(o, "counts", c);
	}
}

/* ---- reader ---- */

/* Bounds of a histogram a file may describe: hdr_new's, and at most
 * some 64 MiB of counts. */
#define HIST_MAX_HIGHEST (1LL << 62)

static int int_of(struct reader *rd, json_t *o, const char *where,
		  const char *key, long long min, long long max,
		  long long *out)
{
	char path[300];
	json_t *v;

	if (jr_member(rd, o, where, key, JSON_INTEGER, REQUIRED, &v))
		return -1;
	jr_path_key(path, sizeof(path), where, key);
	if (json_integer_value(v) < min || json_integer_value(v) > max)
		return jr_bad(rd, path, "%lld is out of range",
			      (long long)json_integer_value(v));
	*out = json_integer_value(v);
	return 0;
}

static int read_buckets(struct reader *rd, json_t *a, const char *where,
			struct hdr *h, long long lo, long long hi)
{
	char elem[340];
	json_t *pair;
	size_t i;
	int64_t prev = -1, total = 0;

	json_array_foreach(a, i, pair) {
		json_t *v, *c;

		jr_path_index(elem, sizeof(elem), where, i);
		if (jr_check(rd, pair, elem, JSON_ARRAY))
			return -1;
		v = json_array_get(pair, 0);
		c = json_array_get(pair, 1);
		if (json_array_size(pair) != 2 || !json_is_integer(v) ||
		    !json_is_integer(c))
			return jr_bad(rd, elem, "expected [value, count], two "
				      "integers");
		if (json_integer_value(v) < lo || json_integer_value(v) > hi)
			return jr_bad(rd, elem, "value %lld outside [%lld, "
				      "%lld]", (long long)json_integer_value(v),
				      lo, hi);
		if (json_integer_value(v) <= prev)
			return jr_bad(rd, elem, "values must ascend");
		if (json_integer_value(c) < 1)
			return jr_bad(rd, elem, "count %lld out of range",
				      (long long)json_integer_value(c));
		if (json_integer_value(c) > INT64_MAX - total)
			return jr_bad(rd, elem, "count %lld: the counts add up "
				      "past 2^63 - 1",
				      (long long)json_integer_value(c));
		prev = json_integer_value(v);
		total += json_integer_value(c);
		hdr_record_n(h, prev, json_integer_value(c));
	}
	return 0;
}

static int read_hist(struct reader *rd, json_t *o, const char *where,
		     const char *metric, struct benchmark *b)
{
	long long lo, hi, sig, count, min, max;
	char *unit = NULL, path[340];
	struct hdr *h;
	json_t *a, *u;
	int ret = -1;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    jr_member(rd, o, where, "unit", JSON_STRING, REQUIRED, &u))
		return -1;
	unit = (char *)json_string_value(u);
	if (strcmp(unit, "ns"))
		return jr_bad(rd, where, "unit '%s': only ns", unit);
	if (int_of(rd, o, where, "lowest", 1, HIST_MAX_HIGHEST / 2, &lo) ||
	    int_of(rd, o, where, "highest", 2, HIST_MAX_HIGHEST, &hi) ||
	    int_of(rd, o, where, "significant_digits", 1, 5, &sig) ||
	    int_of(rd, o, where, "count", 0, INT64_MAX, &count) ||
	    int_of(rd, o, where, "min", 0, HIST_MAX_HIGHEST, &min) ||
	    int_of(rd, o, where, "max", 0, HIST_MAX_HIGHEST, &max) ||
	    jr_member(rd, o, where, "buckets", JSON_ARRAY, REQUIRED, &a))
		return -1;
	h = hdr_new(lo, hi, (int)sig);
	if (!h)
		return jr_bad(rd, where, "no histogram has lowest %lld, highest "
			      "%lld, %lld significant digits", lo, hi, sig);
	jr_path_key(path, sizeof(path), where, "buckets");
	if (read_buckets(rd, a, path, h, lo, hi))
		goto out;
	if (hdr_count(h) != count) {
		jr_bad(rd, where, "count %lld, but the buckets hold %lld",
		       count, (long long)hdr_count(h));
		goto out;
	}
	if (count && hdr_set_range(h, min, max)) {
		jr_bad(rd, where, "min %lld and max %lld are not in the first "
		       "and last buckets", min, max);
		goto out;
	}
	if (!count && (min || max)) {
		jr_bad(rd, where, "an empty histogram with a min or max");
		goto out;
	}
	benchmark_set_histogram(b, metric, h);
	ret = 0;
out:
	hdr_free(h);
	return ret;
}

/* The largest count a file may hold: a JSON number is read as a double,
 * exact up to 2^53. */
#define COUNT_MAX (1LL << 53)

static bool is_count(json_t *x)
{
	return json_is_integer(x) && json_integer_value(x) >= 0 &&
	       json_integer_value(x) <= COUNT_MAX;
}

/* x, which is not a count, refused at where with what it is. */
static int bad_count(struct reader *rd, const char *where, json_t *x)
{
	const char *what = "an integer from 0 to 2^53";

	if (json_is_integer(x))
		return jr_bad(rd, where, "'%lld' is not a count (%s)",
			      (long long)json_integer_value(x), what);
	if (json_is_real(x)) {
		char num[40];
		int prec = 15;

		/* the fewest digits that read back to the number */
		do
			snprintf(num, sizeof(num), "%.*g", prec,
				 json_real_value(x));
		while (strtod(num, NULL) != json_real_value(x) && ++prec < 17);
		return jr_bad(rd, where, "'%s' is not a count (%s)", num, what);
	}
	return jr_bad(rd, where, "expected a count (%s)", what);
}

static int count_array(struct reader *rd, json_t *o, const char *where,
		       const char *key, struct series *s)
{
	char path[300], elem[340];
	json_t *a, *x;
	size_t i;

	if (jr_member(rd, o, where, key, JSON_ARRAY, REQUIRED, &a))
		return -1;
	jr_path_key(path, sizeof(path), where, key);
	json_array_foreach(a, i, x) {
		jr_path_index(elem, sizeof(elem), path, i);
		if (!is_count(x))
			return bad_count(rd, elem, x);
		series_push(s, (double)json_integer_value(x));
	}
	return 0;
}

static int read_per_second(struct reader *rd, json_t *o, const char *where,
			   struct load_detail *d)
{
	json_t *v;

	if (jr_check(rd, o, where, JSON_OBJECT) ||
	    jr_member(rd, o, where, "start", JSON_REAL, REQUIRED, &v))
		return -1;
	d->start = json_number_value(v);
	if (!(d->start >= 0 && d->start < 1e11))
		return jr_bad(rd, where, "start: '%g' is not unix seconds",
			      d->start);
	if (jr_member(rd, o, where, "elapsed", JSON_REAL, REQUIRED, &v))
		return -1;
	d->elapsed = json_number_value(v);
	if (!(d->elapsed >= 0 && d->elapsed < 1e9))
		return jr_bad(rd, where, "elapsed: '%g' is not seconds (from 0, "
			      "below 1e9)", d->elapsed);
	if (count_array(rd, o, where, "ok", &d->ok) ||
	    count_array(rd, o, where, "errors", &d->errors))
		return -1;
	if (d->ok.n != d->errors.n)
		return jr_bad(rd, where, "'ok' and 'errors' differ in length "
			      "(%zu, %zu)", d->ok.n, d->errors.n);
	d->present = true;
	return 0;
}

/* ---- the counts against each other ---- */

/* The error kinds of "counts" (load's, docs/result-format.md). */
static const char *const error_kinds[] = {
	"connect", "read", "write", "timeout", "status",
};

/* The count key of d, 0 when absent. */
static double count0(const struct load_detail *d, const char *key)
{
	double v = load_detail_count(d, key);

	return isnan(v) ? 0 : v;
}

static double series_sum(const struct series *s)
{
	double t = 0;

	for (size_t i = 0; i < s->n; i++)
		t += s->v[i];	/* exact while t stays at most 2^53 */
	return t;
}

/* The sums of status_NNN below 400 (*ok) and from 400 (*failed);
 * whether any below 400 is present. */
static bool status_sums(const struct load_detail *d, double *ok,
			double *failed)
{
	bool any_ok = false;
	int code, used;

	*ok = *failed = 0;
	for (size_t i = 0; i < d->ncounts; i++) {
		const char *k = d->counts[i].key;

		used = 0;
		if (sscanf(k, "status_%3d%n", &code, &used) != 1 ||
		    (size_t)used != strlen(k))
			continue;
		if (code < 400) {
			*ok += d->counts[i].value;
			any_ok = true;
		} else {
			*failed += d->counts[i].value;
		}
	}
	return any_ok;
}

/* ok + each error kind = requests; ok + status = responses <= requests;
 * the status codes' counts add up to ok and status; late <= sends. */
static int check_totals(struct reader *rd, const char *cpath,
			const struct load_detail *d)
{
	double req = count0(d, "requests"), ok = count0(d, "ok"), sum = ok;
	double st_ok, st_failed;
	char path[340];

	for (size_t k = 0; k < sizeof(error_kinds) / sizeof(*error_kinds); k++)
		sum += count0(d, error_kinds[k]);
	jr_path_key(path, sizeof(path), cpath, "ok");
	if (ok > req)
		return jr_bad(rd, path, "'%.0f' is more than the %.0f requests",
			      ok, req);
	jr_path_key(path, sizeof(path), cpath, "requests");
	if (sum != req)
		return jr_bad(rd, path, "'%.0f', but ok and the error kinds "
			      "(connect, read, write, timeout, status) add up "
			      "to %.0f", req, sum);
	jr_path_key(path, sizeof(path), cpath, "responses");
	if (!isnan(load_detail_count(d, "responses")) &&
	    count0(d, "responses") != ok + count0(d, "status"))
		return jr_bad(rd, path, "'%.0f', but ok and status add up to "
			      "%.0f", count0(d, "responses"),
			      ok + count0(d, "status"));
	jr_path_key(path, sizeof(path), cpath, "status");
	if (status_sums(d, &st_ok, &st_failed) && st_ok != ok)
		return jr_bad(rd, cpath, "the status_NNN below 400 add up to "
			      "'%.0f', not ok (%.0f)", st_ok, ok);
	if (st_failed != count0(d, "status"))
		return jr_bad(rd, path, "'%.0f', but the status_NNN from 400 "
			      "add up to %.0f", count0(d, "status"), st_failed);
	jr_path_key(path, sizeof(path), cpath, "late");
	if (count0(d, "late") > count0(d, "sends"))
		return jr_bad(rd, path, "'%.0f' is more than the %.0f sends",
			      count0(d, "late"), count0(d, "sends"));
	return 0;
}

/* per_second's series add up to the totals; elapsed is positive when
 * anything was counted. */
static int check_seconds(struct reader *rd, const char *where,
			 const struct load_detail *d)
{
	double req = count0(d, "requests"), ok = count0(d, "ok");
	char ppath[300], path[340];

	jr_path_key(ppath, sizeof(ppath), where, "per_second");
	jr_path_key(path, sizeof(path), ppath, "ok");
	if (series_sum(&d->ok) != ok)
		return jr_bad(rd, path, "adds up to '%.0f', not counts.ok "
			      "(%.0f)", series_sum(&d->ok), ok);
	jr_path_key(path, sizeof(path), ppath, "errors");
	if (series_sum(&d->errors) != req - ok)
		return jr_bad(rd, path, "adds up to '%.0f', not the failed "
			      "requests (counts.requests - counts.ok: %.0f)",
			      series_sum(&d->errors), req - ok);
	jr_path_key(path, sizeof(path), ppath, "elapsed");
	if (req > 0 && !(d->elapsed > 0))
		return jr_bad(rd, path, "'%g' for %.0f requests: expected "
			      "positive seconds", d->elapsed, req);
	return 0;
}

/* Each histogram counts what it histograms: latency every response and
 * the requests held at the end past every response (held_slow: 0 in
 * files from before it), latency_uncorrected every response, send_lag
 * every send (open model). */
static int check_hists(struct reader *rd, const char *where,
		       const struct benchmark *b)
{
	static const struct { const char *metric, *key, *plus; } of[] = {
		{ "latency", "responses", "held_slow" },
		{ "latency_uncorrected", "responses", NULL },
		{ "send_lag", "sends", NULL },
	};
	const struct load_detail *d = &b->load;
	char hpath[300], path[340];

	jr_path_key(path, sizeof(path), where, "counts");
	jr_path_key(hpath, sizeof(hpath), path, "held_slow");
	if (count0(d, "held_slow") > count0(d, "held"))
		return jr_bad(rd, hpath, "'%.0f' is more than the %.0f held",
			      count0(d, "held_slow"), count0(d, "held"));
	jr_path_key(hpath, sizeof(hpath), where, "histograms");
	for (size_t i = 0; i < sizeof(of) / sizeof(of[0]); i++) {
		const struct hdr *h = benchmark_histogram(b, of[i].metric);
		double want = load_detail_count(d, of[i].key);

		if (!h || isnan(want))
			continue;
		if (of[i].plus)
			want += count0(d, of[i].plus);
		if ((double)hdr_count(h) == want)
			continue;
		jr_path_key(path, sizeof(path), hpath, of[i].metric);
		return jr_bad(rd, path, "count '%lld', but counts.%s%s%s is "
			      "%.0f", (long long)hdr_count(h), of[i].key,
			      of[i].plus ? " + counts." : "",
			      of[i].plus ? of[i].plus : "", want);
	}
	return 0;
}

/* The counts of b (read) against each other, as the writer keeps them
 * (docs/result-format.md, "counts"). */
static int check_counts(struct reader *rd, const char *where,
			const struct benchmark *b)
{
	char cpath[300];

	jr_path_key(cpath, sizeof(cpath), where, "counts");
	if (check_totals(rd, cpath, &b->load) ||
	    check_seconds(rd, where, &b->load) ||
	    check_hists(rd, where, b))
		return -1;
	return 0;
}

int json_read_load_keys(struct reader *rd, json_t *o, const char *where,
			struct benchmark *b)
{
	char path[300], hpath[340];
	const char *key;
	json_t *v, *x;

	if (jr_member(rd, o, where, "histograms", JSON_OBJECT, 0, &v))
		return -1;
	jr_path_key(path, sizeof(path), where, "histograms");
	if (v) {
		json_object_foreach(v, key, x) {
			jr_path_key(hpath, sizeof(hpath), path, key);
			if (read_hist(rd, x, hpath, key, b))
				return -1;
		}
	}
	if (jr_member(rd, o, where, "per_second", JSON_OBJECT, 0, &v))
		return -1;
	if (!v)
		return 0;
	jr_path_key(path, sizeof(path), where, "per_second");
	if (read_per_second(rd, v, path, &b->load))
		return -1;
	if (jr_member(rd, o, where, "counts", JSON_OBJECT, REQUIRED, &v))
		return -1;
	jr_path_key(path, sizeof(path), where, "counts");
	json_object_foreach(v, key, x) {
		jr_path_key(hpath, sizeof(hpath), path, key);
		if (!is_count(x))
			return bad_count(rd, hpath, x);
		load_detail_set_count(&b->load, key,
				      (double)json_integer_value(x));
	}
	return check_counts(rd, where, b);
}
