/*
 * The epochs. A benchmark (an instance: a registration with one value per
 * parameter) is measured in epochs: its body is called, runs YS_LOOP over
 * N iterations, and the epoch's time per iteration is the timed region's
 * length, less the fixed cost of starting and stopping it (measured at
 * start with zero iterations), divided by N. N is autotuned first so that
 * an epoch lasts the target (the clock's resolution x 1000, clamped to
 * [20 us, 100 ms], or --min-time / --epochs when longer); each epoch then
 * runs N plus a random 0-20% so that periodic disturbances do not lock
 * step with it. The benchmarks of a group (with equal parameters) run
 * their epochs interleaved, in an order that rotates and turns every
 * other round.
 *
 * With threads=T the body runs on T threads at once (thread 0 is the
 * calling one): each waits at a barrier when its loop starts and times its
 * own loop; the epoch's time is the mean of the threads' (as Google
 * Benchmark's), and its epochs last at least 1 ms so that the threads
 * overlap for most of it.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/lib_internal.h"
#include "stats/stats.h"
#include "util/strutil.h"
#include "util/term.h"

struct ys_state {
	struct lib_inst *inst;
	int tid, nthreads;
	uint64_t iters;
	bool begun, ended;
	uint64_t t0, t1;
	bool count_allocs;
	struct ys__alloc_counts alloc;	/* in the timed region */
	const struct ys__alloc_counts *ac;	/* the thread's counters */
	struct lib_events *ev;
	pthread_barrier_t *barrier;
	double evd[LIB_MAX_EVENTS];	/* the counters' changes */
	bool evd_ok[LIB_MAX_EVENTS];
	double items, bytes, flops;
	bool set_items, set_bytes, set_flops;
};

static pthread_mutex_t fail_lock = PTHREAD_MUTEX_INITIALIZER;

static void set_failed(struct lib_inst *in, const char *msg)
{
	pthread_mutex_lock(&fail_lock);
	if (!in->failed)
		in->failed = xstrdup(msg);
	pthread_mutex_unlock(&fail_lock);
}

/* ---- the public calls inside a benchmark ---- */

uint64_t ys__begin(ys_state *s)
{
	if (s->begun) {
		set_failed(s->inst, "YS_LOOP ran twice in one call of the "
			   "benchmark");
		return 0;
	}
	s->begun = true;
	if (s->barrier)
		pthread_barrier_wait(s->barrier);
	if (s->ev)
		lib_events_read(s->ev, false);
	if (s->count_allocs) {
		s->ac = ys__alloc_counts_v1();
		s->alloc = *s->ac;
	}
	s->t0 = lib_now();
	return s->iters;
}

void ys__end(ys_state *s)
{
	s->t1 = lib_now();
	if (s->count_allocs) {
		s->alloc.allocs = s->ac->allocs - s->alloc.allocs;
		s->alloc.bytes = s->ac->bytes - s->alloc.bytes;
		s->alloc.frees = s->ac->frees - s->alloc.frees;
	}
	if (s->ev)
		lib_events_read(s->ev, true);
	s->ended = true;
}

uint64_t ys_iterations(const ys_state *s)
{
	return s->iters;
}

int ys_thread_index(const ys_state *s)
{
	return s->tid;
}

int ys_threads(const ys_state *s)
{
	return s->nthreads;
}

static _Noreturn void param_die(const ys_state *s, const char *name,
				const char *what)
{
	fprintf(stderr, "benchmark '%s': %s '%s'\n", s->inst->label, what,
		name);
	exit(2);
}

const char *ys_param(const ys_state *s, const char *name)
{
	const struct lib_reg *r = s->inst->reg;

	for (size_t i = 0; i < r->nscans; i++)
		if (!strcmp(r->scans[i].name, name))
			return s->inst->values[i];
	param_die(s, name, "has no parameter");
}

/* An integer as written, exactly (a double holds integers exactly only
 * up to 2^53); else a whole number in another form ("1e3", "64.0"). */
