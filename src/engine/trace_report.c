/*
 * What `yardstick trace` prints and stores: the zone table (per zone name:
 * count, total, self time, p50/p95/p99/max, share of the wall time), the
 * slowest instances, every thread's on-CPU and waiting time, and the
 * result of kind "trace" (one benchmark per zone name, `latency` per
 * instance) that `gate` judges.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/trace_run.h"
#include "config.h"
#include "engine/partial.h"
#include "measure/spawn.h"
#include "result/metrics.h"
#include "stats/stats.h"
#include "util/child.h"
#include "util/hashmap.h"
#include "util/strutil.h"
#include "util/term.h"

/* One zone name: its instances' durations (ns, in time order), their
 * total and their total self time. */
struct zone_stat {
	const char *name;
	double *dur;		/* the finished instances' durations */
	double *self;		/* ... and their self times */
	size_t n, cap, capself;
	double total, self_total;
	/* instances the program ended inside (no END): not in dur (their
	 * duration is unknown), the longest of their lower bounds (from
	 * the BEGIN to the program's end) */
	size_t unfinished;
	double unfinished_max;
};

struct zone_table {
	struct zone_stat *v;
	size_t n, cap;
	struct hashidx x;	/* v's index + 1 by the name's address (an
				 * imported trace may have a million) */
};

static struct zone_stat *stat_of(struct zone_table *zt, const char *name)
{
	uint64_t h = hash_u64((uint64_t)(uintptr_t)name), v;
	size_t pos;

	for (v = hashidx_first(&zt->x, h, &pos); v;
	     v = hashidx_next(&zt->x, h, &pos))
		if (zt->v[v - 1].name == name)	/* interned */
			return &zt->v[v - 1];
	zt->v = xgrow(zt->v, &zt->cap, zt->n + 1, sizeof(*zt->v));
	memset(&zt->v[zt->n], 0, sizeof(zt->v[0]));
	zt->v[zt->n].name = name;
	hashidx_add(&zt->x, h, zt->n + 1);
	return &zt->v[zt->n++];
}

/* A thread's open zones while the events are walked in start order. */
struct open_stack {
	uint32_t tid;
	size_t *ev;		/* indices into the trace's events */
	double *child;		/* the time of each one's direct children */
	size_t *at;		/* each one's index in its zone's dur, or
				 * SIZE_MAX: unfinished */
	size_t n, cap, capc, capat;
};

/* The stack of thread tid in v[0..n), found by x (index + 1 by tid). */
static struct open_stack *stack_of(struct open_stack **v, size_t *n,
				   size_t *cap, struct hashidx *x, uint32_t tid)
{
	uint64_t h = hash_u64(tid), k;
	size_t pos;

	for (k = hashidx_first(x, h, &pos); k; k = hashidx_next(x, h, &pos))
		if ((*v)[k - 1].tid == tid)
			return &(*v)[k - 1];
	*v = xgrow(*v, cap, *n + 1, sizeof(**v));
	memset(&(*v)[*n], 0, sizeof(**v));
	(*v)[*n].tid = tid;
	hashidx_add(x, h, *n + 1);
	return &(*v)[(*n)++];
}

/* Where zone e ends: its END, or for one the program ended inside, the
 * program's end t_end (its duration then a lower bound). */
static uint64_t zone_end(const struct trace_event *e, uint64_t t_end)
{
	if ((e->flags & TRACE_ZONE_UNFINISHED) && t_end > e->end)
		return t_end;
	return e->end;
}

static void close_top(const struct trace *t, struct open_stack *s,
		      struct zone_table *zt, uint64_t t_end)
{
	const struct trace_event *e = &t->ev[s->ev[s->n - 1]];
	double d = (double)(zone_end(e, t_end) - e->start);
	struct zone_stat *z = stat_of(zt, e->name);
	double self = d - s->child[s->n - 1];

	if (self < 0)
		self = 0;
	z->self_total += self;
	if (s->at[s->n - 1] != SIZE_MAX)
		z->self[s->at[s->n - 1]] = self;
	s->n--;
	if (s->n)
		s->child[s->n - 1] += d;
}

/*
 * The zones by name, in order of first appearance: durations in time
 * order (the order of their start), and self time (the duration less
 * that of the zones directly inside it on the same thread).
 */
static void build_table(const struct trace *t, uint64_t t_end,
			struct zone_table *zt)
{
	struct open_stack *st = NULL;
	size_t nst = 0, capst = 0;
	struct hashidx stx;

