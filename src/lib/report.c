/*
 * A run as a result v1 of kind "bench" (docs/result-format.md, section
 * `bench`), its comparisons (groups), its warnings, and the table on
 * stdout.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "lib/lib_internal.h"
#include "result/metrics.h"
#include "measure/machine.h"
#include "result/analyze.h"
#include "stats/judge.h"
#include "stats/stats.h"
#include "util/strutil.h"
#include "util/term.h"

#define RESAMPLES 1000
/* err% (MAD / median) beyond which a benchmark is called unstable */
#define UNSTABLE_PCT 5.0
#define FEW_EPOCHS 5
/* the warnings about the machine (the start of their text) */
#define GOVERNOR_WARNING "CPU frequency scaling is on"
#define PERF_WARNING "no perf counters"

static void metric_values(struct benchmark *b, const char *name,
			  const char *unit, const double *v, size_t n)
{
	struct metric *m = benchmark_metric(b, name, unit);

	for (size_t i = 0; i < n; i++)
		metric_push(m, v[i]);
}

/* The timed length of epoch i (seconds). */
static double epoch_length(const struct lib_inst *in, size_t i)
{
	return in->per_op[i] * in->iters[i];
}

/* Whether the median of in's epochs is too short to time: it then has a
 * warning, and no rates (neither in the result nor in the table). */
static bool lib_too_short(const struct lib_run *rn, const struct lib_inst *in)
{
	double *len, median;

	if (in->nepochs == 0)
		return false;
	len = xcalloc(in->nepochs, sizeof(double));
	for (size_t i = 0; i < in->nepochs; i++)
		len[i] = epoch_length(in, i);
	stats_sort(len, in->nepochs);
	median = stats_median_sorted(len, in->nepochs);
	free(len);
	return median < rn->epoch_target * LIB_SHORT_FRACTION;
}

/*
 * One value per epoch: work / time per op. An epoch shorter than the
 * clock's resolution has no rate (NaN). Returns false, adding nothing,
 * when a rate overflows a double (work 1e308 per iteration): the caller
 * warns.
 */
static bool metric_rate(struct benchmark *b, const char *name,
			const char *unit, const struct lib_inst *in,
			double work)
{
	double *v = xcalloc(in->nepochs + 1, sizeof(double));
	bool finite = true;

	for (size_t i = 0; i < in->nepochs; i++) {
		v[i] = work * in->threads / in->per_op[i];
		if (in->per_op[i] <= 0 ||
		    epoch_length(in, i) < lib_clock.resolution)
			v[i] = NAN;
		else if (!isfinite(v[i]))
			finite = false;
	}
	if (finite)
		metric_values(b, name, unit, v, in->nepochs);
	free(v);
	return finite;
}

/* The declared rates (each left out with a warning when it overflows),
 * and arithmetic intensity. */
static void add_rates(const struct lib_inst *in, struct benchmark *b)
{
	const struct {
		const char *metric, *unit, *call;
		double work;
	} rates[] = {
		{ METRIC_ITEMS_PER_SECOND, "items/s", "ys_set_items", in->items },
		{ METRIC_BYTES_PER_SECOND, "bytes/s", "ys_set_bytes", in->bytes },
		{ METRIC_FLOPS_PER_SECOND, "flop/s", "ys_set_flops", in->flops },
	};
	double ai = in->bytes > 0 ? in->flops / in->bytes : 0;

	for (size_t k = 0; k < sizeof(rates) / sizeof(rates[0]); k++)
		if (rates[k].work > 0 &&
		    !metric_rate(b, rates[k].metric, rates[k].unit, in,
				 rates[k].work))
			benchmark_add_warning(b, "%s(%g) overflows the rate: "
					      "%s left out (it exceeds %g)",
					      rates[k].call, rates[k].work,
					      rates[k].metric, DBL_MAX);
	if (in->flops > 0 && in->bytes > 0 && !isfinite(ai)) {
		benchmark_add_warning(b, "ys_set_flops(%g) / ys_set_bytes(%g) "
				      "overflows: arithmetic_intensity left "
				      "out", in->flops, in->bytes);
	} else if (in->flops > 0 && in->bytes > 0) {
		struct metric *m = benchmark_metric(b, "arithmetic_intensity",
						    "flop/byte");

		for (size_t i = 0; i < in->nepochs; i++)
			metric_push(m, ai);
	}
}

static void add_warnings(const struct lib_run *rn, const struct lib_inst *in,
			 struct benchmark *b, const char *governor)
{
	struct summary s;