long long ys_param_int(const ys_state *s, const char *name)
{
	const char *v = ys_param(s, name);
	long n;
	double d;

	if (!parse_long(v, &n))
		return n;
	if (parse_double(v, &d) || d != floor(d) || fabs(d) > 9.2e18)
		param_die(s, name, "needs an integer for parameter");
	return (long long)d;
}

double ys_param_double(const ys_state *s, const char *name)
{
	double d;

	if (parse_double(ys_param(s, name), &d))
		param_die(s, name, "needs a number for parameter");
	return d;
}

/* Declared work is a count: finite and at least 0, or the benchmark
 * fails saying so (a rate of inf, or a rate silently left out, would
 * place it nowhere on a roofline). */
static bool work_ok(ys_state *s, const char *call, double v)
{
	char msg[128];

	if (isfinite(v) && v >= 0)
		return true;
	snprintf(msg, sizeof(msg), "%s(%g): the work of an iteration is a "
		 "finite number, at least 0", call, v);
	set_failed(s->inst, msg);
	return false;
}

void ys_set_items(ys_state *s, double v)
{
	if (!work_ok(s, "ys_set_items", v))
		return;
	s->items = v;
	s->set_items = true;
}

void ys_set_bytes(ys_state *s, double v)
{
	if (!work_ok(s, "ys_set_bytes", v))
		return;
	s->bytes = v;
	s->set_bytes = true;
}

void ys_set_flops(ys_state *s, double v)
{
	if (!work_ok(s, "ys_set_flops", v))
		return;
	s->flops = v;
	s->set_flops = true;
}

void ys_fail(ys_state *s, const char *message)
{
	set_failed(s->inst, message && *message ? message : "failed");
}

void *ys_data(const ys_state *s)
{
	return s->inst->reg->data;
}

int ys_warmup(const ys_state *s)
{
	return s->inst->tuning;
}

const struct lib_extra *lib_extra_find(const struct lib_inst *in,
				       const char *metric)
{
	for (size_t i = 0; i < in->nextra; i++)
		if (!strcmp(in->extra[i].metric, metric))
			return &in->extra[i];
	return NULL;
}

/* Thread 0's only (the others' would race on the instance). */
void ys_value(ys_state *s, const char *metric, const char *unit,
	      double value)
{
	struct lib_inst *in = s->inst;
	struct lib_extra *x;

	if (s->tid != 0 || !metric || !*metric)
		return;
	x = (struct lib_extra *)lib_extra_find(in, metric);
	if (!x) {
		in->extra = xrealloc(in->extra,
				     (in->nextra + 1) * sizeof(*in->extra));
		x = &in->extra[in->nextra++];
		memset(x, 0, sizeof(*x));
		x->metric = xstrdup(metric);
		x->unit = xstrdup(unit && *unit ? unit : "count");
	}
	x->v = xgrow(x->v, &x->cap, x->n + 1, sizeof(double));
	x->v[x->n++] = value;
}

/* ---- planning ---- */

static void push_inst(struct lib_run *rn, size_t *cap, struct lib_reg *r,
		      size_t combo)
{
	struct lib_inst *in;

	rn->insts = xgrow(rn->insts, cap, rn->ninsts + 1, sizeof(*in));
	in = &rn->insts[rn->ninsts++];
	memset(in, 0, sizeof(*in));
	in->reg = r;
	in->threads = 1;
	in->values = xcalloc(r->nscans + 1, sizeof(char *));
	for (size_t k = r->nscans; k-- > 0;) {
		const struct scan *sc = &r->scans[k];

		in->values[k] = xstrdup(sc->values[combo % sc->n]);
		combo /= sc->n;
		if (!strcmp(sc->name, "threads"))
			in->threads = atoi(in->values[k]);
	}
}

/* Labels as the result will name them: result_unique_names's. */
static void label_insts(struct lib_run *rn)
{
	struct result r;

	result_init(&r, "bench");
	for (size_t i = 0; i < rn->ninsts; i++) {
		struct lib_inst *in = &rn->insts[i];
		struct benchmark *b = result_add_benchmark(&r, in->reg->name,
							   NULL);

		for (size_t k = 0; k < in->reg->nscans; k++)
			benchmark_add_param(b, in->reg->scans[k].name,
					    in->values[k]);
	}
	result_unique_names(&r);
	for (size_t i = 0; i < rn->ninsts; i++)
		rn->insts[i].label = xstrdup(r.benchmarks[i].name);
	result_free(&r);
}

