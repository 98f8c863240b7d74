/*
 * What `load` reports: the result (its four metrics, their extra keys,
 * the settings and warnings) and the terminal summary. Percentiles shown
 * and written come from the HDR histograms over every request; the
 * metrics' values are the uniform sample that `compare` and `gate` test.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/load_plan.h"
#include "result/metrics.h"
#include "util/stop.h"
#include "util/strutil.h"
#include "util/term.h"

#define RESAMPLES 1000
/* The bootstrap of a latency sample costs RESAMPLES draws a value, per
 * metric: over 20,000 requests that was 0.1-0.2 s of CPU at the end of
 * every run (stats.h's budget, 2e7 draws, is for a dozen metrics of a
 * thousand runs). Samples beyond 1000 requests get the analytic
 * intervals (stats.h); the setting bootstrap_max_draws tells readers to
 * do the same. */
#define MAX_DRAWS 1000000

static const struct { const char *key, *label; double p; } pcts[] = {
	{ "p50", "p50", 50 }, { "p75", "p75", 75 }, { "p90", "p90", 90 },
	{ "p99", "p99", 99 }, { "p99_9", "p99.9", 99.9 },
	{ "p99_99", "p99.99", 99.99 },
};
#define NPCTS (sizeof(pcts) / sizeof(pcts[0]))

static double sec(int64_t ns)
{
	return (double)ns / 1e9;
}

static bool open_model(const struct load_plan *p)
{
	return p->rate > 0;
}

/* The connections of segment i of n (the first ones one more). */
long load_segment_share(long total, long i, long n)
{
	return total / n + (i < total % n);
}

void load_fill_settings(struct result *r, const struct load_plan *p)
{
	result_set_str(r, "url", p->url_arg);
	if (p->requests_file)
		result_set_str(r, "requests_file", p->requests_file);
	else
		result_set_str(r, "method", p->method ? p->method :
			       p->body_given ? "POST" : "GET");
	result_set_str(r, "model", open_model(p) ? "open" : "closed");
	if (open_model(p))
		result_set_num(r, "rate", p->rate);
	result_set_num(r, "connections", (double)p->connections);
	if (p->segments > 1 || p->segment_given) {
		char seg[64];

		snprintf(seg, sizeof(seg), "%ld/%ld", p->segment, p->segments);
		result_set_str(r, "segment", seg);
		result_set_num(r, "segment_connections", (double)
			       load_segment_share(p->connections, p->segment,
						  p->segments));
	}
	if (p->start_at_given)
		result_set_num(r, "start_at", (double)p->start_at / 1e9);
	result_set_num(r, "threads", (double)p->threads);
	if (p->duration > 0)
		result_set_num(r, "duration", p->duration);
	if (p->requests > 0)
		result_set_num(r, "requests", (double)p->requests);
	result_set_num(r, "warmup", p->warmup);
	result_set_num(r, "timeout", p->timeout);
	result_set_num(r, "sample", (double)p->sample);
	result_set_num(r, "seed", (double)p->seed);
	result_set_num(r, "bootstrap_resamples", RESAMPLES);
	result_set_num(r, "bootstrap_max_draws", MAX_DRAWS);
	if (p->url.tls)
		result_set_str(r, "verify_certificate", p->insecure ? "no" : "yes");
}

static void error_extras(struct metric *m, const struct load_stats *s)
{
	char key[32];

	metric_set_extra(m, "requests", (double)s->requests);
	metric_set_extra(m, "resent", (double)s->resent);
	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		metric_set_extra(m, load_err_name(k), (double)s->errors[k]);
	for (int c = 400; c < 600; c++) {
		if (!s->status[c])
			continue;
		snprintf(key, sizeof(key), "status_%d", c);
		metric_set_extra(m, key, (double)s->status[c]);
	}
}