	if (in->nepochs == 0)
		return;
	stats_summarize(in->per_op, in->nepochs, NULL, 0, &s);
	/* an epoch's timed time far below the target: the body's time did
	 * not grow with its iterations (up to their limit) */
	if (lib_too_short(rn, in)) {
		char target[64], res[64];

		fmt_value(rn->epoch_target * LIB_SHORT_FRACTION, "s", target,
			  sizeof(target));
		fmt_value(lib_clock.resolution, "s", res, sizeof(res));
		benchmark_add_warning(b, "the body took no measurable time "
				      "(its epochs last under %s, the "
				      "clock's resolution is %s): too short "
				      "to time, so no rate is given; the "
				      "compiler may have removed it; keep "
				      "its result alive with YS_KEEP(x) or "
				      "ys_keep(&x)", target, res);
	} else if (s.mad / s.median * 100 > UNSTABLE_PCT) {
		benchmark_add_warning(b, "unstable: time_per_op varies by "
				      "%.1f%% between epochs (MAD / median); "
				      "run it on an idle machine, pin it to a "
				      "CPU (taskset -c 1), or give it more "
				      "time with --min-time",
				      s.mad / s.median * 100);
	}
	if (in->nepochs < FEW_EPOCHS)
		benchmark_add_warning(b, "only %zu epochs: the median and its "
				      "interval are rough; use --epochs 11 or "
				      "more", in->nepochs);
	if (governor && strcmp(governor, "performance"))
		benchmark_add_warning(b, GOVERNOR_WARNING " "
				      "(governor '%s'): times vary with the "
				      "clock speed; set the governor to "
				      "'performance' (cpupower frequency-set "
				      "-g performance)", governor);
}

/* A metric the library did not measure is unsupported, unless the body
 * gave its values (ys_value: the Python package's allocation counts). */
static void unsupported_unless_given(const struct lib_inst *in,
				     struct benchmark *b, const char *metric)
{
	if (!lib_extra_find(in, metric))
		benchmark_add_unsupported(b, metric);
}

static void add_benchmark(const struct lib_run *rn, const struct lib_inst *in,
			  struct result *r)
{
	struct benchmark *b = result_add_benchmark(r, in->reg->name,
						   rn->o->argv);
	const char **unsup;
	size_t nunsup = lib_events_unsupported(&unsup);

	for (size_t k = 0; k < in->reg->nscans; k++)
		benchmark_add_param(b, in->reg->scans[k].name, in->values[k]);
	if (in->failed) {
		benchmark_add_warning(b, "failed: %s", in->failed);
		return;
	}
	metric_values(b, METRIC_TIME_PER_OP, "s", in->per_op, in->nepochs);
	metric_values(b, METRIC_ITERATIONS, "count", in->iters, in->nepochs);
	if (!lib_too_short(rn, in))
		add_rates(in, b);
	if (rn->alloc == LIB_ALLOC_COUNTED) {
		metric_values(b, METRIC_ALLOCS_PER_OP, "count", in->allocs,
			      in->nepochs);
		metric_values(b, METRIC_ALLOC_BYTES_PER_OP, "bytes",
			      in->alloc_bytes, in->nepochs);
		metric_values(b, "frees_per_op", "count", in->frees,
			      in->nepochs);
	} else {
		unsupported_unless_given(in, b, METRIC_ALLOCS_PER_OP);
		unsupported_unless_given(in, b, METRIC_ALLOC_BYTES_PER_OP);
		unsupported_unless_given(in, b, "frees_per_op");
	}
	for (size_t k = 0; k < in->nextra; k++)
		metric_values(b, in->extra[k].metric, in->extra[k].unit,
			      in->extra[k].v, in->extra[k].n);
	for (size_t k = 0; k < lib_events_count(); k++) {
		size_t counted = 0;

		for (size_t i = 0; i < in->nepochs; i++)
			counted += !isnan(in->ev[k][i]);
		if (counted)
			metric_values(b, lib_events_metric(k),
				      lib_events_unit(k), in->ev[k],
				      in->nepochs);
		else
			benchmark_add_unsupported(b, lib_events_metric(k));
	}
	for (size_t k = 0; k < nunsup; k++)
		benchmark_add_unsupported(b, unsup[k]);
	if (lib_events_warning())
		benchmark_add_warning(b, PERF_WARNING ": %s (or run with "
				      "--no-counters)", lib_events_warning());
	add_warnings(rn, in, b, r->machine.governor);
}

/* Each benchmark of a group against the group's first, per parameter
 * values (an interleaving unit). Benchmark i of r is instance i. */