static bool same_values(const struct lib_inst *a, const struct lib_inst *b)
{
	if (a->reg->nscans != b->reg->nscans)
		return false;
	for (size_t k = 0; k < a->reg->nscans; k++)
		if (strcmp(a->reg->scans[k].name, b->reg->scans[k].name) ||
		    strcmp(a->values[k], b->values[k]))
			return false;
	return true;
}

#define MAX_INSTANCES 100000

int lib_plan(struct lib_run *rn, struct error *e)
{
	size_t cap = 0, nunits = 0;
	regex_t re;
	bool *keep;
	size_t kept = 0;

	for (size_t i = 0; i < lib_registry.n; i++) {
		struct lib_reg *r = &lib_registry.regs[i];
		size_t combos = 1;

		for (size_t k = 0; k < r->nscans; k++) {
			if (combos > MAX_INSTANCES / r->scans[k].n)
				return error_set(e, "benchmark '%s': more "
						 "than %d parameter "
						 "combinations", r->name,
						 MAX_INSTANCES);
			combos *= r->scans[k].n;
		}
		if (rn->ninsts + combos > MAX_INSTANCES)
			return error_set(e, "more than %d benchmarks",
					 MAX_INSTANCES);
		for (size_t c = 0; c < combos; c++)
			push_inst(rn, &cap, r, c);
	}
	label_insts(rn);
	if (rn->o->filter) {
		int rc = regcomp(&re, rn->o->filter, REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[256];

			regerror(rc, &re, msg, sizeof(msg));
			return error_set(e, "--filter: '%s' is not a regular "
					 "expression: %s", rn->o->filter, msg);
		}
	}
	keep = xcalloc(rn->ninsts + 1, sizeof(bool));
	for (size_t i = 0; i < rn->ninsts; i++) {
		keep[i] = !rn->o->filter ||
			  !regexec(&re, rn->insts[i].label, 0, NULL, 0);
		if (!keep[i]) {
			free(rn->insts[i].label);
			argv_free(rn->insts[i].values);
		} else {
			rn->insts[kept++] = rn->insts[i];
		}
	}
	rn->ninsts = kept;
	free(keep);
	if (rn->o->filter)
		regfree(&re);
	/* interleaving units: a group with equal parameter values */
	for (size_t i = 0; i < rn->ninsts; i++) {
		struct lib_inst *in = &rn->insts[i];

		in->unit = nunits;
		for (size_t j = 0; j < i && in->reg->group; j++) {
			struct lib_inst *o = &rn->insts[j];

			if (o->reg->group &&
			    !strcmp(o->reg->group, in->reg->group) &&
			    same_values(o, in)) {
				in->unit = o->unit;
				break;
			}
		}
		if (in->unit == nunits)
			nunits++;
	}
	return 0;
}

void lib_run_free(struct lib_run *rn)
{
	for (size_t i = 0; i < rn->ninsts; i++) {
		struct lib_inst *in = &rn->insts[i];

		free(in->label);
		argv_free(in->values);
		free(in->per_op);
		free(in->iters);
		free(in->allocs);
		free(in->alloc_bytes);
		free(in->frees);
		for (size_t k = 0; k < LIB_MAX_EVENTS; k++)
			free(in->ev[k]);
		free(in->failed);
		for (size_t k = 0; k < in->nextra; k++) {
			free(in->extra[k].metric);
			free(in->extra[k].unit);
			free(in->extra[k].v);
		}
		free(in->extra);
	}
	free(rn->insts);
	rn->insts = NULL;
	rn->ninsts = 0;
}

/* ---- one epoch ---- */

struct epoch {
	double wall;		/* seconds, overhead not subtracted */
	struct ys__alloc_counts alloc;
	double ev[LIB_MAX_EVENTS];
	bool ev_ok[LIB_MAX_EVENTS];
	bool ok;
};

