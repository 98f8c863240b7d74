/*
 * The engine of `yardstick load`: a plan (struct load_plan, what to send
 * and how, made by cmd/load.c from its options) into the requests and
 * the configuration of the load module's engine (load_plan.c), and the
 * engine's statistics into the result and the terminal summary
 * (load_report.c). Nothing here knows the command line.
 */
#ifndef YS_ENGINE_LOAD_PLAN_H
#define YS_ENGINE_LOAD_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "load/load.h"
#include "load/url.h"
#include "result/result.h"
#include "util/error.h"

struct load_plan {
	char *url_arg;			/* the URL as given */
	struct url url;			/* parsed (url_parse) */
	long connections, threads;
	double duration;		/* 0: by requests only */
	long requests;			/* 0: by duration */
	double rate, warmup, timeout;	/* rate 0: the closed model */
	const char *method;		/* NULL: GET, or POST with a body */
	char **headers;			/* "K: V", not owned */
	size_t nheaders;
	char *body;			/* owned */
	size_t body_len;
	bool body_given;
	const char *requests_file;	/* NULL: one request, from the above */
	bool insecure;
	const char *name;		/* NULL: the method and URL */
	long sample;
	unsigned long long seed;
	long segment, segments;		/* segment I of N (0/1: the whole) */
	bool segment_given;
	int64_t start_at;		/* unix ns, when start_at_given */
	bool start_at_given;
};

/* The defaults of `load`'s options: 10 connections on 1 thread for 10
 * s, a 2 s timeout, a sample of 100000 latencies with seed 1, the whole
 * test (1 segment). The rest zero. */
void load_plan_defaults(struct load_plan *p);

/* What plan owns (the body, the parsed URL); not plan itself. */
void load_plan_free(struct load_plan *p);

/* The benchmark name: the plan's name, else "METHOD URL" (just the URL
 * for GET). malloc'd. */
char *load_bench_name(const struct load_plan *p);

/*
 * Every request's bytes, once: the requests file's entries with the
 * plan's headers added to each (those an entry already has kept as they
 * are), or the one request of the plan. Returns 0 with *out (n of them,
 * load_reqs_free) or -1 with a message.
 */
int load_plan_requests(const struct load_plan *p, struct load_req **out,
		       size_t *n, struct error *e);
void load_reqs_free(struct load_req *r, size_t n);

/*
 * The load engine's configuration of the plan, its address resolved, a
 * segment's share of the connections and requests taken, stopped by
 * util/stop.h's flag; c->reqs, the progress and the live view are the
 * caller's to fill. Returns 0, or -1 with a message.
 */
int load_plan_config(const struct load_plan *p, struct load_config *c,
		     struct error *e);

/*
 * Fill r (result_init'ed, kind "load") with one benchmark: the metrics
 * latency, latency_uncorrected (seconds; values the merged sample, the
 * percentiles in the summary from the HDR histograms over every request),
 * throughput (requests/s, one value a second) and errors (count), their
 * extra keys, the settings and warnings.
 */
void load_fill_result(struct result *r, const struct load_plan *p,
		      const struct load_stats *s);

/* The settings of the plan's load (result-format.md, settings.load). */
void load_fill_settings(struct result *r, const struct load_plan *p);

/*
 * The benchmark name of the load of s, with its metrics and their extra
 * keys, the histograms and the per-second counts (result.h's load
 * detail), warnings; then r summarized with seed. rate: the open model's
 * total rate, 0 for the closed model. load_fill_result and `merge`.
 */
void load_fill_benchmark(struct result *r, const char *name, double rate,
			 unsigned long long seed, const struct load_stats *s);

/* The connections (or requests) of segment i of n out of total: an
 * equal share, the first total % n segments one more. */
long load_segment_share(long total, long i, long n);

/* The terminal summary of s (and with histogram, the spectrum). */
void load_report(const struct load_plan *p, const struct load_stats *s,
		 const char *name, bool histogram, FILE *fp);

/* Why nothing succeeded, in one line ("connection refused: HOST:PORT"). */
void load_failure_reason(const struct load_plan *p,
			 const struct load_stats *s, char *buf, size_t n);

#endif