	memset(zt, 0, sizeof(*zt));
	hashidx_init(&stx);
	for (size_t i = 0; i < t->n; i++) {
		const struct trace_event *e = &t->ev[i];
		struct open_stack *s;
		struct zone_stat *z;

		if (e->kind != TRACE_ZONE)
			continue;
		s = stack_of(&st, &nst, &capst, &stx, e->tid);
		while (s->n && t->ev[s->ev[s->n - 1]].end <= e->start)
			close_top(t, s, zt, t_end);
		z = stat_of(zt, e->name);
		s->at = xgrow(s->at, &s->capat, s->n + 1, sizeof(size_t));
		s->at[s->n] = SIZE_MAX;
		if (e->flags & TRACE_ZONE_UNFINISHED) {
			double d = (double)(zone_end(e, t_end) - e->start);

			z->unfinished++;
			if (d > z->unfinished_max)
				z->unfinished_max = d;
			z->total += d;
		} else {
			z->dur = xgrow(z->dur, &z->cap, z->n + 1,
				       sizeof(double));
			z->self = xgrow(z->self, &z->capself, z->n + 1,
					sizeof(double));
			z->dur[z->n] = (double)(e->end - e->start);
			s->at[s->n] = z->n;
			z->total += z->dur[z->n];
			z->n++;
		}
		/* its self time is counted when it closes */
		s->ev = xgrow(s->ev, &s->cap, s->n + 1, sizeof(size_t));
		s->child = xgrow(s->child, &s->capc, s->n + 1, sizeof(double));
		s->ev[s->n] = i;
		s->child[s->n] = 0;
		s->n++;
	}
	for (size_t i = 0; i < nst; i++) {
		while (st[i].n)
			close_top(t, &st[i], zt, t_end);
		free(st[i].ev);
		free(st[i].child);
		free(st[i].at);
	}
	free(st);
	hashidx_free(&stx);
}

static void free_table(struct zone_table *zt)
{
	for (size_t i = 0; i < zt->n; i++) {
		free(zt->v[i].dur);
		free(zt->v[i].self);
	}
	free(zt->v);
	hashidx_free(&zt->x);
}

/* when the program ended: its end as the run saw it, else the trace's
 * last event */
static uint64_t end_ns(const struct trace_run *r)
{
	return r->t_end ? r->t_end : r->tr.last;
}

/* the wall time: the program's first thread's start to its end */
static uint64_t wall_ns(const struct trace_run *r)
{
	const struct trace *t = &r->tr;
	uint64_t start = t->nthreads ? t->threads[0].start : t->first;
	uint64_t end = r->t_end ? r->t_end : t->last;

	return end > start ? end - start : 0;
}

static void put_ms(FILE *fp, double ns)
{
	fprintf(fp, " %10.3f", ns / 1e6);
}

/* A duration of ns nanoseconds in the unit that suits it ("850 ns",
 * "1.234 ms"): zones may last nanoseconds or seconds. */
static void put_time(FILE *fp, double ns, int width)
{
	char buf[32];

	fputc(' ', fp);
	term_pad(fp, fmt_value(ns / 1e9, "s", buf, sizeof(buf)),
		 (size_t)width, true);
}

static void zone_table(const struct trace_run *r, struct zone_table *zt,
		       FILE *fp, bool color)
{
	double wall = (double)wall_ns(r);

	fprintf(fp, "%szones%s\n", term_bold(color), term_reset(color));
	fprintf(fp, "%s%-28s %8s %10s %10s %10s %10s %10s %10s %7s%s\n",
		term_dim(color), "zone", "count", "total", "self", "p50",
		"p95", "p99", "max", "wall%", term_reset(color));
	size_t unfinished = 0;

	for (size_t i = 0; i < zt->n; i++) {
		struct zone_stat *z = &zt->v[i];
		double *s = z->n ? stats_sorted_copy(z->dur, z->n) : NULL;

		term_pad(fp, z->name, 28, false);
		fprintf(fp, " %8zu", z->n);
		put_time(fp, z->total, 10);
		put_time(fp, z->self_total, 10);
		if (s) {
			put_time(fp, stats_percentile_sorted(s, z->n, 50), 10);
			put_time(fp, stats_percentile_sorted(s, z->n, 95), 10);
			put_time(fp, stats_percentile_sorted(s, z->n, 99), 10);
			put_time(fp, s[z->n - 1], 10);
		} else {
			fprintf(fp, " %10s %10s %10s %10s", "-", "-", "-",
				"-");
		}
		fprintf(fp, " %6.1f%%\n", wall > 0 ? 100 * z->total / wall : 0);
		unfinished += z->unfinished;
		free(s);
	}
	if (!unfinished)
		return;
	if (r->p->pid)
		fprintf(fp, "%sunfinished (open when the trace ended; not in "
			"count nor the percentiles, in total from their start "
			"to the trace's end):%s\n", term_dim(color),
			term_reset(color));
	else
		fprintf(fp, "%sunfinished (the program ended inside them; not "
			"in count nor the percentiles, in total from their "
			"start to the program's end):%s\n", term_dim(color),
			term_reset(color));
	for (size_t i = 0; i < zt->n; i++) {
		char buf[32];

		if (!zt->v[i].unfinished)
			continue;
		fputs("  ", fp);
		term_puts(fp, zt->v[i].name);
		fprintf(fp, ": %zu, the longest at least %s\n",
			zt->v[i].unfinished, fmt_value(zt->v[i].unfinished_max /
						       1e9, "s", buf,
						       sizeof(buf)));
	}
}

