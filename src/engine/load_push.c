/*
 * `load --push` (load_push.h). Each push replaces the test's group with
 * counters since the start (requests, ok, errors by kind) and gauges of
 * the interval since the last push and of the whole run so far
 * (throughput, latency quantiles), told apart by the label window.
 */
#include "engine/load_push.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/push.h"
#include "result/openmetrics.h"
#include "util/strutil.h"

static const struct { const char *name; double p; } quantiles[] = {
	{ "p50", 50 }, { "p90", 90 }, { "p99", 99 }, { "p99_9", 99.9 },
	{ "max", 100 },
};

void load_push_init(struct load_push *p, const char *url,
		    const char *benchmark, const char *machine,
		    const char *segment)
{
	memset(p, 0, sizeof(*p));
	if (segment)
		snprintf(p->segment, sizeof(p->segment), "%s", segment);
	p->url = url;
	p->benchmark = xstrdup(benchmark);
	p->machine = machine ? machine : "";
	p->prev = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST, LOAD_HDR_SIGFIGS);
	p->prev_unc = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
			      LOAD_HDR_SIGFIGS);
}

void load_push_free(struct load_push *p)
{
	free(p->benchmark);
	hdr_free(p->prev);
	hdr_free(p->prev_unc);
}

static void add(struct om_doc *d, const char *fam, enum om_type type,
		const char *unit, const char *help, struct om_label *l,
		size_t nl, double v)
{
	om_add(d, fam, type, unit, help, l, nl, v);
}

/* The quantiles of h (ns) as fam{statistic, window}. */
static void add_quantiles(struct om_doc *d, const char *fam,
			  const char *help, struct om_label *l,
			  const char *window, const struct hdr *h)
{
	if (!hdr_count(h))
		return;
	l[2] = (struct om_label){ "window", window };
	for (size_t i = 0; i < sizeof(quantiles) / sizeof(quantiles[0]);
	     i++) {
		l[3] = (struct om_label){ "statistic", quantiles[i].name };
		add(d, fam, OM_GAUGE, "seconds", help, l, 4,
		    (double)hdr_percentile(h, quantiles[i].p) / 1e9);
	}
}

static void add_latency(struct om_doc *d, const char *fam, const char *help,
			struct om_label *l, const struct hdr *cum,
			struct hdr *prev)
{
	struct hdr *iv = hdr_new(LOAD_HDR_LOWEST, LOAD_HDR_HIGHEST,
				 LOAD_HDR_SIGFIGS);

	hdr_merge(iv, cum);
	hdr_subtract(iv, prev);
	add_quantiles(d, fam, help, l, "interval", iv);
	add_quantiles(d, fam, help, l, "cumulative", cum);
	hdr_free(iv);
	hdr_reset(prev);
	hdr_merge(prev, cum);
}

/* The text of one push of s (running: the test goes on). */
static char *body(struct load_push *p, const struct load_stats *s,
		  bool running, size_t *len)
{
	struct om_doc *d = om_new();
	struct om_label l[4] = {
		{ "benchmark", p->benchmark }, { "machine", p->machine },
	};
	double dt = s->elapsed - p->prev_elapsed;
	struct strbuf b = { 0 };

	add(d, "yardstick_load_requests", OM_COUNTER, NULL, "requests that "
	    "ended (a response or an error) since the test began", l, 2,
	    (double)s->requests);
	add(d, "yardstick_load_ok", OM_COUNTER, NULL, "2xx and 3xx "
	    "responses since the test began", l, 2, (double)s->ok);
	for (int k = 0; k < LOAD_ERR_KINDS; k++) {
		l[2] = (struct om_label){ "kind", load_err_name(k) };
		add(d, "yardstick_load_errors", OM_COUNTER, NULL, "failed "
		    "requests since the test began, by kind", l, 3,
		    (double)s->errors[k]);
	}
	l[2] = (struct om_label){ "window", "interval" };
	if (dt > 0)
		add(d, "yardstick_load_throughput_requests_per_second",
		    OM_GAUGE, NULL, "2xx and 3xx responses per second", l, 3,
		    (double)(s->ok - p->prev_ok) / dt);
	l[2] = (struct om_label){ "window", "cumulative" };
	if (s->elapsed > 0)
		add(d, "yardstick_load_throughput_requests_per_second",
		    OM_GAUGE, NULL, "2xx and 3xx responses per second", l, 3,
		    (double)s->ok / s->elapsed);
	add_latency(d, "yardstick_load_latency_seconds", "latency from the "
		    "due time (open model) or the send", l, s->latency,
		    p->prev);
	add_latency(d, "yardstick_load_latency_uncorrected_seconds",
		    "latency from the actual send", l, s->uncorrected,
		    p->prev_unc);
	add(d, "yardstick_load_elapsed_seconds", OM_GAUGE, "seconds",
	    "seconds of the measured interval so far", l, 2, s->elapsed);
	add(d, "yardstick_load_running", OM_GAUGE, NULL, "1 while the test "
	    "runs, 0 after its last push", l, 2, running ? 1 : 0);
	p->prev_ok = s->ok;
	p->prev_requests = s->requests;
	p->prev_elapsed = s->elapsed;
	om_write(d, OM_PROMETHEUS, NULL, 0, &b);
	om_free(d);
	*len = b.len;
	return b.s;
}

static int push(struct load_push *p, const struct load_stats *s,
		bool running, struct error *e)
{
	size_t len;
	char *text = body(p, s, running, &len);
	int ret = push_group(p->url, p->benchmark, p->machine,
			     p->segment[0] ? p->segment : NULL, text, len, e);

	free(text);
	if (!ret)
		p->pushes++;
	return ret;
}

void load_push_live(void *arg, const struct load_stats *s)
{
	struct load_push *p = arg;
	struct error e;

	if (push(p, s, true, &e) && !p->warned) {
		fprintf(stderr, "yardstick load: warning: %s (the test goes "
			"on; later failures are not reported)\n", e.msg);
		p->warned = true;
	}
}

int load_push_final(struct load_push *p, const struct load_stats *s,
		    struct error *e)
{
	return push(p, s, false, e);
}