/* the calling thread's counters, open for the whole run */
static struct lib_events main_ev;
static bool main_ev_open;

static void call_body(struct ys_state *s)
{
	s->inst->reg->fn(s);
	for (size_t i = 0; i < lib_events_count(); i++)
		s->evd_ok[i] = s->ev && s->begun && s->ended &&
			       lib_events_delta(s->ev, i, &s->evd[i]);
	if (!s->begun) {
		if (s->barrier)
			pthread_barrier_wait(s->barrier);
		set_failed(s->inst, "the benchmark did not run YS_LOOP");
	} else if (!s->ended) {
		set_failed(s->inst, "the benchmark left YS_LOOP early "
			   "(break, return or goto): the loop must run to "
			   "its end");
	}
}

/* Workers start the body together, or not at all when one of them could
 * not be created. */
struct gate {
	pthread_mutex_t m;
	pthread_cond_t c;
	int state;		/* 0 wait, 1 go, 2 give up */
};

struct worker {
	struct ys_state *s;
	struct gate *g;
};

static void *thread_main(void *arg)
{
	struct worker *w = arg;
	struct ys_state *s = w->s;
	struct lib_events ev;
	int state;

	pthread_mutex_lock(&w->g->m);
	while (!(state = w->g->state))
		pthread_cond_wait(&w->g->c, &w->g->m);
	pthread_mutex_unlock(&w->g->m);
	if (state != 1)
		return NULL;
	lib_events_open(&ev);
	s->ev = &ev;
	call_body(s);
	s->ev = NULL;
	lib_events_close(&ev);
	return NULL;
}

static void open_gate(struct gate *g, int state)
{
	pthread_mutex_lock(&g->m);
	g->state = state;
	pthread_cond_broadcast(&g->c);
	pthread_mutex_unlock(&g->m);
}

static void run_epoch(const struct lib_run *rn, struct lib_inst *in,
		      uint64_t iters, struct epoch *out)
{
	int n = in->threads, started = 1;
	struct ys_state *st = xcalloc((size_t)n, sizeof(*st));
	struct worker *w = xcalloc((size_t)n, sizeof(*w));
	pthread_t *tids = xcalloc((size_t)n, sizeof(*tids));
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
			  0 };
	pthread_barrier_t bar;
	double sum = 0;
	size_t nev = lib_events_count();

	memset(out, 0, sizeof(*out));
	if (n > 1)
		pthread_barrier_init(&bar, NULL, (unsigned)n);
	for (int k = 0; k < n; k++) {
		st[k].inst = in;
		st[k].tid = k;
		st[k].nthreads = n;
		st[k].iters = iters;
		st[k].count_allocs = rn->alloc == LIB_ALLOC_COUNTED;
		st[k].barrier = n > 1 ? &bar : NULL;
		w[k].s = &st[k];
		w[k].g = &g;
	}
	st[0].ev = main_ev_open ? &main_ev : NULL;
	for (; started < n; started++) {
		int rc = pthread_create(&tids[started], NULL, thread_main,
					&w[started]);

		if (rc) {
			char msg[160];

			snprintf(msg, sizeof(msg), "cannot start thread %d: "
				 "%s", started, strerror(rc));
			set_failed(in, msg);
			break;
		}
	}
	open_gate(&g, started == n ? 1 : 2);
	if (started == n)
		call_body(&st[0]);
	for (int k = 1; k < started; k++)
		pthread_join(tids[k], NULL);
	for (int k = 0; k < n; k++) {
		if (st[k].t1 >= st[k].t0)
			sum += (double)(st[k].t1 - st[k].t0);
		if (!st[k].ended)	/* alloc: a snapshot, not a change */
			continue;
		out->alloc.allocs += st[k].alloc.allocs;
		out->alloc.bytes += st[k].alloc.bytes;
		out->alloc.frees += st[k].alloc.frees;
	}
	for (size_t i = 0; i < nev; i++) {
		out->ev_ok[i] = true;
		for (int k = 0; k < n; k++) {
			out->ev[i] += st[k].evd[i];
			out->ev_ok[i] = out->ev_ok[i] && st[k].evd_ok[i];
		}
	}
	if (st[0].set_items)
		in->items = st[0].items;
	if (st[0].set_bytes)
		in->bytes = st[0].bytes;
	if (st[0].set_flops)
		in->flops = st[0].flops;
	out->ok = !in->failed;
	out->wall = out->ok ? sum / n * lib_clock.tick : 0;
	if (n > 1)
		pthread_barrier_destroy(&bar);
	free(st);
	free(w);
	free(tids);
}