static int by_duration(const void *a, const void *b)
{
	const struct trace_event *x = *(const struct trace_event *const *)a;
	const struct trace_event *y = *(const struct trace_event *const *)b;
	uint64_t dx = x->end - x->start, dy = y->end - y->start;

	return dx > dy ? -1 : dx < dy ? 1 : (x->start > y->start) -
					    (x->start < y->start);
}

static const char *thread_name(const struct trace *t, uint32_t tid)
{
	for (size_t i = t->nthreads; i-- > 0;)
		if (t->threads[i].tid == tid && t->threads[i].name)
			return t->threads[i].name;
	return "";
}

static void slowest(const struct trace_run *r, FILE *fp, bool color)
{
	const struct trace *t = &r->tr;
	const struct trace_event **z = xcalloc(t->n + 1, sizeof(*z));
	uint64_t t0 = t->nthreads ? t->threads[0].start : t->first;
	size_t n = 0;

	/* the finished ones: an unfinished zone's duration is unknown */
	for (size_t i = 0; i < t->n; i++)
		if (t->ev[i].kind == TRACE_ZONE &&
		    !(t->ev[i].flags & TRACE_ZONE_UNFINISHED))
			z[n++] = &t->ev[i];
	qsort(z, n, sizeof(*z), by_duration);
	fprintf(fp, "%sslowest zones%s\n", term_bold(color),
		term_reset(color));
	fprintf(fp, "%s%-28s %12s %12s %8s  %s%s\n", term_dim(color), "zone",
		"start (ms)", "duration", "tid", "thread", term_reset(color));
	for (size_t i = 0; i < n && i < (size_t)r->p->top; i++) {
		term_pad(fp, z[i]->name, 28, false);
		fprintf(fp, " %12.3f", (double)(z[i]->start - t0) / 1e6);
		put_time(fp, (double)(z[i]->end - z[i]->start), 12);
		fprintf(fp, " %8" PRIu32 "  ", z[i]->tid);
		term_puts(fp, thread_name(t, z[i]->tid));
		fputc('\n', fp);
	}
	free(z);
}

/* A time in ms, or "?" when not measured. */
static void put_ms_known(FILE *fp, double ns, bool known)
{
	if (known)
		put_ms(fp, ns);
	else
		fprintf(fp, " %10s", "?");
}

/*
 * The width of the threads table's name column: its longest name, at
 * least 16 columns (a system name, /proc's comm, has 15 at most) and at
 * most THREAD_NAME_MAX, past which a name is cut. A Python thread's name
 * is threading's, "Thread-1 (process_request_thread)" for each of
 * http.server's handlers: 33 columns, which a fixed column of 16 let
 * push every figure of its row out from under its heading.
 */
#define THREAD_NAME_MAX 48

static size_t name_column(const struct trace *t)
{
	size_t w = 16;

	for (size_t i = 0; i < t->nthreads; i++) {
		char *s;

		if (!t->threads[i].name)
			continue;
		s = term_safe(t->threads[i].name);
		if (term_width(s) > w)
			w = term_width(s);
		free(s);
	}
	return w < THREAD_NAME_MAX ? w : THREAD_NAME_MAX;
}