static void add_comparisons(const struct lib_run *rn, struct result *r)
{
	struct analyze_pair *pairs = NULL;
	size_t n = 0, cap = 0;

	for (size_t i = 0; i < rn->ninsts; i++) {
		const struct lib_inst *base = &rn->insts[i];
		bool first = true;

		for (size_t j = 0; j < i; j++)
			if (rn->insts[j].unit == base->unit)
				first = false;
		if (!first || !base->reg->group)
			continue;
		for (size_t j = i + 1; j < rn->ninsts; j++) {
			if (rn->insts[j].unit != base->unit)
				continue;
			pairs = xgrow(pairs, &cap, n + 1, sizeof(*pairs));
			pairs[n++] = (struct analyze_pair){
				&r->benchmarks[i], &r->benchmarks[j],
				METRIC_TIME_PER_OP };
		}
	}
	analyze_compare(r, pairs, n, JUDGE_ALPHA, NULL);
	free(pairs);
}

/* True when instances a and b differ at most in the value of scan s. */
static bool same_but(const struct lib_inst *a, const struct lib_inst *b,
		     size_t s)
{
	if (a->reg != b->reg)
		return false;
	for (size_t k = 0; k < a->reg->nscans; k++)
		if (k != s && strcmp(a->values[k], b->values[k]))
			return false;
	return true;
}

/* The complexity fit of time_per_op over each numeric parameter with 3
 * values or more, as `run` fits wall_time: named after the benchmark
 * with the values of its other parameters. */
static void add_fits(const struct lib_run *rn, struct result *r)
{
	size_t *idx = xcalloc(rn->ninsts + 1, sizeof(size_t));
	double *xs = xcalloc(rn->ninsts + 1, sizeof(double));

	for (size_t i = 0; i < rn->ninsts; i++) {
		const struct lib_reg *reg = rn->insts[i].reg;

		for (size_t s = 0; s < reg->nscans; s++) {
			size_t k = 0;
			bool short_one = false;
			char *name;

			if (!reg->scans[s].numeric || reg->scans[s].n < 3 ||
			    !strcmp(reg->scans[s].name, "threads"))
				continue;
			/* the first instance of its series only */
			for (size_t m = 0; m < i && k == 0; m++)
				k = same_but(&rn->insts[m], &rn->insts[i], s);
			if (k)
				continue;
			for (size_t m = i; m < rn->ninsts; m++) {
				if (!same_but(&rn->insts[i], &rn->insts[m], s))
					continue;
				/* no fit through times too short to tell */
				if (lib_too_short(rn, &rn->insts[m]))
					short_one = true;
				idx[k] = m;
				parse_double(rn->insts[m].values[s], &xs[k]);
				k++;
			}
			name = xstrdup(reg->name);
			for (size_t o = 0; o < reg->nscans; o++) {
				char *next;

				if (o == s)
					continue;
				next = xasprintf("%s [%s=%s]", name,
						 reg->scans[o].name,
						 rn->insts[i].values[o]);
				free(name);
				name = next;
			}
			if (k >= 3 && !short_one)
				analyze_fit(r, name, reg->scans[s].name,
					    METRIC_TIME_PER_OP, idx, xs, k);
			free(name);
		}
	}
	free(idx);
	free(xs);
}

void lib_result(const struct lib_run *rn, struct result *r)
{
	const struct lib_opts *o = rn->o;

	result_init(r, "bench");
	r->created = utc_timestamp();
	r->tool_version = xstrdup(YS_VERSION);
	machine_detect(&r->machine);
	git_detect(&r->git);
	result_set_str(r, "clock", lib_clock.kind == LIB_CLOCK_TSC
					   ? "tsc" : "monotonic");
	result_set_str(r, "tsc_invariant", lib_clock.tsc_invariant ? "yes"
								   : "no");
	if (lib_clock.kind == LIB_CLOCK_TSC)
		result_set_num(r, "tsc_hz", 1 / lib_clock.tick);
	result_set_num(r, "clock_resolution", lib_clock.resolution);
	result_set_num(r, "loop_overhead", rn->overhead);
	result_set_num(r, "loop_cost_per_iteration", rn->loop_cost);
	result_set_num(r, "epoch_target", rn->epoch_target);
	result_set_num(r, "epochs", o->epochs);
	result_set_num(r, "min_time", o->min_time);
	result_set_str(r, "allocations", lib_alloc_setting(rn->alloc));
	result_set_num(r, "seed", (double)o->seed);
	result_set_num(r, "bootstrap_resamples", RESAMPLES);
	result_set_num(r, "alpha", JUDGE_ALPHA);
	for (size_t i = 0; i < rn->ninsts; i++)
		add_benchmark(rn, &rn->insts[i], r);
	result_unique_names(r);
	add_comparisons(rn, r);
	result_summarize(r, o->seed, RESAMPLES);
	add_fits(rn, r);
}

/* ---- the table ---- */

/* Whether w is about the machine, not the benchmark (said once when
 * every benchmark has it); any other warning names its benchmark. */
