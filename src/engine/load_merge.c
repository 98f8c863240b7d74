/*
 * `yardstick merge`'s engine (load_merge.h). Histograms are merged
 * bucket by bucket (exact: the percentiles are those of every request),
 * the per-second counts summed second by second from the one start time,
 * the counts summed, and the latency samples merged into one uniform
 * sample of all requests; then the result is made as `load` makes its own
 * (load_fill_benchmark), so that gate, report, compare and export take
 * it as any load result.
 */
#include "engine/load_merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "engine/load_plan.h"
#include "engine/refs.h"
#include "load/sample.h"
#include "measure/machine.h"
#include "result/metrics.h"
#include "util/strutil.h"

/* The settings that must be equal in all segments of one test. */
static const char *const same_settings[] = {
	"url", "method", "requests_file", "model", "rate", "connections",
	"duration", "requests", "warmup", "timeout", "start_at", NULL,
};

struct seg {
	const char *file;
	struct result r;
	long index, n;
};

static const struct setting *setting(const struct result *r, const char *k)
{
	for (size_t i = 0; i < r->nsettings; i++)
		if (!strcmp(r->settings[i].key, k))
			return &r->settings[i];
	return NULL;
}

static double setting_num(const struct result *r, const char *k, double d)
{
	const struct setting *s = setting(r, k);

	return s && !s->str ? s->num : d;
}

/* The setting's value in words, for messages. */
static void setting_text(const struct setting *s, char *buf, size_t n)
{
	if (!s)
		snprintf(buf, n, "none");
	else if (s->str)
		snprintf(buf, n, "'%s'", s->str);
	else
		snprintf(buf, n, "%g", s->num);
}

static bool same_setting(const struct setting *a, const struct setting *b)
{
	if (!a || !b)
		return !a && !b;
	if (!a->str != !b->str)
		return false;
	return a->str ? !strcmp(a->str, b->str) : a->num == b->num;
}

/* A segment's own checks: a load result of one benchmark with its
 * histograms and per-second counts, and its "segment" setting. */
static int check_segment(struct seg *s, struct error *e)
{
	const struct setting *seg = setting(&s->r, "segment");
	const struct benchmark *b = s->r.benchmarks;

	if (!s->r.kind || strcmp(s->r.kind, "load") || s->r.nbenchmarks != 1)
		return error_set(e, "'%s' is not the result of a load test",
				 s->file);
	if (seg && seg->str && parse_index_of(seg->str, &s->index, &s->n))
		return error_set(e, "'%s': its setting 'segment' is not I/N "
				 "(I from 0, below N)", s->file);
	if (!seg || !seg->str)
		return error_set(e, "'%s' is not a segment of a load test (no "
				 "setting 'segment' I/N: run it with "
				 "--segment)", s->file);
	if (!benchmark_histogram(b, METRIC_LATENCY) ||
	    !benchmark_histogram(b, "latency_uncorrected") ||
	    !b->load.present)
		return error_set(e, "'%s' has no latency histograms or "
				 "per-second counts (a result from the store, "
				 "which does not keep them, or from a "
				 "yardstick before merge existed)", s->file);
	return 0;
}

/* s is a segment of the test of first: the same name and settings. */
static int check_same_test(const struct seg *s, const struct seg *first,
			   struct error *e)
{
	char a[160], b[160];

	if (strcmp(s->r.benchmarks[0].name, first->r.benchmarks[0].name))
		return error_set(e, "'%s' is not a segment of the test of "
				 "'%s': its benchmark is '%s', not '%s'",
				 s->file, first->file, s->r.benchmarks[0].name,
				 first->r.benchmarks[0].name);
	if (s->n != first->n)
		return error_set(e, "'%s' is not a segment of the test of "
				 "'%s': it is one of %ld segments, not %ld",
				 s->file, first->file, s->n, first->n);
	for (const char *const *k = same_settings; *k; k++) {
		const struct setting *x = setting(&s->r, *k);
		const struct setting *y = setting(&first->r, *k);

		if (same_setting(x, y))
			continue;
		setting_text(x, a, sizeof(a));
		setting_text(y, b, sizeof(b));
		return error_set(e, "'%s' is not a segment of the test of "
				 "'%s': its %s is %s, not %s", s->file,
				 first->file, *k, a, b);
	}
	if (fabs(s->r.benchmarks[0].load.start -
		 first->r.benchmarks[0].load.start) > 1)
		return error_set(e, "'%s' did not start with '%s' (%.3f s "
				 "apart): start the segments together with "
				 "--start-at", s->file, first->file,
				 fabs(s->r.benchmarks[0].load.start -
				      first->r.benchmarks[0].load.start));
	return 0;
}