static void threads(const struct trace_run *r, FILE *fp, bool color)
{
	const struct trace *t = &r->tr;
	int w = (int)name_column(t);

	fprintf(fp, "%sthreads (ms)%s\n", term_bold(color), term_reset(color));
	fprintf(fp, "%s%8s %8s %-*s %10s %10s %7s %10s %10s %10s %10s%s\n",
		term_dim(color), "pid", "tid", w, "name", "lifetime", "on-CPU",
		"on%", "blocked", "sch delay", "max delay", "preempted",
		term_reset(color));
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct trace_thread *th = &t->threads[i];
		double life = (double)(th->end - th->start);

		fprintf(fp, "%8" PRIu32 " %8" PRIu32 " ", th->pid, th->tid);
		term_cell(fp, th->name ? th->name : "", (size_t)w);
		put_ms(fp, life);
		put_ms(fp, (double)th->on_ns);
		fprintf(fp, " %6.1f%%", life > 0 ? 100 * th->on_ns / life : 0);
		put_ms(fp, (double)th->blocked_ns);
		put_ms_known(fp, (double)th->sched_delay_ns, t->wakeups);
		put_ms_known(fp, (double)th->sched_delay_max_ns, t->wakeups);
		put_ms(fp, (double)th->preempted_ns);
		fputc('\n', fp);
	}
	if (t->wakeups)
		fprintf(fp, "%sblocked: until the wake-up; sch delay: from the "
			"wake-up until it ran, waiting for a CPU (total and "
			"longest)%s\n", term_dim(color), term_reset(color));
	else
		fprintf(fp, "%ssch delay unknown (%s): blocked includes the "
			"wait for a CPU after the wake-up%s\n",
			term_dim(color), r->st.wakeups_why[0]
			? r->st.wakeups_why : "wake-ups not recorded",
			term_reset(color));
}

void trace_report(const struct trace_run *r, FILE *fp)
{
	const struct trace *t = &r->tr;
	bool color = term_use_color(fp);
	struct zone_table zt;

	fprintf(fp, "%strace%s of %.3f s%s%s%s: %zu thread%s, %zu event%s, %"
		PRIu64 " CPU samples; lost: %" PRIu64 " perf records, %" PRIu64
		" events past --max-events, %" PRIu64 " zone events\n",
		term_bold(color), term_reset(color), wall_ns(r) / 1e9,
		t->partial ? " (partial: " : "", t->partial ? t->partial : "",
		t->partial ? ")" : "", t->nthreads, plural_s(t->nthreads), t->n,
		plural_s(t->n), r->st.samples,
		r->st.lost, t->dropped,
		r->zones_lost);
	if (r->p->so.page_faults) {
		fprintf(fp, "page faults: %" PRIu64 " (", r->st.faults);
		for (size_t i = 0; i < t->nthreads; i++)
			fprintf(fp, "%s%" PRIu32 ": %" PRIu64, i ? ", " : "",
				t->threads[i].tid, t->threads[i].faults);
		fputs(")\n", fp);
	}
	if (r->zones_error)
		fprintf(fp, "yardstick trace: warning: the zone buffer could "
			"not be read: no zones\n");
	if (r->zones_corrupt)
		fprintf(fp, "yardstick trace: warning: the zones of %" PRIu64
			" threads stop at a malformed record\n",
			r->zones_corrupt);
	build_table(t, end_ns(r), &zt);
	if (zt.n) {
		zone_table(r, &zt, fp, color);
		slowest(r, fp, color);
	} else if (r->p->pid && r->zones_pid) {
		fprintf(fp, "no zones since the attach (the zone buffer of "
			"process %" PRIu32 " was read)\n", r->zones_pid);
	} else if (r->p->pid) {
		fprintf(fp, "no zones: process %" PRIu32 " has no zone buffer "
			"(libyardstick records zones only into a buffer handed "
			"to the program as it starts, YARDSTICK_TRACE_FD, which "
			"'yardstick trace -- PROGRAM' sets up; a process started "
			"otherwise records none, and none can be handed to it "
			"later: trace it with 'yardstick trace -- PROGRAM' for "
			"them)\n", r->p->pid);
	} else {
		fprintf(fp, "no zones (the program does not use "
			"libyardstick's zones)\n");
	}
	free_table(&zt);
	threads(r, fp, color);
}

/* ---- the result ---- */

void trace_zone_benchmarks(struct result *res, const struct trace *t,
			   uint64_t t_end, const char *prefix,
			   char *const *argv, bool attached)
{
	struct zone_table zt;

	build_table(t, t_end, &zt);
	for (size_t i = 0; i < zt.n; i++) {
		const struct zone_stat *z = &zt.v[i];
		char *name = prefix ? xasprintf("%s %s", prefix, z->name)
				    : xstrdup(z->name);
		struct benchmark *b = result_add_benchmark(res, name, argv);

		if (z->n) {
			struct metric *m = benchmark_metric(b, METRIC_LATENCY,
							    "s");

			for (size_t k = 0; k < z->n; k++)
				metric_push(m, z->dur[k] / 1e9);
			m = benchmark_metric(b, METRIC_SELF_TIME, "s");
			for (size_t k = 0; k < z->n; k++)
				metric_push(m, z->self[k] / 1e9);
		}
		if (z->unfinished)
			benchmark_add_warning(b, "unfinished: %zu instance%s "
					      "%s, left out of the values; "
					      "the longest ran at least %.9g s",
					      z->unfinished,
					      plural_s(z->unfinished),
					      attached ? "open when the trace "
							 "ended"
						       : "the program ended "
							 "inside",
					      z->unfinished_max / 1e9);
		free(name);
	}
	free_table(&zt);
}