static void throughput_extras(struct metric *m, double rate,
			      const struct load_stats *s)
{
	double t = s->elapsed;

	metric_set_extra(m, "ok", (double)s->ok);
	metric_set_extra(m, "elapsed", t);
	metric_set_extra(m, "rate", t > 0 ? (double)s->ok / t : NAN);
	metric_set_extra(m, "bytes_read", (double)s->bytes_read);
	metric_set_extra(m, "bytes_written", (double)s->bytes_written);
	if (!(rate > 0))
		return;
	metric_set_extra(m, "target_rate", rate);
	metric_set_extra(m, "send_rate", t > 0 ? (double)s->sends / t : NAN);
	metric_set_extra(m, "late_sends", (double)s->late);
	metric_set_extra(m, "send_lag_p99", sec(hdr_percentile(s->lag, 99)));
	metric_set_extra(m, "send_lag_max", sec(hdr_max(s->lag)));
}

static void warnings(struct benchmark *b, double rate,
		     const struct load_stats *s)
{
	uint64_t errors = load_errors_total(s);
	char lag[32];

	if (errors && s->ok)
		benchmark_add_warning(b, "%" PRIu64 " of %" PRIu64 " requests "
				      "failed (see errors)", errors,
				      s->requests);
	if (s->held_slow)
		benchmark_add_warning(b, "%" PRIu64 " requests were still "
				      "unanswered when the run ended, after "
				      "waiting longer than any response took "
				      "(up to %s): the server stalled; they "
				      "count in latency at the time they had "
				      "waited, which their latency exceeds",
				      s->held_slow,
				      fmt_value(sec(hdr_max(s->latency)), "s",
						lag, sizeof(lag)));
	if (!(rate > 0) || !s->sends || s->elapsed <= 0)
		return;
	if (s->sends / s->elapsed < 0.95 * rate)
		benchmark_add_warning(b, "the target rate was not reached: "
				      "%.1f of %g requests/s sent (%s)",
				      (double)s->sends / s->elapsed, rate,
				      s->held_slow ? "the server stopped "
				      "answering: above" : "the server, or "
				      "this client, could not keep up: more "
				      "--connections may help");
	if (s->late)
		benchmark_add_warning(b, "%" PRIu64 " of %" PRIu64 " sends went "
				      "out more than 1 ms after their due time "
				      "(by up to %s): their latency counts from "
				      "the due time", s->late, s->sends,
				      fmt_value(sec(hdr_max(s->lag)), "s", lag,
						sizeof(lag)));
}

/* What merging segments needs: the per-second counts and the totals of
 * s, in b->load (result.h). */
static void fill_detail(struct benchmark *b, const struct load_stats *s)
{
	struct load_detail *d = &b->load;
	char key[32];

	d->present = true;
	d->start = s->start_unix;
	d->elapsed = s->elapsed;
	for (size_t i = 0; i < s->nseconds; i++) {
		series_push(&d->ok, (double)s->per_second[i]);
		series_push(&d->errors, (double)s->errors_per_second[i]);
	}
	load_detail_set_count(d, "requests", (double)s->requests);
	load_detail_set_count(d, "responses", (double)s->responses);
	load_detail_set_count(d, "ok", (double)s->ok);
	load_detail_set_count(d, "sends", (double)s->sends);
	load_detail_set_count(d, "late", (double)s->late);
	load_detail_set_count(d, "resent", (double)s->resent);
	load_detail_set_count(d, "bytes_read", (double)s->bytes_read);
	load_detail_set_count(d, "bytes_written", (double)s->bytes_written);
	load_detail_set_count(d, "held", (double)s->held);
	load_detail_set_count(d, "held_slow", (double)s->held_slow);
	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		load_detail_set_count(d, load_err_name(k),
				      (double)s->errors[k]);
	for (int c = 100; c < 600; c++) {
		if (!s->status[c])
			continue;
		snprintf(key, sizeof(key), "status_%d", c);
		load_detail_set_count(d, key, (double)s->status[c]);
	}
}

