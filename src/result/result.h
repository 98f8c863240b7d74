/*
 * The result model: a set of benchmarks, each with metrics, each metric a
 * unit, its per-run values and a summary. `run` (and later `load`, `mem`,
 * libyardstick) produce it; the writers, `compare`, `gate` and the store
 * consume it. Nothing here knows where the data came from.
 *
 * Ownership: a result owns everything hanging off it; result_free releases
 * all of it. Strings are copied in.
 */
#ifndef YS_RESULT_RESULT_H
#define YS_RESULT_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "stats/hdr.h"
#include "stats/stats.h"
#include "util/error.h"

#define RESULT_SCHEMA "yardstick/result/v1"

/* A named number a producer adds to a metric's summary in the JSON (not
 * read back, not stored: like the summary, it describes the values). */
struct metric_extra {
	char *key;
	double value;
};

struct metric {
	char *name;		/* "wall_time", "peak_rss", ... */
	char *unit;		/* "s", "bytes", "count" */
	double *values;		/* one per run, in run order; NaN where the
				 * run did not measure it (timed out, counter
				 * not scheduled): JSON null, an empty CSV cell */
	size_t n, cap;
	/* per value, the process that measured it (0, 1, ...), when one
	 * benchmark ran in several processes (`bench --processes`); NULL:
	 * unknown, or all in one. JSON "process" (result-format.md) */
	unsigned *process;
#define RESULT_MAX_PROCESS 1000000	/* the largest id a reader takes */
#define RESULT_MAX_PROCESS_TEXT "1000000"
	struct summary summary;	/* valid after result_summarize */
	size_t summarized;	/* n when summary was computed */
	struct metric_extra *extra;	/* more summary keys, written after
					 * the others: `load`'s p99_9 from its
					 * HDR histogram, error counts by kind */
	size_t nextra;
};

struct param {
	char *name;
	char *value;
};

/* Numbers a benchmark carries beside its metrics: written and read back,
 * never summarized, compared or stored (NaN: JSON null). */
struct series {
	double *v;
	size_t n, cap;
};

void series_push(struct series *s, double v);

/* `mem`: the heap over time, one point per interval (all three n long;
 * n 0: none). */
struct heap_timeline {
	struct series t;	/* the interval's end, s since the start */
	struct series heap;	/* bytes live: the most in the interval */
	struct series rss;	/* bytes resident (NaN: no sample) */
};

/* `load`: the histogram of every request's value of a metric (ns),
 * lossless: JSON "histograms" (docs/result-format.md). */
struct bench_hist {
	char *metric;		/* "latency", "latency_uncorrected", "send_lag" */
	struct hdr *h;
};

/* `load`: what merging segments needs beyond the metrics (JSON
 * "per_second" and "counts"); present false: none. */
struct load_detail {
	bool present;
	double start;		/* unix seconds the measured interval began */
	double elapsed;		/* seconds measured */
	struct series ok, errors;	/* 2xx/3xx and failed, each second */
	struct metric_extra *counts;	/* named totals: requests, ok, ... */
	size_t ncounts;
};

struct benchmark {
	char *name;
	char **command;		/* argv, NULL-terminated */
	size_t argc;
	struct param *params;
	size_t nparams;
	int *exit_codes;	/* per run: exit status, or 128 + signal */
	size_t nexit, capexit;
	size_t timeouts;	/* runs killed by --timeout */
	struct metric *metrics;
	size_t nmetrics, capmetrics;
	char **unsupported;
	size_t nunsupported;
	char **warnings;
	size_t nwarnings;
	/* `run`: the warm-up runs' wall times (s), in order, apart from the
	 * measured runs (NaN: timed out) */
	struct series warmup_wall_time;
	struct heap_timeline timeline;		/* `mem` */
	struct bench_hist *hists;		/* `load` */
	size_t nhists;
	struct load_detail load;		/* `load` */
};

/*
 * The verdict of a comparison: one name each, cmp_verdict_name's, the
 * judge's words (compare_verdict_of): faster, slower (lower and higher of
 * a metric where less is better), better, worse (where more is better),
 * unchanged, inconclusive.
 */
enum cmp_verdict {
	CMP_UNCHANGED, CMP_FASTER, CMP_SLOWER, CMP_BETTER, CMP_WORSE,
	CMP_INCONCLUSIVE,
};

const char *cmp_verdict_name(enum cmp_verdict v);
/* The verdict named s: 0, or -1 for an unknown name. */
int cmp_verdict_parse(const char *s, enum cmp_verdict *v);

/* One benchmark's metric against another's in the same result, as the
 * judge (stats/judge.h) finds it: ratio = cand / base of the statistic it
 * tests (Harrell-Davis medians), its 95% interval, the one-sided p of the
 * direction of the change, and p_adjusted, that p after Holm's correction
 * over the result's comparisons (NaN in a result written before). */
struct comparison {
	char *baseline, *candidate, *metric;
	double ratio, ratio_ci[2], p_value, p_adjusted;
	enum cmp_verdict verdict;	/* any but better/worse for a time */
};

