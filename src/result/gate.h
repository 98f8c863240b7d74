/*
 * The CI gate: thresholds on how much a statistic of a metric may grow
 * between a baseline and a candidate result set, or a ceiling it may not
 * pass, and their verdicts.
 *
 * A --max-increase threshold is broken when the change is significantly
 * beyond it: the one-sided test of stats_shift_test (a permutation test of
 * the statistic itself while the samples are small, exact under "no
 * change" at any size; see stats/shift.h) rejects "the change is within
 * the threshold" at alpha. A --max-decrease likewise for a fall. A --limit
 * is broken when the candidate's statistic is above the ceiling (a ceiling
 * needs no baseline and no test).
 *
 * A check never passes silently for want of data: one the samples are too
 * small to decide (stats_shift_test's !decidable) is "inconclusive", one
 * that cannot be made (a benchmark or metric missing on one side, no
 * measured value: every run timed out) is "missing", and both fail the
 * gate unless the options allow them.
 */
#ifndef YS_RESULT_GATE_H
#define YS_RESULT_GATE_H

#include <stdbool.h>
#include <stdio.h>

#include "result/result.h"
#include "stats/judge.h"
#include "stats/shift.h"
#include "util/error.h"

/* GATE_DECREASE: how much a statistic may fall (throughput, a
 * higher-is-better metric), judged as an increase is. */
enum gate_kind { GATE_INCREASE, GATE_LIMIT, GATE_DECREASE };

struct gate_threshold {
	char *pattern;		/* benchmark-name glob; NULL: every one */
	char *metric;
	enum stat_kind stat;	/* default median */
	enum gate_kind kind;
	bool relative;		/* value is a fraction: 10% is 0.10 */
	char *unit_class;	/* "s", "bytes", "bytes/s", "rate" (any
				 * X/s), "count" (a bare number); NULL if
				 * relative or a bare 0 (any unit) */
	double value;		/* in the metric's base unit */
	char *text;		/* as given: "wall_time.p99=15ms" */
};

/*
 * Parse "METRIC[.STAT]=VALUE[UNIT]": UNIT is a time (ns us µs ms s), a
 * size (B KiB MiB GiB TiB kB MB GB TB), a rate (/s k/s M/s G/s T/s, or
 * of bytes B/s KiB/s MiB/s GiB/s kB/s MB/s GB/s), %, or none. A value
 * must carry a unit of its metric's dimension (result/metrics.h): only
 * counts and ratios take a bare number, and 0 (0 in every unit). For a metric the vocabulary
 * knows this is checked here, for any other when judged against the
 * metric's unit. Returns 0, or -1 with a message quoting spec and saying
 * what to write.
 */
int gate_parse(const char *spec, enum gate_kind kind, const char *pattern,
	       struct gate_threshold *t, struct error *e);
void gate_threshold_free(struct gate_threshold *t);

/* Whether t's value can be held against a metric measured in unit. */
bool gate_unit_fits(const struct gate_threshold *t, const char *unit);

/* A check's verdict; gate_verdict_name gives its word. */
enum gate_verdict { GATE_PASS, GATE_FAIL, GATE_MISSING, GATE_INCONCLUSIVE };

const char *gate_verdict_name(enum gate_verdict v);

struct gate_check {
	char *benchmark, *metric, *unit, *threshold;
	enum stat_kind stat;
	enum gate_kind kind;
	bool relative;
	double limit;		/* the threshold's value */
	double base, cand;	/* the statistic (base NaN for a limit) */
	double change, change_ci[2];	/* absolute, or relative */
	double p;		/* one-sided: that the change is within
				 * the threshold (NaN: no test) */
	double p_adj;		/* p after the family's correction */
	const char *method;	/* the judge's: "permutation", ... */
	bool approximate;	/* the interval is not known to cover 95% */
	bool judged;		/* j holds the judge's judgement */
	struct judgement j;
	enum gate_verdict verdict;
	bool fails;		/* this check fails the gate */
	char *note;		/* why, in words */
};

struct gate_report {
	struct gate_check *checks;
	size_t n, cap;
	size_t failed;		/* checks that fail the gate, for any reason */
	size_t missing, inconclusive;
	double alpha;
	bool missing_pass, inconclusive_pass;
	enum judge_correction correction;
	size_t family;		/* the tests the budget was set for */
	size_t tested;		/* the tests corrected together */
	/* thresholds whose pattern matched no benchmark of either side
	 * (their text, with the pattern): listed, not failed (one
	 * yardstick.ini may serve several suites) */
	char **unmatched;
	size_t nunmatched;
};

struct gate_opts {
	double alpha;			/* default 0.01 */
	enum judge_correction correction;	/* default Holm */
	bool inconclusive_pass;		/* an inconclusive check passes */
	bool missing_pass;		/* a check that cannot be made passes */
	const char *base_label;		/* names in messages; default */
	const char *cand_label;		/* "the baseline", "the candidate" */
};

void gate_opts_init(struct gate_opts *o);

/*
 * Evaluate every threshold on every benchmark its pattern matches (by
 * name), matched across the two sets by identity (name and parameters,
 * compare_key); a baseline benchmark the candidate lacks is a missing
 * check. A threshold whose metric is measured in other units than its
 * value, or a side holding one identity twice, is an error (-1, message).
 * base may be NULL when there are only limits.
 */
int gate_evaluate(const struct result *base, const struct result *cand,
		  const struct gate_threshold *t, size_t nt,
		  const struct gate_opts *o, struct gate_report *rep,
		  struct error *e);
void gate_report_free(struct gate_report *rep);

/* The most units a side (runs, or processes) any tested check of rep
 * needs for the judge's planned power (struct judgement.units_needed):
 * what `bench --baseline-program` measures up to. 0: no tested check. */
size_t gate_units_needed(const struct gate_report *rep);

void gate_print(const struct gate_report *rep, FILE *fp);
int gate_write_markdown(const struct gate_report *rep, const char *path,
			struct error *e);
int gate_write_junit(const struct gate_report *rep, const char *path,
		     struct error *e);
/* The report as JSON (schema "yardstick/gate/v1", docs/result-format.md):
 * the summary and every check with its numbers. Returns 0, or -1 with a
 * message naming the file. */
int gate_write_json(const struct gate_report *rep, const char *path,
		    struct error *e);

#endif