void load_fill_benchmark(struct result *r, const char *name, double rate,
			 unsigned long long seed, const struct load_stats *s)
{
	struct benchmark *b = result_add_benchmark(r, name, NULL);
	struct metric *m;
	double *rates;
	size_t nrates;

	m = benchmark_metric(b, METRIC_LATENCY, "s");
	for (size_t i = 0; i < s->sample.n; i++)
		metric_push(m, sec(s->sample.a[i]));
	m = benchmark_metric(b, "latency_uncorrected", "s");
	/* a request held at the end (-1) has no uncorrected latency: null,
	 * so that the two lists stay pairs (merge reads them so) */
	for (size_t i = 0; i < s->sample.n; i++)
		metric_push(m, s->sample.b[i] >= 0 ? sec(s->sample.b[i]) : NAN);
	m = benchmark_metric(b, METRIC_THROUGHPUT, "requests/s");
	load_rates(s, &rates, &nrates);
	for (size_t i = 0; i < nrates; i++)
		metric_push(m, rates[i]);
	free(rates);
	m = benchmark_metric(b, METRIC_ERROR_RATE, "errors/s");
	load_error_rates(s, &rates, &nrates);
	for (size_t i = 0; i < nrates; i++)
		metric_push(m, rates[i]);
	free(rates);
	m = benchmark_metric(b, METRIC_ERRORS, "count");
	metric_push(m, (double)load_errors_total(s));
	m = benchmark_metric(b, LOAD_COUNT_REQUESTS, "count");
	metric_push(m, (double)s->requests);
	/* the histograms, which result_summarize applies to the summaries */
	benchmark_set_histogram(b, METRIC_LATENCY, s->latency);
	benchmark_set_histogram(b, "latency_uncorrected", s->uncorrected);
	if (rate > 0)
		benchmark_set_histogram(b, "send_lag", s->lag);
	fill_detail(b, s);
	result_summarize(r, seed, RESAMPLES);
	throughput_extras(benchmark_find_metric(b, METRIC_THROUGHPUT), rate, s);
	error_extras(benchmark_find_metric(b, METRIC_ERRORS), s);
	warnings(b, rate, s);
}

void load_fill_result(struct result *r, const struct load_plan *p,
		      const struct load_stats *s)
{
	char *name = load_bench_name(p);

	load_fill_settings(r, p);
	/* a segment's own target: its share of the rate */
	load_fill_benchmark(r, name, p->rate / (double)p->segments, p->seed,
			    s);
	free(name);
}

/* ---- the terminal summary ---- */

static void pct_header(FILE *fp, bool color)
{
	fprintf(fp, "  %s%-16s", term_dim(color), "");
	for (size_t i = 0; i < NPCTS; i++)
		term_pad(fp, pcts[i].label, 10, true);
	term_pad(fp, "max", 10, true);
	fprintf(fp, "   mean ± σ%s\n", term_reset(color));
}

static void pct_row(FILE *fp, const char *label, const struct hdr *h,
		    bool color)
{
	char b[32], c[32];

	fprintf(fp, "  %-16s", label);
	if (!hdr_count(h)) {
		fputs("        no responses\n", fp);
		return;
	}
	fputs(term_bold(color), fp);
	for (size_t i = 0; i < NPCTS; i++)
		term_pad(fp, fmt_value(sec(hdr_percentile(h, pcts[i].p)), "s",
				       b, sizeof(b)), 10, true);
	fputs(term_reset(color), fp);
	term_pad(fp, fmt_value(sec(hdr_max(h)), "s", b, sizeof(b)), 10, true);
	fprintf(fp, "   %s ± %s\n", fmt_value(hdr_mean(h) / 1e9, "s", b,
					     sizeof(b)),
		fmt_value(hdr_stddev(h) / 1e9, "s", c, sizeof(c)));
}

static void print_rate(FILE *fp, const char *label, double v)
{
	char b[32];

	fprintf(fp, "%s%s/s", label, fmt_value(v, "count", b, sizeof(b)));
}