struct complexity_fit {
	char *name;		/* name template of the scanned command */
	char *parameter;	/* the scanned parameter */
	char *metric;		/* "wall_time" */
	struct fit best;
	struct fit all[O_COUNT];
};

struct machine {
	char *hostname, *os, *cpu, *governor;	/* governor NULL if unknown */
	int cores;
	unsigned long long memory_bytes;
	bool virtualized;
};

struct git_info {
	char *commit, *branch;	/* NULL outside a git checkout */
	bool dirty;
};

/* A setting: a number or a string (number if str is NULL). */
struct setting {
	char *key;
	char *str;
	double num;
};

struct result {
	char *kind;		/* "run" */
	char *created;		/* ISO 8601 UTC; NULL if unknown */
	char *tool_version;	/* NULL if unknown */
	struct machine machine;
	struct git_info git;
	struct setting *settings;
	size_t nsettings;
	struct benchmark *benchmarks;
	size_t nbenchmarks, capbenchmarks;
	struct comparison *comparisons;
	size_t ncomparisons;
	struct complexity_fit *fits;
	size_t nfits;
};

/*
 * Memory comes from the x* allocators (abort when it runs out), so none of
 * these functions fails for lack of it: adding and setting return nothing.
 * result_init leaves created, tool_version, machine and git NULL/zero: the
 * producer fills them (the writers put null for what stays NULL).
 */
void result_init(struct result *r, const char *kind);
void result_free(struct result *r);
void result_set_num(struct result *r, const char *key, double num);
void result_set_str(struct result *r, const char *key, const char *str);
/* The setting "partial" ("stopped by SIGINT": the command was stopped
 * while its program ran, and the values cover it up to then), NULL for a
 * whole result. Every writer of a result says it where its format can. */
const char *result_partial(const struct result *r);

/* Whether some benchmark of r has metric name, measured or listed as
 * unsupported there. */
bool result_has_metric(const struct result *r, const char *name);
/* The metric of r's benchmarks (measured or unsupported) that name most
 * likely meant ("wall_tme": "wall_time"), for a "did you mean"; NULL
 * when none is near. The string is r's. */
const char *result_metric_near(const struct result *r, const char *name);
/*
 * Append a benchmark (argv may be NULL: no command); returns it, never
 * NULL. The pointer stays valid until the next result_add_benchmark on r;
 * metric pointers likewise until the next metric is added to that
 * benchmark.
 */
struct benchmark *result_add_benchmark(struct result *r, const char *name,
				       char *const *argv);
/* Keep the benchmarks i with keep[i], in order, releasing the others
 * (benchmark pointers into r move). Returns how many are kept. */
size_t result_keep_benchmarks(struct result *r, const bool *keep);
/* The first benchmark named name; NULL if absent. */
struct benchmark *result_find_benchmark(const struct result *r,
					const char *name);
/*
 * Make the names of r's benchmarks unique, as every producer of a result
 * does once its benchmarks are added (`run`, the imports): equal names
 * whose parameters differ become "name [k=v, ...]"; so does a name shown
 * with its parameters (benchmark_display_name) as another benchmark is
 * shown; then the second and later of names still equal get " #2",
 * " #3", ... (in benchmark order, skipping a number whose name is
 * taken). Shown names are then unique too. Returns how many were
 * renamed.
 */
size_t result_unique_names(struct result *r);
void benchmark_add_param(struct benchmark *b, const char *name,
			 const char *value);
/* The value of b's parameter name, or NULL. */
const char *benchmark_param(const struct benchmark *b, const char *name);
/* Find or add a metric by name; never NULL. */
struct metric *benchmark_metric(struct benchmark *b, const char *name,
				const char *unit);
/* The name to show a benchmark by: its name, followed by its parameters
 * ("sort [n=100]") unless every value already appears in the name.
 * malloc'd. */
char *benchmark_display_name(const struct benchmark *b);
/* Find a metric by name; NULL if absent. */
struct metric *benchmark_find_metric(const struct benchmark *b,
				     const char *name);
/* Remove the metric named name (metric pointers into b move); -1 if
 * absent. */
int benchmark_remove_metric(struct benchmark *b, const char *name);
void metric_push(struct metric *m, double v);
/* Append v measured in process process: m gets its process array (the
 * values before this one were process 0's) and keeps it, so that a later
 * metric_push appends to process 0. */
void metric_push_process(struct metric *m, double v, unsigned process);
/* How many processes measured m's values (distinct process ids; 1 for
 * values without them, 0 for none). Quadratic: for reports and tests. */
size_t metric_processes(const struct metric *m);
/* Keep a copy of h as the histogram of metric (replaced if present). */
void benchmark_set_histogram(struct benchmark *b, const char *metric,
			     const struct hdr *h);
/* The histogram of metric; NULL if none. */
const struct hdr *benchmark_histogram(const struct benchmark *b,
				      const char *metric);
/* Set (replace) the count key of b->load. */
void load_detail_set_count(struct load_detail *d, const char *key, double v);
/* The count key of d; NaN if absent. */
double load_detail_count(const struct load_detail *d, const char *key);
/* Set the extra summary key (replaced if present); key must not be one of
 * the standard keys (unit, n, values, mean, ..., outliers). */