/* ---- the start: the fixed cost of a timed region, the loop's cost ---- */

static void empty_body(ys_state *s)
{
	YS_LOOP(s) {
	}
}

static void opaque_body(ys_state *s)
{
	YS_LOOP(s) {
		__asm__ __volatile__("");
	}
}

static double median_of(double *v, size_t n)
{
	stats_sort(v, n);
	return stats_median_sorted(v, n);
}

#define CAL_ROUNDS 101

static void calibrate(struct lib_run *rn)
{
	struct lib_reg reg = { 0 };
	struct lib_inst in = { 0 };
	double wall[CAL_ROUNDS], ev[LIB_MAX_EVENTS][CAL_ROUNDS];
	size_t nev = lib_events_count();
	struct epoch ep;

	reg.name = (char *)"(calibration)";
	reg.fn = empty_body;
	in.reg = &reg;
	in.label = reg.name;
	in.threads = 1;
	for (int i = 0; i < CAL_ROUNDS; i++) {
		run_epoch(rn, &in, 0, &ep);
		wall[i] = ep.wall;
		for (size_t k = 0; k < nev; k++)
			ev[k][i] = ep.ev_ok[k] ? ep.ev[k] : 0;
	}
	rn->overhead = median_of(wall, CAL_ROUNDS);
	for (size_t k = 0; k < nev; k++)
		rn->ev_overhead[k] = median_of(ev[k], CAL_ROUNDS);
	reg.fn = opaque_body;
	for (int i = 0; i < 21; i++) {
		run_epoch(rn, &in, 10000, &ep);
		wall[i] = (ep.wall - rn->overhead) / 10000;
	}
	rn->loop_cost = median_of(wall, 21);
	if (rn->loop_cost < 0)
		rn->loop_cost = 0;
	free(in.failed);
}

/* ---- autotuning and the epochs ---- */

#define MAX_ITERS (1ULL << 40)

static double timed(const struct lib_run *rn, const struct epoch *ep)
{
	double t = ep->wall - rn->overhead;

	return t > 0 ? t : 0;
}

/* Iterations for an epoch of the target length (the first epochs are the
 * warm-up). 0 when the benchmark failed. */
static uint64_t autotune(const struct lib_run *rn, struct lib_inst *in)
{
	uint64_t iters = 1;
	struct epoch ep;
	double target = rn->epoch_target;

	if (in->threads > 1 && target < 1e-3)
		target = 1e-3;
	for (int round = 0; round < 64; round++) {
		double t;

		in->tuning = round + 1;
		run_epoch(rn, in, iters, &ep);
		in->tuning = 0;
		if (!ep.ok)
			return 0;
		t = timed(rn, &ep);
		if (t >= target * 0.8 || iters >= MAX_ITERS)
			break;
		if (t < target / 1000 || t <= 0) {
			iters *= 10;
		} else {
			double f = target / t * 1.05;

			if (f > 10)
				f = 10;
			if (f < 1.1)
				f = 1.1;
			iters = (uint64_t)ceil((double)iters * f);
		}
		if (iters > MAX_ITERS)
			iters = MAX_ITERS;
	}
	return iters;
}