static void setup_line(const struct load_plan *p, FILE *fp)
{
	if (open_model(p))
		fprintf(fp, "  open model: %g requests/s over %ld connection%s",
			p->rate, p->connections, plural_s(p->connections));
	else
		fprintf(fp, "  closed model: %ld connection%s", p->connections,
			plural_s(p->connections));
	fprintf(fp, ", %ld thread%s", p->threads, plural_s(p->threads));
	if (p->segment_given) {
		long c = load_segment_share(p->connections, p->segment,
					    p->segments);

		fprintf(fp, "; segment %ld/%ld: %ld connection%s", p->segment,
			p->segments, c, plural_s(c));
		if (open_model(p))
			fprintf(fp, ", %g requests/s", p->rate /
				(double)p->segments);
	}
	if (p->warmup > 0)
		fprintf(fp, ", %gs warmup", p->warmup);
	fputc('\n', fp);
}

static void requests_line(const struct load_stats *s, FILE *fp)
{
	char t[32];

	fprintf(fp, "  %-16s%" PRIu64 " in %s", "requests", s->requests,
		fmt_value(s->elapsed, "s", t, sizeof(t)));
	if (s->elapsed > 0)
		print_rate(fp, ", ", (double)s->requests / s->elapsed);
	fprintf(fp, ": %" PRIu64 " ok (2xx/3xx), %" PRIu64 " failed", s->ok,
		load_errors_total(s));
	/* The few in flight at the end of any run need no more words; the
	 * ones a stalled server held longer than every response do. */
	if (s->held)
		fprintf(fp, "; %" PRIu64 " more unanswered at the end", s->held);
	if (s->held_slow)
		fprintf(fp, ", %" PRIu64 " of them waiting longer than any "
			"response (in latency at their wait)", s->held_slow);
	fputc('\n', fp);
}

static void throughput_line(const struct load_stats *s, FILE *fp)
{
	double *v;
	size_t n;

	fprintf(fp, "  %-16s", METRIC_THROUGHPUT);
	if (s->elapsed <= 0) {
		fputs("-\n", fp);
		return;
	}
	print_rate(fp, "", (double)s->ok / s->elapsed);
	load_rates(s, &v, &n);
	if (n > 1) {
		stats_sort(v, n);
		print_rate(fp, " (per second: min ", v[0]);
		print_rate(fp, ", median ", stats_median_sorted(v, n));
		print_rate(fp, ", max ", v[n - 1]);
		fputc(')', fp);
	}
	free(v);
	fputc('\n', fp);
}

static void open_lines(const struct load_plan *p, const struct load_stats *s,
		       FILE *fp)
{
	char a[32];

	fprintf(fp, "  %-16s", "rate");
	print_rate(fp, "target ", p->rate);
	if (s->elapsed > 0) {
		print_rate(fp, ", sent ", (double)s->sends / s->elapsed);
		print_rate(fp, ", answered ", (double)s->responses / s->elapsed);
	}
	fputc('\n', fp);
	fprintf(fp, "  %-16s%" PRIu64 " of %" PRIu64 " sends more than 1 ms "
		"after their due time", "late", s->late, s->sends);
	if (s->late)
		fprintf(fp, ", by up to %s", fmt_value(sec(hdr_max(s->lag)),
							"s", a, sizeof(a)));
	fputc('\n', fp);
}

static void errors_line(const struct load_stats *s, FILE *fp)
{
	const char *sep = "";

	fprintf(fp, "  %-16s", METRIC_ERRORS);
	if (!load_errors_total(s)) {
		fputs("none\n", fp);
		return;
	}
	for (int k = 0; k < LOAD_ERR_KINDS; k++) {
		if (!s->errors[k] || k == LOAD_ERR_STATUS)
			continue;
		/* a reason may quote what the server sent: escaped */
		fprintf(fp, "%s%s %" PRIu64 " (", sep, load_err_name(k),
			s->errors[k]);
		term_puts(fp, s->reason[k]);
		fputc(')', fp);
		sep = ", ";
	}
	for (int c = 400; c < 600; c++) {
		if (!s->status[c])
			continue;
		fprintf(fp, "%sstatus %d: %" PRIu64, sep, c, s->status[c]);
		sep = ", ";
	}
	fputc('\n', fp);
}