void trace_build_result(struct trace_run *r)
{
	const struct trace_plan *a = r->p;
	struct result *res = &r->res;

	if (r->have_res)
		return;
	r->have_res = true;
	result_init(res, "trace");
	res->created = utc_timestamp();
	res->tool_version = xstrdup(YS_VERSION);
	machine_detect(&res->machine);
	res->git = r->git;
	memset(&r->git, 0, sizeof(r->git));
	result_set_num(res, "freq", a->so.freq);
	result_set_num(res, METRIC_WALL_TIME, wall_ns(r) / 1e9);
	result_set_num(res, "threads", (double)r->tr.nthreads);
	result_set_num(res, "lost_records", (double)r->st.lost);
	result_set_num(res, "dropped_events", (double)r->tr.dropped);
	result_set_num(res, "lost_zone_events", (double)r->zones_lost);
	/* a stop ends an attached trace as its duration does */
	if (!a->pid)
		result_mark_partial(res);
	trace_zone_benchmarks(res, &r->tr, end_ns(r), a->name, a->argv,
			      a->pid != 0);
	for (size_t i = 0; i < res->nbenchmarks; i++) {
		struct benchmark *b = &res->benchmarks[i];

		benchmark_push_exit(b, spawn_exit_code(r->st.status));
		if (r->zones_lost || r->tr.dropped)
			benchmark_add_warning(b, "incomplete: %" PRIu64
					      " zone events lost, %" PRIu64
					      " events dropped",
					      r->zones_lost, r->tr.dropped);
	}
	result_unique_names(res);
	result_summarize(res, 1, 1000);
}

int trace_write_result(const char *path, void *run, struct error *e)
{
	struct trace_run *r = run;

	trace_build_result(r);
	return result_write_json(&r->res, path, e);
}

/* ---- the operator table of an imported trace ---- */

static int by_self(const void *a, const void *b)
{
	const struct zone_stat *x = a, *y = b;

	if (x->self_total != y->self_total)
		return x->self_total > y->self_total ? -1 : 1;
	return strcmp(x->name, y->name);
}

void trace_ops_table(const struct trace *t, size_t top, FILE *fp)
{
	bool color = term_use_color(fp);
	struct zone_table zt;
	double self_all = 0, dur;

	build_table(t, t->last, &zt);
	for (size_t i = 0; i < zt.n; i++)
		self_all += zt.v[i].self_total;
	qsort(zt.v, zt.n, sizeof(*zt.v), by_self);
	fprintf(fp, "%s%-40s %10s %8s %10s %8s %10s %8s %10s %10s%s\n",
		term_dim(color), "operator", "self", "self%", "total",
		"total%", "avg", "count", "p50", "p99", term_reset(color));
	for (size_t i = 0; i < zt.n && i < top; i++) {
		const struct zone_stat *z = &zt.v[i];
		double *s = z->n ? stats_sorted_copy(z->dur, z->n) : NULL;

		term_pad(fp, z->name, 40, false);
		put_time(fp, z->self_total, 10);
		fprintf(fp, " %7.2f%%", self_all > 0
			? 100 * z->self_total / self_all : 0);
		put_time(fp, z->total, 10);
		fprintf(fp, " %7.2f%%", self_all > 0
			? 100 * z->total / self_all : 0);
		dur = z->n ? z->total / (double)z->n : 0;
		put_time(fp, dur, 10);
		fprintf(fp, " %8zu", z->n);
		put_time(fp, s ? stats_percentile_sorted(s, z->n, 50) : 0, 10);
		put_time(fp, s ? stats_percentile_sorted(s, z->n, 99) : 0, 10);
		fputc('\n', fp);
		free(s);
	}
	if (zt.n > top)
		fprintf(fp, "%s... %zu more operators (--top)%s\n",
			term_dim(color), zt.n - top, term_reset(color));
	fprintf(fp, "self time in all: %s\n",
		fmt_value(self_all / 1e9, "s", (char[32]){ 0 }, 32));
	free_table(&zt);
}