void metric_set_extra(struct metric *m, const char *key, double v);
/* The values that were measured (finite), in run order, malloc'd (never
 * NULL); their number in *n. Statistics use these. */
double *metric_measured(const struct metric *m, size_t *n);
/* True when m has a summary of its current values with at least one
 * measured value. */
bool metric_has_summary(const struct metric *m);
void benchmark_push_exit(struct benchmark *b, int code);
/* Adds name to unsupported unless already there. */
void benchmark_add_unsupported(struct benchmark *b, const char *name);
void benchmark_add_warning(struct benchmark *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void result_add_comparison(struct result *r, const struct comparison *c);
void result_add_fit(struct result *r, const struct complexity_fit *f);

/* Compute every metric's summary (bootstrap seeded by seed). */
/*
 * Like result_summarize, but bootstrap CIs only for the metrics named in
 * ci_metrics (NULL-terminated; NULL: all); the others get NaN CIs. The
 * bootstrap is the one costly statistic (B x n draws per metric), so a
 * caller that shows the CIs of some metrics only can skip the rest.
 */
void result_summarize_ci(struct result *r, unsigned long long seed,
			 size_t resamples, const char *const *ci_metrics);
void result_summarize(struct result *r, unsigned long long seed,
		      size_t resamples);

/* Writers. path "-" is stdout; files are written atomically. */
int result_write_json(const struct result *r, const char *path,
		      struct error *e);
int result_write_csv(const struct result *r, const char *path,
		     struct error *e);
int result_write_markdown(const struct result *r, const char *path,
			  struct error *e);
/*
 * Bencher Metric Format (bmf.c): each metric's median and median CI from
 * its summary (so summarize first; a metric without one is left out);
 * wall_time becomes Bencher's "latency" in nanoseconds. Fails when two
 * benchmarks with measures share a name.
 */
int result_write_bmf(const struct result *r, const char *path,
		     struct error *e);

/*
 * The writers of a result, as a command's output set takes them
 * (util/outputs.h: a file, the option that asked for it, its format):
 * each is defined beside its code (json.c, csv.c, markdown.c, bmf.c) and
 * listed in result_writers, which the commands iterate (cmd/save.c). A
 * new format is one more writer and one more entry here.
 */
enum result_format {
	RESULT_FMT_JSON, RESULT_FMT_CSV, RESULT_FMT_MARKDOWN, RESULT_FMT_BMF,
	RESULT_FMT_COUNT
};
struct result_writer {
	const char *flag;	/* the option: "--json" */
	const char *format;	/* "json" */
	/* res is a struct result */
	int (*write)(const char *path, void *res, struct error *e);
};
extern const struct result_writer result_writer_json, result_writer_csv,
	result_writer_markdown, result_writer_bmf;
extern const struct result_writer *const result_writers[RESULT_FMT_COUNT];

/*
 * Reader of yardstick's own JSON (path "-" is stdin). r is initialized by
 * the call; on failure it is left empty (result_free is still safe) and
 * the message names the file and the place: line:column for a syntax
 * error, the JSON path for anything else ("benchmarks[0].metrics.
 * wall_time.values[3]: expected a number").
 *
 * Only the per-run values are read; the summaries in the file are ignored
 * and recomputed here by result_summarize with the file's settings "seed"
 * and "bootstrap_resamples" when it has them (as `run` writes them, so its
 * files read back with identical intervals), else with RESULT_READ_SEED
 * and RESULT_READ_RESAMPLES (`run`'s defaults). Call result_summarize
 * again for other choices.
 */
#define RESULT_READ_SEED 1ULL
#define RESULT_READ_RESAMPLES 1000
/* A file's "bootstrap_resamples" beyond this is refused. */
#define RESULT_READ_MAX_RESAMPLES 1000000
int result_read_json(struct result *r, const char *path, struct error *e);
/* result_read_json, but with raw true the summaries are left uncomputed
 * (metric_has_summary false): for callers that only need the per-run
 * values of large files, such as `gate`. */
int result_read_json_raw(struct result *r, const char *path, bool raw,
			 struct error *e);

/* result_read_json of len bytes at data, named name in the messages
 * (given as is: "the result of './prog'"), which jansson sees whole. */
int result_read_json_mem(struct result *r, const char *name,
			 const char *data, size_t len, struct error *e);

/*
 * A comparison in words, for people: "'b' is 1.52× faster than 'a' [1.49,
 * 1.55], p < 0.001" (the factor and CI inverted from the ratio, since
 * ratio = median(candidate) / median(baseline)), "'b' is 1.10× slower than
 * 'a' [...]", "no significant difference between 'a' and 'b', p = 0.430".
 * A metric other than wall_time and time_per_op is named: "'b' has 1.52×
 * lower peak_rss than 'a' [...]". Names are not escaped. Returns a
 * malloc'd string.
 */
char *comparison_sentence(const struct comparison *c);

#endif