static int spectrum_line(int64_t v, double p, int64_t count, void *arg)
{
	FILE *fp = arg;

	if (p >= 100)
		fprintf(fp, "  %12.3f  %12.6f  %12" PRId64 "\n", (double)v / 1e6,
			p / 100, count);
	else
		fprintf(fp, "  %12.3f  %12.6f  %12" PRId64 "  %14.2f\n",
			(double)v / 1e6, p / 100, count, 1 / (1 - p / 100));
	return 0;
}

static void spectrum(const char *what, const struct hdr *h, FILE *fp)
{
	if (!hdr_count(h))
		return;
	fprintf(fp, "\n%s: percentile spectrum\n  %12s  %12s  %12s  %14s\n",
		what, "value (ms)", "percentile", "total count",
		"1/(1-percentile)");
	hdr_foreach_percentile(h, 5, spectrum_line, fp);
}

void load_report(const struct load_plan *p, const struct load_stats *s,
		 const char *name, bool histogram, FILE *fp)
{
	bool color = term_use_color(fp);
	char a[32], b[32];

	fputs(term_bold(color), fp);
	term_puts(fp, name);		/* the URL or -n: escaped */
	fputs(term_reset(color), fp);
	if (s->interrupted)
		fprintf(fp, " (partial: stopped by %s)", stop_signal()
			? stop_signal_name() : "an interrupt");
	fputc('\n', fp);
	setup_line(p, fp);
	requests_line(s, fp);
	pct_header(fp, color);
	if (open_model(p)) {
		pct_row(fp, METRIC_LATENCY, s->latency, color);
		pct_row(fp, "  uncorrected", s->uncorrected, color);
		pct_row(fp, "send lag", s->lag, color);
	} else {
		pct_row(fp, METRIC_LATENCY, s->latency, color);
	}
	throughput_line(s, fp);
	if (open_model(p))
		open_lines(p, s, fp);
	fprintf(fp, "  %-16s%s read, %s written\n", "transfer",
		fmt_value((double)s->bytes_read, "bytes", a, sizeof(a)),
		fmt_value((double)s->bytes_written, "bytes", b, sizeof(b)));
	errors_line(s, fp);
	if (s->resent)
		fprintf(fp, "  %-16s%" PRIu64 " requests sent again on a new "
			"connection: the server closed the kept-alive one "
			"before answering (or answered 408)\n", "resent",
			s->resent);
	if (open_model(p))
		fputs("  (open model: latency counts from each request's due "
		      "time, uncorrected from its send)\n", fp);
	if (histogram) {
		spectrum(METRIC_LATENCY, s->latency, fp);
		if (open_model(p))
			spectrum("latency uncorrected", s->uncorrected, fp);
	}
}

void load_failure_reason(const struct load_plan *p,
			 const struct load_stats *s, char *buf, size_t n)
{
	int worst = -1;
	int code = 0;

	for (int k = 0; k < LOAD_ERR_KINDS; k++)
		if (s->errors[k] && (worst < 0 || s->errors[k] > s->errors[worst]))
			worst = k;
	if (worst < 0) {
		snprintf(buf, n, "no request completed: %s", p->url.hostport);
		return;
	}
	if (worst != LOAD_ERR_STATUS) {
		snprintf(buf, n, "%s: %s", s->reason[worst], p->url.hostport);
		return;
	}
	for (int c = 400; c < 600; c++)
		if (s->status[c] && (!code || s->status[c] > s->status[code]))
			code = c;
	snprintf(buf, n, "the server answered %d to %" PRIu64 " of %" PRIu64
		 " requests: %s", code, s->status[code], s->requests,
		 p->url.hostport);
}
