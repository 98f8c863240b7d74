/*
 * The capacity search of `load --find-max` (load_search.h): geometric
 * steps, then bisection, each step an open-model load judged against
 * the objectives with a confidence interval. The steps are kept whatever
 * happens (a stop signal ends the search after the step it cut short).
 */
#include "engine/load_search.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "load/sample.h"
#include "stats/hdr.h"
#include "util/strutil.h"
#include "util/term.h"

void load_search_plan_defaults(struct load_search_plan *sp)
{
	memset(sp, 0, sizeof(*sp));
	sp->start_rate = 10;
	sp->factor = 2;
	sp->tolerance = 0.05;
	sp->min_duration = 2;
	sp->min_requests = 200;
	sp->max_extend = 2;
}

void load_search_free(struct load_search *s)
{
	for (size_t i = 0; i < s->nsteps; i++)
		load_stats_free(&s->steps[i].st);
	free(s->steps);
	memset(s, 0, sizeof(*s));
}

/* ---- judging a step ---- */

/*
 * The requests over slo's limit (k) of those it is about (n). A latency
 * objective is about every response, and about every request that got
 * none once it had waited past the limit (a timeout, a request still in
 * flight or unsent when the step ended: the slowest of a step near its
 * knee); one that failed sooner says nothing of it (the error objective
 * judges it). A response is over as the table reports it (its bucket's
 * highest value, hdr_count_reported_from), so a step passes 'p99<50ms'
 * only when the p99 it shows is under 50 ms.
 */
static void slo_counts(const struct load_slo *slo, const struct load_stats *st,
		       double *k, double *n)
{
	int64_t limit = (int64_t)llround(slo->limit * 1e9), late;

	if (slo->kind == LOAD_SLO_ERRORS) {
		*k = (double)load_errors_total(st);
		*n = (double)st->requests;
		return;
	}
	/* "<=": what is reported above the limit counts against it */
	if (slo->inclusive)
		limit++;
	late = st->unanswered ? hdr_count_reported_from(st->unanswered,
							 limit) : 0;
	*k = (double)(hdr_count_reported_from(st->latency, limit) + late);
	*n = (double)(hdr_count(st->latency) + late);
}

enum slo_call { SLO_PASS, SLO_FAIL, SLO_UNSURE };

/* The interval of the share over the limit against the share allowed;
 * unsure when it holds the allowed share. */
static enum slo_call slo_call(const struct load_slo *slo, double k, double n)
{
	double a = load_slo_allowed(slo), lo, hi;

	if (a <= 0)
		return k > 0 ? SLO_FAIL : SLO_PASS;
	load_slo_wilson(k, n, &lo, &hi);
	if (hi < a)
		return SLO_PASS;
	if (lo > a)
		return SLO_FAIL;
	return SLO_UNSURE;
}

/* A tie (the share exactly at the limit, to rounding) fails "<" and
 * passes "<=". */
static bool point_passes(const struct load_slo *slo, double k, double n)
{
	double allowed = load_slo_allowed(slo) * n;

	if (fabs(k - allowed) <= 1e-9 * n)
		return slo->inclusive;
	return k < allowed;
}

/* The objective's value for the message: the step's percentile, or its
 * share of errors, with the errors' reasons. */