/* Every index once. */
static int check_indices(struct seg *segs, size_t n, struct error *e)
{
	long want = segs[0].n;

	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (segs[i].index == segs[j].index)
				return error_set(e, "'%s' and '%s' are both "
						 "segment %ld/%ld", segs[j].file,
						 segs[i].file, segs[i].index,
						 want);
	for (long k = 0; k < want; k++) {
		bool found = false;

		for (size_t i = 0; i < n && !found; i++)
			found = segs[i].index == k;
		if (!found)
			return error_set(e, "segment %ld/%ld is missing (%zu of "
					 "%ld given)", k, want, n, want);
	}
	return 0;
}

static uint64_t count(const struct load_detail *d, const char *key)
{
	double v = load_detail_count(d, key);

	return isnan(v) ? 0 : (uint64_t)v;
}

/* The engine's statistics of segment s, as its result kept them. */
static int stats_of(const struct seg *s, struct load_stats *st,
		    struct error *e)
{
	const struct benchmark *b = s->r.benchmarks;
	const struct load_detail *d = &b->load;
	const struct metric *lat = benchmark_find_metric(b, METRIC_LATENCY);
	const struct metric *unc = benchmark_find_metric(b,
						"latency_uncorrected");
	const struct hdr *lag = benchmark_histogram(b, "send_lag");
	size_t n = lat ? lat->n : 0;

	int rc;

	load_stats_init(st, n ? n : 1, 0);
	rc = hdr_merge(st->latency, benchmark_histogram(b, METRIC_LATENCY));
	if (!rc)
		rc = hdr_merge(st->uncorrected,
			       benchmark_histogram(b, "latency_uncorrected"));
	if (!rc && lag)
		rc = hdr_merge(st->lag, lag);
	if (rc == -2)
		return error_set(e, "'%s': its histogram counts overflow "
				 "(more than 2^63 - 1 in all)", s->file);
	if (rc)
		return error_set(e, "'%s': its histograms have other "
				 "parameters than yardstick's (lowest %d ns, "
				 "highest %lld ns, %d digits)", s->file,
				 LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				 LOAD_HDR_SIGFIGS);
	if (!unc || unc->n != n)
		return error_set(e, "'%s': latency and latency_uncorrected "
				 "have not the same number of values", s->file);
	for (size_t i = 0; i < n; i++) {
		/* an uncorrected null: a request held at the end that was
		 * never sent (load_report.c) */
		if (isnan(lat->values[i]) ||
		    lat->values[i] > LOAD_HDR_HIGHEST / 1e9 ||
		    unc->values[i] > LOAD_HDR_HIGHEST / 1e9)
			return error_set(e, "'%s': latency value %zu is null or "
					 "beyond an hour", s->file, i);
		sample_add(&st->sample, llround(lat->values[i] * 1e9),
			   isnan(unc->values[i]) ? -1
				: llround(unc->values[i] * 1e9));
	}
	st->sample.seen = (uint64_t)hdr_count(st->latency);
	if (st->sample.seen < n)
		return error_set(e, "'%s': more latency values than requests "
				 "in its histogram", s->file);
	st->nseconds = d->ok.n;
	st->per_second = xcalloc(d->ok.n ? d->ok.n : 1, sizeof(uint64_t));
	st->errors_per_second = xcalloc(d->ok.n ? d->ok.n : 1,
					sizeof(uint64_t));
	for (size_t i = 0; i < d->ok.n; i++) {
		st->per_second[i] = (uint64_t)d->ok.v[i];
		st->errors_per_second[i] = (uint64_t)d->errors.v[i];
	}
	st->elapsed = d->elapsed;
	st->start_unix = d->start;
	st->requests = count(d, "requests");
	st->responses = count(d, "responses");
	st->ok = count(d, "ok");
	st->sends = count(d, "sends");
	st->late = count(d, "late");
	st->resent = count(d, "resent");
	st->bytes_read = count(d, "bytes_read");
	st->bytes_written = count(d, "bytes_written");
	st->held = count(d, "held");
	st->held_slow = count(d, "held_slow");
	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		st->errors[k] = count(d, load_err_name(k));
	for (int c = 100; c < 600; c++) {
		char key[32];

		snprintf(key, sizeof(key), "status_%d", c);
		st->status[c] = count(d, key);
	}
	return 0;
}

/* All segments' statistics in tot (load_stats_free it). */
static int merge_stats(struct seg *segs, size_t n, struct load_stats *tot,
		       struct error *e)
{
	struct load_stats *st = xcalloc(n, sizeof(*st));
	struct sample **samples = xcalloc(n, sizeof(*samples));
	double start = segs[0].r.benchmarks[0].load.start, end = 0;
	size_t cap = (size_t)setting_num(&segs[0].r, "sample", 100000);
	uint64_t seed = (uint64_t)setting_num(&segs[0].r, "seed", 1);
	int ret = 0;

	for (size_t i = 1; i < n; i++)
		if (segs[i].r.benchmarks[0].load.start < start)
			start = segs[i].r.benchmarks[0].load.start;
	load_stats_init(tot, 1, 0);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = stats_of(&segs[i], &st[i], e);
		if (ret)
			break;
		double off = round(st[i].start_unix - start);

