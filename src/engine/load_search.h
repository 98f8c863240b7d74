/*
 * `load --find-max`: the highest rate a service sustains under its
 * service-level objectives, found by the open model step by step
 * (load_search.c), and what it reports (load_search_report.c).
 *
 * The search offers rate start_rate, then factor times more each step
 * until a step fails its objectives (or max_rate passes), then bisects
 * between the last rate that passed and the first that failed until
 * they are within tolerance of each other. Each step is one open-model
 * load of the plan at that rate, held for at least min_duration and long
 * enough for min_requests and for every objective to be judged (see
 * load_slo_min_requests).
 *
 * A step's verdict on a percentile objective "pQ < T" is a test, not a
 * point: the share of requests slower than T must be under 1 - Q/100 with
 * its one-sided 95% Wilson interval wholly on one side; a step whose
 * interval straddles the limit is held again (up to max_extend times,
 * its counts added) and, still unsure, judged by the point estimate and
 * marked unsure. Errors are judged alike against an "errors < X%"
 * objective, and any error fails a step when there is none. Nothing
 * here prints or knows the command line.
 */
#ifndef YS_ENGINE_LOAD_SEARCH_H
#define YS_ENGINE_LOAD_SEARCH_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/load_plan.h"
#include "load/load.h"
#include "result/result.h"
#include "util/error.h"

enum load_slo_kind { LOAD_SLO_LATENCY, LOAD_SLO_ERRORS };

/* One objective: "p99<50ms" (latency's 99th percentile under 50 ms) or
 * "errors<1%" (under 1% of the requests failed). */
struct load_slo {
	enum load_slo_kind kind;
	double q;		/* LATENCY: the percentile, 0 < q < 100 */
	double limit;		/* LATENCY: seconds; ERRORS: a fraction */
	bool inclusive;		/* "<=": the limit itself passes */
	char text[48];		/* as shown: "p99<50ms" */
};

/*
 * Parse one objective: "pQ<DURATION" or "pQ<=DURATION" (Q a percentile
 * above 0 and below 100, as in p50, p99, p99.9; the duration with a unit
 * s, ms, us or ns, or seconds), or "errors<P%" / "errors<=P%" (0 <= P <
 * 100; "errors<=0%" is the default: no error at all). Spaces around the
 * parts are allowed. Returns 0, or -1 with a message quoting s.
 */
int load_slo_parse(const char *s, struct load_slo *out, struct error *e);

/* The requests a step needs so that a step without any request over the
 * limit can pass the 95% test of slo: for p99, 268. */
long load_slo_min_requests(const struct load_slo *slo);

/* The share of requests slo allows over its limit: 1 - Q/100 for a
 * percentile, the errors' share for errors. */
double load_slo_allowed(const struct load_slo *slo);

/* The one-sided 95% Wilson bounds of the share k of n (n > 0). */
void load_slo_wilson(double k, double n, double *lo, double *hi);

struct load_search_plan {
	struct load_slo *slos;	/* the objectives, all must hold */
	size_t nslos;
	double start_rate;	/* requests/s of the first step */
	double max_rate;	/* never offer more (0: no cap) */
	double factor;		/* the geometric phase's step, > 1 */
	double tolerance;	/* bisect until hi <= lo * (1 + tolerance) */
	double min_duration;	/* seconds each step is held at least */
	long min_requests;	/* requests each step is held for at least */
	int max_extend;		/* holds again of an unsure step */
};

/* The defaults: start at 10/s, no cap, x2, 5%, 2 s and 200 requests a
 * step, 2 holds again; the objectives are the caller's. */
void load_search_plan_defaults(struct load_search_plan *sp);

enum load_verdict { LOAD_STEP_PASS, LOAD_STEP_FAIL };

/* A step whose achieved throughput is below this share of the offered
 * rate is not sustained: it fails, whatever its latency. */
#define LOAD_SEARCH_SUSTAINED 0.9