static void slo_why(const struct load_slo *slo, const struct load_stats *st,
		    double k, double n, char *buf, size_t len)
{
	char v[32];
	size_t used;

	if (slo->kind == LOAD_SLO_LATENCY) {
		int64_t limit = (int64_t)llround(slo->limit * 1e9) +
				slo->inclusive;
		int64_t late = st->unanswered ?
			hdr_count_reported_from(st->unanswered, limit) : 0;

		int64_t p = hdr_percentile(st->latency, slo->q);

		fmt_value((double)p / 1e9, "s", v, sizeof(v));
		snprintf(buf, len, "%s: p%g %s", slo->text, slo->q, v);
		/* the responses alone pass: the requests that got none (timed
		 * out, failed or still waiting at the step's end) fail it */
		if (late && p < limit)
			snprintf(buf + strlen(buf), len - strlen(buf), ", but "
				 "%.3g%% over the limit with the %" PRId64
				 " unanswered", 100 * k / n, late);
		return;
	}
	snprintf(buf, len, "%s: %.3g%% errors (%.0f of %.0f)", slo->text,
		 100 * k / n, k, n);
	for (int e = 0; e < LOAD_ERR_KINDS; e++) {
		used = strlen(buf);
		if (!st->errors[e] || e == LOAD_ERR_STATUS || used + 8 >= len)
			continue;
		snprintf(buf + used, len - used, "; %s %" PRIu64 ": %s",
			 load_err_name(e), st->errors[e], st->reason[e]);
	}
	for (int c = 400; c < 600; c++) {
		used = strlen(buf);
		if (!st->status[c] || used + 8 >= len)
			continue;
		snprintf(buf + used, len - used, "; status %d: %" PRIu64, c,
			 st->status[c]);
	}
}

/* The implied objective when none is about errors: no error at all. */
static const struct load_slo no_errors = {
	.kind = LOAD_SLO_ERRORS, .limit = 0, .inclusive = true,
	.text = "errors<=0%",
};

static bool has_error_slo(const struct load_search_plan *sp)
{
	for (size_t i = 0; i < sp->nslos; i++)
		if (sp->slos[i].kind == LOAD_SLO_ERRORS)
			return true;
	return false;
}

/* Why slo failed a step that ended no request (errors) or got no
 * response (latency): with the requests still unanswered when it ended,
 * if any (a server that never answered: the whole schedule). */
static void no_response(const struct load_slo *slo,
			const struct load_stats *st, char *buf, size_t len)
{
	int64_t u = st->unanswered ? hdr_count(st->unanswered) : 0;

	if (u > 0)
		snprintf(buf, len, "%s: no response, %" PRId64 " request%s "
			 "unanswered", slo->text, u, plural_s(u));
	else
		snprintf(buf, len, "%s: no response", slo->text);
}

/* Judge slo on step: a failure is written into why (the first one
 * kept). Returns its call: a failure is sure, or not. */
static enum slo_call judge_one(const struct load_slo *slo,
			       struct load_step *step)
{
	double k, n;
	enum slo_call c;
	bool pass;

	slo_counts(slo, &step->st, &k, &n);
	if (n <= 0) {
		pass = false;
		c = SLO_FAIL;
	} else {
		c = slo_call(slo, k, n);
		pass = c == SLO_PASS || (c == SLO_UNSURE &&
					 point_passes(slo, k, n));
	}
	if (c == SLO_UNSURE)
		step->unsure = true;
	if (!pass && step->verdict == LOAD_STEP_PASS) {
		step->verdict = LOAD_STEP_FAIL;
		if (n <= 0)
			no_response(slo, &step->st, step->why,
				    sizeof(step->why));
		else
			slo_why(slo, &step->st, k, n, step->why,
				sizeof(step->why));
	}
	return c;
}

static void step_figures(struct load_step *step)
{
	const struct load_stats *st = &step->st;
	bool any = hdr_count(st->latency) > 0;

	step->achieved = st->elapsed > 0 ? (double)st->ok / st->elapsed : 0;
	step->p50 = any ? (double)hdr_percentile(st->latency, 50) / 1e9 : NAN;
	step->p99 = any ? (double)hdr_percentile(st->latency, 99) / 1e9 : NAN;
}

bool load_search_judge(const struct load_search_plan *sp,
		       struct load_step *step)
{
	int calls[SLO_UNSURE + 1] = { 0 };

