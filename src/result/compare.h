/*
 * Comparing two result sets metric by metric: what `compare` prints and
 * what `gate` builds on. Benchmarks are matched by their identity, name
 * and parameters (compare_key), through a hash table: linear time. A
 * result that holds one identity twice is refused: which of the two to
 * compare would be a guess.
 *
 * Every statistic (the median, p90, p95, p99) is judged by stats/judge.h
 * as a gate with a threshold of the noise level (default 2%) either way
 * would judge it: "slower" is `gate --max-increase M.STAT=<noise>%`
 * failing, with the same estimate (Harrell-Davis), interval and p. The
 * whole comparison is one family: both directions of every statistic of
 * every row, corrected by Holm (compare_opts.correction), so that a
 * comparison of identical programs says "slower" or "faster" anywhere
 * with probability at most alpha.
 */
#ifndef YS_RESULT_COMPARE_H
#define YS_RESULT_COMPARE_H

#include <stdio.h>

#include "result/metrics.h"
#include "result/result.h"
#include "stats/judge.h"
#include "stats/shift.h"
#include "util/error.h"
#include "util/hashmap.h"

struct compare_opts {
	double alpha;			/* default 0.01 */
	double noise;			/* default 0.02 (2%) */
	size_t resamples;		/* bootstrap, default 1000 */
	unsigned long long seed;	/* default 1 */
	const char *const *metrics;	/* NULL-terminated; NULL: all */
	const char *base_label;		/* names in messages; default */
	const char *cand_label;		/* "the baseline", "the candidate" */
	enum judge_correction correction;	/* default Holm */
};

void compare_opts_init(struct compare_opts *o);

/* The question compare asks of statistic k of metric (in unit): a change
 * either way beyond o's noise level, relative, at o's alpha, in a family
 * of `family` tests (0: 1). */
void compare_query(const struct compare_opts *o, const char *metric,
		   const char *unit, enum stat_kind k, size_t family,
		   struct judge_query *q);

/* compare's word for the judge's verdict v. */
enum cmp_verdict compare_verdict_of(enum judge_verdict v);

/* A percentile's change, judged as gate judges it. */
struct pct_cmp {
	enum stat_kind stat;		/* STAT_P90, STAT_P95, STAT_P99 */
	double base, cand;
	double change, change_ci[2];	/* relative, 95% interval */
	double p;			/* one-sided, in the direction of the
					 * change; NaN for one value each */
	enum cmp_verdict verdict;	/* as metric_cmp's, or inconclusive
					 * when too few runs could decide */
	const char *method;		/* the judge's: "permutation", ... */
	double p_adj;			/* p after the family's correction */
	bool approximate;		/* interval not known to cover 95% */
	struct judgement j;
};

#define COMPARE_NPCT 3

struct metric_cmp {
	char *benchmark, *metric, *unit;
	size_t base_n, cand_n;
	double base_median, base_p95, base_p99;
	double cand_median, cand_p95, cand_p99;
	double change, change_ci[2];	/* relative change of the median */
	double p;			/* one-sided, in the direction of the
					 * change (the judge's) */
	double p_adj;			/* p after the family's correction */
	bool approximate;		/* interval not known to cover 95% */
	struct judgement j;
	enum cmp_verdict verdict;	/* faster, slower, unchanged, or
					 * better/worse for metrics where
					 * more is better */
	const char *ci_method;		/* the judge's method */
	/* a count of events out of trials (errors of requests): the
	 * proportions judged once (j.proportion); no percentiles */
	bool proportion;
	struct pct_cmp pct[COMPARE_NPCT];	/* p90, p95, p99 */
};

struct metric_one_side {
	char *benchmark, *metric;
};

struct compare_report {
	struct metric_cmp *rows;
	size_t n, cap;
	char **only_base, **only_cand;	/* benchmark names on one side */
	size_t n_only_base, n_only_cand;
	/* metrics of a benchmark both sides have, measured on one side
	 * only (absent, or every value null on the other): said, never
	 * dropped without a word */
	struct metric_one_side *mbase_only, *mcand_only;
	size_t n_mbase_only, n_mcand_only;
	double alpha, noise;
	enum judge_correction correction;
	size_t family;		/* the tests the budget was set for */
	size_t tests;		/* tests made and corrected together */
	size_t probes;		/* identity keys compared while matching */
};

/*
 * Compare every metric both sides have (or o->metrics) of every benchmark
 * both sides have. Summaries of both results must be computed. Returns 0,
 * or -1 with a message when a side holds one identity twice.
 */
int compare_results(const struct result *base, const struct result *cand,
		    const struct compare_opts *o, struct compare_report *rep,
		    struct error *e);
void compare_report_free(struct compare_report *rep);


/*
 * Index the benchmarks of base and of cand by identity in mbase and mcand
 * (initialized here; the caller frees both after a success). Returns 0,
 * or -1 with a message naming the side (base_label, else "the baseline";
 * cand_label, else "the candidate") that holds an identity twice.
 */
int compare_index_pair(const struct result *base, const struct result *cand,
		       const char *base_label, const char *cand_label,
		       struct hashmap *mbase, struct hashmap *mcand,
		       struct error *e);
/*
 * 0 when metrics ma (baseline) and mb (candidate) of benchmark b are in
 * the same unit (or one does not say its unit); -1 with a message naming
 * both units otherwise: 10 ms against 0.01 s is no change of 99,900%.
 * compare, gate, report --baseline and bench --baseline all refuse such
 * a pair through it.
 */
int compare_units_agree(const struct benchmark *b, const struct metric *ma,
			const struct metric *mb, struct error *e);

/* The benchmark of index m with b's identity, or NULL. */
const struct benchmark *compare_lookup(struct hashmap *m,
				       const struct benchmark *b);

void compare_print(const struct compare_report *rep, FILE *fp);
int compare_write_json(const struct compare_report *rep, const char *path,
		       struct error *e);
int compare_write_markdown(const struct compare_report *rep,
			   const char *path, struct error *e);

#endif