struct load_step {
	double offered;		/* requests/s asked of the engine */
	double hold;		/* seconds of one hold */
	int holds;		/* 1 + holds again */
	struct load_stats st;	/* every hold's counts added */
	double achieved;	/* 2xx/3xx responses / elapsed */
	double p50, p99;	/* latency, seconds (NAN: no response) */
	enum load_verdict verdict;
	bool unsure;		/* judged by the point estimate */
	bool decided;		/* ended early: its errors already failed
				 * it, whatever the rest would have done */
	char why[240];		/* a failure: the objective and its value */
};

enum load_search_end {
	LOAD_SEARCH_CONVERGED,	/* bracket within tolerance */
	LOAD_SEARCH_MAX_RATE,	/* max_rate passed */
	LOAD_SEARCH_FIRST_FAILED,	/* start_rate already failed */
	LOAD_SEARCH_INTERRUPTED,	/* a stop signal */
};

struct load_search {
	struct load_step *steps;	/* in the order measured */
	size_t nsteps;
	int best;		/* the passing step of the highest achieved
				 * throughput, -1 when none passed */
	int knee;		/* see load_search_knee; -1 when none */
	double lo, hi;		/* the last offered rate that passed (0:
				 * none), the first that failed (0: none) */
	enum load_search_end end;
};

/* Called after each step, from the calling thread; may be NULL. */
typedef void (*load_search_step_fn)(void *arg, const struct load_step *s);

/*
 * Run the search: the plan's load (its connections, threads, requests,
 * timeout, warm-up per step) at the rates above. cfg is the engine's
 * configuration of the plan (load_plan_config, reqs filled); its rate,
 * duration and requests are set per step. Returns 0 with *out filled
 * (load_search_free) — whatever the server did, a stop signal included —
 * or -1 when a step could not start, with a message (the steps before it
 * are in *out).
 */
int load_search_run(const struct load_config *cfg,
		    const struct load_search_plan *sp, load_search_step_fn fn,
		    void *arg, struct load_search *out, struct error *e);
void load_search_free(struct load_search *s);

/* Judge one step's stats against the objectives: fills verdict, unsure
 * and why. Returns true when another hold could settle an unsure
 * objective. */
bool load_search_judge(const struct load_search_plan *sp,
		       struct load_step *step);

/*
 * The knee: the highest offered rate before the first step (in the
 * order of offered rates) whose median latency is more than 1.5 times
 * the lightest step's and at least 1 ms above it, or whose achieved
 * throughput is not sustained. Its index into steps, or -1 (no step).
 */
int load_search_knee(const struct load_search *s);

/*
 * The result (kind load): one benchmark per step, "NAME @ R/s" in the
 * order measured, each with load's metrics and, on throughput, the
 * extras slo_met (1 or 0), step (its order, from 1) and holds; then the
 * benchmark NAME with the metric max_throughput (requests/s, one value:
 * the best step's achieved throughput; extras offered_rate, knee_rate,
 * knee_throughput, bracket_low, bracket_high). Settings: load's, with
 * search find_max, the objectives and the search's options.
 */
void load_search_fill_result(struct result *r, const struct load_plan *p,
			     const struct load_search_plan *sp,
			     const struct load_search *s);

/* The terminal report, printed as the search goes: the head (the name,
 * the objectives and the table's header), one line per step (offered,
 * achieved, p50, p99, errors, verdict and why), then the tail (how the
 * search ended, the max throughput and the knee). */
void load_search_report_head(const struct load_plan *p,
			     const struct load_search_plan *sp, FILE *fp);
void load_search_step_line(const struct load_step *s, FILE *fp);
void load_search_report_tail(const struct load_search_plan *sp,
			     const struct load_search *s, FILE *fp);

/* Why the search found nothing, in one line, or NULL when it did. */
const char *load_search_failure(const struct load_search *s, char *buf,
				size_t n);

#endif