	step_figures(step);
	step->verdict = LOAD_STEP_PASS;
	step->unsure = false;
	step->why[0] = '\0';
	/* errors first: a server that fails requests says why */
	if (!has_error_slo(sp))
		calls[judge_one(&no_errors, step)]++;
	for (size_t i = 0; i < sp->nslos; i++)
		if (sp->slos[i].kind == LOAD_SLO_ERRORS)
			calls[judge_one(&sp->slos[i], step)]++;
	for (size_t i = 0; i < sp->nslos; i++)
		if (sp->slos[i].kind == LOAD_SLO_LATENCY)
			calls[judge_one(&sp->slos[i], step)]++;
	if (step->verdict == LOAD_STEP_PASS &&
	    step->achieved < LOAD_SEARCH_SUSTAINED * step->offered) {
		step->verdict = LOAD_STEP_FAIL;
		calls[SLO_FAIL]++;
		snprintf(step->why, sizeof(step->why), "not sustained: %.4g/s "
			 "of %.4g/s offered answered", step->achieved,
			 step->offered);
	}
	/* another hold settles nothing once one failure is sure, and the
	 * verdict is not the point estimate's */
	if (calls[SLO_FAIL])
		step->unsure = false;
	return calls[SLO_UNSURE] && !calls[SLO_FAIL];
}

/* ---- the steps ---- */

/* The requests a step is held for. */
static double step_requests(const struct load_search_plan *sp)
{
	long need = sp->min_requests;

	for (size_t i = 0; i < sp->nslos; i++) {
		long k = load_slo_min_requests(&sp->slos[i]);

		if (k > need)
			need = k;
	}
	return (double)need;
}

/*
 * Whether errors failed requests of a step that ends at most most
 * requests fail it whatever the rest do: an errors objective (the
 * implied errors<=0% when none is given) whose allowed share of most is
 * already passed. Then the share k / n the full step would judge is
 * over the limit for every n <= most, so its interval never lies wholly
 * under it (no pass) and its point estimate fails too: the verdict is
 * the full step's.
 */
static bool errors_decide(const struct load_search_plan *sp, double errors,
			  double most)
{
	if (!has_error_slo(sp))
		return errors > 0;
	for (size_t i = 0; i < sp->nslos; i++) {
		const struct load_slo *slo = &sp->slos[i];
		double allowed = load_slo_allowed(slo) * most;

		if (slo->kind == LOAD_SLO_ERRORS &&
		    errors > allowed + 1e-9 * most)
			return true;
	}
	return false;
}

/* A step's watch for a decided failure (load_config.live): the plan's
 * own live view, if any, is called too. */
struct decide {
	const struct load_search_plan *sp;
	const struct load_config *base;
	double most;		/* the most requests the step can end, every
				 * hold again included */
	uint64_t before;	/* errors of the step's holds before this */
	volatile sig_atomic_t cut;
};

static void decide_live(void *arg, const struct load_stats *snap)
{
	struct decide *d = arg;

	if (d->base->live)
		d->base->live(d->base->live_arg, snap);
	if (errors_decide(d->sp, (double)(d->before + load_errors_total(snap)),
			  d->most))
		d->cut = 1;
}

/* How often a step looks for a decided failure (seconds). */
#define DECIDE_INTERVAL 0.1

/* c's live view set to d's watch (when the base has a live view of its
 * own, at the shorter interval of the two). */
static void decide_init(struct decide *d, const struct load_search_plan *sp,
			const struct load_config *base, struct load_config *c)
{
	d->sp = sp;
	d->base = base;
	/* requests due in one hold: at i / rate for i from 0 */
	d->most = (double)(sp->max_extend + 1) *
		  (floor(c->rate * c->duration) + 1);
	d->before = 0;
	d->cut = 0;
	c->live = decide_live;
	c->live_arg = d;
	c->live_interval = base->live && base->live_interval < DECIDE_INTERVAL ?
			   base->live_interval : DECIDE_INTERVAL;
	c->cut = &d->cut;
}

/* Hold the step once more and add its counts, and its latencies to the
 * sample (the result's values are of every hold, as its histogram). */
static int hold_again(const struct load_config *c, struct load_step *step,
		      struct decide *d, struct error *e)
{
	struct load_stats more;
	struct sample *in[2], merged;
	double elapsed;
	int r;