static bool machine_wide(const char *w)
{
	return !strncmp(w, GOVERNOR_WARNING, strlen(GOVERNOR_WARNING)) ||
	       !strncmp(w, PERF_WARNING, strlen(PERF_WARNING));
}

/* Whether every benchmark of r (more than one) has warning w, a warning
 * about the machine. */
static bool on_every(const struct result *r, const char *w)
{
	if (r->nbenchmarks < 2 || !machine_wide(w))
		return false;
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		bool has = false;

		for (size_t k = 0; k < r->benchmarks[i].nwarnings && !has; k++)
			has = !strcmp(r->benchmarks[i].warnings[k], w);
		if (!has)
			return false;
	}
	return true;
}

static void cell(FILE *out, const char *s, size_t width)
{
	term_pad(out, s, width, true);
}

void lib_print_table(const struct lib_run *rn, const struct result *r,
		     FILE *out)
{
	size_t w = 9;
	char buf[64], buf2[64], line[160];

	for (size_t i = 0; i < r->nbenchmarks; i++) {
		size_t n = term_width(r->benchmarks[i].name);

		if (n > w)
			w = n;
	}
	if (w > 48)
		w = 48;
	term_cell(out, "benchmark", w);
	fprintf(out, "  %11s %6s  %-23s %11s %15s %10s %9s\n", "time/op", "err%",
	       "95% CI of the median", "op/s", "throughput", "allocs/op",
	       "epochs");
	for (size_t i = 0; i < r->nbenchmarks; i++) {
		const struct benchmark *b = &r->benchmarks[i];
		const struct metric *t = benchmark_find_metric(b, METRIC_TIME_PER_OP);
		const struct metric *al =
			benchmark_find_metric(b, METRIC_ALLOCS_PER_OP);
		const struct metric *rate = metrics_rate_of(b);

		term_cell(out, b->name, w);
		fputs("  ", out);
		if (!t || !metric_has_summary(t)) {
			fprintf(out, "%11s\n", "failed");
		} else {
			const struct summary *s = &t->summary;

			cell(out, fmt_value(s->median, "s", buf, sizeof(buf)), 11);
			snprintf(line, sizeof(line), "%.1f%%",
				 s->median > 0 ? s->mad / s->median * 100 : 0);
			cell(out, line, 7);
			fmt_value(s->median_ci[0], "s", buf, sizeof(buf));
			fmt_value(s->median_ci[1], "s", buf2, sizeof(buf2));
			snprintf(line, sizeof(line), "  [%s, %s]", buf, buf2);
			fprintf(out, "%-25s", line);
			if (s->median > 0 &&
			    !lib_too_short(rn, &rn->insts[i])) {
				fmt_value(rn->insts[i].threads / s->median,
					  "count", buf, sizeof(buf));
				cell(out, buf, 11);
			} else {
				cell(out, "-", 11);
			}
			if (rate) {
				fmt_value(rate->summary.median, rate->unit,
					  line, sizeof(line));
				fprintf(out, " ");
				cell(out, line, 15);
			} else {
				fprintf(out, " ");
				cell(out, "-", 15);
			}
			if (al) {
				snprintf(line, sizeof(line), "%.4g",
					 al->summary.median);
				fprintf(out, " ");
				cell(out, line, 10);
			} else {
				fprintf(out, " ");
				cell(out, "-", 10);
			}
			snprintf(line, sizeof(line), "%zu", t->n);
			fprintf(out, " ");
			cell(out, line, 9);
			fputc('\n', out);
		}
		for (size_t k = 0; k < b->nwarnings; k++) {
			bool all = on_every(r, b->warnings[k]);

			/* one said of every benchmark is said once */
			if (all && i > 0)
				continue;
			fputs("warning: ", stderr);
			if (!all) {
				fputc('\'', stderr);
				term_puts(stderr, b->name);
				fputs("': ", stderr);
			}
			term_puts(stderr, b->warnings[k]);
			fputc('\n', stderr);
		}
	}
	for (size_t i = 0; i < r->nfits; i++) {
		const struct complexity_fit *f = &r->fits[i];

		fputs(i == 0 ? "\n" : "", out);
		term_puts(out, f->name);
		fprintf(out, ": %s in ", stats_complexity_name(f->best.model));
		term_puts(out, f->parameter);
		fprintf(out, " (R² %.3f)\n", f->best.r2);
	}
	for (size_t i = 0; i < r->ncomparisons; i++) {
		char *s = comparison_sentence(&r->comparisons[i]);

		if (i == 0)
			fputc('\n', out);
		term_puts(out, s);
		fputc('\n', out);
		free(s);
	}
}