static void record(const struct lib_run *rn, struct lib_inst *in,
		   uint64_t iters, const struct epoch *ep)
{
	size_t n = in->nepochs;
	double ops = (double)iters * in->threads;
	size_t nev = lib_events_count();

	if (n + 1 > in->cap) {
		size_t cap = in->cap ? in->cap * 2 : 16, sz = cap * sizeof(double);

		in->per_op = xrealloc(in->per_op, sz);
		in->iters = xrealloc(in->iters, sz);
		in->allocs = xrealloc(in->allocs, sz);
		in->alloc_bytes = xrealloc(in->alloc_bytes, sz);
		in->frees = xrealloc(in->frees, sz);
		for (size_t k = 0; k < nev; k++)
			in->ev[k] = xrealloc(in->ev[k], sz);
		in->cap = cap;
	}
	in->per_op[n] = timed(rn, ep) / (double)iters;
	in->iters[n] = (double)iters;
	in->allocs[n] = (double)ep->alloc.allocs / ops;
	in->alloc_bytes[n] = (double)ep->alloc.bytes / ops;
	in->frees[n] = (double)ep->alloc.frees / ops;
	for (size_t k = 0; k < nev; k++) {
		double v = ep->ev[k] - rn->ev_overhead[k] * in->threads;

		in->ev[k][n] = ep->ev_ok[k] ? (v > 0 ? v : 0) / ops : NAN;
	}
	in->nepochs = n + 1;
}

/* The progress bar (util/term.h: on a terminal only): benchmarks done,
 * and the epochs of the current one. */
static void progress(const struct lib_run *rn, struct progress *bar,
		     size_t done, const char *label, int round)
{
	double f = ((double)done + (round + 1.0) / (rn->o->epochs + 1.0)) /
		   (double)rn->ninsts;

	progress_update(bar, f, label);
}

void lib_measure(struct lib_run *rn)
{
	const struct lib_opts *o = rn->o;
	struct progress bar;
	size_t done = 0;
	bool *unit_done;
	size_t *members = xcalloc(rn->ninsts + 1, sizeof(size_t));
	struct rng rng;

	rng_seed(&rng, o->seed);
	progress_init(&bar);
	lib_events_probe(!o->no_counters);
	if (lib_events_count()) {
		lib_events_open(&main_ev);
		main_ev_open = true;
	}
	rn->alloc = lib_alloc_probe(!o->no_alloc_count);
	calibrate(rn);
	rn->epoch_target = lib_clock.resolution * 1000;
	if (rn->epoch_target < 20e-6)
		rn->epoch_target = 20e-6;
	if (rn->epoch_target > 0.1)
		rn->epoch_target = 0.1;
	if (o->min_time > 0 && o->min_time / o->epochs > rn->epoch_target)
		rn->epoch_target = o->min_time / o->epochs;
	unit_done = xcalloc(rn->ninsts + 1, sizeof(bool));
	for (size_t i = 0; i < rn->ninsts; i++) {
		size_t u = rn->insts[i].unit, nm = 0;

		if (unit_done[u])
			continue;
		unit_done[u] = true;
		for (size_t j = i; j < rn->ninsts; j++)
			if (rn->insts[j].unit == u)
				members[nm++] = j;
		for (size_t m = 0; m < nm; m++) {
			struct lib_inst *in = &rn->insts[members[m]];

			progress(rn, &bar, done + m, in->label, -1);
			in->base_iters = autotune(rn, in);
		}
		for (int r = 0; r < o->epochs; r++)
			for (size_t j = 0; j < nm; j++) {
				/* rotate by the round; every other round
				 * backwards */
				size_t at = (size_t)r / 2 % nm;
				size_t m = r % 2 ? (at + nm - 1 - j) % nm
						 : (at + j) % nm;
				struct lib_inst *in = &rn->insts[members[m]];
				uint64_t iters;
				struct epoch ep;

				if (in->failed || !in->base_iters)
					continue;
				iters = in->base_iters +
					rng_below(&rng, in->base_iters / 5 + 1);
				progress(rn, &bar, done + m, in->label, r);
				run_epoch(rn, in, iters, &ep);
				if (ep.ok)
					record(rn, in, iters, &ep);
			}
		done += nm;
	}
	progress_clear(&bar);
	if (main_ev_open) {
		lib_events_close(&main_ev);
		main_ev_open = false;
	}
	free(unit_done);
	free(members);
}