	d->before = load_errors_total(&step->st);
	if (load_run(c, &more, e))
		return -1;
	elapsed = step->st.elapsed + more.elapsed;
	r = load_stats_add(&step->st, &more, step->st.nseconds, e);
	step->st.elapsed = elapsed;
	in[0] = &step->st.sample;
	in[1] = &more.sample;
	sample_merge(&merged, in, 2, c->sample_cap,
		     c->seed ^ (uint64_t)step->holds);
	sample_free(&step->st.sample);
	step->st.sample = merged;
	load_stats_free(&more);
	step->holds++;
	return r;
}

/* One step at rate, judged (held again while unsure, up to max_extend
 * times); ended as soon as its errors decide it fails (step->decided).
 * On -1 the step is kept when its first hold was measured (*kept). */
static int run_step(const struct load_config *base,
		    const struct load_search_plan *sp, double rate,
		    struct load_step *step, bool *kept, struct error *e)
{
	struct load_config c = *base;
	struct decide d;
	int r = 0;

	memset(step, 0, sizeof(*step));
	*kept = false;
	step->offered = rate;
	/* a quarter more: the requests still in flight when a hold ends
	 * are not counted */
	step->hold = fmax(sp->min_duration, 1.25 * step_requests(sp) / rate);
	c.rate = rate;
	c.duration = step->hold;
	c.requests = 0;
	/* a step's objectives count its unanswered requests themselves
	 * (slo_counts), whatever they waited */
	c.held_in_latency = false;
	decide_init(&d, sp, base, &c);
	if (load_run(&c, &step->st, e))
		return -1;
	*kept = true;
	step->holds = 1;
	while (!d.cut && load_search_judge(sp, step) &&
	       step->holds <= sp->max_extend && !step->st.interrupted)
		if (hold_again(&c, step, &d, e)) {
			r = -1;
			break;
		}
	/* the errors are judged on what the step measured: the verdict is
	 * sure (errors_decide), another hold could not change it */
	if (d.cut) {
		load_search_judge(sp, step);
		step->decided = !step->st.interrupted;
		step->unsure = false;
	}
	return r;
}

/* The longest a drain waits (seconds). */
#define DRAIN_MAX 10.0

/*
 * Wait, before a step, until the server may have done what the step
 * before sent: the requests in flight at that step's end (at most one a
 * connection) are still queued in an overloaded server, and would slow
 * the next step's start. As long as that step's slowest response, at
 * most its hold and DRAIN_MAX; a stop signal ends it.
 */
static void drain(const struct load_config *c, const struct load_step *step)
{
	double left = fmin(fmin((double)hdr_max(step->st.latency) / 1e9,
				step->hold), DRAIN_MAX);
	struct timespec ts = { 0, 50000000 };

	for (; left > 0 && !(c->stop && *c->stop); left -= 0.05)
		nanosleep(&ts, NULL);
}

/* Measure a step at rate into s; returns 0 and its verdict in *pass, or
 * -1 (a step that could not run; the search ends). */
static int measure(const struct load_config *c,
		   const struct load_search_plan *sp, double rate,
		   load_search_step_fn fn, void *arg, struct load_search *s,
		   bool *pass, struct error *e)
{
	struct load_step *step;
	bool kept;
	int r;

	if (s->nsteps)
		drain(c, &s->steps[s->nsteps - 1]);
	s->steps = xrealloc(s->steps, (s->nsteps + 1) * sizeof(*s->steps));
	step = &s->steps[s->nsteps];
	r = run_step(c, sp, rate, step, &kept, e);
	if (!kept)
		return -1;
	if (r)
		load_search_judge(sp, step);
	s->nsteps++;
	*pass = step->verdict == LOAD_STEP_PASS;
	/* a step cut short by a stop signal is shown, never the best */
	if (*pass && !step->st.interrupted && (s->best < 0 ||
		      step->achieved > s->steps[s->best].achieved))
		s->best = (int)s->nsteps - 1;
	if (fn)
		fn(arg, step);
	return r;
}

