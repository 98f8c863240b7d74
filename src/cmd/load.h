/*
 * `yardstick load`: the options (load.c) and what the report needs of
 * them (load_report.c: the result, the terminal summary).
 */
#ifndef YS_CMD_LOAD_H
#define YS_CMD_LOAD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "load/load.h"
#include "load/url.h"
#include "result/result.h"

struct load_opts {
	char *url_arg;
	struct url url;
	long connections, threads;
	double duration;		/* 0: by --requests only */
	bool duration_given;
	long requests;			/* 0: by --duration */
	double rate, warmup, timeout;
	const char *method;		/* NULL: GET, or POST with a body */
	char **headers;			/* argv's strings */
	size_t nheaders;
	char *body;			/* --body or --body-file's content */
	size_t body_len;
	bool body_given;
	const char *body_file, *requests_file;
	bool insecure, histogram, quiet, no_store;
	const char *name, *json, *store;
	long sample;
	unsigned long long seed;
	long segment, segments;		/* --segment I/N (0/1: the whole) */
	bool segment_given;
	int64_t start_at;		/* --start-at, unix ns */
	bool start_at_given;
	const char *push;		/* --push URL: a Pushgateway */
	double push_interval;
	bool push_interval_given;
};

/* The benchmark name: --name, else "METHOD URL" (just the URL for GET). */
char *load_bench_name(const struct load_opts *o);

/*
 * Fill r (result_init'ed, kind "load") with one benchmark: the metrics
 * latency, latency_uncorrected (seconds; values the merged sample, the
 * percentiles in the summary from the HDR histograms over every request),
 * throughput (requests/s, one value a second) and errors (count), their
 * extra keys, the settings and warnings.
 */
void load_fill_result(struct result *r, const struct load_opts *o,
		      const struct load_stats *s);

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
void load_report(const struct load_opts *o, const struct load_stats *s,
		 const char *name, FILE *fp);

/* Why nothing succeeded, in one line ("connection refused: HOST:PORT"). */
void load_failure_reason(const struct load_opts *o,
			 const struct load_stats *s, char *buf, size_t n);


#endif