		if (load_stats_add(tot, &st[i], (size_t)off, e)) {
			char why[sizeof(e->msg)];

			snprintf(why, sizeof(why), "%s", e->msg);
			ret = error_set(e, "'%s': with the segments before it, "
					"%s", segs[i].file, why);
			break;
		}
		if (off + st[i].elapsed > end)
			end = off + st[i].elapsed;
		samples[i] = &st[i].sample;
		if (st[i].sample.n < cap && st[i].sample.seen > st[i].sample.n)
			cap = st[i].sample.n;	/* sampled below cap */
	}
	if (!ret) {
		sample_free(&tot->sample);
		sample_merge(&tot->sample, samples, n, cap ? cap : 1, seed);
		tot->elapsed = end;
		tot->start_unix = start;
	}
	for (size_t i = 0; i < n; i++)
		if (st[i].latency)
			load_stats_free(&st[i]);
	free(st);
	free(samples);
	return ret ? -1 : 0;
}

/* The merged result: segment 0's settings without the segment's own,
 * the machines' names, the whole test's benchmark. */
static void make_result(struct seg *segs, size_t n,
			const struct load_stats *tot, struct result *out)
{
	const struct result *r0 = &segs[0].r;
	struct strbuf hosts = { 0 };
	double threads = 0;

	result_init(out, "load");
	out->created = utc_timestamp();
	out->tool_version = xstrdup(YS_VERSION);
	out->machine = r0->machine;
	out->machine.hostname = NULL;
	out->machine.os = r0->machine.os ? xstrdup(r0->machine.os) : NULL;
	out->machine.cpu = r0->machine.cpu ? xstrdup(r0->machine.cpu) : NULL;
	out->machine.governor = r0->machine.governor ?
				xstrdup(r0->machine.governor) : NULL;
	for (size_t i = 0; i < n; i++) {
		const char *h = segs[i].r.machine.hostname;
		bool seen = false;

		threads += setting_num(&segs[i].r, "threads", 0);
		for (size_t j = 0; j < i && h && !seen; j++)
			seen = segs[j].r.machine.hostname &&
			       !strcmp(segs[j].r.machine.hostname, h);
		if (!h || seen)
			continue;
		if (hosts.len)
			strbuf_puts(&hosts, ",");
		strbuf_puts(&hosts, h);
	}
	out->machine.hostname = hosts.s;
	if (r0->git.commit)
		out->git.commit = xstrdup(r0->git.commit);
	if (r0->git.branch)
		out->git.branch = xstrdup(r0->git.branch);
	out->git.dirty = r0->git.dirty;
	for (size_t i = 0; i < r0->nsettings; i++) {
		const struct setting *s = &r0->settings[i];

		if (!strcmp(s->key, "segment") ||
		    !strcmp(s->key, "segment_connections"))
			continue;
		if (!strcmp(s->key, "threads"))
			result_set_num(out, "threads", threads);
		else if (s->str)
			result_set_str(out, s->key, s->str);
		else
			result_set_num(out, s->key, s->num);
	}
	result_set_num(out, "segments", (double)n);
	load_fill_benchmark(out, r0->benchmarks[0].name,
			    setting_num(r0, "rate", 0),
			    (unsigned long long)setting_num(r0, "seed", 1),
			    tot);
}

/* Each file loaded and checked on its own and against the first, in
 * order (the first bad one is the one named). Returns 0 or the exit
 * code; *loaded of segs are the caller's to free. */
static int load_segments(const char *const *files, size_t n,
			 struct seg *segs, size_t *loaded, struct error *e)
{
	for (*loaded = 0; *loaded < n; ) {
		struct seg *s = &segs[*loaded];

		s->file = files[*loaded];
		if (ref_load_values(s->file, NULL, &s->r, e))
			return error_exit_code(e);
		++*loaded;
		if (check_segment(s, e) ||
		    (*loaded > 1 && check_same_test(s, &segs[0], e)))
			return 2;
	}
	return 0;
}

int load_merge_files(const char *const *files, size_t n, struct result *out,
		     struct error *e)
{
	struct load_stats tot = { 0 };
	struct seg *segs = xcalloc(n, sizeof(*segs));
	size_t loaded = 0;
	int ret;

	result_init(out, "load");
	ret = load_segments(files, n, segs, &loaded, e);
	if (!ret && (check_indices(segs, n, e) ||
		     merge_stats(segs, n, &tot, e)))
		ret = 2;
	if (!ret) {
		result_free(out);
		make_result(segs, n, &tot, out);
	}
	if (tot.latency)
		load_stats_free(&tot);
	for (size_t i = 0; i < loaded; i++)
		result_free(&segs[i].r);
	free(segs);
	return ret;
}