static bool stopped(const struct load_search *s)
{
	return s->nsteps && s->steps[s->nsteps - 1].st.interrupted;
}

/* Offer start_rate, then factor times more, until a step fails or the
 * cap is passed. */
static int geometric(const struct load_config *c,
		     const struct load_search_plan *sp,
		     load_search_step_fn fn, void *arg, struct load_search *s,
		     struct error *e)
{
	double rate = sp->start_rate;
	bool pass;

	for (;;) {
		if (measure(c, sp, rate, fn, arg, s, &pass, e))
			return -1;
		if (stopped(s))
			return 0;
		if (!pass) {
			s->hi = rate;
			return 0;
		}
		s->lo = rate;
		if (sp->max_rate > 0 && rate >= sp->max_rate) {
			s->end = LOAD_SEARCH_MAX_RATE;
			return 0;
		}
		rate *= sp->factor;
		if (sp->max_rate > 0 && rate > sp->max_rate)
			rate = sp->max_rate;
	}
}

static int bisect(const struct load_config *c,
		  const struct load_search_plan *sp, load_search_step_fn fn,
		  void *arg, struct load_search *s, struct error *e)
{
	while (s->hi > s->lo * (1 + sp->tolerance)) {
		double mid = (s->lo + s->hi) / 2;
		bool pass;

		if (measure(c, sp, mid, fn, arg, s, &pass, e))
			return -1;
		if (stopped(s))
			return 0;
		if (pass)
			s->lo = mid;
		else
			s->hi = mid;
	}
	return 0;
}

int load_search_run(const struct load_config *cfg,
		    const struct load_search_plan *sp, load_search_step_fn fn,
		    void *arg, struct load_search *out, struct error *e)
{
	int r;

	memset(out, 0, sizeof(*out));
	out->best = out->knee = -1;
	out->end = LOAD_SEARCH_CONVERGED;
	r = geometric(cfg, sp, fn, arg, out, e);
	if (!r && !stopped(out) && out->end != LOAD_SEARCH_MAX_RATE) {
		if (out->lo <= 0)
			out->end = LOAD_SEARCH_FIRST_FAILED;
		else
			r = bisect(cfg, sp, fn, arg, out, e);
	}
	if (stopped(out))
		out->end = LOAD_SEARCH_INTERRUPTED;
	out->knee = load_search_knee(out);
	return r;
}

/* ---- the knee ---- */

static int by_offered(const void *a, const void *b)
{
	const struct load_step *x = *(struct load_step *const *)a;
	const struct load_step *y = *(struct load_step *const *)b;

	return (x->offered > y->offered) - (x->offered < y->offered);
}

/* Latency has risen at a step: its median 1.5 times the lightest's and
 * 1 ms above it (a fast server's median doubles with noise alone), or
 * its throughput is not sustained. */
static bool risen(const struct load_step *base, const struct load_step *s)
{
	if (s->achieved < LOAD_SEARCH_SUSTAINED * s->offered || isnan(s->p50))
		return true;
	return s->p50 > 1.5 * base->p50 && s->p50 - base->p50 > 1e-3;
}

int load_search_knee(const struct load_search *s)
{
	struct load_step **v;
	int knee = -1;

	if (!s->nsteps)
		return -1;
	v = xcalloc(s->nsteps, sizeof(*v));
	for (size_t i = 0; i < s->nsteps; i++)
		v[i] = &s->steps[i];
	qsort(v, s->nsteps, sizeof(*v), by_offered);
	for (size_t i = 0; i < s->nsteps && !isnan(v[0]->p50); i++) {
		/* a step a stop cut short says nothing of the load */
		if (v[i]->st.interrupted)
			continue;
		if (risen(v[0], v[i]))
			break;
		knee = (int)(v[i] - s->steps);
	}
	free(v);
	return knee;
}
